"""``GET /api/algorithms`` carries each algorithm's capabilities, which the front end branches
on instead of names; they come from the ``Algorithm`` class (what the search can do) and its
explainer (the names its views give the formula's parts, the kinds of its phases)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from engine.explain.explainers import explainer_for
from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM

CAPABILITIES = {
    "mcts",
    "tree",
    "threads",
    "proofs",
    "stepping",
    "value_kind",
    "selection_rule",
    "formula",
    "exploit_label",
    "score_label",
    "simulation",
    "backup_rule",
}


def test_every_algorithm_lists_its_capabilities_from_its_class_and_explainer(
    client: TestClient,
) -> None:
    listed = client.get("/api/algorithms", params={"game": "chess"}).json()
    assert [a["name"] for a in listed] == list(ALGORITHMS)
    for entry in listed:
        cls = ALGORITHMS[entry["name"]]
        caps = entry["capabilities"]
        assert set(caps) >= CAPABILITIES, entry["name"]
        explainer = explainer_for(entry["name"])
        assert caps == explainer.capabilities() and explainer.algorithm is cls
        assert caps.items() >= cls.capabilities().items()
        assert entry["race_partner"] == explainer.race_partner
        assert caps["stepping"] in ("iteration", "depth")
        assert caps["value_kind"] in ("q", "eval")
        assert caps["threads"] == (entry["threads"]["max"] > 1)
        partner = entry["race_partner"]
        assert partner is None or (partner in ALGORITHMS and partner != entry["name"])


def test_the_search_without_a_tree_deepens_and_the_tree_searches_iterate(
    client: TestClient,
) -> None:
    listed = client.get("/api/algorithms").json()
    for entry in listed:
        caps = entry["capabilities"]
        # a step of a search without a tree is one more depth; with one, one iteration
        assert (caps["stepping"] == "depth") == (not caps["tree"]), entry["name"]


def test_the_menu_marks_the_default_opponent_and_says_what_each_algorithm_is_for(
    client: TestClient,
) -> None:
    for game in ("chess", "knight"):
        listed = client.get("/api/algorithms", params={"game": game}).json()
        assert [a["name"] for a in listed if a["default"]] == [DEFAULT_ALGORITHM]
        for entry in listed:
            summary = entry["summary"]
            assert summary == ALGORITHMS[entry["name"]].summary
            assert summary and "\n" not in summary and len(summary) <= 90, entry["name"]
    assert len({a.summary for a in ALGORITHMS.values()}) == len(ALGORITHMS)
