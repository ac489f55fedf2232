"""The engine's arrows survive a board that has no size for a moment.

Chessground remembers the board's measured size and places arrows by it; measured while
the board had no layout (hidden, or mid-relayout under load) it gave every arrow NaN
coordinates — a page error per attribute, seen as a rare flake in the live-table test.
Here the board is hidden while arrows are shown and the window is resized (the page
redraws its board on resize), which measured the hidden board every time.
"""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import api_create, open_game

ARROW_COORDS = """() => [...document.querySelectorAll('svg.cg-shapes line')].map(l =>
    ['x1', 'y1', 'x2', 'y2'].map(a => Number(l.getAttribute(a))))"""


def _arrows_shown(page: Any) -> None:
    page.wait_for_function("() => document.querySelectorAll('svg.cg-shapes line').length > 0")


def _all_finite(coords: list[list[float]]) -> bool:
    return all(v == v and abs(v) < 10 for line in coords for v in line)


def test_arrows_stay_placed_when_the_board_is_redrawn_while_hidden(server, page) -> None:
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    game = api_create(server, human="white", movetime_ms=4000)
    open_game(page, server, game)
    page.keyboard.press("Space")  # analyse the start position: candidate arrows appear
    page.wait_for_function("() => window.canopy.state.game.search.status === 'running'")
    _arrows_shown(page)
    page.evaluate(
        """() => new Promise(done => {
            document.getElementById('board').style.display = 'none';
            window.dispatchEvent(new Event('resize'));
            requestAnimationFrame(() => requestAnimationFrame(done));
        })"""
    )
    page.wait_for_timeout(300)  # a few stats frames arrive while the board is hidden
    page.evaluate(
        """() => new Promise(done => {
            document.getElementById('board').style.display = '';
            window.dispatchEvent(new Event('resize'));
            requestAnimationFrame(() => requestAnimationFrame(done));
        })"""
    )
    _arrows_shown(page)
    coords = page.evaluate(ARROW_COORDS)
    page.keyboard.press("Space")
    page.wait_for_function("() => window.canopy.state.game.search.status === 'idle'")
    assert not [e for e in errors if "NaN" in e], errors
    assert coords and _all_finite(coords), coords
