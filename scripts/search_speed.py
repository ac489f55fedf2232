"""A search's speed at a fixed amount of work, and a fingerprint of what it found.

A change meant to make a search faster without changing it must leave the fingerprint
as it was (every root move's visits and value, in every position) while the rate goes
up. Run it on two checkouts, alternating, on an otherwise idle machine::

    python scripts/search_speed.py [--algorithm mcts] [--work 3000] [--rounds 3]
    PYTHONPATH=/tmp/canopy-base python scripts/search_speed.py

The chess positions are the tactics suite's winning captures (``tests/data/tactics.epd``:
middlegames and endings from Canopy's own games) and two openings; ``--game knight``
searches the knight-chess start and three positions from one self-play game of it
(the evaluation there reads the ply, so a change must keep that too). ``--work`` is
iterations per position, or nodes for ``alphabeta``. Each position's search starts from
scratch (a fresh tree and tables) with seed 0, so the same code gives the same
fingerprint. ``--plies N`` plays each position on N moves, every one searched with the
same work and with what the search kept from the move before (tree, tables, caches), as
in a game: a change to what is kept shows there, where a fresh search would not meet it.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from pathlib import Path

from canopy.cli import UsageError, parse_params
from engine.explain.tactics import load_tactics
from engine.search.controller import SearchController

SUITE = Path(__file__).resolve().parent.parent / "tests" / "data" / "tactics.epd"
OPENINGS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
)
KNIGHT_POSITIONS = (
    "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1",
    "nnnnnnn1/nn1n1nn1/5nn1/3n4/8/1N2N3/NNNNNNNN/2N1NNNN w - - 2 5",
    "1nnnnnn1/nn1n1nn1/6n1/8/8/1N2n3/NN1NNNNN/2N1N1NN w - - 0 9",
    "2n1n1n1/nn1n1nn1/2n1n1n1/8/6N1/1N2N3/1N1NNN2/2N1N1NN b - - 1 12",
)


def positions(count: int) -> list[str]:
    captures = [t.fen for t in load_tactics(SUITE) if t.kind == "capture"]
    return [*OPENINGS, *captures[:count]]


def one_round(
    algorithm: str,
    fens: list[str],
    work: int,
    game: str = "chess",
    plies: int = 0,
    params: dict[str, str] | None = None,
) -> tuple[float, str, int]:
    """Seconds spent searching (set-up excluded), the results' fingerprint and how many
    searches ran (a game that ends early runs fewer than its plies ask). With
    ``plies``, each position is played on that many moves, each searched with the same
    work and the kept tree and tables, as in a game: what a search carries from move to
    move (the tree, the tables, the caches) must not change what it finds either."""
    digest = hashlib.sha1()
    seconds = 0.0
    searches = 0
    limit = {"nodes": work} if algorithm == "alphabeta" else {"iterations": work}
    for fen in fens:
        controller = SearchController(
            game, fen, algorithm=algorithm, params=params or {}, seed=0, tree_size=0
        )
        try:
            for ply in range(plies + 1):
                start = time.perf_counter()
                info = controller.search(**limit)
                seconds += time.perf_counter() - start
                searches += 1
                digest.update(
                    repr([(m.move, m.visits, round(m.eval, 9)) for m in info.moves]).encode()
                )
                if ply == plies or not info.bestmove:
                    break
                controller.play(info.bestmove)
        finally:
            controller.close()
    return seconds, digest.hexdigest()[:16], searches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algorithm", default="mcts")
    parser.add_argument("--game", choices=("chess", "knight"), default="chess")
    parser.add_argument("--work", type=int, default=3000, help="iterations (alphabeta: nodes)")
    parser.add_argument("--positions", type=int, default=10, help="captures from the suite")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--plies", type=int, default=0, help="moves played on from each position (0: none)"
    )
    parser.add_argument(
        "--param", action="append", default=[], metavar="K=V", help="a search parameter"
    )
    args = parser.parse_args()
    try:
        params = parse_params(args.param)
    except UsageError as exc:
        parser.error(str(exc))
    fens = positions(args.positions) if args.game == "chess" else list(KNIGHT_POSITIONS)
    one_round(args.algorithm, fens[:1], 100, args.game, 0, params)  # compile or load kernels
    rates, prints = [], set()
    for _ in range(args.rounds):
        seconds, fingerprint, searches = one_round(
            args.algorithm, fens, args.work, args.game, args.plies, params
        )
        rates.append(searches * args.work / seconds)
        prints.add(fingerprint)
    unit = "nodes/s" if args.algorithm == "alphabeta" else "it/s"
    print(
        f"{args.algorithm} ({args.game}): {len(fens)} positions x {args.work}, rounds "
        + ", ".join(f"{r:,.0f}" for r in rates)
        + f" {unit} (median {statistics.median(rates):,.0f}); fingerprint {', '.join(prints)}"
    )


if __name__ == "__main__":
    main()
