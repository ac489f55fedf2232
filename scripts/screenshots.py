#!/usr/bin/env python3
"""Make the pictures in docs/screenshots: ``make screenshots``.

Starts the app on a free port with a data directory of its own (the small search budgets
of the browser tests, tests/browser/conftest.py), drives headless Chromium (Debian's
``/usr/bin/chromium`` through Playwright, as the browser tests do) into each state a
picture shows, and writes the PNG. The tests check those states; they take no pictures.

    .venv/bin/python scripts/screenshots.py                  # every picture
    .venv/bin/python scripts/screenshots.py race step-mode   # these (names without .png)
    .venv/bin/python scripts/screenshots.py --out /tmp/shots # somewhere else

A cold numba cache makes the server warm its kernels first (minutes on a loaded
machine); searches then take their usual time, so the pictures differ a little from run
to run (visit counts, the engine's replies), never in what they show.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The page drivers the browser tests use: one way to put a page into each state.
from tests.browser.conftest import (  # noqa: E402
    ARGS,
    CHROMIUM,
    analyse,
    api_create,
    api_get,
    click_move,
    open_game,
    run_server,
    selected_info,
    square_center,
    step_times,
    tab,
)
from tests.browser.test_arena import BOTS, ONE_ADDRESS, api_post, join, open_arena  # noqa: E402
from tests.browser.test_inside import MIDDLEGAME, SCHOLAR, visible_node  # noqa: E402
from tests.browser.test_learning import new_page  # noqa: E402
from tests.browser.test_mcts_views import (  # noqa: E402
    QUIET_MATE_IN_TWO,
    phase,
    step_game,
    step_until,
)
from tests.browser.test_mobile import PHONES, open_live, play_e4_e5_in_a_new_game  # noqa: E402
from tests.browser.test_play import (  # noqa: E402
    create_through_the_dialog,
    greedy_move,
    human_turn,
)
from tests.browser.test_review import click_the_graph_at, pause_the_engine, wait_ply  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


class Studio:
    """The server and browser the scenes share, and where their pictures go."""

    def __init__(self, browser: Any, base: str, out: Path) -> None:
        self.browser = browser
        self.base = base
        self.out = out
        self.pages: list[Any] = []

    def page(self, width: int = 1280, height: int = 800, *, mobile: bool = False) -> Any:
        """A page in a context of its own (another person's browser), as the tests open."""
        page = new_page(self.browser, width, height, mobile=mobile)
        self.pages.append(page)
        return page

    def shoot(self, target: Any, name: str, *, full_page: bool = False) -> None:
        """Save ``target`` (a page, or a locator for one element) as ``name``."""
        path = self.out / name
        if full_page:
            target.screenshot(path=str(path), full_page=True)
        else:
            target.screenshot(path=str(path))
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}", flush=True)

    def close(self) -> list[str]:
        """Close every page the scene opened; the JavaScript errors they saw."""
        errors = [e for page in self.pages for e in page.errors]
        for page in self.pages:
            page.context.close()
        self.pages.clear()
        return errors


def show_from_the_top(page: Any, selector: str, width: int) -> None:
    """Make the window just tall enough for the page from its header down to the bottom of
    ``selector``, scrolled to the top: a picture of the header, the tabs, the board and
    the whole view, cut through nothing (the cards below it start a grid gap lower, 12 px:
    the picture ends 2 px short of them)."""
    # Let a smooth scroll (the step tab follows its phases down the page) come to rest
    # first: one still running when the window changes could scroll it again afterwards.
    page.evaluate(
        "async () => { let y = -1; while (window.scrollY !== y) { y = window.scrollY;"
        " await new Promise((done) => setTimeout(done, 150)); } }"
    )
    page.set_viewport_size({"width": width, "height": 2400})
    page.wait_for_timeout(200)
    bottom = page.evaluate(
        f"Math.ceil(document.querySelector('{selector}').getBoundingClientRect().bottom"
        " + window.scrollY)"
    )
    page.set_viewport_size({"width": width, "height": bottom + 10})
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(300)  # the board redraws at its new size


