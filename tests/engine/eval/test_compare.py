"""Both static evaluations of a position and of each move's result, for the side to move."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.state import TURN
from engine.errors import IllegalMoveError, InvalidFenError
from engine.eval.compare import static_evaluations
from engine.eval.evaluate import evaluate
from engine.eval.learned_knight import batch_logits, logit_to_eval
from engine.eval.nnue import kernel_arrays, logit_with, refresh_with
from engine.learn.ntuple import Model, hand_linear, tuple_squares
from engine.rules.convert import state_from_board, state_from_fen
from engine.rules.games import get_game
from tests.networks import large_network

KNIGHT_START = "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1"
MIDDLE = "nn1nnn1n/1nn1nnnn/8/3n4/4N3/2N5/NNNN1NNN/N1NNNN1N b - - 3 6"
CHESS_MIDDLE = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def trained(seed: int):
    model = Model(tuple_squares("pst"))
    theta = np.random.default_rng(seed).normal(scale=0.3, size=model.size)
    return model.unpack(theta, "", {})


def test_the_hand_value_is_what_a_hand_search_evaluates() -> None:
    both = static_evaluations("knight", MIDDLE, [], None)
    s = state_from_fen(MIDDLE, "knight")
    assert both.position.hand == pytest.approx(evaluate(s))
    assert both.position.learned is None


def test_a_moves_value_is_its_result_seen_by_the_side_making_it() -> None:
    both = static_evaluations("knight", MIDDLE, ["d5e3"], None)
    uci, pair = both.moves[0]
    board = get_game("knight").board(MIDDLE)
    board.push_uci("d5e3")  # python-chess, the rules reference, plays the move
    assert uci == "d5e3" and pair.hand == pytest.approx(-evaluate(state_from_board(board)))


def test_the_learned_value_is_the_networks_for_the_weights_given() -> None:
    w = trained(5)
    both = static_evaluations("knight", MIDDLE, [], w)
    s = state_from_fen(MIDDLE, "knight")
    z = batch_logits(s[None, :], w.linear, w.tuples, w.weights, w.contact)[0]
    assert both.position.learned == pytest.approx(logit_to_eval(z))
    assert both.position.learned != pytest.approx(both.position.hand)


def test_an_untrained_network_reads_exactly_as_the_hand_evaluation() -> None:
    w = trained(1)
    untrained = type(w)("knight", hand_linear(), w.tuples, np.zeros_like(w.weights))
    both = static_evaluations("knight", KNIGHT_START, ["b1c3", "g1f3"], untrained)
    for pair in [both.position] + [p for _, p in both.moves]:
        assert pair.learned == pytest.approx(pair.hand, abs=1e-9)


def test_chess_has_only_the_hand_value() -> None:
    both = static_evaluations("chess", "startpos", ["e2e4"], trained(1))
    assert both.position.learned is None and both.moves[0][1].learned is None
    assert both.position.nnue is None  # no network given


def test_bad_input_is_refused_by_name() -> None:
    with pytest.raises(IllegalMoveError):
        static_evaluations("knight", KNIGHT_START, ["e2e4"], None)
    with pytest.raises(InvalidFenError):
        static_evaluations("knight", "not a fen", [], None)


def test_the_nnue_value_is_the_networks_for_the_weights_given() -> None:
    """Chess's third number: the network passed in, summed afresh, for the side to move
    (a move's: the position after it, negated)."""
    w = large_network()
    ft, bias, out, out_bias, qa, qp = kernel_arrays(w)
    both = static_evaluations("chess", CHESS_MIDDLE, ["f3g5"], None, w)

    def value(s: np.ndarray) -> float:
        acc = np.zeros((2, ft.shape[1]), dtype=np.int32)
        refresh_with(s, acc, ft, bias)
        return float(logit_to_eval(logit_with(acc, int(s[TURN]), out, out_bias, qa, qp)))

    s = state_from_fen(CHESS_MIDDLE, "chess")
    board = get_game("chess").board(CHESS_MIDDLE)
    board.push_uci("f3g5")
    assert both.position.nnue == pytest.approx(value(s))
    assert both.moves[0][1].nnue == pytest.approx(-value(state_from_board(board)))
    assert both.position.learned is None and both.position.nnue != pytest.approx(0.0)


def test_knight_chess_has_no_nnue_value() -> None:
    both = static_evaluations("knight", KNIGHT_START, ["b1c3"], None, large_network())
    assert both.position.nnue is None and both.moves[0][1].nnue is None
