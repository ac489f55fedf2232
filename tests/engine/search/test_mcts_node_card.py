"""The node card's account of an ``mcts`` node's scoring (its explainer's ``node_scoring``,
a node frame's ``scoring``): its own leaf score and flags are the tree's, each search depth
is the one the kernel reported in the step view when it searched (``T_SIM_DEPTH``), and the
leaf table's entry is the one for the node's position. Why: the card is where a class checks
what the step view showed, after the fact; a number it worked out differently from the
kernel would teach the wrong search."""

from __future__ import annotations

from typing import Any

import chess
import pytest

from engine.core.state import HASH
from engine.explain.nodes import node_details
from engine.explain.step import step_trace
from engine.explain.words import signed
from engine.rules.convert import state_from_fen
from engine.search.algorithms.mcts.depth import untried
from engine.search.controller import SearchController
from engine.search.tree import EVALUATED, NONE, PARTIAL, ROOT, TERMINAL

#: No mate in one; captures and quiet moves of different value (test_mcts_views' too).
MIDDLEGAME = "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 6 8"
#: King moves commute: a leaf is soon reached by a second move order (the table answers).
ROOK_ENDING = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"


def scoring(controller: SearchController, node: int) -> dict[str, Any]:
    card = node_details(controller, node)["scoring"]
    assert card is not None
    return card