def opened(s: Studio, view: str, **game: Any) -> Any:
    """A page on a new analysis game (``game``: its settings), in the tab ``view``."""
    page = s.page()
    open_game(page, s.base, api_create(s.base, human="both", **game))
    tab(page, view)
    return page


Scene = Callable[[Studio], None]
SCENES: list[tuple[tuple[str, ...], Scene]] = []


def scene(*names: str) -> Callable[[Scene], Scene]:
    """Register a scene that writes these pictures."""

    def register(fn: Scene) -> Scene:
        SCENES.append((names, fn))
        return fn

    return register


# ---------------------------------------------------------------- playing (test_play)


@scene("search-live.png")
def search_live(s: Studio) -> None:
    """The engine thinks about its reply to 1.e4: the table live, arrows on the board."""
    page = s.page(1920, 1080)
    open_game(page, s.base, api_create(s.base, human="white", movetime_ms=3000))
    click_move(page, "e2e4")
    page.wait_for_function("() => window.canopy.state.game.search.status === 'running'")
    page.wait_for_function(
        "() => Number(document.body.dataset.statsCount) >= 5"
        " && document.querySelectorAll('svg.cg-shapes line').length >= 1"
    )
    s.shoot(page, "search-live.png", full_page=True)  # the game's cards whole


@scene("knight-chess.png")
def knight_chess(s: Studio) -> None:
    """A few moves into knight chess, the engine analysing the human's position."""
    page = s.page()
    create_through_the_dialog(page, s.base, game="knight", human="white", iterations=60)
    state = human_turn(page)
    for _ in range(6):
        ply = state["ply"]
        click_move(page, greedy_move(state, random.Random(ply)))
        page.wait_for_function(f"() => Number(document.body.dataset.ply) > {ply}")
        state = human_turn(page)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.keyboard.press("Space")
    page.wait_for_function(
        "() => Number(document.body.dataset.iterations) >= 3000"
        " && document.querySelectorAll('#root-body tr').length >= 8",
        timeout=30_000,
    )
    page.mouse.move(5, 5)
    s.shoot(page, "knight-chess.png", full_page=True)
    page.keyboard.press("Space")


@scene("promotion.png")
def promotion(s: Studio) -> None:
    page = s.page()
    fen = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"
    open_game(page, s.base, api_create(s.base, human="both", fen=fen))
    page.mouse.click(*square_center(page, "b7"))
    page.mouse.click(*square_center(page, "b8"))
    page.locator("#promotion").wait_for(state="visible")
    s.shoot(page, "promotion.png")


@scene("help.png", "projector-large-type.png")
def help_and_large_type(s: Studio) -> None:
    """The keyboard help, then large type on a projector while the engine analyses."""
    page = s.page()
    game = api_create(s.base, human="white", budget="iterations", iterations=100)
    open_game(page, s.base, game)
    page.keyboard.press("?")
    page.locator("#help-dialog").wait_for(state="visible")
    s.shoot(page, "help.png")
    page.keyboard.press("Escape")
    page.locator("#help-dialog").wait_for(state="hidden")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.keyboard.press("l")
    page.keyboard.press("Space")
    page.wait_for_function("() => Number(document.body.dataset.iterations) > 0")
    time.sleep(0.8)
    s.shoot(page, "projector-large-type.png")
    page.keyboard.press("Space")


@scene("laptop-1280x720.png")
def laptop(s: Studio) -> None:
    page = s.page(1280, 720)
    open_game(page, s.base, api_create(s.base, human="white", movetime_ms=2000))
    click_move(page, "e2e4")
    page.wait_for_function("() => Number(document.body.dataset.statsCount) > 2")
    s.shoot(page, "laptop-1280x720.png")


@scene("new-game.png")
def new_game(s: Studio) -> None:
    page = s.page()
    page.goto(s.base + "/")
    page.locator("#new-dialog").wait_for(state="visible")
    page.locator("#new-dialog input[name=game][value=knight]").check()
    s.shoot(page, "new-game.png")


