#!/usr/bin/env python3
"""Probe one setting's move quality: average centipawn loss against Stockfish.

Plays one move from a fresh tree in each of a fixed set of game positions (every fifth
position between plies 16 and 100 of the games given, 300 by default; with ``--reuse``
after searching the position two plies before and keeping the tree, as in a game) and
scores it by Stockfish at a fixed depth against Stockfish's own best move
(``engine.match.probe``). The games are PGN files (``--pgn``) or matches of the records
(``--match ID``, read from docs/results/). A quicker, quieter screen than a match for what
to match, and only a screen: it ranked ``mcts:cut=true`` best of the settings it screened,
and ``cut`` lost its paired matches (docs/results.md, "What was tried"). Strength is quoted
only from ``canopy match``. Timed, so run one probe per core and nothing else beside it::

    .venv/bin/python scripts/probe_moves.py --algo mcts --label mcts-300 \\
        --match 126 127 128 129 --out /tmp/probe
    .venv/bin/python scripts/probe_moves.py --algo alphabeta --label ab-300 --compare mcts-300 ...

With ``--out DIR`` each run is kept as ``DIR/LABEL.json`` and Stockfish's scores in
``DIR/referee-cache.json``; ``--compare LABEL`` prints the paired difference with an
earlier run on the same positions.

With ``--lost NAME`` the positions are instead those where the engine of that name (in the
PGNs' White and Black tags) played a move the referee scores ``--min-loss`` centipawns or
more below its own best — the moves a match was lost on — and the run also says how many
of those moves the setting plays again. Those positions were chosen by the default's
mistakes, so a change is ranked by what it mends there, not by what it costs elsewhere:
``rescore_visits=8`` repeated fewest of them (172 of 318 against 201) and lost 9 points a
game in its paired match (docs/results.md, "What was tried"). Probe a control set beside it
(``--every 17``, the same games) before matching a candidate; the shipped default's games
against Stockfish's ``UCI_Elo`` 2000, seeds 21 to 26, are records 307 310 313 316 360 361::

    .venv/bin/python scripts/probe_moves.py --lost mcts --min-loss 150 --depth 10 \\
        --match 307 310 313 316 360 361 --out /tmp/probe
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from itertools import chain
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import chess.pgn  # noqa: E402

from engine.match.probe import (  # noqa: E402
    ProbeResult,
    UciReferee,
    chosen_moves,
    lost_positions,
    paired_difference,
    probe_positions,
    read_pgn,
    score_moves,
)
from scripts.match_records import RESULTS, read_records  # noqa: E402

STOCKFISH = "/usr/games/stockfish"


def match_games(ids: list[str]) -> Iterator[chess.pgn.Game]:
    """The games of these records, match by match in the order given."""
    rows = {r["id"]: r for r in read_records(RESULTS / "matches.csv")}
    for match in ids:
        if not rows.get(match, {}).get("pgn"):
            raise SystemExit(f"no games kept for record {match!r}")
        yield from (
            game
            for game in read_pgn(RESULTS / rows[match]["pgn"])
            if game.headers.get("Match") == match
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algo", default="mcts")
    ap.add_argument("--param", action="append", default=[], metavar="K=V")
    ap.add_argument("--movetime", type=float, default=300.0, help="ms per position (300)")
    ap.add_argument("--pgn", action="append", default=[], type=Path, help="games to probe")
    ap.add_argument("--match", nargs="+", default=[], metavar="ID", help="records' games")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--every", type=int, default=5, help="every n-th position (without --lost)")
    ap.add_argument("--lost", metavar="NAME", help="the positions where NAME lost --min-loss cp")
    ap.add_argument("--min-loss", type=int, default=100, help="with --lost: centipawns (100)")
    ap.add_argument("--depth", type=int, default=14, help="the referee's depth (14)")
    ap.add_argument("--referee", default=STOCKFISH, help="a UCI engine command")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="search the position two plies before first and keep the tree, as in a game",
    )
    ap.add_argument("--label", default=None, help="name of this run (default: the setting)")
    ap.add_argument("--out", type=Path, default=None, help="keep runs and the cache here")
    ap.add_argument("--compare", default=None, metavar="LABEL", help="an earlier run in --out")
    args = ap.parse_args()
    if args.compare:  # fail before the searches, not after them
        if args.out is None:
            ap.error("--compare needs --out, where the runs are kept")
        if not (args.out / f"{args.compare}.json").exists():
            ap.error(f"no run {args.compare!r} in {args.out}")
    if not args.pgn and not args.match:
        ap.error("give the games: --pgn FILE or --match ID")
    if args.min_loss < 1:
        ap.error(f"--min-loss must be at least 1; got {args.min_loss}")
    params = dict(item.split("=", 1) for item in args.param)
    label = args.label or ":".join([args.algo, *args.param])
    games = chain((game for path in args.pgn for game in read_pgn(path)), match_games(args.match))
    cache = args.out / "referee-cache.json" if args.out else None
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    referee = UciReferee(args.referee, args.depth, cache)
    try:
        if args.lost:
            positions = lost_positions(
                games, referee, args.lost, min_loss=args.min_loss, limit=args.positions
            )
        else:
            positions = probe_positions(games, every=args.every, limit=args.positions)
        if not positions:
            lost = (
                f"no move of {args.lost!r} lost {args.min_loss} cp or more in"
                if args.lost
                else "no positions in"
            )
            print(f"{lost} those games", file=sys.stderr)
            return 2
        # compile (or load) the kernels first, so the first position gets its time
        chosen_moves(positions[:1], args.algo, params, iterations=50, seed=args.seed)
        moves = chosen_moves(
            positions,
            args.algo,
            params,
            movetime_ms=args.movetime,
            seed=args.seed,
            reuse=args.reuse,
        )
        fens = [position.fen for position in positions]
        result = score_moves(fens, moves, referee)
    finally:
        referee.close()
    print(
        f"{label}: {result.positions} positions, average loss {result.average:.1f} cp, "
        f"{result.mistakes} moves losing 100 cp or more, {result.blunders} losing 300 or more"
    )
    played = [position.played for position in positions]
    if args.lost:
        again = sum(move == game for move, game in zip(moves, played, strict=True))
        print(f"{label} plays the game's move again in {again} of {len(moves)} positions")
    record = {"label": label, "algorithm": args.algo, "params": params,
              "movetime": args.movetime, "reuse": args.reuse, "depth": args.depth,
              "lost": args.lost, "min_loss": args.min_loss if args.lost else None,
              "fens": fens, "played": played, "moves": moves, **result.as_dict()}  # fmt: skip
    if args.out:
        (args.out / f"{label}.json").write_text(json.dumps(record))
        if args.compare:
            earlier = json.loads((args.out / f"{args.compare}.json").read_text())
            if earlier["fens"] != fens or earlier["depth"] != args.depth:
                print(f"{args.compare} was probed on other positions or depth", file=sys.stderr)
                return 2
            diff, se = paired_difference(result, ProbeResult(tuple(earlier["losses"])))
            print(f"{label} minus {args.compare}: {diff:+.1f} cp a move (standard error {se:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
