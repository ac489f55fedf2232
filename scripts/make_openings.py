#!/usr/bin/env python3
"""Make the balanced opening files shipped in ``engine/data/openings``.

How (recorded in the file header and ``docs/results.md``): from the start
position, play ``--plies`` moves, each chosen at random (seeded) among the
moves a strong engine rates within ``--window`` centipawns of its best at
``--pick-depth`` (MultiPV); then keep the position only if the engine's own
evaluation at ``--check-depth`` is within ``--balance`` centipawns of its
evaluation of the start position at that depth (the first move's advantage is
about +60 cp in knight chess, +25 in chess: a "balanced" opening keeps it),
the game is not over and (knight chess) both sides still have the same number
of knights. Duplicates are dropped. Chess uses Stockfish; knight chess uses
Fairy-Stockfish with ``../shared/tools/fairy-stockfish-knightchess.ini``.

    .venv/bin/python scripts/make_openings.py --game chess --out engine/data/openings/chess.epd
    .venv/bin/python scripts/make_openings.py --game knight --out engine/data/openings/knight.epd
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.match.client import UciClient  # noqa: E402
from engine.rules.games import get_game, outcome  # noqa: E402

SHARED_INI = ROOT.parent / "shared" / "tools" / "fairy-stockfish-knightchess.ini"


def multipv_scores(infos: list[str]) -> dict[str, int]:
    """First move → cp (side to move) from the deepest MultiPV lines."""
    best: dict[int, tuple[int, str, int]] = {}  # multipv index → (depth, move, cp)
    for line in infos:
        t = line.split()
        if "multipv" not in t or "pv" not in t or "score" not in t:
            continue
        depth = int(t[t.index("depth") + 1])
        k = int(t[t.index("multipv") + 1])
        kind, value = t[t.index("score") + 1], int(t[t.index("score") + 2])
        cp = value if kind == "cp" else (100_000 if value > 0 else -100_000)
        move = t[t.index("pv") + 1]
        if k not in best or depth >= best[k][0]:
            best[k] = (depth, move, cp)
    return {move: cp for _, move, cp in best.values()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=["chess", "knight"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--plies", type=int, default=None, help="chess 8, knight 6")
    ap.add_argument("--window", type=int, default=35, help="cp below the best still allowed")
    ap.add_argument("--balance", type=int, default=35, help="|cp| allowed at the end")
    ap.add_argument("--pick-depth", type=int, default=10)
    ap.add_argument("--check-depth", type=int, default=14)
    ap.add_argument("--multipv", type=int, default=8)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    plies = args.plies or (8 if args.game == "chess" else 6)
    game = get_game(args.game)
    rng = random.Random(args.seed)

    if args.game == "chess":
        engine = UciClient(["/usr/games/stockfish"], "stockfish")
        engine.start()
    else:
        engine = UciClient(["/usr/games/fairy-stockfish"], "fairy-stockfish")
        engine.start()
        engine.set_option("VariantPath", str(SHARED_INI))
        engine.set_option("UCI_Variant", "knightchess")
    engine.set_option("Threads", "1")
    engine.is_ready()

    engine.set_option("MultiPV", "1")
    start = engine.search(
        f"position fen {game.board(None).fen()}", f"go depth {args.check_depth}", 300
    )
    reference = start.score_cp or 0
    print(f"start position: {reference:+d} cp at depth {args.check_depth}", file=sys.stderr)
    seen: set[str] = set()
    lines: list[str] = []
    attempts = 0
    while len(lines) < args.count and attempts < 50 * args.count:
        attempts += 1
        board = game.board(None)
        moves: list[str] = []
        for _ in range(plies):
            engine.set_option("MultiPV", str(args.multipv))
            fen = f"position fen {game.board(None).fen()}"
            position = fen + (" moves " + " ".join(moves) if moves else "")
            report = engine.search(position, f"go depth {args.pick_depth}", 120, keep_info=True)
            scores = multipv_scores(report.infos)
            legal = {m.uci() for m in board.legal_moves}
            scores = {m: cp for m, cp in scores.items() if m in legal}
            if not scores:
                break
            top = max(scores.values())
            choice = rng.choice(sorted(m for m, cp in scores.items() if cp >= top - args.window))
            board.push(chess.Move.from_uci(choice))
            moves.append(choice)
        if len(moves) < plies or outcome(board)[0] is not None:
            continue
        key = board.epd()
        if key in seen:
            continue
        engine.set_option("MultiPV", "1")
        position = f"position fen {game.board(None).fen()} moves {' '.join(moves)}"
        report = engine.search(position, f"go depth {args.check_depth}", 300)
        if report.score_cp is None or abs(report.score_cp - reference) > args.balance:
            continue
        if args.game == "knight" and chess.popcount(board.occupied_co[chess.WHITE]) != (
            chess.popcount(board.occupied_co[chess.BLACK])
        ):
            continue
        seen.add(key)
        number = len(lines) + 1
        prefix = "chess" if args.game == "chess" else "knight"
        lines.append(
            board.epd(
                hmvc=board.halfmove_clock,
                fmvn=board.fullmove_number,
                id=f"{prefix}-{number:03d}",
                c0=f"{engine.id_name} depth {args.check_depth} {report.score_cp:+d} cp",
                c1="moves " + " ".join(moves),
            )
        )
        print(f"{number:3d} {lines[-1]}", file=sys.stderr)
    engine.quit()
    header = [
        f"# {game.title} openings for canopy match: {len(lines)} positions after {plies} plies.",
        f"# Made by scripts/make_openings.py --game {args.game} --count {args.count} "
        f"--plies {plies} --window {args.window} --balance {args.balance} "
        f"--pick-depth {args.pick_depth} --check-depth {args.check_depth} "
        f"--multipv {args.multipv} --seed {args.seed}",
        f"# Start position: {reference:+d} cp at depth {args.check_depth}; every opening is"
        f" within {args.balance} cp of that (White to move after an even number of plies).",
        f"# Each move: random among {engine.id_name}'s MultiPV moves within {args.window} cp of"
        f" its best at depth {args.pick_depth}.",
    ]
    Path(args.out).write_text("\n".join(header + lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