# ---------------------------------------------------------------- inside the search (test_inside)


@scene("tree-view.png")
def tree_view(s: Studio) -> None:
    """100 nodes of a uct-minimax tree (Q varies, so do the colours), a node's card open."""
    page = opened(s, "tree", fen=MIDDLEGAME, algorithm="uct-minimax", params={"depth": 2})
    page.click(".wide-toggle")
    page.select_option("#tree-size", "100")
    analyse(page, at_least=1200)
    page.wait_for_function("() => Number(document.body.dataset.treeNodes) === 100")
    node = visible_node(page)
    node_id = int(node.get_attribute("data-id"))
    node.click()
    page.locator("#node-card").wait_for(state="visible")
    page.wait_for_function(selected_info(node_id))
    page.wait_for_function(
        "() => document.querySelectorAll('#node-card .mini-board cg-board piece').length >= 20"
    )
    page.mouse.move(5, 5)  # no tooltip in the picture
    page.wait_for_timeout(300)
    s.shoot(page, "tree-view.png")


@scene("step-mode.png", "step-projector.png")
def step_mode(s: Studio) -> None:
    """One UCT iteration in its four phases; then on a projector, at its simulation."""
    page = opened(s, "step", algorithm="uct", params={"c": 1.0})
    page.select_option("#step-speed", "fast")
    step_times(page, 25)
    page.wait_for_selector("#phases .phase[data-phase=backpropagation].active")
    page.click(".phase-chip[data-phase='0']")
    page.wait_for_selector("#phases .phase[data-phase=selection].active")
    page.mouse.move(5, 5)
    show_from_the_top(page, "#panel-step", 1280)  # all four phases in view
    s.shoot(page, "step-mode.png")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.keyboard.press("l")
    page.click(".wide-toggle")
    page.click(".phase-chip[data-phase='2']")
    page.wait_for_selector("#phases .phase[data-phase=simulation].active")
    page.mouse.move(5, 5)
    page.wait_for_timeout(700)  # the page scrolls the active phase into view
    show_from_the_top(page, "#panel-step", 1920)
    s.shoot(page, "step-projector.png")


@scene("charts.png")
def charts(s: Studio) -> None:
    page = opened(s, "charts", fen=MIDDLEGAME, algorithm="uct-minimax", params={"depth": 2})
    analyse(page, at_least=8000)
    page.wait_for_function("() => window.canopy.state.inside.history.x.length >= 4")
    page.wait_for_function("() => document.querySelectorAll('.chart-plot canvas').length === 4")
    show_from_the_top(page, "#panel-charts", 1280)  # all four charts
    s.shoot(page, "charts.png")


@scene("threads.png")
def threads(s: Studio) -> None:
    page = opened(s, "threads", fen=MIDDLEGAME, algorithm="uct", threads=2)
    analyse(page, at_least=4000)
    page.wait_for_selector(".threads-table tbody tr")
    show_from_the_top(page, "#panel-threads", 1280)
    s.shoot(page, "threads.png")


@scene("race.png")
def race(s: Studio) -> None:
    """UCT against BFMS on Scholar's mate, 3,000 iterations a side."""
    page = opened(s, "race", fen=SCHOLAR)
    page.locator(".presets button", has_text="UCT vs BFMS").click()
    page.fill(".race-options input[aria-label='iterations per side']", "3000")
    page.click("#race-start")
    page.wait_for_function("() => document.body.dataset.race === 'done'", timeout=60_000)
    page.mouse.move(5, 5)
    show_from_the_top(page, "#panel-race", 1280)  # both tables whole
    s.shoot(page, "race.png")


@scene("mcts-step-proof.png")
def mcts_step_proof(s: Studio) -> None:
    """mcts backs a mate in two (Kc7 Ka7 Ra1#) up the path as proofs."""
    page = s.page()
    step_game(s.base, page, QUIET_MATE_IN_TWO, {"root_depth": 0})
    step_until(
        page,
        lambda step: any(r["mate"] and r["depth"] >= 1 for r in step["backpropagation"]),
        at_most=30,
    )
    page.mouse.move(5, 5)
    s.shoot(phase(page, "backpropagation"), "mcts-step-proof.png")


