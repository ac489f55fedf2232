"""Inside the tree, a chess position repeated on its path or from the game is a draw."""

from __future__ import annotations

import pytest

from engine.rules.convert import move_to_uci
from engine.search.controller import SearchController
from engine.search.tree import ROOT, TERMINAL

SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]  # back to the start position


@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax", "bfms"])
def test_a_move_repeating_a_game_position_is_a_terminal_draw(algorithm: str) -> None:
    controller = SearchController("chess", moves=SHUFFLE, algorithm=algorithm, seed=1)
    controller.search(iterations=3000)
    tree = controller.workers[0].tree
    child = next(n for n in tree.children(ROOT) if move_to_uci(int(tree.move[n])) == "g1f3")
    assert tree.flags[child] & TERMINAL and tree.outcome[child] == 0
    other = next(n for n in tree.children(ROOT) if move_to_uci(int(tree.move[n])) == "e2e4")
    assert not tree.flags[other] & TERMINAL


@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax", "bfms", "mcts"])
def test_playing_a_move_the_tree_marked_a_repetition_draw_still_searches(algorithm: str) -> None:
    """The tree calls g1f3 a draw because its position stood on the board before; the game
    itself goes on after it (twice is not threefold). Reusing that child as the new root
    kept its terminal mark, and every later search ended at once with no move (an engine
    that never moved again in the app)."""
    controller = SearchController("chess", moves=SHUFFLE, algorithm=algorithm, seed=1)
    controller.search(iterations=3000)
    tree = controller.workers[0].tree
    child = next(n for n in tree.children(ROOT) if move_to_uci(int(tree.move[n])) == "g1f3")
    assert tree.flags[child] & TERMINAL
    controller.play("g1f3")
    controller.search(iterations=200)
    info = controller.info()
    assert info.bestmove is not None and info.iterations == 200
    assert info.stop_reason != "terminal"


def test_repetition_along_the_path_inside_the_tree_is_a_draw() -> None:
    # Blocked pawns, three king moves a side: bfms expands every line four plies deep.
    controller = SearchController("chess", "7k/8/8/p7/P7/8/8/K7 w - - 0 1", algorithm="bfms")
    controller.search(iterations=3000)
    tree = controller.workers[0].tree
    node = ROOT
    for uci in ("a1b1", "h8g8", "b1a1", "g8h8"):
        kids = {move_to_uci(int(tree.move[k])): k for k in tree.children(node)}
        node = kids[uci]
    assert tree.flags[node] & TERMINAL and tree.outcome[node] == 0
    assert tree.value[node] == 0.0


def test_knight_chess_has_no_repetition_rule() -> None:
    shuffle = ["b1c3", "b8c6", "c3b1", "c6b8"]
    controller = SearchController("knight", moves=shuffle, algorithm="bfms", seed=1)
    controller.search(iterations=300)
    tree = controller.workers[0].tree
    child = next(n for n in tree.children(ROOT) if move_to_uci(int(tree.move[n])) == "b1c3")
    assert not tree.flags[child] & TERMINAL
