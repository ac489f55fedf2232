#!/usr/bin/env python3
"""Endgame starting positions for development matches, taken from Canopy's own games.

Why: half of `mcts`'s moves against `alphabeta` are played with at most five knights,
bishops, rooks and queens on the board, and more of its lost games are decided there than
anywhere else (results.md, session 36). A match from balanced openings spends most of its
time before the endgame; a match from these positions spends all of it there, so an
endgame change is screened in a quarter of the time. They are screens only: strength is
still quoted from the balanced openings.

How: for each chess game in the given PGN files that `alphabeta` played, the first
position with between ``--min-pieces`` and ``--max-pieces`` knights, bishops, rooks and
queens (both sides), the side to move not in check, at least ten plies before the game's
end, and `alphabeta`'s latest score (from its move comments, ``+0.41/9``) within
``--balance`` pawns. Duplicates (same placement) are dropped; the rest are shuffled with
``--seed`` and written one FEN a line, the format ``canopy match --openings`` reads.

    .venv/bin/python scripts/endgame_openings.py docs/results/300ms/*.pgn.gz --out /tmp/endgames.fen

(Session 36's 342 positions came from the files there before its own were added:
``$(ls docs/results/300ms/*.pgn.gz | grep -v session36)``.)
"""

from __future__ import annotations

import argparse
import logging
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.match.probe import read_pgn  # noqa: E402

#: A move comment's score and depth, as Canopy's match runner writes them.
SCORE = re.compile(r"([+-]?\d+\.\d+)/(\d+)")
PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
#: Plies the game must still run after the position: a position on the brink of mate or
#: of a draw by repetition is no test of endgame play.
MIN_PLIES_LEFT = 10


def games(paths: list[Path]) -> Iterator[chess.pgn.Game]:
    for path in paths:
        if not path.name.startswith("knight"):  # python-chess cannot read knight chess
            yield from read_pgn(path)


def against_alphabeta(game: chess.pgn.Game) -> bool:
    """A chess game `alphabeta` played (its move comments carry the scores read here)."""
    players = game.headers.get("White", "") + game.headers.get("Black", "")
    return not game.headers.get("Variant") and "alphabeta" in players


def pieces(board: chess.Board) -> int:
    return sum(len(board.pieces(kind, colour)) for kind in PIECES for colour in chess.COLORS)


def endgame_start(game: chess.pgn.Game, low: int, high: int, balance: float) -> chess.Board | None:
    """The game's first position in the piece range, if ``alphabeta`` then judged it
    balanced (its latest score, White's view, within ``balance`` pawns)."""
    if not against_alphabeta(game):
        return None
    ab_colour = chess.WHITE if game.headers["White"].startswith("alphabeta") else chess.BLACK
    board = game.board()
    moves = list(game.mainline())
    score: float | None = None
    for index, node in enumerate(moves):
        if board.turn == ab_colour and (found := SCORE.search(node.comment or "")):
            score = float(found.group(1)) * (1 if ab_colour == chess.WHITE else -1)
        count = pieces(board)
        if count <= high:
            enough = count >= low and len(moves) - index > MIN_PLIES_LEFT
            if enough and score is not None and abs(score) <= balance and not board.is_check():
                return board
            return None
        board.push(node.move)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--min-pieces", type=int, default=2)
    parser.add_argument("--max-pieces", type=int, default=5)
    parser.add_argument("--balance", type=float, default=0.6, help="pawns (alphabeta's score)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)  # knight chess games: skipped
    seen: set[str] = set()
    fens: list[str] = []
    for game in games(sorted(args.pgn)):
        board = endgame_start(game, args.min_pieces, args.max_pieces, args.balance)
        if board is not None and board.board_fen() not in seen:
            seen.add(board.board_fen())
            fens.append(board.fen())
    random.Random(args.seed).shuffle(fens)
    args.out.write_text("".join(f"{fen}\n" for fen in fens))
    print(f"{len(fens)} positions written to {args.out}")


if __name__ == "__main__":
    main()
