"""The king-attack, low-mobility and pin features count what python-chess says they should.

The kernel counts them on its way through the pieces (beside mobility and king pressure)
and from its own king outward; python-chess computes the same sets square by square here,
on hand-made positions and on positions of random games, so a slip in which attacks,
which squares or which pieces feed a feature shows as a count that differs.
"""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from engine.core.convert import state_from_fen
from engine.search import eval_features as ef

NAMES = ("king_attack", "low_mobility", "pinned")
PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def kernel(fen: str) -> dict[str, float]:
    f = np.empty(ef.N_CHESS)
    ef.chess_features(state_from_fen(fen), f)
    v = dict(zip(ef.CHESS_FEATURES, f, strict=True))
    return {name: float(v[name]) for name in NAMES}


def count(bb: int) -> int:
    return bin(bb).count("1")


def side(board: chess.Board, color: chess.Color) -> dict[str, int]:
    """One side's three counts, square by square."""
    enemy_pawns = 0
    for sq in board.pieces(chess.PAWN, not color):
        enemy_pawns |= int(board.attacks(sq))
    own = int(board.occupied_co[color])
    safe = ~own & ~enemy_pawns
    king = board.king(not color)
    zone = (int(chess.BB_KING_ATTACKS[king]) | chess.BB_SQUARES[king]) if king is not None else 0
    pressure = attackers = low = pinned = 0
    for kind in PIECES:
        for sq in board.pieces(kind, color):
            a = int(board.attacks(sq))
            low += max(0, 2 - count(a & safe))
            hits = count(a & zone)
            pressure += hits
            attackers += hits > 0
            pinned += board.is_pinned(color, sq)
    return {"king_attack": pressure * attackers, "low_mobility": low, "pinned": pinned}


def reference(fen: str) -> dict[str, float]:
    board = chess.Board(fen)
    white, black = side(board, chess.WHITE), side(board, chess.BLACK)
    return {name: float(white[name] - black[name]) for name in NAMES}


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # The start: the knights have two safe squares, each bishop, rook and queen none
        # (2 each, the same for both sides); no attack, no pin.
        (chess.STARTING_FEN, {"king_attack": 0, "low_mobility": 0, "pinned": 0}),
        # The bishop on b5 pins the knight on c6 to the king on e8.
        ("4k3/8/2n5/1B6/8/8/8/4K3 w - - 0 1", {"king_attack": 0, "low_mobility": 0, "pinned": -1}),
        # Two pieces between the rook and the king: no pin.
        ("4k3/4n3/4b3/8/8/8/8/4RK2 w - - 0 1", {"king_attack": 0, "low_mobility": 0, "pinned": 0}),
        # The bishop on a7: b6 is a pawn the c7 pawn guards, so b8 is its one safe square.
        ("4k3/B1p5/1p6/8/8/8/8/4K3 w - - 0 1", {"king_attack": 0, "low_mobility": 1, "pinned": 0}),
        # Knight (f7, h7) and queen (h7) both hit the king's zone: 3 hits times 2 attackers.
        ("6k1/5ppp/8/6N1/8/3Q4/8/4K3 w - - 0 1",
         {"king_attack": 6, "low_mobility": 0, "pinned": 0}),
    ],
)  # fmt: skip
def test_hand_made_positions(fen: str, expected: dict[str, int]) -> None:
    got = kernel(fen)
    assert got == reference(fen) == expected


def test_match_python_chess_over_random_games() -> None:
    rng = random.Random(55)
    seen = dict.fromkeys(NAMES, 0)
    for _ in range(40):
        board = chess.Board()
        for _ply in range(rng.randrange(10, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            fen = board.fen()
            got = kernel(fen)
            assert got == reference(fen), fen
            for name, value in got.items():
                seen[name] += value != 0
    assert all(n > 20 for n in seen.values()), seen  # every feature was exercised


def test_mirror_symmetric() -> None:
    board = chess.Board("r2qk2r/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2QK2R w KQkq - 0 7")
    a, b = kernel(board.fen()), kernel(board.mirror().fen())
    assert {k: -v for k, v in a.items()} == b
