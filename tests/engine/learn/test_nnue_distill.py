"""Distillation: the settled children of the self-play positions, labelled with the hand
evaluation; and a fit that goes on from a network and keeps its best epoch."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.games import in_check, legal_moves, make_move
from engine.core.state import MAX_MOVES
from engine.eval.evaluate import evaluate
from engine.learn.nnue_data import SCORE_SCALE, pack_record, states_of
from engine.learn.nnue_distill import children
from engine.learn.players import GameRecord
from engine.rules.convert import state_from_fen

QUIET = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def records(fens: list[str]) -> np.ndarray:
    states = np.array([state_from_fen(f, "chess") for f in fens])
    rows = pack_record(GameRecord(states, np.zeros(len(fens)), 0.5, len(fens)), 0)
    rows["game"] = np.arange(len(rows)) + 40
    return rows


def test_children_are_the_settled_positions_one_move_away_with_the_hand_score() -> None:
    rows = children(records([QUIET]), 1000)
    parent = states_of(records([QUIET]))[0]
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    n = legal_moves(parent, moves)
    expected = {}
    for m in moves[:n]:
        child = parent.copy()
        make_move(child, int(m))
        if not in_check(child):
            expected[(int(child[6] | child[7]), int(child[8]))] = evaluate(child)
    # Nf3xe5 leaves a piece to be taken back: not settled, so left out
    assert 0 < len(rows) < len(expected)
    for row in rows:
        score = expected[(int(row["occ"]), int(row["stm"]))]
        assert row["score"] == int(np.rint(score * SCORE_SCALE))
    assert set(rows["game"].tolist()) == {40}  # the parent's game: held out together
    assert (rows["result"] == 0).all()


def test_the_limit_caps_the_children() -> None:
    assert len(children(records([QUIET, QUIET]), 7)) == 7


def test_a_fit_goes_on_from_a_network_and_returns_its_best_epoch() -> None:
    pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")
    from engine.learn.nnue_fit import FitConfig, fit

    rows = children(
        records([QUIET, "rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3"]), 200
    )
    rows["game"] = np.arange(len(rows)) % 10
    config = FitConfig(hidden=8, epochs=4, batch=32, lam=0.0, holdout=5)
    first = fit(rows, config)
    assert 1 <= first.best_epoch <= 4
    assert first.held_loss[first.best_epoch - 1] == min(first.held_loss)
    again = fit(rows, FitConfig(hidden=8, epochs=1, batch=32, lam=0.0, holdout=5, lr=1e-9),
                start=first.weights)  # fmt: skip
    # a negligible step from the start: the start's loss, not a fresh network's
    assert again.held_loss[0] == pytest.approx(min(first.held_loss), rel=0.05)
