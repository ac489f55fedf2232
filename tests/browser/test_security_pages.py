"""The strict Content-Security-Policy in a real browser: the app, the projector view and the
recent-games page run without a single violation; the projector view cannot move."""

from __future__ import annotations

import time
from typing import Any

from tests.browser.conftest import api_create, api_get, open_game

LISTEN = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


def violations(page: Any) -> list[str]:
    return list(page.evaluate("window.__csp || []"))


def wait_until(page: Any, expression: str, timeout: float = 20.0) -> None:
    """Poll ``expression`` with ``page.evaluate`` (DevTools, so the page's CSP allows it;
    ``wait_for_function`` compiles its predicate with ``eval``, which the CSP forbids)."""
    end = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < end, f"timed out waiting for {expression}"
        time.sleep(0.1)


def test_the_app_runs_a_search_under_the_csp_without_violations(server, page) -> None:
    page.add_init_script(LISTEN)
    game = api_create(server, human="both", name="<b>csp</b>")
    open_game(page, server, game)
    page.keyboard.press("Space")  # start the analysis: table, arrows, charts redraw
    wait_until(page, "Number(document.body.dataset.statsCount) >= 3")
    page.keyboard.press("Space")
    assert violations(page) == []


def test_the_projector_view_is_read_only_large_and_live(server, page) -> None:
    page.add_init_script(LISTEN)
    game = api_create(server, human="none", movetime_ms=300, name="projector")
    # Even with the creator's token in this browser, the projector view never uses it.
    page.goto(server + game["url"] + f"#token={game['token']}")
    page.wait_for_selector("body[data-role=player]")
    page.goto(server + f"/games/{game['id']}/watch")
    page.wait_for_selector("body[data-conn=open][data-role=spectator]")
    assert page.evaluate("document.documentElement.classList.contains('large')")
    assert page.evaluate("document.documentElement.classList.contains('projector')")
    assert not page.locator("#btn-start").is_visible()
    assert not page.locator("#settings-form").is_visible()
    wait_until(page, "Number(document.body.dataset.ply) >= 2")  # the engines play on
    wait_until(page, "Number(document.body.dataset.statsCount) >= 2")
    assert violations(page) == []
    assert api_get(server, f"/api/games/{game['id']}")["settings"]["movetime_ms"] == 300


def test_the_recent_games_page_lists_games_with_names_as_text(server, page) -> None:
    page.add_init_script(LISTEN)
    page.on("dialog", lambda d: (_ for _ in ()).throw(AssertionError(f"dialog: {d.message}")))
    name = "<img src=x onerror=alert(1)>"
    game = api_create(server, human="white", name=name)
    page.goto(server + "/games")
    row = page.locator(f"tr[data-game-id='{game['id']}']")
    assert row.locator("td").first.inner_text() == name  # shown as text, not markup
    assert page.locator("img[src=x]").count() == 0
    row.locator("a", has_text="Projector").click()
    page.wait_for_selector("body[data-view=projector][data-conn=open]")
    assert violations(page) == []
