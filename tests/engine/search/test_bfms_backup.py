"""bfms back-up: every expanded, non-terminal node's value is −max(children) after any search,
and the move played maximises value + ln(visits)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rules.convert import move_to_uci
from engine.search.controller import SearchController
from engine.search.tree import NONE, TERMINAL

POSITIONS = [
    ("chess", None),
    ("chess", "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 4"),
    ("chess", "k7/8/2K5/8/8/8/8/1R6 w - - 0 1"),
    ("knight", None),
    ("knight", "n1n5/1N2n2n/8/NN2n1N1/1n2Nn1N/8/2n3N1/2N1NNn1 w - - 3 66"),
]


@settings(max_examples=25, deadline=None)
@given(
    position=st.sampled_from(POSITIONS),
    seed=st.integers(0, 2**32 - 1),
    iterations=st.integers(1, 400),
    c=st.floats(0.0, 4.0),
    fpu=st.floats(-1.0, 1.0),
)
def test_every_interior_value_is_minus_the_best_child(
    position: tuple[str, str | None], seed: int, iterations: int, c: float, fpu: float
) -> None:
    game, fen = position
    controller = SearchController(
        game, fen, algorithm="bfms", params={"C": c, "fpu": fpu}, seed=seed
    )
    controller.search(iterations=iterations)
    tree = controller.workers[0].tree
    for node in range(tree.used):
        if tree.first_child[node] == NONE or tree.flags[node] & TERMINAL:
            continue
        children = tree.children(node)
        assert tree.value[node] == -max(tree.value[k] for k in children)
    assert tree.visits[0] == iterations


@settings(max_examples=10, deadline=None)
@given(
    position=st.sampled_from(POSITIONS),
    seed=st.integers(0, 2**32 - 1),
    iterations=st.integers(50, 600),
)
def test_the_move_played_maximises_value_plus_log_visits(
    position: tuple[str, str | None], seed: int, iterations: int
) -> None:
    game, fen = position
    controller = SearchController(game, fen, algorithm="bfms", seed=seed)
    info = controller.search(iterations=iterations)
    tree = controller.workers[0].tree
    # Each root child's value is from the point of view of the side that moved into it (the
    # side to move at the root; a mate scores 10000 - 10 per ply, so it comes first here
    # too); an unvisited child comes after every visited one.
    scores = {
        move_to_uci(int(tree.move[k])): (
            tree.value[k] + math.log(tree.visits[k]) if tree.visits[k] else -math.inf
        )
        for k in tree.children(0)
    }
    best = max(scores.values())
    assert scores[info.bestmove] == best
