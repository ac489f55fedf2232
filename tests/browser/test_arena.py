"""A class arena from end to end: the teacher opens it through the form, four students
join from phones (360 × 740, touch) each with a different exploration constant, the round
robin plays its 12 games while the projector's standings follow, and the final
crosstable on the page is the one the stored games' results make.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import api_get, run_server
from tests.browser.test_learning import new_page, overflow, plot_pixels

pytestmark = pytest.mark.browser

#: The students' bots: each its name and its uct exploration constant c.
BOTS = {"Ada": 0.2, "Bo <b>2</b>": 0.7, "Cy": 1.5, "Di": 4.0}
#: A short game: 50 ms a move, a draw after 12 plies.
MOVETIME_MS = 50
MAX_PLIES = 12
#: How long the whole round robin may take on a loaded machine.
TOURNAMENT_MS = 240_000


#: Every phone here shares the address 127.0.0.1, which the server counts as one device.
ONE_ADDRESS = {"CANOPY_ARENA_BOTS_PER_CLIENT": str(len(BOTS))}


@pytest.fixture(scope="module")
def arena_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that lets one address enter every bot of the class."""
    data = tmp_path_factory.mktemp("arena-data")
    with run_server(data, tmp_path_factory.mktemp("arena-log") / "server.log", ONE_ADDRESS) as base:
        yield base


def open_arena(page: Any, base: str, *, movetime_ms: int, max_plies: int) -> tuple[str, str]:
    """Open a chess arena through the teacher's form: ``uct`` only, only ``c`` free, one
    round robin. The arena's id and the link students open (the teacher's page shows it)."""
    page.goto(f"{base}/arena/new")
    page.wait_for_selector("body[data-state=ready]")
    page.fill("#arena-name", "Exploring c")
    for box in page.locator("input[name=algorithm]:checked").all():
        box.uncheck()
    page.check("input[name=algorithm][value=uct]")
    for box in page.locator("input[name=free-uct]").all():
        box.set_checked(box.get_attribute("value") == "c")
    page.fill("#arena-movetime", str(movetime_ms))
    page.fill("#arena-plies", str(max_plies))
    page.click("#arena-create")
    page.wait_for_selector("body[data-role=teacher][data-state=open][data-conn=open]")
    arena_id = page.evaluate("document.body.dataset.arenaId")
    page.wait_for_function("() => document.querySelector('#arena-url').value.includes('/arena/')")
    return arena_id, page.input_value("#arena-url")


def join(phone: Any, link: str, name: str, c: float) -> None:
    """A student builds a bot on a phone: the name typed, c set, Join tapped."""
    phone.goto(link)
    phone.wait_for_selector("#join:not([hidden]) #bot-fields [data-param=c]")
    # The form shows the parameter the teacher left free, and only it, with its meaning.
    assert phone.locator("#bot-fields [data-param]").count() == 1
    assert "exploration" in phone.locator("#bot-fields .param-desc").inner_text()
    assert overflow(phone) == 0, "the join form scrolls sideways"
    phone.locator("#bot-name").tap()
    phone.fill("#bot-name", name)
    phone.locator("[data-param=c]").tap()
    phone.fill("[data-param=c]", str(c))
    phone.locator("#join-submit").tap()
    phone.wait_for_selector("#mybot:not([hidden])")


def crosstable_on(page: Any) -> dict[tuple[str, str], tuple[float, int]]:
    """The crosstable the page shows: (row bot, column bot) → (points, games)."""
    cells = page.evaluate(
        "[...document.querySelectorAll('#crosstable td[data-games]')].map((td) =>"
        " [td.dataset.row, td.dataset.col, Number(td.dataset.points), Number(td.dataset.games)])"
    )
    return {(r, c): (p, g) for r, c, p, g in cells}


def crosstable_of(results: list[tuple[str, str, str]]) -> dict[tuple[str, str], tuple[float, int]]:
    """The crosstable ``(white, black, result)`` games make."""
    table: dict[tuple[str, str], tuple[float, int]] = {}
    white_points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
    for white, black, result in results:
        for me, other, points in (
            (white, black, white_points[result]),
            (black, white, 1.0 - white_points[result]),
        ):
            p, g = table.get((me, other), (0.0, 0))
            table[(me, other)] = (p + points, g + 1)
    return table


