"""``uct`` with ``at_cap=eval``: a playout cut off by ``ply_cap`` is scored by the static
evaluation where it stopped (early playout termination), and the step trace says so."""

from __future__ import annotations

import chess
import pytest

from engine.eval.evaluate import evaluate
from engine.explain.step import step_trace
from engine.rules.convert import state_from_board
from engine.search.controller import SearchController


def _replay(fen: str, moves: list[str]) -> chess.Board:
    board = chess.Board(fen)
    for uci in moves:
        board.push_uci(uci)
    return board


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_cut_off_playout_is_scored_by_the_evaluation_for_the_mover(seed: int) -> None:
    controller = SearchController(
        "chess", algorithm="uct", params={"ply_cap": 6, "at_cap": "eval"}, seed=seed
    )
    checked = 0
    for _ in range(30):
        step = step_trace(controller).to_dict()
        sim = step["simulation"]
        if sim["kind"] != "playout":
            continue
        path = [row["move"] for row in reversed(step["backpropagation"]) if row["depth"]]
        leaf = _replay(chess.STARTING_FEN, path)  # the root to the leaf
        end = _replay(leaf.fen(), sim["moves"])
        if end.is_game_over():  # a playout that ended by the rules is scored by them
            assert sim["reward"] in (0.0, 0.5, 1.0) and "score" not in sim
            continue
        assert sim["plies"] == 6 and sim["status"] == "cut off at the ply cap"
        mover = not leaf.turn  # the side that moved into the leaf
        score = evaluate(state_from_board(end))  # for the side to move at the end
        expected = score if end.turn == mover else -score
        assert sim["score"] == pytest.approx(expected)
        assert sim["reward"] == pytest.approx((1 + expected) / 2)
        assert step["backpropagation"][0]["reward"] == pytest.approx(sim["reward"])
        checked += 1
    assert checked >= 20


def test_with_the_rules_a_capped_chess_playout_is_a_draw() -> None:
    controller = SearchController("chess", algorithm="uct", params={"ply_cap": 6}, seed=1)
    sim = step_trace(controller).to_dict()["simulation"]
    assert sim["at_cap"] == "rules" and sim["status"] == "ply limit"
    assert sim["result"] == "1/2-1/2" and sim["reward"] == 0.5


def test_at_cap_is_validated() -> None:
    from engine.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="at_cap"):
        SearchController("chess", algorithm="uct", params={"at_cap": "guess"})