# ---------------------------------------------------------------- learning (test_learning)


@scene("learning-knight.png", "learning-chess-shipped.png")
def learning(s: Studio) -> None:
    """The Learning page of each game's shipped weights."""
    page = s.page()
    for game, generations, name in (
        ("knight", 1, "learning-knight.png"),
        ("chess", 3, "learning-chess-shipped.png"),
    ):
        page.goto(f"{s.base}/learning?game={game}")
        page.wait_for_selector(f"body[data-state=ready][data-game={game}]")
        page.wait_for_function(
            "n => document.querySelector('#curve-plot').dataset.points === n",
            arg=str(generations),
        )
        s.shoot(page, name, full_page=True)


@scene("learning-nnue.png")
def learning_nnue(s: Studio) -> None:
    """The chess Learning page's NNUE sections: the shipped network's heat map of a knight,
    what it adds over hand in an Italian Game, and how it learned."""
    page = s.page()
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    page.goto(f"{s.base}/learning?game=chess&fen={fen.replace(' ', '%20')}")
    page.wait_for_selector("body[data-state=ready][data-game=chess][data-nnue=ready]")
    page.wait_for_selector("#nnue-position[data-state=ready]")
    page.click("#nnue-heat [data-piece=knight]")
    s.shoot(page, "learning-nnue.png", full_page=True)


# ---------------------------------------------------------------- phones (test_mobile)


@scene(*(f"phone-game-{size}.png" for size in PHONES))
def phone_games(s: Studio) -> None:
    """A game made on a phone, 1.e4 tapped and 1...e5 dragged."""
    for size, (width, height) in PHONES.items():
        phone = s.page(width, height, mobile=True)
        play_e4_e5_in_a_new_game(phone, s.base)
        s.shoot(phone, f"phone-game-{size}.png")


@scene("phone-menu.png", "phone-share.png", "phone-spectator.png")
def phone_menus(s: Studio) -> None:
    """The header folded into a menu, the share dialog, and a spectator's view."""
    width, height = PHONES["390x844"]
    phone = s.page(width, height, mobile=True)
    game = api_create(s.base, human="white")
    open_live(phone, f"{s.base}{game['url']}#token={game['token']}")
    phone.locator("#btn-menu").tap()
    phone.locator("#btn-share").wait_for(state="visible")
    s.shoot(phone, "phone-menu.png")
    phone.locator("#btn-share").tap()
    phone.locator("#share-dialog").wait_for(state="visible")
    s.shoot(phone, "phone-share.png")
    watcher = s.page(width, height, mobile=True)
    game = api_create(s.base, human="white", algorithm="uct", movetime_ms=150)
    open_live(watcher, f"{s.base}{game['url']}")
    s.shoot(watcher, "phone-spectator.png")


# ---------------------------------------------------------------- a class (test_quiz, classroom)


@scene("quiz-projector.png", "quiz-player.png", "quiz-phone.png", "quiz-answer.png")
def quiz(s: Studio) -> None:
    """Three votes on bfms's next pick at the root, seen by the player, the projector and a
    phone; then the reveal on the projector."""
    game = api_create(s.base, human="both", algorithm="bfms")
    player, student = s.page(), s.page()
    projector = s.page(1920, 1080)
    phone = s.page(360, 740, mobile=True)
    open_game(player, s.base, game)
    open_game(student, s.base, game, token=False)
    projector.goto(f"{s.base}{game['url']}/watch")
    projector.wait_for_selector("body[data-conn=open][data-version]")
    open_game(phone, s.base, game, token=False)
    player.locator("#tab-step").click()
    player.locator("#step-once").click()  # bfms adds every root move in its first step
    player.wait_for_selector("body[data-steps='1']")
    player.locator("#quiz-ask-selection").click()
    for page in (player, student, projector, phone):
        page.locator("#quiz-card").wait_for(state="visible")
    player.locator(".quiz-choice[data-move='g1f3']").click()
    student.locator(".quiz-choice[data-move='e2e4']").click()
    phone.locator(".quiz-choice[data-move='g1f3']").tap()
    for page in (player, projector, phone):
        page.wait_for_function(
            "() => document.querySelector('#quiz-tally-text').textContent === 'Nf3 2 · e4 1'"
        )
    s.shoot(projector, "quiz-projector.png")
    s.shoot(player, "quiz-player.png")
    phone.locator("#quiz-card").scroll_into_view_if_needed()
    s.shoot(phone, "quiz-phone.png")
    player.locator("#step-once").click()  # the reveal
    projector.wait_for_selector("body[data-quiz='closed']")
    s.shoot(projector, "quiz-answer.png")


