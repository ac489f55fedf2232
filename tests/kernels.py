"""Compile every numba kernel once before a parallel test run, on two cores at once.

With ``pytest -n`` (``make test``) each worker is a process of its own. In a fresh clone
(a cold numba cache: engine/__init__.py) each worker would compile the kernels its first
test needs, the same kernels in both at once, and so would every server and engine
process a test starts meanwhile. So the run's first process has them compiled before any
worker starts (tests/conftest.py), by two processes: one compiles ``mcts``'s kernels, the
larger half of the work, the other every other algorithm's. With a warm cache this is the
few seconds it takes to load them.

``python -m tests.kernels mcts`` warms only ``mcts``; ``python -m tests.kernels --except
mcts`` every other algorithm (each with the move generation, perft and playouts).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The algorithm compiled apart from the rest: the larger share of a cold compile (measured
#: 2026-12-07 at 90d03c2: engine.warm.warm() takes 142 s of CPU in one process; split, the
#: process compiling mcts's kernels took 107 s and the other 70 s).
APART = "mcts"


def compile_on_two_cores() -> float:
    """Warm the kernels of ``APART`` and of the rest in two processes; their wall time."""
    start = time.perf_counter()
    shares = ([APART], ["--except", APART])
    procs = [
        subprocess.Popen([sys.executable, "-m", "tests.kernels", *share], cwd=REPO)
        for share in shares
    ]
    failed = [" ".join(p.args[2:]) for p in procs if p.wait() != 0]
    if failed:
        raise RuntimeError(f"compiling the kernels failed: python -m {failed}")
    return time.perf_counter() - start


def warm_share(names: list[str], *, others: bool = False) -> None:
    """engine.warm.warm() over these algorithms only (or, ``others``, all but these)."""
    import engine.warm

    every = engine.warm.ALGORITHMS
    chosen = {n: a for n, a in every.items() if (n in names) != others}
    engine.warm.ALGORITHMS = chosen  # the module's own name for the registry, read by warm()
    try:
        engine.warm.warm()
    finally:
        engine.warm.ALGORITHMS = every


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--except"]:
        warm_share(args[1:], others=True)
    else:
        warm_share(args)
