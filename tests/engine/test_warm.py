"""``engine.warm``: every kernel a game needs is touched before the first game, tree reuse's
too (a kernel first compiled in a game costs that game's clock)."""

from __future__ import annotations

from typing import Any

import pytest

import engine.uci.engine
import engine.warm
from engine.search.controller import SearchController
from engine.search.registry import ALGORITHMS
from engine.uci.engine import LineWriter, UciEngine


def test_warm_plays_a_move_in_every_search_of_both_games(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[tuple[str, str]] = []
    real_play = SearchController.play

    def play(self: SearchController, uci: str) -> None:
        before = len(self.board.move_stack)
        real_play(self, uci)
        played.append((self.game.name, self.algorithm.name))
        assert len(self.board.move_stack) == before + 1  # the root advanced

    monkeypatch.setattr(SearchController, "play", play)
    engine.warm.warm()
    assert sorted(played) == sorted((g, a) for g in ("chess", "knight") for a in ALGORITHMS)


def test_the_uci_engine_warms_tree_reuse_off_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    warmed: list[str] = []

    def record(controller: Any) -> None:
        warmed.append(controller.algorithm.name)

    monkeypatch.setattr(engine.uci.engine, "play_first_move", record)
    uci = UciEngine(LineWriter(lambda line: None))
    uci.handle("isready")
    uci.handle("quit")
    assert sorted(warmed) == sorted(ALGORITHMS)