@scene("share-dialog.png")
def share_dialog(s: Studio) -> None:
    """The share dialog on plain http on a room's network (``classroom.test``): a second
    Chromium that resolves that name to the server, as test_classroom's."""
    lan = s.browser.browser_type.launch(
        executable_path=str(CHROMIUM),
        args=[*ARGS, "--host-resolver-rules=MAP classroom.test 127.0.0.1"],
    )
    try:
        page = new_page(lan, 1280, 800)
        game = api_create(s.base, human="both")
        open_game(page, f"http://classroom.test:{urlsplit(s.base).port}", game)
        page.locator("#btn-share").click()
        page.locator("#share-dialog").wait_for(state="visible")
        s.shoot(page, "share-dialog.png")
    finally:
        lan.close()


# ---------------------------------------------------------------- the class arena (test_arena)


@scene(
    "arena-new.png",
    "arena-phone-join.png",
    "arena-teacher.png",
    "arena-projector.png",
    "arena-watch.png",
    "arena-phone-games.png",
    "arena-what-won.png",
)
def arena(s: Studio) -> None:
    """A class arena: the teacher's form, a student's phone joining, the teacher's page with
    four bots, the projector during the round robin, the watch page of a game being played,
    a student's games and what won."""
    teacher = s.page(1280, 900)
    teacher.goto(f"{s.base}/arena/new")
    teacher.wait_for_selector("body[data-state=ready]")
    s.shoot(teacher, "arena-new.png", full_page=True)
    arena_id, link = open_arena(teacher, s.base, movetime_ms=100, max_plies=120)
    projector = s.page(1920, 1080)
    projector.goto(f"{s.base}/arena/{arena_id}/projector")
    phones = [s.page(360, 740, mobile=True) for _ in BOTS]
    for i, (phone, (name, c)) in enumerate(zip(phones, BOTS.items(), strict=True)):
        if i == 0:
            phone.goto(link)
            phone.wait_for_selector("#join:not([hidden]) [data-param=c]")
            phone.fill("#bot-name", name)
            phone.fill("[data-param=c]", str(c))
            s.shoot(phone, "arena-phone-join.png")
        join(phone, link, name, c)
    teacher.wait_for_selector("body[data-bots='4']")
    s.shoot(teacher, "arena-teacher.png", full_page=True)
    teacher.click("#btn-start")
    projector.wait_for_function(
        "() => Number(document.body.dataset.done) >= 3"
        " && document.querySelectorAll('#board svg.cg-shapes line').length >= 1",
        timeout=300_000,
    )
    s.shoot(projector, "arena-projector.png")
    projector.wait_for_selector("body[data-state=finished]", timeout=600_000)
    phones[0].locator("#mygames").scroll_into_view_if_needed()
    s.shoot(phones[0], "arena-phone-games.png")
    projector.wait_for_selector("#whatwon:not([hidden]) canvas")
    projector.wait_for_timeout(300)
    s.shoot(projector, "arena-what-won.png", full_page=True)
    arena_watch(s)


