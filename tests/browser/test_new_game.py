"""A class's first minutes: the New game dialog a student fills in at a glance — game,
side, opponent with its summary, think time as presets, on one phone screen — with every
other parameter under Advanced (described, and reset to its defaults), the Engine card
built the same way, and the rules of knight chess one click away."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import api_create, api_get, open_game, page_state

pytestmark = pytest.mark.browser


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    """A 360 × 740 touch phone; fails the test on any JavaScript error."""
    context = browser.new_context(
        viewport={"width": 360, "height": 740},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(20_000)
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _inside_viewport(page: Any, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None, f"{selector} is not shown"
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (selector, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (selector, box)


def test_the_new_game_dialog_fits_a_phone_screen_without_scrolling(server: str, phone) -> None:
    phone.goto(server + "/")
    phone.locator("#new-dialog").wait_for(state="visible")
    phone.locator("#new-fields-algorithm option").first.wait_for(state="attached")
    for selector in (
        "#new-form fieldset.choice-row >> nth=0",  # the game
        "#new-form fieldset.choice-row >> nth=1",  # the side
        "#new-fields-algorithm",  # the opponent
        "#new-fields-summary",  # and what it is
        "#new-fields-paces",  # how long it thinks
        "#new-create",
    ):
        _inside_viewport(phone, selector)
    assert phone.evaluate("document.getElementById('new-dialog').scrollTop") == 0
    assert not phone.locator("#new-fields-advanced").evaluate("d => d.open")
    assert phone.locator("#new-fields [data-param]").first.is_hidden()


def test_advanced_shows_every_parameter_described_and_resets_to_the_defaults(
    server: str, page
) -> None:
    algorithms = api_get(server, "/api/algorithms?game=chess")
    mcts = next(a for a in algorithms if a["name"] == "mcts")
    page.goto(server + "/")
    page.locator("#new-dialog").wait_for(state="visible")
    page.locator("#new-fields-advanced > summary").click()
    shown = page.evaluate(
        """() => [...document.querySelectorAll('#new-fields [data-param]')].map((input) =>
            [input.dataset.param, input.closest('label').textContent])"""
    )
    assert [name for name, _ in shown] == [p["name"] for p in mcts["params"]]
    for (name, text), spec in zip(shown, mcts["params"], strict=True):
        assert spec["description"] in text, name
    assert "Random seed" in page.locator("#new-fields-advanced").inner_text()

    changed = {}
    for kind in ("float", "bool", "choice"):
        spec = next((p for p in mcts["params"] if p["type"] == kind), None)
        if spec is None:
            continue
        field = page.locator(f"#new-fields-p-{spec['name']}")
        if kind == "float":
            field.fill(str(spec["max"]))
        elif kind == "bool":
            field.set_checked(not spec["default"])
        else:
            field.select_option(next(c for c in spec["choices"] if c != spec["default"]))
        changed[spec["name"]] = spec
    page.locator("#new-fields-seed").fill("7")
    assert changed, "mcts has parameters to change"

    page.locator("#new-fields-reset").click()
    for name, spec in changed.items():
        field = page.locator(f"#new-fields-p-{name}")
        if spec["type"] == "bool":
            assert field.is_checked() == spec["default"], name
        elif spec["type"] == "float":
            assert float(field.input_value()) == pytest.approx(spec["default"]), name
        else:
            assert field.input_value() == spec["default"], name
    assert page.locator("#new-fields-seed").input_value() == "0"


def test_create_starts_a_game_with_the_chosen_presets_think_time(server: str, page) -> None:
    page.goto(server + "/")
    dialog = page.locator("#new-dialog")
    dialog.wait_for(state="visible")
    watch = dialog.locator("#new-fields-paces input[value=watch]")
    watch.check()
    assert "5 s a move" in dialog.locator("#new-fields-pace-hint").inner_text()
    dialog.locator("input[name=human][value=both]").check()
    dialog.locator("#new-create").click()
    page.wait_for_url(re.compile(r"/games/[0-9a-f]{12}$"))
    page.wait_for_selector("body[data-conn=open][data-role=player]")
    settings = page_state(page)["settings"]
    assert (settings["budget"], settings["movetime_ms"]) == ("time", 5000)
    # The Engine card is built the same way: the preset on top, the rest folded away.
    page.wait_for_function(
        "() => document.querySelector('#settings-fields-paces input[value=watch]').checked"
    )
    assert not page.locator("#settings-fields-advanced").evaluate("d => d.open")
    assert page.locator("#settings-fields [data-param]").first.is_hidden()


def test_a_bad_advanced_value_opens_advanced_to_show_its_message(server: str, page) -> None:
    game = api_create(server, human="white", algorithm="uct")
    open_game(page, server, game)
    page.locator("#settings-fields-advanced > summary").click()
    page.locator("#settings-fields-p-c").fill("99")
    page.locator("#settings-fields-advanced > summary").click()  # folded again
    page.locator("#settings-apply").click()
    message = page.locator("#settings-fields .inline-error:not([hidden])")
    message.wait_for()
    assert page.locator("#settings-fields-advanced").evaluate("d => d.open")
    assert message.inner_text() == "parameter 'c' must be between 0 and 10; got 99"


def test_the_rules_of_knight_chess_open_from_help_and_from_new_game(server: str, page) -> None:
    page.goto(server + "/")
    page.locator("#new-dialog").wait_for(state="visible")
    page.locator("#new-rules").click()
    rules = page.locator("#rules-dialog")
    rules.wait_for(state="visible")
    text = rules.inner_text()
    for words in ("16 knights", "200 plies", "more knights left wins", "never compulsory"):
        assert words in text
    rules.locator("button[type=submit]").click()
    rules.wait_for(state="hidden")
    assert page.locator("#new-dialog").is_visible()  # back where the student was
    page.locator("#new-cancel").click()

    page.locator("#btn-help").click()
    page.locator("#help-dialog").wait_for(state="visible")
    page.locator("#help-rules").click()
    rules.wait_for(state="visible")
    assert page.locator("#help-dialog").is_hidden()


def test_a_knight_chess_game_links_its_rules_under_the_board(server: str, page) -> None:
    game = api_create(server, human="white", game="knight")
    open_game(page, server, game)
    page.locator("#legend-rules").click()
    page.locator("#rules-dialog").wait_for(state="visible")
