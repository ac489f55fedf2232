"""The game review in headless Chromium: what the engine thought stays with its moves.

Play against the engine, reload, browse back to its move: the table, the arrows and the
label of the search that chose it are there (for a spectator too). The last search stays
on screen, dimmed, after the engine moves; the evaluation graph goes to a ply on click.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import api_create, click_move, open_game, page_state

pytestmark = pytest.mark.browser

LABEL = re.compile(r"Canopy's search for 1…\S+ \(mcts · [\d.]+ m?s · [\d,]+ iterations\)")


def wait_ply(page: Any, ply: int, timeout: float = 180_000) -> None:
    page.wait_for_function(
        f"() => window.canopy.state.game && window.canopy.state.game.ply >= {ply}", timeout=timeout
    )


def rows(page: Any) -> int:
    return int(page.locator("#root-body tr").count())


def test_the_engines_move_keeps_its_table_and_arrows_after_a_reload(page: Any, server: str) -> None:
    game = api_create(
        server, game="chess", human="white", algorithm="mcts", budget="iterations", iterations=400
    )
    open_game(page, server, game)
    click_move(page, "e2e4")
    wait_ply(page, 2)
    # The engine moved and no new search started: its search stays, dimmed and labelled.
    page.wait_for_selector("#search-label[data-kind=last]:not([hidden])")
    assert "Last move" in page.locator("#search-label").inner_text()
    assert page.locator("#panel-moves.dimmed").count() == 1 and rows(page) > 0
    assert page.locator("#root-empty").is_hidden()
    click_move(page, "g1f3")
    wait_ply(page, 4)
    page.wait_for_function("() => window.canopy.state.game.search.status === 'idle'")

    page.reload()
    page.wait_for_selector("body[data-conn=open][data-version]")
    reply = page_state(page)["history"][1]["san"]
    page.locator("#movelist button[data-ply='2']").click()
    label = page.locator("#search-label")
    page.wait_for_selector("#search-label[data-kind=stored]:not([hidden])")
    assert LABEL.fullmatch(label.inner_text()), label.inner_text()
    assert f"1…{reply}" in label.inner_text()
    assert rows(page) > 0 and page.locator("#root-body tr.played").count() == 1
    assert page.locator("#panel-moves.dimmed").count() == 0
    page.wait_for_function("() => document.querySelectorAll('svg.cg-shapes line').length > 0")

    # The arrow keys browse too: 2.Nf3 (a player's move, no search ran) kept nothing.
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#search-label[data-kind=none]:not([hidden])")
    assert "No search was kept with 2.Nf3" in label.inner_text()
    assert rows(page) == 0
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#search-label[data-kind=stored]:not([hidden])")
    assert f"1…{reply}" in label.inner_text()


def pause_the_engine(page: Any, tries: int = 5) -> None:
    """Space pauses the engine while it thinks; pressed in the instant between two engine
    moves (the search idle) it starts one instead, which a loaded machine makes likely.
    So press it only while a search runs, and again if that search ended first."""
    page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(tries):
        page.wait_for_function("() => window.canopy.state.game.search.status === 'running'")
        page.keyboard.press("Space")
        try:
            page.wait_for_function("() => window.canopy.state.game.search.paused", timeout=5000)
            return
        except Exception:  # the press landed between two moves: try again
            continue
    raise AssertionError(f"the engine did not pause after {tries} presses of Space")


def click_the_graph_at(page: Any, ply: int) -> None:
    """Click the evaluation graph at ``ply`` once it has a point for every ply played, the
    pointer over the graph first as a person's would be; wait until the page shows it."""
    plies = page_state(page)["ply"]
    page.wait_for_function(
        f"() => document.getElementById('evalgraph').dataset.points === '{plies}'"
    )
    over = page.locator("#evalgraph .u-over")
    over.scroll_into_view_if_needed()
    box = over.bounding_box()
    page.mouse.move(box["x"] + box["width"] * (ply - 0.5) / plies, box["y"] + 20)
    page.mouse.click(box["x"] + box["width"] * ply / plies, box["y"] + box["height"] / 2)
    page.wait_for_function(f"() => window.canopy.state.view.ply === {ply}")


