"""``/games`` in a browser: each game shows who played whom ("you" in the browser that
created it), the result, the opening and the date, and the filter narrows the list."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import api_create, click_move, open_game

pytestmark = pytest.mark.browser


def test_the_games_page_names_the_players_and_filters_the_list(server: str, page: Any) -> None:
    mine = api_create(server, human="white", algorithm="uct", name="Lesson on openings")
    knight = api_create(server, human="both", game="knight", name="Knight lesson")
    open_game(page, server, mine)
    for ply, uci in ((2, "e2e4"), (4, "d2d4")):
        click_move(page, uci)
        page.wait_for_function(f"() => window.canopy.state.game.ply === {ply}")
    sans = [m["san"] for m in page.evaluate("window.canopy.state.game.history")]

    page.goto(server + "/games")
    row = page.locator(f"tr[data-game-id='{mine['id']}']")
    assert row.locator("td.players").inner_text() == "you (White) vs Canopy · uct (Black)"
    cells = row.inner_text()
    assert "in progress" in cells
    assert f"1.{sans[0]} {sans[1]} 2.{sans[2]} {sans[3]}" in row.locator("td.opening").inner_text()
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", row.locator("time").inner_text())
    # Another browser did not create it: the player is "player" there, not "you".
    other = page.context.browser.new_page()
    other.goto(server + "/games")
    players = other.locator(f"tr[data-game-id='{mine['id']}'] td.players").inner_text()
    assert players.startswith("player (White)")
    other.close()

    page.locator("#filter-kind").select_option("knight")
    page.locator("#filter-apply").click()
    page.wait_for_url(re.compile(r"kind=knight"))
    ids = page.locator("#recent-games tbody tr").evaluate_all(
        "rows => rows.map((r) => r.dataset.gameId)"
    )
    kinds = page.locator("#recent-games tbody tr").evaluate_all(
        "rows => rows.map((r) => r.dataset.kind)"
    )
    assert knight["id"] in ids and mine["id"] not in ids
    assert set(kinds) == {"knight"}
    page.locator("#filter-clear").click()
    page.locator("#filter-q").fill("on openings")
    page.locator("#filter-q").press("Enter")
    page.wait_for_url(re.compile(r"q=on\+openings"))
    ids = page.locator("#recent-games tbody tr").evaluate_all(
        "rows => rows.map((r) => r.dataset.gameId)"
    )
    assert ids == [mine["id"]]
