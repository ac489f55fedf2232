"""Each evaluation feature counts what it claims, and the weights give it the right sign.

Feature tests pin the kernels of :mod:`engine.eval.features` on hand-made
positions; the sign tests pin the shipped weights (after fitting, a passed pawn further
up the board is still worth more, a broken pawn structure still costs, and so on).
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval import features as ef
from engine.eval.evaluate import centipawns
from engine.eval.features import CHESS_FEATURES
from engine.eval.weights import shipped_weights
from engine.rules.convert import state_from_fen


def chess_vector(fen: str) -> dict[str, float]:
    f = np.empty(ef.N_CHESS)
    ef.chess_features(state_from_fen(fen), f)
    return dict(zip(ef.CHESS_FEATURES, f, strict=True))


def knight_vector(fen: str) -> dict[str, float]:
    f = np.empty(ef.N_KNIGHT)
    ef.knight_features(state_from_fen(fen, "knight"), f)
    return dict(zip(ef.KNIGHT_FEATURES, f, strict=True))


def better(good: str, bad: str, game: str = "chess") -> bool:
    """The side to move (White in both) scores ``good`` above ``bad``."""
    return centipawns(state_from_fen(good, game)) > centipawns(state_from_fen(bad, game))


# ---------------------------------------------------------------- what each feature counts


def test_pawn_structure_features_count_doubled_isolated_and_passed_pawns() -> None:
    # White: doubled and isolated c-pawns and an a-pawn on a6; Black has no pawns.
    v = chess_vector("6k1/8/P7/8/2P5/2P5/8/6K1 w - - 0 1")
    assert v["doubled_pawns"] == 1
    assert v["isolated_pawns"] == 3  # c3, c4 and a6 have no neighbour
    assert v["passed_pawns"] == 3  # a6, c4 and c3: no black pawn ahead on their files
    assert v["passed_rank_squared"] == 5 * 5 + 3 * 3 + 2 * 2


def test_king_features_see_the_shield_open_files_and_attackers() -> None:
    sheltered = chess_vector("6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1")
    assert sheltered["king_shield"] == 3 and sheltered["king_open_files"] == -3
    bare = chess_vector("6k1/5ppp/8/8/8/8/8/6K1 w - - 0 1")
    assert bare["king_shield"] == -3 and bare["king_open_files"] == 3
    attacked = chess_vector("6k1/8/8/8/8/8/3q4/6K1 w - - 0 1")  # the queen hits f1, f2
    assert attacked["king_pressure"] < 0


def test_rook_files_and_bishop_pair_are_counted() -> None:
    v = chess_vector("4k3/pp6/8/8/8/8/1P6/R1R1K1BB w - - 0 1")
    assert v["rook_open_file"] == 1  # the c-file has no pawn at all
    assert v["rook_half_open_file"] == 1  # the a-file only has Black's pawn
    assert v["bishop_pair"] == 1


def test_mobility_skips_own_pieces_and_squares_held_by_enemy_pawns() -> None:
    free = chess_vector("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1")
    assert free["mobility_knight"] == 8
    cramped = chess_vector("4k3/8/2p5/8/3N4/8/8/4K3 w - - 0 1")  # c6 guards b5 and d5
    assert cramped["mobility_knight"] == 8 - 1  # b5 lost; the pawn on c6 itself is a target


def test_knight_features_see_threats_for_the_side_to_move() -> None:
    v = knight_vector("8/8/8/3n4/8/4N3/8/N7 w - - 0 1")
    assert v["knights"] == 1
    assert v["stm_free_captures"] == 1  # e3 takes d5, which nothing guards
    assert v["stm_hanging"] == 1  # and d5 attacks e3, which nothing guards either
    defended = knight_vector("8/8/8/3n4/8/4N3/2N5/8 b - - 0 1")
    assert defended["defended"] == 2  # c2 and e3 guard each other
    assert defended["stm_free_captures"] == 0  # Black's d5 may only take a guarded knight


# ---------------------------------------------------------------- signs of the shipped weights


@pytest.mark.parametrize(
    ("good", "bad"),
    [
        # A passed pawn on the 6th is worth more than one on the 3rd.
        ("6k1/8/P7/8/8/8/8/6K1 w - - 0 1", "6k1/8/8/8/8/P7/8/6K1 w - - 0 1"),
        # Doubled pawns cost (same material, same files otherwise).
        ("6k1/pp6/8/8/8/8/PP6/6K1 w - - 0 1", "6k1/pp6/8/8/8/1P6/1P6/6K1 w - - 0 1"),
        # An isolated pawn costs. (On the 3rd rank: the fitted tables rate a pawn still on
        # c2 20 cp below one on d2, more than an isolated pawn costs, where on c3 and d3
        # they differ by a few cp.)
        ("6k1/ppp5/8/8/8/PPP5/8/6K1 w - - 0 1", "6k1/ppp5/8/8/8/PP1P4/8/6K1 w - - 0 1"),
        # The bishop pair beats bishop and knight.
        ("r5k1/5ppp/8/8/8/8/5PPP/1BB3K1 w - - 0 1", "r5k1/5ppp/8/8/8/8/5PPP/1BN3K1 w - - 0 1"),
        # A rook on the open file beats one behind its own pawn.
        ("6k1/ppp2ppp/8/8/8/8/PPP2PPP/3R2K1 w - - 0 1",
         "6k1/ppp2ppp/8/8/8/8/PPP2PPP/2R3K1 w - - 0 1"),
        # A castled king with its shield beats one whose pawns have gone forward.
        ("rnbq1rk1/ppppbppp/5n2/4p3/4P3/5N2/PPPPBPPP/RNBQ1RK1 w - - 0 1",
         "rnbq1rk1/ppppbppp/5n2/4p3/4P1PP/5NP1/PPPPB3/RNBQ1RK1 w - - 0 1"),
    ],
)  # fmt: skip
def test_chess_weights_prefer_the_better_structure(good: str, bad: str) -> None:
    assert better(good, bad)


def test_chess_weights_charge_doubled_and_isolated_pawns_in_both_phases() -> None:
    w = shipped_weights()
    for name in ("doubled_pawns", "isolated_pawns"):
        i = CHESS_FEATURES.index(name)
        assert w.chess_mg[i] < 0 and w.chess_eg[i] < 0, name


def test_knight_weights_value_knights_and_free_captures() -> None:
    assert better("8/8/8/8/8/8/8/NN5n w - - 0 1", "8/8/8/8/8/8/8/N5nn w - - 0 1", "knight")
    # The same material; White to move can take a free knight in the first position only.
    assert better("8/8/8/3n4/8/4N3/8/N7 w - - 0 1", "8/8/8/3n4/8/8/4N3/N7 w - - 0 1", "knight")
