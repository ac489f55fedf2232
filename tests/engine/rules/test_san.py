"""Naming moves: SAN of a line from a position, and of a search tree's nodes."""

from __future__ import annotations

import chess

from engine.rules.convert import move_to_uci
from engine.rules.san import SanCache, san_line
from engine.search.controller import SearchController


def test_a_line_of_moves_stops_at_the_first_illegal_one() -> None:
    board, sans = san_line(chess.Board(), ["e2e4", "e7e5", "e1e3", "g1f3"])
    assert sans == ["e4", "e5"] and board.fullmove_number == 2
    _, sans = san_line(chess.Board(), ["e2e4", "not-a-move", "e7e5"])
    assert sans == ["e4"]


def test_a_tree_node_is_named_by_the_move_into_it_and_the_root_by_none() -> None:
    with SearchController("chess", algorithm="uct", seed=1) as controller:
        controller.search(iterations=100)
        tree = controller.workers[0].tree
        sans = SanCache(controller.board)
        assert sans.node(tree, 0) == ""
        for child in tree.children(0):
            move = chess.Move.from_uci(move_to_uci(int(tree.move[child])))
            assert sans.node(tree, child) == controller.board.san(move)
            below = tree.children(child)
            if below:
                line = [move_to_uci(int(tree.move[n])) for n in (child, below[0])]
                assert sans.node(tree, below[0]) == sans.line(line)[1]
