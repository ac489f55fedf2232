"""The principal variation is walked in numba (``engine.search.parts.pv``); at every ply
it must take the child the algorithm's own ``pv_key`` ranks first, ties to the first in
list order, exactly as the Python walk it replaced did."""

from __future__ import annotations

import pytest

from engine.search.controller import SearchController
from engine.search.tree import ROOT

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def reference_line(tree, algorithm, node: int, limit: int) -> list[int]:
    line = [int(tree.move[node])]
    while len(line) < limit:
        kids = tree.children(node)
        if algorithm.pv_needs_visits:
            kids = [k for k in kids if tree.visits[k] > 0]
        if not kids:
            break
        node = max(kids, key=lambda k: algorithm.pv_key(tree, k))
        line.append(int(tree.move[node]))
    return line


@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax", "bfms", "mcts"])
@pytest.mark.parametrize("game", ["chess", "knight"])
def test_the_line_follows_the_algorithms_pv_rule_at_every_ply(algorithm: str, game: str) -> None:
    fen = ITALIAN if game == "chess" else None
    controller = SearchController(game, fen, algorithm=algorithm, seed=1)
    controller.search(iterations=400)
    worker = controller.workers[0]
    tree = worker.tree
    longest = 0
    for node in tree.children(ROOT):
        line = worker.principal_variation(node, 12)
        assert line == reference_line(tree, controller.algorithm, node, 12)
        longest = max(longest, len(line))
    assert longest >= 2  # the walk went below the root's children


def test_a_line_is_never_longer_than_asked() -> None:
    controller = SearchController("chess", ITALIAN, algorithm="mcts", seed=1)
    controller.search(iterations=600)
    worker = controller.workers[0]
    for node in worker.tree.children(ROOT):
        assert 1 <= len(worker.principal_variation(node, 2)) <= 2