def arena_watch(s: Studio) -> None:
    """The watch page of an arena game while a bot thinks: two bots at 3 s a move, so the
    picture catches a search (and the arena ended afterwards)."""
    rules = {"game": "chess", "movetime_ms": 3000, "algorithms": ["uct"], "max_plies": 40}
    made = api_post(s.base, "/api/arenas", {"name": "Exploring c", **rules})
    aid, token = made["id"], made["token"]
    for name, c in (("Ada", 0.2), ("Cy", 1.5)):
        bot = {"name": name, "algorithm": "uct", "params": {"c": c}}
        api_post(s.base, f"/api/arenas/{aid}/bots", bot)
    api_post(s.base, f"/api/arenas/{aid}/start?token={token}")
    try:
        while not (playing := api_get(s.base, f"/api/arenas/{aid}")["playing"]):
            time.sleep(0.1)
        watch = s.page(1600, 1000)
        watch.goto(f"{s.base}/games/{playing[0]}/watch")
        watch.wait_for_selector("body[data-conn=open][data-version]")
        show_from_the_top(watch, "#status", 1600)  # down to the status line under the board
        watch.wait_for_function(
            "() => document.querySelector('#status-text').textContent.includes('thinking for')"
            " && document.querySelectorAll('#board svg.cg-shapes line').length >= 1"
            " && window.canopy.state.stats && window.canopy.state.stats.elapsed_ms > 1500"
        )
        s.shoot(watch, "arena-watch.png")
    finally:
        api_post(s.base, f"/api/arenas/{aid}/end?token={token}")


# ---------------------------------------------------------------- the review (test_review)


def review_game(s: Studio, page: Any, **game: Any) -> dict[str, Any]:
    """A chess game against ``mcts`` at a fixed number of iterations a move (``game``: the
    rest of its settings), open on ``page``; the game."""
    created = api_create(s.base, game="chess", algorithm="mcts", budget="iterations", **game)
    open_game(page, s.base, created)
    return created


@scene("review-last-search.png", "review-engine-move.png")
def review_moves(s: Studio) -> None:
    """The engine's last search dimmed after its move; after a reload, its move browsed
    back to with the search that chose it."""
    page = s.page()
    review_game(s, page, human="white", iterations=400)
    click_move(page, "e2e4")
    wait_ply(page, 2)
    page.wait_for_selector("#search-label[data-kind=last]:not([hidden])")
    page.wait_for_timeout(400)  # the board's move animation ends before the picture
    s.shoot(page, "review-last-search.png")
    click_move(page, "g1f3")
    wait_ply(page, 4)
    page.wait_for_function("() => window.canopy.state.game.search.status === 'idle'")
    page.reload()
    page.wait_for_selector("body[data-conn=open][data-version]")
    page.locator("#movelist button[data-ply='2']").click()
    page.wait_for_selector("#search-label[data-kind=stored]:not([hidden])")
    page.wait_for_function("() => document.querySelectorAll('svg.cg-shapes line').length > 0")
    page.wait_for_timeout(400)
    s.shoot(page, "review-engine-move.png")


@scene("review-evalgraph.png")
def review_evalgraph(s: Studio) -> None:
    """A spectator clicks the evaluation graph at ply 4 of an engine game."""
    page = s.page()
    game = review_game(s, page, human="none", iterations=1000)  # the player, to pause it
    wait_ply(page, 10)
    pause_the_engine(page)
    watcher = s.page(1600, 1000)
    open_game(watcher, s.base, game, token=False)
    click_the_graph_at(watcher, 4)
    watcher.wait_for_selector("#search-label[data-kind=stored]:not([hidden])")
    watcher.evaluate("window.scrollTo(0, 0)")
    watcher.wait_for_timeout(400)
    s.shoot(watcher, "review-evalgraph.png")