def test_the_card_reads_each_nodes_score_flags_and_table_entry_from_the_tree() -> None:
    """Chess's defaults (children scored at expansion, depth flowing from the root,
    rescore): every node's own score is the tree's ``eval`` (for the side that moved into
    it, as ``eval`` is), unscored ones say None; ``PARTIAL`` and the children scored are
    the flags'; the key is the Zobrist key of the position python-chess reaches by the
    node's path, and the table's entry is the one at that key's slot."""
    controller = SearchController("chess", MIDDLEGAME, algorithm="mcts", seed=3)
    controller.search(iterations=300)
    worker = controller.workers[0]
    tree, cache = worker.tree, worker.extra.cache
    seen_in_table = seen_out = 0
    for node in range(0, tree.used, max(1, tree.used // 150)):
        card = node_details(controller, node)
        sc = card["scoring"]
        flags = int(tree.flags[node])
        if flags & EVALUATED:
            assert sc["score"] == pytest.approx(float(tree.eval[node]), abs=1e-5)
            assert sc["scored_by"] == ("game over" if flags & TERMINAL else "quiescence")
        else:
            assert sc["score"] is None and sc["scored_by"] is None and sc["depth"] is None
        assert sc["partial"] == bool(flags & PARTIAL)
        kids = tree.children(node)
        assert sc["children"] == len(kids) == card["children_total"]
        assert sc["children_scored"] == sum(1 for k in kids if tree.flags[k] & EVALUATED)
        board = chess.Board(MIDDLEGAME)
        for uci in card["path"]:
            board.push_uci(uci)
        key = int(state_from_fen(board.fen(en_passant="fen"), "chess")[HASH])
        assert sc["key"] == f"{key:016x}"
        slot = key & (cache.keys.shape[0] - 1)
        held = int(cache.keys[slot]) == key
        assert sc["in_table"] == held
        if held:  # the table keeps the side to move's score; the card the mover's
            assert sc["table_score"] == pytest.approx(-float(cache.scores[slot]), abs=1e-5)
            seen_in_table += 1
        else:
            assert sc["table_score"] is None
            seen_out += 1
    assert seen_in_table and seen_out


def test_an_unscored_node_says_so_and_a_lazy_node_s_children_have_no_common_depth() -> None:
    """``expand=lazy``: children are created unscored and each is scored at its first
    visit, so an unvisited child has no score, no depth and nothing in the table under
    its own search; its parent's card gives no one depth for its children."""
    params = {"expand": "lazy", "root_depth": 0}
    controller = SearchController("chess", MIDDLEGAME, algorithm="mcts", params=params, seed=3)
    controller.search(iterations=60)
    tree = controller.workers[0].tree
    unscored = [k for k in tree.children(ROOT) if not tree.flags[k] & EVALUATED]
    assert unscored
    sc = scoring(controller, unscored[0])
    assert sc["score"] is None and sc["depth"] is None and sc["depth_max"] is None
    assert sc["scored_by"] is None and sc["children"] == 0 and not sc["partial"]
    root = scoring(controller, ROOT)
    assert root["children_depth"] is None and root["rescore_plies"] is None
    assert root["expand"] == "lazy"
    assert 0 < root["children_scored"] < root["children"]


#: Each way a node gets scored: a lazy leaf at its first visit, children at an evaluating
#: expansion (depth flowing from the root), rescored at their parent's thresholds, a
#: full tree's leaf searched again, deeper, at each visit (a small node budget) — and
#: chess's defaults.
MODES = [
    pytest.param({"expand": "lazy", "root_depth": 2}, None, id="lazy"),
    pytest.param({"expand": "evaluate", "root_depth": 2, "rescore": 2}, None, id="rescore"),
    pytest.param({"expand": "lazy", "root_depth": 2}, 300, id="lazy-full"),
    pytest.param({"expand": "evaluate", "root_depth": 2, "rescore": 2}, 300, id="rescore-full"),
    pytest.param({}, None, id="chess-defaults"),
]


@pytest.mark.parametrize(("params", "node_budget"), MODES)
def test_each_depth_on_the_card_is_the_one_the_step_view_reported(
    params: dict, node_budget: int | None
) -> None:
    """After each step, the card of the node the step scored gives the depth its
    simulation reported: an expansion's children depth (and each child it left untried
    was scored at it), a leaf's own depth — within the card's range where ``rescore``
    plies its parent earned may have come after the score, exactly otherwise."""
    budget = {"node_budget": node_budget} if node_budget else {}
    controller = SearchController(
        "chess", MIDDLEGAME, algorithm="mcts", params=params, seed=2, **budget
    )
    tree = controller.workers[0].tree
    expansions = leaves = searched_again = 0
    for _ in range(120):
        sim = step_trace(controller).simulation
        if sim.get("kind") not in ("quiescence", "evaluation") or sim["cached"]:
            continue  # a finished game, or a score from the table
        leaf = sim["leaf"]["node"]
        card = scoring(controller, leaf)
        if sim["expanded"]:
            expansions += 1
            assert card["children_depth"] == sim["depth"]
            for kid in tree.children(leaf):
                if untried(tree.arrays, kid):
                    kid_card = scoring(controller, kid)
                    assert kid_card["depth"] == kid_card["depth_max"] == sim["depth"]
        else:
            leaves += 1
            assert card["depth"] <= sim["depth"] <= card["depth_max"]
            if not controller.params["rescore"]:
                assert card["depth"] == card["depth_max"]
            if int(tree.first_child[leaf]) == NONE:
                assert card["score"] == pytest.approx(sim["score"], abs=1e-5)
            searched_again += "the tree is full" in sim["note"]
    assert leaves and (expansions or params.get("expand") == "lazy")  # lazy: no expansion scores
    if node_budget:
        assert controller.workers[0].full and searched_again


def test_a_transposed_leaf_is_in_the_table_with_the_score_the_step_read() -> None:
    """A lazy leaf whose score came from the table (a transposition): the card says the
    table holds its position, with the score the leaf took from it."""
    params = {"expand": "lazy", "root_depth": 0}
    controller = SearchController("chess", ROOK_ENDING, algorithm="mcts", params=params, seed=1)
    for _ in range(80):
        sim = step_trace(controller).simulation
        if sim.get("cached") and not sim.get("expanded"):
            card = scoring(controller, sim["leaf"]["node"])
            assert card["in_table"] and card["depth"] == card["depth_max"] == 0
            assert card["table_score"] == pytest.approx(sim["score"], abs=1e-5)
            assert card["score"] == pytest.approx(sim["score"], abs=1e-5)
            return
    raise AssertionError("no step read a leaf's score from the table")


def test_the_cards_rows_speak_for_the_mover_and_at_the_root_for_the_side_to_move() -> None:
    """The rows the card shows (``scoring.prose``): the node's own score with its search, its
    children's scoring, the leaf table's entry with the position's key as a tooltip — for
    the side that moved into the node, and at the root for the side to move (the numbers
    are for the side that did not)."""
    controller = SearchController("chess", MIDDLEGAME, algorithm="mcts", seed=3)
    controller.search(iterations=200)
    tree = controller.workers[0].tree
    for node in [ROOT, *tree.children(ROOT)[:6]]:
        sc = scoring(controller, node)
        rows = {row[0]: row[1:] for row in sc["prose"]}
        whom, sign = ("White", -1) if node == ROOT else ("White", 1)  # White moves at the root
        if sc["score"] is None:
            assert rows["own score"] == ["not scored yet"]
        else:
            own = rows["own score"][0]
            assert own.startswith(f"{signed(sign * sc['score'], 3)} for {whom} (")
            assert (len(rows["own score"]) == 2) == (sc["depth"] != sc["depth_max"])
        if sc["children"]:
            assert rows["children scored"][0].startswith(
                f"{sc['children_scored']} of {sc['children']}, "
            )
        table, tip = rows["in leaf table"]
        assert tip == f"Zobrist key {sc['key']}"
        if sc["in_table"]:
            assert table == f"yes: {signed(sign * sc['table_score'], 3)} for {whom}"
        else:
            assert table.startswith("no")
