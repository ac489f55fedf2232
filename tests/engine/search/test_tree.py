"""The array tree: size per node, growth by doubling, the node budget, re-rooting."""

from __future__ import annotations

import numpy as np
import pytest

from engine.search.controller import SearchController
from engine.search.tree import BYTES_PER_NODE, NONE, ROOT, Tree, reroot


def test_a_node_costs_at_most_64_bytes_all_included() -> None:
    assert BYTES_PER_NODE <= 64
    tree = Tree(capacity=1000)
    assert tree.memory_bytes <= 64 * 1000 + 64


def test_growth_by_doubling_keeps_every_node() -> None:
    controller = SearchController("chess", algorithm="uct", seed=4)
    controller.search(iterations=6000)  # starts at 4096 slots: must have doubled
    tree = controller.workers[0].tree
    assert tree.capacity >= 8192 and tree.used == 6001
    # Every node is reachable from the root exactly once.
    seen, stack = 0, [ROOT]
    while stack:
        node = stack.pop()
        seen += 1
        stack.extend(tree.children(node))
    assert seen == tree.used


@pytest.mark.parametrize(
    ("algorithm", "budget"), [("uct", 30), ("uct-minimax", 400), ("bfms", 400)]
)
def test_a_node_budget_too_small_to_fold_stops_the_search_cleanly(
    algorithm: str, budget: int
) -> None:
    """A budget the tree cannot be folded within (tests/engine/search/test_full_tree.py:
    half of it must hold the root's children and leave room for an iteration)."""
    controller = SearchController("chess", algorithm=algorithm, node_budget=budget, seed=1)
    info = controller.search(iterations=1_000_000)
    assert info.stop_reason == "node budget"
    assert info.nodes <= budget
    assert info.bestmove is not None
    # The controller stays usable: the next search stops at once for the same reason.
    assert controller.search(iterations=10).stop_reason == "node budget"


def test_reroot_makes_a_subtree_the_whole_tree() -> None:
    controller = SearchController("chess", algorithm="uct", seed=2)
    controller.search(iterations=3000)
    tree = controller.workers[0].tree
    child = max(tree.children(ROOT), key=lambda n: tree.visits[n])
    fresh = reroot(tree, child)
    assert fresh.visits[ROOT] == tree.visits[child]
    assert fresh.parent[ROOT] == NONE and fresh.depth[ROOT] == 0
    for node in range(1, fresh.used):
        parent = fresh.parent[node]
        assert node in fresh.children(parent)
        assert fresh.depth[node] == fresh.depth[parent] + 1
    old = sorted(int(tree.visits[n]) for n in tree.children(child))
    new = sorted(int(fresh.visits[n]) for n in fresh.children(ROOT))
    assert old == new


def test_tree_rejects_a_budget_below_two() -> None:
    with pytest.raises(ValueError, match="budget"):
        Tree(budget=1)
    assert np.int32(NONE) == -1
