"""The same seed gives the same tree; another seed gives another."""

from __future__ import annotations

import numpy as np
import pytest

from engine.search.controller import SearchController


def _tree_arrays(algorithm: str, seed: int, game: str = "chess") -> list[np.ndarray]:
    controller = SearchController(game, algorithm=algorithm, seed=seed)
    controller.search(iterations=700)
    tree = controller.workers[0].tree
    return [a[: tree.used].copy() for a in tree.arrays[:-1]]


@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax", "bfms"])
@pytest.mark.parametrize("game", ["chess", "knight"])
def test_same_seed_same_tree(algorithm: str, game: str) -> None:
    first, second = _tree_arrays(algorithm, 7, game), _tree_arrays(algorithm, 7, game)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax"])
def test_another_seed_grows_another_tree(algorithm: str) -> None:
    first, other = _tree_arrays(algorithm, 7), _tree_arrays(algorithm, 8)
    assert any(
        a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(first, other, strict=True)
    )