def test_the_evaluation_graph_goes_to_a_ply_on_click_for_a_spectator(
    page: Any, server: str
) -> None:
    # Searches long enough (tens of ms each) for the page to see one running, and for the
    # game not to be over before the pause.
    game = api_create(
        server, game="chess", human="none", algorithm="mcts", budget="iterations", iterations=1000
    )
    open_game(page, server, game)  # the player, to pause the game
    wait_ply(page, 10)
    pause_the_engine(page)

    # Another browser (its own storage, so no token): a spectator.
    context = page.context.browser.new_context(viewport={"width": 1600, "height": 1000})
    watcher = context.new_page()
    open_game(watcher, server, game, token=False)
    assert page_state(watcher)["role"] == "spectator"
    target = 4
    click_the_graph_at(watcher, target)
    watcher.wait_for_selector("#search-label[data-kind=stored]:not([hidden])")
    assert "Canopy's search for 2…" in watcher.locator("#search-label").inner_text()
    assert watcher.locator("#movelist button[data-ply='4'].current").count() == 1
    assert watcher.locator("#evalgraph").get_attribute("data-current") == str(target)
    assert rows(watcher) > 0
    context.close()


def test_a_hung_queen_is_marked_as_a_big_swing_on_the_projector(page: Any, server: str) -> None:
    # White is a queen up; after 1.h3 and any reply, 2.Qd5 hangs the queen to a pawn.
    fen = "6k1/5ppp/2p1p3/8/8/8/5PPP/3Q2K1 w - - 0 1"
    game = api_create(
        server, game="chess", fen=fen, human="white", algorithm="mcts", budget="iterations",
        iterations=400,
    )  # fmt: skip
    open_game(page, server, game)
    click_move(page, "h2h3")
    wait_ply(page, 2)
    page.wait_for_function("() => window.canopy.state.game.turn === 'white'")
    click_move(page, "d1d5")
    wait_ply(page, 4)

    projector = page.context.browser.new_context(viewport={"width": 1920, "height": 1080})
    screen = projector.new_page()
    screen.goto(server + f"/games/{game['id']}/watch")
    screen.wait_for_selector("body[data-conn=open][data-version]")
    screen.wait_for_selector("#evalgraph .evalgraph-swings button")
    blunder = screen.locator("#evalgraph .evalgraph-swings button[data-ply='3']")
    assert blunder.inner_text().startswith("2.Qd5 −")
    assert screen.locator("#movelist button[data-ply='3'].swing").count() == 1
    blunder.click()
    screen.wait_for_function("() => window.canopy.state.view.ply === 3")
    label = screen.locator("#search-label")
    screen.wait_for_selector("#search-label[data-kind=none]:not([hidden])")
    assert "No search was kept with 2.Qd5 (a player's move)" in label.inner_text()
    # The engine's answer, the capture, is the last move: back to the game, its search shown.
    screen.keyboard.press("ArrowRight")
    screen.wait_for_selector("#search-label[data-kind=last]:not([hidden])")
    assert re.search(r"Canopy's search for 2…[ce]xd5 ", label.inner_text()), label.inner_text()
    projector.close()


def test_knight_chess_graph_speaks_of_the_black_knights(page: Any, server: str) -> None:
    game = api_create(
        server, game="knight", human="none", algorithm="mcts", budget="iterations", iterations=100
    )
    open_game(page, server, game)
    wait_ply(page, 3)
    page.wait_for_function("() => Number(document.querySelector('#evalgraph').dataset.points) > 0")
    caption = page.locator("#evalgraph .evalgraph-caption").inner_text()
    assert caption.startswith("Black knights' expected score after each ply (1: Black knights win")
    assert "White" not in caption
