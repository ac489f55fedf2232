"""The page stays where the class is looking: a Step press (and the four phases it animates)
never scrolls the page, nor does a click on the evaluation graph, in normal and in large
type (a projector). A scroll there took the header and the Selection panel out of view on
every step, and moved the graph from under the mouse on every click."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import api_create, click_move, open_game, step_times, tab

pytestmark = pytest.mark.browser

TYPES = pytest.mark.parametrize("large", [False, True], ids=["normal-type", "large-type"])


def _large(page: Any, large: bool) -> None:
    if large:
        page.locator("#btn-large").click()
        page.wait_for_function("() => document.documentElement.classList.contains('large')")


def _scroll_y(page: Any) -> float:
    return float(page.evaluate("window.scrollY"))


def _animated(page: Any) -> None:
    """The last step's four phases have played (fast: a few hundred ms each)."""
    page.wait_for_selector("#phases .phase[data-phase=backpropagation].active")
    page.wait_for_timeout(400)  # a smooth scroll, were there one, would be under way


@TYPES
def test_a_step_press_leaves_the_page_where_it_was(server: str, page: Any, large: bool) -> None:
    game = api_create(server, human="both", algorithm="uct")
    open_game(page, server, game)
    _large(page, large)
    tab(page, "step")
    page.select_option("#step-speed", "fast")
    step_times(page, 1)  # the phases are drawn: the page is tall enough to scroll
    _animated(page)
    page.evaluate("window.scrollTo({top: 0, behavior: 'instant'})")
    for _ in range(2):
        step_times(page, 1)
        _animated(page)
        assert _scroll_y(page) == 0
        assert page.locator(".topbar").bounding_box()["y"] == 0  # the header in view
    # From further down, with the Selection panel in view: it stays in view.
    selection = page.locator("#phases .phase[data-phase=selection]")
    page.evaluate(
        "window.scrollTo({top: document.querySelector('#panel-step').offsetTop,"
        " behavior: 'instant'})"
    )
    before = _scroll_y(page)
    assert before > 0
    step_times(page, 1)
    _animated(page)
    assert _scroll_y(page) == before
    box = selection.bounding_box()
    assert box["y"] < page.viewport_size["height"], "the Selection panel is still in view"


@TYPES
def test_a_click_on_the_evaluation_graph_leaves_the_page_where_it_was(
    server: str, page: Any, large: bool
) -> None:
    game = api_create(server, human="white", algorithm="uct")
    open_game(page, server, game)
    _large(page, large)
    for ply, uci in ((2, "e2e4"), (4, "d2d4"), (6, "g1f3")):
        click_move(page, uci)
        page.wait_for_function(f"() => window.canopy.state.game.ply === {ply}")
    graph = page.locator("#evalgraph .u-over")
    page.wait_for_function("() => Number(document.querySelector('#evalgraph').dataset.points) >= 3")
    page.wait_for_timeout(500)  # the review of the last move is in: the plot is drawn for good
    page.locator("#evalgraph").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy({top: 60, behavior: 'instant'})")  # past the move list
    before = _scroll_y(page)
    for fraction, ply in ((0.05, 0), (0.5, 3), (0.95, 6)):
        box = graph.bounding_box()
        page.mouse.click(box["x"] + box["width"] * fraction, box["y"] + box["height"] / 2)
        page.wait_for_function(
            f"() => document.querySelector('#evalgraph').dataset.current === '{ply}'"
        )
        page.wait_for_timeout(200)
        assert _scroll_y(page) == before, f"the page scrolled on a click at ply {ply}"
        assert graph.bounding_box()["y"] == pytest.approx(box["y"], abs=1), "the graph moved"
