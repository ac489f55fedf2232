"""A think time is spent searching: the clock starts once the kernels are compiled, and
a search that runs out of time before it has a move searches on until it has one."""

from __future__ import annotations

import time

import pytest

import engine.search.controller as controller_module
from engine.search.controller import SearchController
from engine.search.registry import ALGORITHMS


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
@pytest.mark.parametrize("game", ["chess", "knight"])
def test_the_shortest_think_time_still_ends_with_a_move(algorithm: str, game: str) -> None:
    with SearchController(game, algorithm=algorithm) as controller:
        info = controller.search(movetime_ms=0.01)
    assert info.bestmove is not None
    assert info.bestmove in {m.uci() for m in controller.board.legal_moves}
    assert info.stop_reason == "time"


def test_a_compile_before_the_search_is_not_counted_in_its_think_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled: list[str] = []

    def slow_compile(algorithm: object, root: object, params: object) -> None:
        compiled.append(getattr(algorithm, "name", ""))
        time.sleep(0.5)  # a cold kernel cache takes this long, and much longer

    monkeypatch.setattr(controller_module, "ensure_compiled", slow_compile)
    with SearchController("chess", algorithm="uct") as controller:
        start = time.perf_counter()
        info = controller.search(movetime_ms=100)
        wall = time.perf_counter() - start
    assert compiled == ["uct"]
    assert wall >= 0.55  # the compile, then the whole think time
    assert info.elapsed_ms < 400  # the think time alone (with room for a busy machine)
    assert info.iterations > 0 and info.bestmove is not None
