"""Step traces: the numbers shown reproduce what the kernel did."""

from __future__ import annotations

import math

import pytest

from engine.explain.step import step_trace
from engine.search.controller import SearchController


def _warm(algorithm: str, iterations: int = 300, **kw: object) -> SearchController:
    controller = SearchController("chess", algorithm=algorithm, seed=5, **kw)  # type: ignore[arg-type]
    controller.search(iterations=iterations)
    return controller


def test_trace_selection_recomputes_ucb1_and_its_winner() -> None:
    controller = _warm("uct")
    c = controller.params["c"]
    checked = 0
    for _ in range(20):
        trace = step_trace(controller).to_dict()
        for level in trace["selection"]:
            if level["rule"] != "ucb1":
                continue
            parent_visits = level["visits"]
            best = None
            for row in level["children"]:
                n = row["visits"]
                score = (
                    math.inf
                    if n == 0
                    else row["value_sum"] / n + c * math.sqrt(2 * math.log(parent_visits) / n)
                )
                assert row["score"] is None or row["score"] == pytest.approx(score)
                if best is None or score > best[0]:
                    best = (score, row["node"])
            assert best is not None and best[1] == level["chosen"]["node"]
            assert [r["node"] for r in level["children"] if r["winner"]] == [best[1]]
            checked += 1
    # The root's twenty children are all expanded after 300 iterations, so every step
    # chooses among them by UCB1 at least there: none may pass with nothing compared.
    assert checked >= 20


def test_trace_backpropagation_matches_the_tree_after_the_step() -> None:
    for algorithm in ("uct", "uct-minimax", "bfms"):
        controller = _warm(algorithm)
        trace = step_trace(controller).to_dict()
        tree = controller.workers[0].tree
        assert trace["selection"] or trace["expansion"]["nodes"]
        for row in trace["backpropagation"]:
            node = row["node"]
            assert row["visits_after"] == tree.visits[node] == row["visits_before"] + 1
            if algorithm == "bfms":
                assert row["value_after"] == pytest.approx(float(tree.value[node]))
                if "max_child" in row:
                    assert row["value_after"] == pytest.approx(-row["max_child"]["value"])
            else:
                assert row["value_sum_after"] == pytest.approx(float(tree.value_sum[node]))
                assert row["value_sum_after"] - row["value_sum_before"] == pytest.approx(
                    row["reward"]
                )


@pytest.mark.parametrize(("params", "scorer"), [({}, "quiescence"), ({"leaf": "static"}, "static")])
def test_bfms_simulation_names_the_leaf_scorer_that_ran(params: dict, scorer: str) -> None:
    # In chess bfms's ``leaf`` defaults to a quiescence search: the trace must not call
    # that the static evaluation.
    controller = SearchController("chess", algorithm="bfms", params=params, seed=5)
    sim = step_trace(controller).simulation
    assert sim["kind"] == "evaluation" and sim["scorer"] == scorer
    assert ("scored by a quiescence search" in sim["note"]) == (scorer == "quiescence")
    assert ("scored by the static evaluation" in sim["note"]) == (scorer == "static")


def test_trace_has_four_phases_with_a_playout() -> None:
    controller = SearchController("chess", algorithm="uct", seed=1)
    first = step_trace(controller).to_dict()
    assert set(first) >= {"selection", "expansion", "simulation", "backpropagation"}
    assert first["expansion"]["nodes"] and first["simulation"]["kind"] == "playout"
    sim = first["simulation"]
    assert len(sim["moves"]) == sim["plies"] == len(sim["san"])
    assert sim["result"] in {"1-0", "0-1", "1/2-1/2"}
    assert [r["depth"] for r in first["backpropagation"]] == [1, 0]


def test_threads_take_turns_in_step_mode() -> None:
    controller = SearchController("chess", algorithm="uct", threads=2, seed=1)
    assert [step_trace(controller).thread for _ in range(4)] == [0, 1, 0, 1]


def test_alphabeta_step_is_one_more_depth() -> None:
    controller = SearchController("chess", algorithm="alphabeta")
    depths = [step_trace(controller).simulation["depth"] for _ in range(3)]
    assert depths == [1, 2, 3]
