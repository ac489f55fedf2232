"""Kernels compiled before a search's clock starts.

numba compiles a kernel the first time it is called (or loads it from the on-disk cache,
which takes a moment too). A search that did that inside its think time spent it
compiling: on a cold start a 200 ms search compiled for minutes and answered with no
move at all. So before a search starts its clock, :func:`ensure_compiled` runs the
algorithm's kernels once on a scratch worker of its own — a few iterations, one traced
step, a snapshot's reads and tree reuse — and remembers, per process, that it did.

A second thread asking for the same kernels meanwhile (a game started while the
server's warm-up compiles its algorithm) waits for that compile, off its clock too.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from engine.core.state import GAME
from engine.search.algorithm import Algorithm, SearchWorker
from engine.search.tree import top_nodes

#: Work of the scratch search: MCTS iterations each reach a leaf; alpha-beta's
#: "iterations" are nodes, and 2,000 of them reach its quiescence search.
SCRATCH_ITERATIONS = 64
SCRATCH_NODES = 2000
SCRATCH_BUDGET = 1 << 16

_done: set[tuple[str, int]] = set()
_locks: dict[tuple[str, int], threading.Lock] = {}
_guard = threading.Lock()


def is_compiled(algorithm: type[Algorithm], root: np.ndarray) -> bool:
    """Whether this process has compiled ``algorithm``'s kernels for ``root``'s game."""
    return (algorithm.name, int(root[GAME])) in _done


def ensure_compiled(algorithm: type[Algorithm], root: np.ndarray, params: dict[str, Any]) -> None:
    """Compile (or load) every kernel a search of ``algorithm`` from a position of
    ``root``'s game runs, unless this process already has; ``params`` are the search's
    own (validated), so the scratch search takes the kernels' paths it will take."""
    key = (algorithm.name, int(root[GAME]))
    if key in _done:
        return
    with _guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        if key in _done:
            return
        _scratch_search(algorithm, root, params)
        _done.add(key)


def _scratch_search(algorithm: type[Algorithm], root: np.ndarray, params: dict[str, Any]) -> None:
    stop = np.zeros(1, dtype=np.uint8)
    worker: SearchWorker = algorithm.make_worker(root.copy(), params, 0, 0, SCRATCH_BUDGET)
    worker.run(SCRATCH_ITERATIONS if algorithm.mcts else SCRATCH_NODES, stop)
    worker.step(stop)
    children = worker.root_children()
    for node, _ in children[:1]:
        worker.principal_variation(node, 4)
    tree = getattr(worker, "tree", None)
    if tree is not None:
        top_nodes(tree.arrays, 8, 8)
    if children:
        worker.advance(children[0][1].move)
