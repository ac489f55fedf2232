"""A search's speed at a fixed amount of work, and a fingerprint of what it found.

A change meant to make a search faster without changing it must leave the fingerprint
as it was (every root move's visits and value, in every position) while the rate goes
up. Run it on two checkouts, alternating, on an otherwise idle machine::

    python scripts/search_speed.py [--algorithm mcts] [--work 3000] [--rounds 3]
    PYTHONPATH=/tmp/canopy-base python scripts/search_speed.py

The positions are the tactics suite's winning captures (``tests/data/tactics.epd``:
middlegames and endings from Canopy's own games) and two openings. ``--work`` is
iterations per position, or nodes for ``alphabeta``. Each search starts from scratch
(a fresh tree and tables) with seed 0, so the same code gives the same fingerprint.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from pathlib import Path

from engine.search.controller import SearchController
from engine.search.tactics import load_tactics

SUITE = Path(__file__).resolve().parent.parent / "tests" / "data" / "tactics.epd"
OPENINGS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
)


def positions(count: int) -> list[str]:
    captures = [t.fen for t in load_tactics(SUITE) if t.kind == "capture"]
    return [*OPENINGS, *captures[:count]]


def one_round(algorithm: str, fens: list[str], work: int) -> tuple[float, str]:
    """Seconds spent searching (set-up excluded) and the results' fingerprint."""
    digest = hashlib.sha1()
    seconds = 0.0
    for fen in fens:
        controller = SearchController(
            "chess", fen, algorithm=algorithm, params={}, seed=0, tree_size=0
        )
        try:
            limit = {"nodes": work} if algorithm == "alphabeta" else {"iterations": work}
            start = time.perf_counter()
            info = controller.search(**limit)
            seconds += time.perf_counter() - start
        finally:
            controller.close()
        digest.update(repr([(m.move, m.visits, round(m.eval, 9)) for m in info.moves]).encode())
    return seconds, digest.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algorithm", default="mcts")
    parser.add_argument("--work", type=int, default=3000, help="iterations (alphabeta: nodes)")
    parser.add_argument("--positions", type=int, default=10, help="captures from the suite")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    fens = positions(args.positions)
    one_round(args.algorithm, fens[:1], 100)  # compile or load the kernels first
    rates, prints = [], set()
    for _ in range(args.rounds):
        seconds, fingerprint = one_round(args.algorithm, fens, args.work)
        rates.append(len(fens) * args.work / seconds)
        prints.add(fingerprint)
    unit = "nodes/s" if args.algorithm == "alphabeta" else "it/s"
    print(
        f"{args.algorithm}: {len(fens)} positions x {args.work}, rounds "
        + ", ".join(f"{r:,.0f}" for r in rates)
        + f" {unit} (median {statistics.median(rates):,.0f}); fingerprint {', '.join(prints)}"
    )


if __name__ == "__main__":
    main()
