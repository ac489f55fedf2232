"""A class in a room: sharing over plain http on the room's network, spectators, knight
chess's names, the browse banner, parameter errors and the engine's warm-up, as a teacher
and students meet them in Chromium.

Plain http on a LAN name is reached through a second Chromium that resolves
``classroom.test`` to the test server: an origin that is no secure context, as
``http://192.168.1.20:8000`` is in a real room.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import ARGS, CHROMIUM, api_create, click_move, open_game

pytestmark = pytest.mark.browser


@pytest.fixture
def lan_page(server: str, browser: Any) -> Iterator[tuple[Any, str, list[str]]]:
    """A page whose origin is ``http://classroom.test:PORT`` (plain http, not localhost),
    with every console message kept. A second Chromium from the same Playwright: the name
    is mapped when the browser starts."""
    port = urlsplit(server).port
    lan = browser.browser_type.launch(
        executable_path=str(CHROMIUM),
        args=[*ARGS, "--host-resolver-rules=MAP classroom.test 127.0.0.1"],
    )
    try:
        context = lan.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        console: list[str] = []
        page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
        page.on("pageerror", lambda exc: console.append(f"pageerror: {exc}"))
        page.set_default_timeout(20_000)
        yield page, f"http://classroom.test:{port}", console
    finally:
        lan.close()


def test_share_and_copy_pgn_work_on_plain_http_without_the_clipboard(
    server: str, lan_page: tuple[Any, str, list[str]]
) -> None:
    page, base, console = lan_page
    game = api_create(server, human="both")
    open_game(page, base, game)
    assert page.evaluate("() => window.isSecureContext") is False
    page.locator("#btn-share").click()
    page.locator("#share-dialog").wait_for(state="visible")
    url = f"{base}/games/{game['id']}"
    assert page.locator("#share-url").input_value() == url  # always shown as text
    assert page.locator("#share-qr svg path").count() == 1  # and as a QR code
    page.locator("#share-copy").click()
    # Either the old copy command worked, or the link is selected with plain instructions.
    page.wait_for_function(
        "() => document.querySelector('.toast')?.textContent.includes('copied')"
        " || !document.getElementById('share-note').hidden"
    )
    if page.locator("#share-note").is_visible():
        assert "Ctrl+C" in page.locator("#share-note").inner_text()
        assert page.evaluate("() => getSelection().toString() || document.activeElement.value")
    page.keyboard.press("Escape")
    page.locator("#pgn-copy").click()
    page.wait_for_function(
        "() => document.querySelector('.toast')?.textContent.includes('PGN copied')"
        " || document.getElementById('copy-dialog').open"
    )
    if page.locator("#copy-dialog").is_visible():
        assert '[Event "' in page.locator("#copy-text").input_value()
        assert "Ctrl+C" in page.locator("#copy-hint").inner_text()
    assert not [m for m in console if "refused" in m or m.startswith("error")], console
    assert not [m for m in console if "Cross-Origin-Opener-Policy" in m], console


def test_on_localhost_the_share_dialog_says_how_to_let_students_in(server: str, page) -> None:
    game = api_create(server, human="white")
    open_game(page, server, game)
    page.locator("#btn-share").click()
    note = page.locator("#share-note")
    note.wait_for(state="visible")
    assert "canopy serve --lan" in note.inner_text()  # the test server listens on 127.0.0.1
    assert page.locator("#share-url").input_value() == f"{server}/games/{game['id']}"


def test_a_spectators_keys_say_read_only_in_plain_words(server: str, page) -> None:
    game = api_create(server, human="white", algorithm="uct", movetime_ms=150)
    open_game(page, server, game, token=False)
    title = page.locator("#game-title").inner_text()
    assert "White: player" in title and "Black: Canopy (uct · 150 ms)" in title
    for key in ("g", "u", " ", "s"):
        page.keyboard.press(key)
    toast = page.locator(".toast")
    toast.first.wait_for()
    assert "Read-only" in toast.first.inner_text()
    assert page.locator(".toast.error").count() == 0
    assert page.evaluate("() => window.canopy.state.game.ply") == 0


def test_knight_chess_names_its_sides_black_and_pink_knights_everywhere(server: str, page) -> None:
    game = api_create(server, game="knight", human="white")
    open_game(page, server, game)
    options = page.locator("#settings-human option").all_inner_texts()
    assert options[0] == "Black knights (engine plays Pink knights)"
    assert options[1] == "Pink knights (engine plays Black knights)"
    assert not any("White" in o or o.startswith("Black (") for o in options)
    page.goto(server + "/games")
    row = page.locator(f"tr[data-game-id='{game['id']}']")
    players = row.locator("td.players").inner_text()
    assert players == "you (Black knights) vs Canopy · mcts (Pink knights)"


def test_the_browse_banner_leaves_rank_one_in_view(server: str, page) -> None:
    game = api_create(server, human="both")
    open_game(page, server, game)
    for uci in ("e2e4", "e7e5"):
        ply = page.evaluate("() => window.canopy.state.game.ply")
        click_move(page, uci)
        page.wait_for_function(f"() => window.canopy.state.game.ply > {ply}")
    page.keyboard.press("ArrowLeft")
    banner = page.locator("#browse-banner")
    banner.wait_for(state="visible")
    board = page.locator("cg-board").bounding_box()
    box = banner.bounding_box()
    assert box["y"] >= board["y"] + board["height"], "the banner is below the board"
    assert page.locator("#status").is_hidden()  # it takes the status line's place


def test_a_parameter_out_of_range_is_named_beside_its_field(server: str, page) -> None:
    game = api_create(server, human="white", algorithm="uct")
    open_game(page, server, game)
    page.locator("#settings-fields-advanced > summary").click()  # the parameters are there
    field = page.locator("#settings-fields-p-c")
    field.fill("99")
    page.locator("#settings-apply").click()
    message = page.locator("#settings-fields .inline-error:not([hidden])")
    message.wait_for()
    assert message.inner_text() == "parameter 'c' must be between 0 and 10; got 99"
    assert field.get_attribute("aria-invalid") == "true"
    field.fill("1.5")
    message.wait_for(state="hidden")


def test_a_cold_start_says_the_engine_is_warming_up_with_progress(server: str, page) -> None:
    progress = {"ready": False, "done": 3, "total": 14, "label": "chess: uct-minimax"}
    body = {**progress, "elapsed_s": 12.0, "failed": False}
    page.route(
        "**/api/warmup",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(body)
        ),
    )
    game = api_create(server, human="white")
    open_game(page, server, game)
    page.wait_for_function("() => document.body.dataset.warm === '0'")
    text = page.locator("#status-text").inner_text()
    assert text.startswith("Warming up the engine…") and "3/14, chess: uct-minimax" in text
    assert page.locator("#progress").is_visible()
    body.update(ready=True, done=14)
    page.wait_for_function("() => document.body.dataset.warm === '1'", timeout=5_000)
    assert "Warming up" not in page.locator("#status-text").inner_text()
