#!/usr/bin/env python3
"""Where Canopy's games against `alphabeta` were decided: opening, middlegame or endgame.

Why: to know which phase a strength change should aim at. Each decisive game is placed by
the position where `alphabeta`'s own score (its move comments, ``+1.62/8``) first reached
±``--margin`` pawns and stayed beyond it, on the same side, to the end; the phase is the
count of knights, bishops, rooks and queens there (both sides): ``open`` with 10 or more,
``mid`` with 6–9, ``end`` with 5 or fewer. Games whose score never settled are ``-``.

    .venv/bin/python scripts/decided_phase.py docs/results/300ms/chess-*-session3[345].pgn.gz
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
from endgame_openings import SCORE, against_alphabeta, games, pieces


def phase(board: chess.Board) -> str:
    count = pieces(board)
    return "open" if count >= 10 else "mid" if count >= 6 else "end"


def decided(game: chess.pgn.Game, margin: float) -> tuple[str, str]:
    """(Canopy's result, phase where the game was decided) for one game."""
    canopy_white = not game.headers["White"].startswith("alphabeta")
    result = game.headers["Result"]
    outcome = (
        "draw" if result == "1/2-1/2" else "win" if (result == "1-0") == canopy_white else "loss"
    )
    board = game.board()
    scores: list[tuple[float, str]] = []  # alphabeta's view, with the phase it was given in
    for node in game.mainline():
        if board.turn != canopy_white and (found := SCORE.search(node.comment or "")):
            scores.append((float(found.group(1)), phase(board)))
        board.push(node.move)
    for index, (score, where) in enumerate(scores):
        tail = scores[index:]
        if abs(score) >= margin and all(
            abs(s) >= margin and (s > 0) == (score > 0) for s, _ in tail
        ):
            return outcome, where
    return outcome, "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="+", type=Path)
    parser.add_argument("--margin", type=float, default=1.5, help="pawns")
    args = parser.parse_args()
    counts: Counter[tuple[str, str]] = Counter()
    for game in games(args.pgn):
        if against_alphabeta(game):
            counts[decided(game, args.margin)] += 1
    print("result  open  mid  end  -")
    for outcome in ("win", "loss", "draw"):
        row = [counts[(outcome, where)] for where in ("open", "mid", "end", "-")]
        print(f"{outcome:6}" + "".join(f"{n:6}" for n in row))


if __name__ == "__main__":
    main()
