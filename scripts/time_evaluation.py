"""Cost of one call of the static evaluation, in nanoseconds, per game.

Run it against any checkout to compare evaluations (the numbers in
docs/algorithms.md, Evaluation, came from this script run on the tree before the
feature evaluation and on the tree after it)::

    python scripts/time_evaluation.py [--positions 20000] [--repeats 50]
    PYTHONPATH=/tmp/canopy-base python scripts/time_evaluation.py

Positions are taken from seeded random games (uniform moves from the start
position, 10 to 80 plies deep), so both checkouts time the same positions.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from engine.core.bits import new_rng, rng_below
from engine.core.games import legal_moves, make_move, status
from engine.core.state import MAX_MOVES, ONGOING, STATE_SIZE
from engine.eval.evaluate import centipawns
from engine.rules.convert import state_from_fen


@njit(cache=True, nogil=True)
def random_positions(root: np.ndarray, count: int, rng: np.ndarray) -> np.ndarray:
    out = np.zeros((count, STATE_SIZE), dtype=np.uint64)
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    i = 0
    while i < count:
        s = root.copy()
        depth = 10 + rng_below(rng, 71)
        for _ in range(depth):
            n = legal_moves(s, moves)
            if status(s, n) != ONGOING:
                break
            make_move(s, moves[rng_below(rng, n)])
        n = legal_moves(s, moves)
        if status(s, n) == ONGOING:
            out[i] = s
            i += 1
    return out


@njit(cache=True, nogil=True)
def evaluate_all(states: np.ndarray, repeats: int) -> float:
    total = 0.0
    for _ in range(repeats):
        for i in range(states.shape[0]):
            total += centipawns(states[i])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for game in ("chess", "knight"):
        states = random_positions(state_from_fen(None, game), args.positions, new_rng(args.seed))
        evaluate_all(states, 1)  # compile and warm the caches
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            evaluate_all(states, args.repeats)
            best = min(best, time.perf_counter() - start)
        ns = best / (args.positions * args.repeats) * 1e9
        print(f"{game}: {ns:.0f} ns per evaluation (best of 5, {args.positions} positions)")


if __name__ == "__main__":
    main()
