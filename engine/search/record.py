"""What one traced step of a search leaves behind: the raw numbers, no words.

:meth:`SearchController.step <engine.search.controller.SearchController.step>` runs
exactly one iteration (alphabeta: one more depth) with the kernel's trace on and returns
a :class:`StepRecord`: the statistics of the tree's nodes copied *before* the step (so an
explanation can recompute each sibling's formula from the values the kernel compared),
the path walked, the nodes created, the leaf's status and reward. ``engine.explain``
turns a record into the step view; the search never needs to know how.

The record points at the worker it ran on (its tree *after* the step, and the scratch the
kernel wrote the trace into): it is read at once, before anything else runs on that
controller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from engine.search.codes import (
    DONE,
    F_REWARD,
    T_FIRST_NEW,
    T_NEW_COUNT,
    T_PATH_LEN,
    T_SIM_STATUS,
)

if TYPE_CHECKING:
    from engine.rules.san import SanCache
    from engine.search.algorithm import Algorithm, SearchWorker, Worker


def _empty() -> np.ndarray:
    return np.zeros(0)


@dataclass(frozen=True)
class StepRecord:
    """One step as the search ran it.

    ``iterations``: 1 if an iteration ran (0 when ``code`` says why none could); for a
    search that deepens, the nodes the new depth searched. The ``before_*`` arrays hold
    the first ``used`` nodes' visits, value sums, values and flags before the step (tree
    searches only); ``created`` the new nodes in id order; ``status`` the leaf's
    ``T_SIM_STATUS`` and ``reward`` its ``F_REWARD`` (for the side that moved into it).
    """

    algorithm: type[Algorithm]
    params: dict[str, Any]
    worker: SearchWorker
    sans: SanCache  # the controller's SAN of its tree's nodes
    thread: int
    iteration: int  # this step's index in the search (0 = the first)
    code: int  # the batch kernel's code (DONE when the step ran)
    iterations: int
    used: int = 0
    before_visits: np.ndarray = field(default_factory=_empty, repr=False)
    before_sum: np.ndarray = field(default_factory=_empty, repr=False)
    before_value: np.ndarray = field(default_factory=_empty, repr=False)
    before_flags: np.ndarray = field(default_factory=_empty, repr=False)
    path: tuple[int, ...] = ()
    created: tuple[int, ...] = ()
    status: int = 0
    reward: float = 0.0
    depth_before: int = 0  # a search that deepens: its last completed depth before the step


def record_step(
    algorithm: type[Algorithm],
    params: dict[str, Any],
    worker: SearchWorker,
    stop: np.ndarray,
    sans: SanCache,
    iteration: int,
) -> StepRecord:
    """Run one step on ``worker`` with its trace recorded, and keep what it did."""
    base: dict[str, Any] = {
        "algorithm": algorithm,
        "params": params,
        "worker": worker,
        "sans": sans,
        "thread": worker.thread,
        "iteration": iteration,
    }
    if not algorithm.tree:  # one more depth of iterative deepening
        deep: Any = worker
        depth_before, nodes_before = int(deep.completed_depth), int(deep.iterations)
        code = worker.step(stop)
        return StepRecord(
            **base,
            code=code,
            iterations=int(worker.iterations - nodes_before),
            depth_before=depth_before,
        )
    tree = cast("Worker", worker).tree
    used = tree.used
    before = {
        "before_visits": tree.visits[:used].copy(),
        "before_sum": tree.value_sum[:used].copy(),
        "before_value": tree.value[:used].copy(),
        "before_flags": tree.flags[:used].copy(),
    }
    code = worker.step(stop)
    if code != DONE:
        return StepRecord(**base, code=code, iterations=0, used=used, **before)
    info, finfo = cast("Worker", worker).info, cast("Worker", worker).finfo
    first_new, new_count = int(info[T_FIRST_NEW]), int(info[T_NEW_COUNT])
    return StepRecord(
        **base,
        code=code,
        iterations=1,
        used=used,
        **before,
        path=tuple(int(n) for n in cast("Worker", worker).path[: int(info[T_PATH_LEN])]),
        created=tuple(range(first_new, first_new + new_count)) if first_new >= 0 else (),
        status=int(info[T_SIM_STATUS]),
        reward=float(finfo[F_REWARD]),
    )