def test_a_class_arena_runs_from_phones_to_the_final_crosstable(
    browser: Any, arena_server: str
) -> None:
    server = arena_server
    teacher = new_page(browser, 1280, 900)
    projector = new_page(browser, 1600, 900)
    phones = [new_page(browser, 360, 740, mobile=True) for _ in BOTS]
    pages = [teacher, projector, *phones]
    try:
        arena_id, link = open_arena(teacher, server, movetime_ms=MOVETIME_MS, max_plies=MAX_PLIES)
        projector.goto(f"{server}/arena/{arena_id}/projector")
        projector.wait_for_selector("body[data-state=open] #join-banner:not([hidden]) svg")

        for phone, (name, c) in zip(phones, BOTS.items(), strict=True):
            join(phone, link, name, c)
            assert overflow(phone) == 0, "the student's page scrolls sideways"
        teacher.wait_for_selector("body[data-bots='4']")
        projector.wait_for_selector("#standings tbody tr:nth-child(4)")
        stored = api_get(server, f"/api/arenas/{arena_id}")
        assert {b["name"]: b["params"]["c"] for b in stored["bots"]} == BOTS
        names = teacher.locator("#bots .bot-name").all_text_contents()
        assert sorted(names) == sorted(BOTS), "names are shown as text, markup and all"

        teacher.click("#btn-start")
        # The projector's standings follow the tournament: part-way through, its table
        # counts two games (one a side) for every game played.
        projector.wait_for_function(
            """() => { const done = Number(document.body.dataset.done);
              const games = [...document.querySelectorAll('#standings tbody tr')]
                .reduce((n, tr) => n + Number(tr.dataset.games), 0);
              return document.body.dataset.state === 'running' && done >= 1 && done < 12
                && games === 2 * done; }""",
            timeout=TOURNAMENT_MS,
        )
        projector.wait_for_selector(
            "body[data-state=finished][data-done='12']", timeout=TOURNAMENT_MS
        )
        teacher.wait_for_selector("body[data-state=finished][data-done='12']")

        arena = api_get(server, f"/api/arenas/{arena_id}")
        assert len(arena["games"]) == 12
        results = []
        for game in arena["games"]:
            record = api_get(server, f"/api/games/{game['id']}")
            assert record["result"] == game["result"], f"game {game['id']}"
            results.append((game["white"], game["black"], record["result"]))
        expected = crosstable_of(results)
        assert crosstable_on(teacher) == expected
        assert crosstable_on(projector) == expected

        # Each student sees the bot's six games, each a link to watch it.
        for phone in phones:
            links = phone.locator("#mygames-list a.watch")
            assert links.count() == 6
            assert links.first.get_attribute("href").endswith("/watch")
            assert overflow(phone) == 0
        # What won: the varied parameter beside each bot's score, and its plot.
        assert arena["what_won"]["parameter"] == "c"
        projector.wait_for_selector("#whatwon:not([hidden]) #whatwon-plot canvas")
        assert projector.locator("#whatwon-table tbody tr").count() == 4
        assert plot_pixels(projector, "#whatwon-plot canvas") > 1000, "the plot is blank"
        for page in pages:
            assert not page.errors, f"JavaScript errors on the page: {page.errors}"
    finally:
        for page in pages:
            page.context.close()


def api_post(base: str, path: str, body: dict[str, Any] | None = None) -> Any:
    req = urllib.request.Request(
        base + path,
        data=json.dumps(body or {}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def test_the_watch_page_of_a_game_being_played_names_the_arena_and_its_bots(
    browser: Any, arena_server: str
) -> None:
    """While the arena plays a game, its watch page says so (not "paused"), names each side's
    bot with its settings and offers nothing that would move the game."""
    server = arena_server
    made = api_post(
        server,
        "/api/arenas",
        {"game": "chess", "movetime_ms": 3000, "algorithms": ["uct"], "max_plies": 40},
    )
    aid, token = made["id"], made["token"]
    for name, c in (("Ada", 0.7), ("Bob", 1.9)):
        api_post(
            server,
            f"/api/arenas/{aid}/bots",
            {"name": name, "algorithm": "uct", "params": {"c": c}},
        )
    api_post(server, f"/api/arenas/{aid}/start?token={token}")
    page = new_page(browser, 1280, 900)
    try:
        deadline = time.monotonic() + 60
        while not (playing := api_get(server, f"/api/arenas/{aid}")["playing"]):
            assert time.monotonic() < deadline, "no arena game started"
            time.sleep(0.1)
        page.goto(f"{server}/games/{playing[0]}/watch")
        page.wait_for_selector("body[data-conn=open][data-version]")
        page.wait_for_function(
            "() => document.querySelector('#status-text').textContent.includes('is thinking for')"
        )
        status = page.inner_text("#status-text")
        assert status in (
            "Arena game: Ada (uct c=0.7) is thinking for White.",
            "Arena game: Bob (uct c=1.9) is thinking for Black.",
        ), status
        assert "paused" not in status.lower()
        title = page.text_content("#game-title") or ""
        assert title.endswith("Arena game: Ada (uct c=0.7) vs Bob (uct c=1.9)"), title
        whos = sorted(page.locator(".player .who").all_text_contents())
        assert whos == ["Ada (uct c=0.7)", "Bob (uct c=1.9)"]
        for button in ("#btn-start", "#btn-step", "#btn-go", "#btn-undo"):
            assert page.locator(button).is_disabled(), button
        assert not page.errors, f"JavaScript errors on the page: {page.errors}"
    finally:
        page.context.close()
        api_post(server, f"/api/arenas/{aid}/end?token={token}")
