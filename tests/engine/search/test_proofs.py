"""Proofs: a root move whose result is known is reported as proven (``MoveStats.proof``),
with the distance to mate where the algorithm knows it, by every tree algorithm and by UCI.

Points of view: ``proof`` is for the side to move at the root (1 win, -1 loss, 2 draw).
"""

from __future__ import annotations

import pytest

from engine.search.algorithm import NOT_PROVEN, PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN
from engine.search.controller import SearchController
from engine.search.info import MoveStats, SearchInfo
from engine.uci.score import move_score

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # Ra8#
STALEMATE_IN_ONE = "7k/5K2/8/8/8/8/8/1Q6 w - - 0 1"  # Qg6 stalemates; Qh1# mates


def _move(info: SearchInfo, uci: str) -> MoveStats:
    return next(m for m in info.moves if m.move == uci)


@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax", "bfms"])
def test_a_mating_move_is_a_proven_win_in_one_ply(algorithm: str) -> None:
    with SearchController("chess", MATE_IN_ONE, algorithm=algorithm, seed=5, tree_size=0) as c:
        info = c.search(iterations=600)
    mate = _move(info, "a1a8")
    assert (mate.proof, mate.mate) == (PROVEN_WIN, 1)
    assert move_score(algorithm, mate).uci() == "mate 1"
    assert all(m.proof == NOT_PROVEN for m in info.moves if m.move not in ("a1a8",)), [
        (m.move, m.proof) for m in info.moves if m.proof
    ]


@pytest.mark.parametrize("algorithm", ["uct", "bfms"])
def test_a_stalemating_move_is_a_proven_draw_and_the_mate_beside_it_a_win(algorithm: str) -> None:
    with SearchController("chess", STALEMATE_IN_ONE, algorithm=algorithm, seed=5, tree_size=0) as c:
        info = c.search(iterations=600)
    draw = _move(info, "b1g6")
    assert (draw.proof, draw.mate) == (PROVEN_DRAW, None)
    assert (_move(info, "b1h1").proof, _move(info, "b1h1").mate) == (PROVEN_WIN, 1)
    assert move_score(algorithm, draw).mate is None  # a draw is no mate score


def test_bfms_proves_every_move_lost_when_each_allows_mate_through_its_negamax_values() -> None:
    # Black must push the a-pawn, and either push allows Qf8# (mate two plies away).
    fen = "7k/p4Q2/6K1/8/8/8/8/8 b - - 0 1"
    with SearchController("chess", fen, algorithm="bfms", seed=1, tree_size=0) as c:
        info = c.search(iterations=200)
    assert {m.move for m in info.moves} == {"a7a6", "a7a5"}
    for move in info.moves:
        assert (move.proof, move.mate) == (PROVEN_LOSS, 2)
        assert move_score("bfms", move).uci() == "mate -1"


def test_alphabeta_reports_an_exact_mate_score_as_a_proof() -> None:
    with SearchController("chess", MATE_IN_ONE, algorithm="alphabeta", seed=1, tree_size=0) as c:
        info = c.search(iterations=20_000)
    mate = _move(info, "a1a8")
    assert (mate.proof, mate.mate) == (PROVEN_WIN, 1)
