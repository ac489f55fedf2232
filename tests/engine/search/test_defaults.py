"""Which algorithm plays when none is named: every entry point (a new game, the search
controller, ``canopy search`` and ``canopy uci``) falls back to the registry's one default,
so changing it in one place changes it everywhere.
"""

from __future__ import annotations

import subprocess
import sys

from engine.play.game import EngineSettings
from engine.search.controller import SearchController
from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM
from engine.uci.options import OptionSet


def test_every_entry_point_plays_the_default_algorithm_when_none_is_named() -> None:
    assert EngineSettings().algorithm == DEFAULT_ALGORITHM
    assert SearchController("chess").algorithm.name == DEFAULT_ALGORITHM
    assert OptionSet.build()["Algorithm"] == DEFAULT_ALGORITHM


def test_canopy_search_help_names_every_algorithm_and_which_is_the_default() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "canopy", "search", "--help"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert all(name in out for name in ALGORITHMS)
    assert f"{DEFAULT_ALGORITHM} (the default)" in " ".join(out.split())