@scene("review-projector-swing.png")
def review_swing(s: Studio) -> None:
    """2.Qd5 hangs the queen: a big swing on the projector, the engine's capture shown."""
    page = s.page()
    fen = "6k1/5ppp/2p1p3/8/8/8/5PPP/3Q2K1 w - - 0 1"
    game = review_game(s, page, fen=fen, human="white", iterations=400)
    click_move(page, "h2h3")
    wait_ply(page, 2)
    page.wait_for_function("() => window.canopy.state.game.turn === 'white'")
    click_move(page, "d1d5")
    wait_ply(page, 4)
    screen = s.page(1920, 1080)
    screen.goto(f"{s.base}/games/{game['id']}/watch")
    screen.wait_for_selector("body[data-conn=open][data-version]")
    screen.locator("#evalgraph .evalgraph-swings button[data-ply='3']").click()
    screen.wait_for_function("() => window.canopy.state.view.ply === 3")
    screen.wait_for_selector("#search-label[data-kind=none]:not([hidden])")
    screen.keyboard.press("ArrowRight")  # the capture, the game's last move
    screen.wait_for_selector("#search-label[data-kind=last]:not([hidden])")
    screen.evaluate("document.activeElement.blur()")  # no focus ring in the picture
    screen.wait_for_timeout(400)
    s.shoot(screen, "review-projector-swing.png")


# ---------------------------------------------------------------- analysing a game (test_analysis)

#: A club game in which 2…Qh4?? leaves the queen to a knight.
CLUB_GAME = """[Event "Club night"]
[White "Ann"]
[Black "Bob"]
[Result "1-0"]

1. e4 e5 2. Nf3 Qh4 3. Nxh4 Nc6 4. Nf3 Nf6 5. Nc3 Bc5 6. Bc4 d6 7. d3 O-O 8. O-O Bg4
9. h3 Bh5 10. g4 Bg6 11. Bg5 h6 12. Bh4 Kh7 1-0
"""


@scene("analysis-form.png", "analysis-blunder.png")
def analysis(s: Studio) -> None:
    """The analysis form with a pasted game; the analysed game at its blunder, marked, with
    the better move."""
    page = s.page()
    page.goto(s.base + "/analysis")
    page.wait_for_selector("#analysis-fields select option", state="attached")
    page.fill("#pgn-text", CLUB_GAME)
    page.fill("#analysis-fields-movetime", "300")
    s.shoot(page, "analysis-form.png")
    page.click("#analysis-submit")
    page.wait_for_url("**/games/*")
    page.wait_for_selector("body[data-analysis-status=done]", timeout=300_000)
    page.locator("#movelist button[data-ply='4']").click()
    page.wait_for_function("() => document.getElementById('analysis-verdict').dataset.mark")
    page.wait_for_function("() => document.querySelectorAll('svg.cg-shapes line').length > 0")
    page.wait_for_timeout(400)
    s.shoot(page, "analysis-blunder.png")


# ---------------------------------------------------------------- running them


@contextlib.contextmanager
def studio(out: Path) -> Iterator[Studio]:
    """A server (its own data directory, removed afterwards) and a Chromium."""
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory(prefix="canopy-screenshots-") as tmp,
        run_server(Path(tmp), Path(tmp) / "server.log", ONE_ADDRESS) as base,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield Studio(browser, base, out)
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    every = [name.removesuffix(".png") for names, _ in SCENES for name in names]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"of: {', '.join(every)}")
    parser.add_argument("--out", type=Path, default=OUT, help="folder (default docs/screenshots)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(every))
    if unknown:
        parser.error(f"no such picture: {', '.join(unknown)}")
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} not found: install Debian's chromium (make sysdeps)", file=sys.stderr)
        return 2
    wanted = [
        (names, fn)
        for names, fn in SCENES
        if not args.names or {n.removesuffix(".png") for n in names} & set(args.names)
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with studio(args.out) as s:
        print(f"server ready in {time.monotonic() - start:.0f} s", flush=True)
        for names, fn in wanted:
            try:
                fn(s)
            except Exception:
                print(f"{fn.__name__} ({', '.join(names)}) failed:", file=sys.stderr, flush=True)
                raise
            finally:
                errors = s.close()
            if errors:
                print(f"{fn.__name__}: JavaScript errors on the page: {errors}", file=sys.stderr)
                return 1
    print(f"{sum(len(n) for n, _ in wanted)} pictures in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
