"""The threat features count what python-chess's attack maps say they should.

The kernel gathers each side's attacks on its way through the pieces (for mobility and
king pressure) and reads the threats off them; python-chess computes the same sets
square by square here, on hand-made positions and on positions of random games, so a
slip in which attacks feed which threat shows as a count that differs.
"""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from engine.core.convert import state_from_fen
from engine.search import eval_features as ef

THREATS = ("threat_by_pawn", "threat_by_minor", "threat_by_rook", "hanging", "stm_threatened")


def kernel_threats(fen: str) -> dict[str, float]:
    f = np.empty(ef.N_CHESS)
    ef.chess_features(state_from_fen(fen), f)
    v = dict(zip(ef.CHESS_FEATURES, f, strict=True))
    return {name: float(v[name]) for name in THREATS}


def attacked_by(board: chess.Board, color: chess.Color, kinds: tuple[int, ...]) -> int:
    """Squares the pieces of ``color`` of the types ``kinds`` attack (a bitboard)."""
    squares = 0
    for kind in kinds:
        for sq in board.pieces(kind, color):
            squares |= int(board.attacks(sq))
    return squares


def reference_threats(fen: str) -> dict[str, float]:
    board = chess.Board(fen)
    everything = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
    by = {
        color: (
            attacked_by(board, color, (chess.PAWN,)),
            attacked_by(board, color, (chess.KNIGHT, chess.BISHOP)),
            attacked_by(board, color, (chess.ROOK,)),
            attacked_by(board, color, everything),
        )
        for color in chess.COLORS
    }

    def men(color: chess.Color, kinds: tuple[int, ...]) -> int:
        return sum(int(board.pieces(kind, color)) for kind in kinds)

    pieces = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
    heavy = (chess.ROOK, chess.QUEEN)
    not_king = (chess.PAWN, *pieces)

    def threatened(victim: chess.Color) -> dict[str, int]:
        pawn, minor, rook, anything = by[not victim]
        return {
            "threat_by_pawn": pawn & men(victim, pieces),
            "threat_by_minor": minor & men(victim, heavy),
            "threat_by_rook": rook & men(victim, (chess.QUEEN,)),
            "hanging": anything & men(victim, not_king) & ~by[victim][3],
        }

    out = {}
    on_black, on_white = threatened(chess.BLACK), threatened(chess.WHITE)
    for name in THREATS[:4]:
        out[name] = float(bin(on_black[name]).count("1") - bin(on_white[name]).count("1"))
    mine = threatened(board.turn)
    union = mine["threat_by_pawn"] | mine["threat_by_minor"] | mine["threat_by_rook"]
    union |= mine["hanging"]
    out["stm_threatened"] = (1.0 if board.turn == chess.WHITE else -1.0) * bin(union).count("1")
    return out


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # Black's knight on d5: attacked by the e4 pawn and defended by nothing.
        ("4k3/8/8/3n4/4P3/8/8/4K3 b - - 0 1",
         {"threat_by_pawn": 1, "threat_by_minor": 0, "threat_by_rook": 0, "hanging": 1,
          "stm_threatened": -1}),
        # The same, White to move: the threat is White's to carry out, not Black's to meet.
        ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1",
         {"threat_by_pawn": 1, "threat_by_minor": 0, "threat_by_rook": 0, "hanging": 1,
          "stm_threatened": 0}),
        # The rook on d1 hits the queen on d5; the queen hits the rook, which the king guards.
        ("4k3/8/8/3q4/8/8/8/3RK3 b - - 0 1",
         {"threat_by_pawn": 0, "threat_by_minor": 0, "threat_by_rook": 1, "hanging": 1,
          "stm_threatened": -1}),
        # A knight guarded by a pawn forks queen and rook, which guard each other (and the
        # king the rook): two minor-piece threats, nothing hanging.
        ("7k/2q3r1/4N3/3P4/8/8/8/4K3 b - - 0 1",
         {"threat_by_pawn": 0, "threat_by_minor": 2, "threat_by_rook": 0, "hanging": 0,
          "stm_threatened": -2}),
        # The start: nothing attacked.
        (chess.STARTING_FEN,
         {"threat_by_pawn": 0, "threat_by_minor": 0, "threat_by_rook": 0, "hanging": 0,
          "stm_threatened": 0}),
    ],
)  # fmt: skip
def test_threats_on_hand_made_positions(fen: str, expected: dict[str, int]) -> None:
    assert kernel_threats(fen) == reference_threats(fen) == expected


def test_threats_match_python_chess_over_random_games() -> None:
    rng = random.Random(53)
    seen = dict.fromkeys(THREATS, 0)
    for _ in range(40):
        board = chess.Board()
        for _ply in range(rng.randrange(10, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            fen = board.fen()
            got = kernel_threats(fen)
            assert got == reference_threats(fen), fen
            for name, value in got.items():
                seen[name] += value != 0
    assert all(count > 20 for count in seen.values()), seen  # every threat was exercised


def test_threats_are_mirror_symmetric() -> None:
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    mirrored = board.mirror()
    a, b = kernel_threats(board.fen()), kernel_threats(mirrored.fen())
    assert {k: -v for k, v in a.items()} == b
