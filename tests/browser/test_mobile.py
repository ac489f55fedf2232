"""Phones: students open the share link on theirs (360 × 740 and 390 × 844, mobile
emulation with touch). Every view fits the screen's width, the header folds into a menu,
the New game dialog's Create button is reachable, and moves are played by tapping two
squares or dragging a piece with a finger.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import api_create, page_state, square_center

pytestmark = pytest.mark.browser

PHONES = {"360x740": (360, 740), "390x844": (390, 844)}


@pytest.fixture(params=list(PHONES))
def phone(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """A page in a phone-sized, touch-enabled context; fails the test on any JavaScript error."""
    width, height = PHONES[request.param]
    context = browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    page = context.new_page()
    page.phone = request.param
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.set_default_timeout(20_000)
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def overflow(page: Any) -> int:
    """How many CSS pixels the page is wider than the screen (0: no sideways scrolling)."""
    return int(
        page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
    )


def tap_move(page: Any, uci: str) -> None:
    page.touchscreen.tap(*square_center(page, uci[:2]))
    page.touchscreen.tap(*square_center(page, uci[2:4]))


def drag_move(page: Any, uci: str) -> None:
    """A finger on the piece, moved in small steps to the target square, lifted there."""
    cdp = page.context.new_cdp_session(page)
    (x0, y0), (x1, y1) = square_center(page, uci[:2]), square_center(page, uci[2:4])

    def touch(kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x0, y0)
    for i in range(1, 11):
        touch("touchMove", x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10)
    touch("touchEnd", x1, y1)
    cdp.detach()


def open_live(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-conn=open][data-version]")


def test_no_view_scrolls_sideways_on_a_phone(server: str, phone: Any) -> None:
    game = api_create(server, human="white")
    open_live(phone, f"{server}{game['url']}#token={game['token']}")
    assert overflow(phone) == 0, "game view"
    board = phone.locator("cg-board").bounding_box()
    width = phone.viewport_size["width"]
    assert board["width"] >= width - 24, "the board is as wide as the screen"
    open_live(phone, f"{server}{game['url']}/watch")
    assert overflow(phone) == 0, "projector view"
    phone.goto(f"{server}/games")
    phone.locator("#recent-games").wait_for()
    assert overflow(phone) == 0, "games list"
    scroller = phone.locator(".table-scroll")
    assert scroller.evaluate("el => el.scrollWidth > el.clientWidth")  # the table scrolls inside
    phone.goto(f"{server}/")
    phone.locator("#new-dialog").wait_for(state="visible")
    assert overflow(phone) == 0, "new-game view"
    create = phone.locator("#new-create").bounding_box()
    height = phone.viewport_size["height"]
    assert create["x"] >= 0 and create["x"] + create["width"] <= width
    assert create["y"] >= 0 and create["y"] + create["height"] <= height, "Create is on screen"


def play_e4_e5_in_a_new_game(phone: Any, server: str) -> None:
    """Make an analysis game in the New game dialog by taps, then play 1.e4 by tapping its
    two squares and 1...e5 by dragging the pawn."""
    phone.goto(f"{server}/")
    phone.locator("#new-dialog").wait_for(state="visible")
    phone.locator("#new-dialog input[name=human][value=both]").tap()
    phone.locator("#new-create").tap()
    phone.wait_for_url("**/games/*")
    phone.wait_for_selector("body[data-conn=open][data-version][data-role=player]")
    tap_move(phone, "e2e4")
    phone.wait_for_function("() => window.canopy.state.game.moves.length === 1")
    drag_move(phone, "e7e5")
    phone.wait_for_function("() => window.canopy.state.game.moves.length === 2")


def test_a_game_is_created_and_moves_are_played_by_taps_and_by_a_drag(
    server: str, phone: Any
) -> None:
    play_e4_e5_in_a_new_game(phone, server)
    assert page_state(phone)["moves"] == ["e2e4", "e7e5"]
    assert overflow(phone) == 0


def test_the_header_folds_into_a_menu_that_opens_the_share_dialog(server: str, phone: Any) -> None:
    game = api_create(server, human="white")
    open_live(phone, f"{server}{game['url']}#token={game['token']}")
    assert phone.locator("#btn-share").is_hidden()
    phone.locator("#btn-menu").tap()
    phone.locator("#btn-share").wait_for(state="visible")
    phone.locator("#btn-share").tap()
    dialog = phone.locator("#share-dialog")
    dialog.wait_for(state="visible")
    assert phone.locator("#share-url").input_value().endswith(f"/games/{game['id']}")
    assert phone.locator("#share-qr svg path").count() == 1
    box = dialog.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= phone.viewport_size["width"]
    assert overflow(phone) == 0


def test_a_spectator_on_a_phone_sees_the_game_and_both_sides_named(server: str, phone: Any) -> None:
    game = api_create(server, human="white", algorithm="uct", movetime_ms=150)
    open_live(phone, f"{server}{game['url']}")
    title = phone.locator("#game-title").inner_text()
    assert "White: player" in title and "Black: Canopy (uct" in title
    assert overflow(phone) == 0


@pytest.mark.parametrize(
    ("size", "touch"), [((820, 1180), True), ((1920, 1080), False)], ids=["tablet", "projector"]
)
def test_tablets_and_projectors_keep_their_layouts(
    server: str, browser: Any, size: tuple[int, int], touch: bool
) -> None:
    """The phone rules stay out of the way: a tablet keeps its 640 px board in one column,
    a projector its board beside the live search, both without sideways scrolling."""
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch)
    page = context.new_page()
    try:
        game = api_create(server, human="white")
        for url in (f"{game['url']}#token={game['token']}", f"{game['url']}/watch"):
            open_live(page, server + url)
            assert overflow(page) == 0, url
            board = page.locator("cg-board").bounding_box()
            panel = page.locator(".panel-col").bounding_box()
            if touch:
                assert board["width"] == pytest.approx(640, abs=2)
                assert panel["y"] > board["y"] + board["height"]  # one column
            else:
                assert panel["x"] >= board["x"] + board["width"]  # side by side
                assert board["y"] + board["height"] <= height  # the whole board on screen
            assert page.locator("#top-actions").is_visible()  # no menu button here
            assert page.locator("#btn-menu").is_hidden()
    finally:
        context.close()
