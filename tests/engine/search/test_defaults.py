"""Which algorithm plays when none is named, and the defaults that depend on the game.

``mcts`` is the strongest MCTS (docs/results.md), so it is the opponent of a new game,
``canopy search`` and ``canopy uci``; ``uct`` stays one choice away. ``bfms`` scores its
leaves by a quiescence search in chess (a static leaf misses every capture in flight)
and keeps the static leaf in knight chess, where it measured no worse.
"""

from __future__ import annotations

import subprocess
import sys

from engine.play.session import EngineSettings
from engine.search.controller import SearchController
from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM, validate_params
from engine.uci.options import OptionSet


def test_mcts_is_the_default_everywhere() -> None:
    assert DEFAULT_ALGORITHM == "mcts"
    assert EngineSettings().algorithm == DEFAULT_ALGORITHM
    assert SearchController("chess").algorithm.name == DEFAULT_ALGORITHM
    assert OptionSet.build()["Algorithm"] == DEFAULT_ALGORITHM


def test_canopy_search_names_every_algorithm_and_searches_with_mcts_by_default() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "canopy", "search", "--help"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert all(name in out for name in ALGORITHMS)
    assert f"{DEFAULT_ALGORITHM} (the default)" in " ".join(out.split())


def test_bfms_scores_leaves_by_quiescence_in_chess_and_statically_in_knight_chess() -> None:
    assert validate_params("bfms", {}, "chess")["leaf"] == "quiescence"
    assert validate_params("bfms", {}, "knight")["leaf"] == "static"
    assert validate_params("bfms", {}, "chess")["solver"] is False  # the seed had no proofs


def test_mcts_scores_returning_nodes_again_in_chess_only() -> None:
    """``rescore`` measured better in chess (results.md, sessions 38-39); it has not been
    played in knight chess, where every game against alphabeta is drawn, so it stays off."""
    assert validate_params("mcts", {}, "chess")["rescore"] == 2
    assert validate_params("mcts", {}, "knight")["rescore"] == 0
