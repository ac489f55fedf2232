"""Step traces of every tree algorithm recompute: the numbers shown in step mode are
the ones the kernel compared (bfms and uct-minimax selection, expansions, threads)."""

from __future__ import annotations

import itertools
import math

import pytest

from engine.explain.step import step_trace
from engine.search.controller import SearchController


def _warm(algorithm: str, iterations: int = 300, **kw: object) -> SearchController:
    controller = SearchController("chess", algorithm=algorithm, seed=9, **kw)  # type: ignore[arg-type]
    controller.search(iterations=iterations)
    return controller


def _argmax_first(rows: list[tuple[float, int]]) -> int:
    """The kernels keep the first child in list order on ties, as Python's max does."""
    return max(rows, key=lambda r: r[0])[1]


def test_bfms_trace_recomputes_eval_plus_exploration_and_its_winner() -> None:
    controller = _warm("bfms")
    big_c, fpu = controller.params["C"], controller.params["fpu"]
    checked = 0
    for _ in range(25):
        trace = step_trace(controller).to_dict()
        for level in trace["selection"]:
            if level["rule"] != "bfms":
                continue
            parent_visits = level["visits"]
            rows = []
            for row in level["children"]:
                n = row["visits"]
                explore = fpu if n == 0 else big_c * math.sqrt(math.log(parent_visits) / n)
                assert row["explore"] == pytest.approx(explore)
                assert row["score"] == pytest.approx(row["value"] + explore)
                rows.append((row["value"] + explore, row["node"]))
            winner = _argmax_first(rows)
            assert winner == level["chosen"]["node"]
            assert [r["node"] for r in level["children"] if r["winner"]] == [winner]
            checked += 1
    assert checked > 10


def test_uct_minimax_trace_recomputes_ucb1_where_it_compares_children() -> None:
    controller = _warm("uct-minimax")
    c = controller.params["c"]
    rules = set()
    for _ in range(25):
        trace = step_trace(controller).to_dict()
        for level in trace["selection"]:
            rules.add(level["rule"])
            if level["rule"] != "ucb1":
                assert level["rule"] in ("expand", "random-unvisited") and level["note"]
                continue
            parent_visits = level["visits"]
            rows = []
            for row in level["children"]:
                n = row["visits"]
                assert n > 0  # unvisited children are tried first, before any formula
                score = row["value_sum"] / n + c * math.sqrt(2 * math.log(parent_visits) / n)
                assert row["score"] == pytest.approx(score)
                rows.append((score, row["node"]))
            assert _argmax_first(rows) == level["chosen"]["node"]
        sim = trace["simulation"]
        if sim["kind"] == "minimax":  # the reward is the minimax score mapped to [0, 1]
            assert 0.0 <= sim["reward"] <= 1.0
            assert trace["backpropagation"][0]["reward"] == pytest.approx(sim["reward"])
    assert "ucb1" in rules


def test_expanded_nodes_are_in_the_tree_with_the_values_shown() -> None:
    for algorithm in ("uct", "bfms"):
        controller = _warm(algorithm, iterations=50)
        trace = step_trace(controller).to_dict()
        tree = controller.workers[0].tree
        nodes = trace["expansion"]["nodes"]
        assert nodes
        for node in nodes:
            assert tree.parent[node["node"]] == trace["expansion"]["parent"]["node"]
            assert node["eval"] == pytest.approx(float(tree.eval[node["node"]]))
        if algorithm == "bfms":  # every legal move of the leaf is added at once
            assert len(nodes) == int(tree.num_children[trace["expansion"]["parent"]["node"]])


def test_with_threads_the_trace_matches_the_tree_of_the_thread_that_ran() -> None:
    controller = _warm("uct", iterations=400, threads=2)
    for _ in range(4):
        trace = step_trace(controller).to_dict()
        tree = controller.workers[trace["thread"]].tree
        for row in trace["backpropagation"]:
            assert row["visits_after"] == tree.visits[row["node"]] == row["visits_before"] + 1
            assert row["value_sum_after"] == pytest.approx(float(tree.value_sum[row["node"]]))


def test_rewards_alternate_on_the_way_up() -> None:
    controller = _warm("uct", iterations=200)
    trace = step_trace(controller).to_dict()
    rewards = [row["reward"] for row in trace["backpropagation"]]
    for below, above in itertools.pairwise(rewards):
        assert above == pytest.approx(1.0 - below)
