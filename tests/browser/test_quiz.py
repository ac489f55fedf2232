"""The class quiz in Chromium: the player and a spectator, each in their own browser
context, vote on which child the next step picks; both (and the projector view, and a
phone) see the tally, and the reveal shows the answer with how the room voted. Also the
step panel's words on a tie at the top of the selection formula."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.explain.explainers import explainer_for
from engine.explain.prose import Context
from tests.browser.conftest import api_create, click_move, open_game

pytestmark = pytest.mark.browser


@pytest.fixture
def room(browser: Any) -> Iterator[Any]:
    """``room(width, height, **context options)``: a new page in its own browser context
    (its own cookies and storage: another person's browser); fails on any JS error."""
    contexts: list[Any] = []
    errors: list[str] = []

    def _open(width: int = 1280, height: int = 800, **options: Any) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(20_000)
        return page

    yield _open
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on a page: {errors}"


def _watch(page: Any, base: str, game: dict[str, Any]) -> None:
    page.goto(f"{base}{game['url']}/watch")
    page.wait_for_selector("body[data-conn=open][data-version]")


def _tally(page: Any) -> str:
    return str(page.locator("#quiz-tally-text").inner_text())


def test_two_browsers_vote_and_everyone_sees_the_tally_and_the_answer(
    server: str, room: Any
) -> None:
    game = api_create(server, human="both", algorithm="bfms")
    player, student = room(), room()
    projector = room(1920, 1080)
    phone = room(360, 740, is_mobile=True, has_touch=True, device_scale_factor=2)
    open_game(player, server, game)
    open_game(student, server, game, token=False)
    _watch(projector, server, game)
    open_game(phone, server, game, token=False)

    player.locator("#tab-step").click()
    player.locator("#step-once").click()  # bfms adds every root move in its first step
    player.wait_for_selector("body[data-steps='1']")
    assert student.locator("#quiz-card").is_hidden()
    player.locator("#quiz-ask-selection").click()
    for page in (player, student, projector, phone):
        page.locator("#quiz-card").wait_for(state="visible")
        assert page.locator(".quiz-choice").count() == 20
    assert player.locator("#step-once").inner_text() == "Reveal (Step)"
    assert student.locator("#quiz-ask-selection").is_disabled()  # asking is the player's

    player.locator(".quiz-choice[data-move='g1f3']").click()
    student.locator(".quiz-choice[data-move='e2e4']").click()
    phone.locator(".quiz-choice[data-move='g1f3']").tap()
    for page in (player, student, projector, phone):
        page.wait_for_function(
            "() => document.querySelector('#quiz-tally-text').textContent === 'Nf3 2 · e4 1'"
        )
    # One vote each: the buttons are spent, and the voter's own choice is marked.
    assert student.locator(".quiz-choice[data-move='e2e4']").get_attribute("aria-pressed") == "true"
    assert student.locator(".quiz-choice[data-move='d2d4']").is_disabled()
    assert "You voted" in student.locator("#quiz-verdict").inner_text()
    overflow = phone.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow == 0, "the quiz card fits a 360 px phone"

    player.locator("#step-once").click()  # the reveal
    for page in (player, student, projector):
        page.wait_for_selector("body[data-quiz='closed']")
        answer = page.locator(".quiz-choice.answer")
        assert answer.count() == 1
        verdict = page.locator("#quiz-verdict").inner_text()
        assert verdict.startswith(f"The formula picked {answer.inner_text()}:")
        assert "of 3 votes got it right" in verdict
        assert _tally(page) == "Nf3 2 · e4 1"
    picked = player.locator(".quiz-choice.answer").get_attribute("data-move")
    chosen = player.evaluate("() => window.canopy.state.lastStep.selection[0].chosen.move")
    assert picked == chosen  # the answer is the step's own choice at the root
    assert player.locator("#step-once").inner_text() == "Step"


def test_the_room_predicts_the_engines_move_and_its_move_is_the_reveal(
    server: str, room: Any
) -> None:
    game = api_create(server, human="white", algorithm="uct", movetime_ms=4000)
    player, student = room(), room()
    open_game(player, server, game)
    _watch(student, server, game)
    player.locator("#tab-step").click()
    assert player.locator("#quiz-ask-bestmove").is_disabled()  # the human's move
    click_move(player, "e2e4")
    player.wait_for_selector("body[data-status='running']")  # the engine thinks 4 s
    player.locator("#quiz-ask-bestmove").click()
    student.locator("#quiz-card[data-kind='bestmove']").wait_for(state="visible")
    assert student.locator(".quiz-choice").count() == 20
    student.locator(".quiz-choice[data-move='e7e5']").click()
    player.wait_for_function(
        "() => document.querySelector('#quiz-tally-text').textContent === 'e5 1'"
    )
    # Its budget spent, the engine waits for the reveal instead of moving.
    player.wait_for_function(
        "() => document.querySelector('#quiz-verdict').textContent.startsWith('The engine waits')"
    )
    assert player.evaluate("() => window.canopy.state.game.ply") == 1
    player.locator("#btn-go").click()
    for page in (player, student):
        page.wait_for_selector("body[data-quiz='closed'][data-ply='2']")
        played = page.evaluate("() => window.canopy.state.game.last_move")
        assert page.locator(".quiz-choice.answer").get_attribute("data-move") == played
        assert page.locator("#quiz-verdict").inner_text().startswith("The engine played")


def test_the_step_panel_says_when_moves_tie_at_the_top(server: str, page: Any) -> None:
    page.goto(server + "/")
    children = [
        {
            "node": k + 1,
            "move": f"m{k}",
            "san": f"M{k}",
            "visits": 1,
            "value_sum": 0.5,
            "q": 0.5,
            "explore": 1.745,
            "score": 2.245,
            "winner": k == 0,
            "chosen": k == 0,
        }
        for k in range(17)
    ] + [
        {
            "node": 18 + k,
            "move": f"n{k}",
            "san": f"N{k}",
            "visits": 2,
            "value_sum": 0.5,
            "q": 0.25,
            "explore": 1.2,
            "score": 1.45,
            "winner": False,
            "chosen": False,
        }
        for k in range(3)
    ]
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    level = {
        "node": 0,
        "depth": 0,
        "level": 0,
        "visits": 20,
        "rule": "ucb1",
        "formula": "Q + c*sqrt(2 ln N / n)",
        "value_kind": "q",
        "children": children,
        "chosen": {"node": 1, "move": "m0", "san": "M0", "depth": 1},
    }
    step: dict[str, Any] = {
        "algorithm": "uct",
        "iteration": 20,
        "thread": 0,
        "fen": fen,
        "selection": [level],
        "expansion": {"nodes": []},
        "simulation": {},
        "backpropagation": [],
    }
    # The words come with the frame, written by the explainer from the same numbers.
    step["prose"] = explainer_for("uct").prose(
        step, Context("uct", "chess", {"c": 0.707}, fen, fen)
    )
    text = page.evaluate(
        """async (step) => {
          const { buildStep } = await import("/static/js/step.js");
          const { panels } = buildStep(step, { game: "chess", params: { c: 0.707 }, threads: 1 });
          return panels[0].textContent;
        }""",
        step,
    )
    assert "17 moves tie at 2.245; the first in list order is taken." in text
    assert "… and 9 more moves tied at the top, 3 more moves with lower UCB1." in text
    assert "with lower scores" not in text
    assert "shared with 16 other moves (the first in list order is taken)" in text


def _tab(page: Any, name: str) -> None:
    page.locator(f"#tab-{name}").click()
    page.wait_for_function(f"() => document.body.dataset.tab === '{name}'")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")


def _shows_the_answer(page: Any) -> dict[str, Any]:
    """What on a page would give a question's answer away: the selection score column,
    the best-move star, the engine's arrows, the step panels and the table's rows."""
    return dict(
        page.evaluate(
            """() => { const visible = (el) => !!el && el.getClientRects().length > 0;
            return {
              score: visible(document.querySelector('#root-head th[data-key=uct]'))
                && [...document.querySelectorAll('#root-body td.c-uct')]
                     .some((td) => visible(td) && td.textContent.trim() !== ''),
              star: [...document.querySelectorAll('#root-body tr.best')].some(visible),
              arrows: document.querySelectorAll('svg.cg-shapes line').length > 0,
              phases: visible(document.querySelector('#phases')),
              rows: [...document.querySelectorAll('#root-body tr')].filter(visible).length,
              note: visible(document.querySelector('#quiz-secret')),
            }; }"""
        )
    )


def test_a_students_page_hides_the_next_pick_until_the_reveal(server: str, room: Any) -> None:
    game = api_create(server, human="both", algorithm="mcts")
    teacher, student = room(), room()
    open_game(teacher, server, game)
    open_game(student, server, game, token=False)
    teacher.keyboard.press("Space")  # analyse: a table, a star and arrows on every page
    student.wait_for_function("() => Number(document.body.dataset.iterations) >= 200")
    teacher.keyboard.press("Space")
    teacher.wait_for_function("() => window.canopy.state.game.search.status === 'idle'")
    for page in (teacher, student):
        _tab(page, "step")
    teacher.locator("#step-once").click()
    student.wait_for_selector("body[data-steps='1']")
    student.wait_for_function("() => document.querySelectorAll('svg.cg-shapes line').length > 0")
    _tab(student, "moves")
    before = _shows_the_answer(student)
    assert before["score"] and before["star"] and before["arrows"], before

    teacher.locator("#quiz-ask-selection").click()
    student.wait_for_selector("body[data-secret=selection]")
    student.wait_for_timeout(300)  # a redraw or two: nothing comes back by itself
    hidden = _shows_the_answer(student)
    assert not (hidden["score"] or hidden["star"] or hidden["arrows"]), hidden
    assert hidden["rows"] > 0 and hidden["note"]  # N, Q and P stay: the room reasons on them
    _tab(student, "step")
    assert not _shows_the_answer(student)["phases"]  # the last step's table points at it
    # The teacher's own page keeps it all, to ask, step and explain.
    _tab(teacher, "moves")
    shown = _shows_the_answer(teacher)
    assert shown["score"] and shown["star"] and not shown["note"], shown

    _tab(teacher, "step")
    teacher.locator("#step-once").click()  # the reveal
    student.wait_for_selector("body[data-quiz='closed'][data-secret='']")
    student.wait_for_function("() => document.querySelector('#phases').getClientRects().length")
    _tab(student, "moves")
    after = _shows_the_answer(student)
    assert after["score"] and after["star"] and not after["note"], after
    student.wait_for_function("() => document.querySelectorAll('svg.cg-shapes line').length > 0")


def test_a_students_page_hides_the_engines_search_until_its_move(server: str, room: Any) -> None:
    game = api_create(server, human="white", algorithm="uct", movetime_ms=4000)
    teacher, student = room(), room()
    open_game(teacher, server, game)
    open_game(student, server, game, token=False)
    click_move(teacher, "e2e4")
    student.wait_for_selector("body[data-status='running']")
    student.wait_for_function("() => document.querySelectorAll('svg.cg-shapes line').length > 0")
    assert _shows_the_answer(student)["rows"] > 0
    _tab(teacher, "step")
    teacher.locator("#quiz-ask-bestmove").click()
    student.wait_for_selector("body[data-secret=bestmove]")
    student.wait_for_timeout(500)  # stats frames keep coming: none of them is drawn
    hidden = _shows_the_answer(student)
    assert hidden["rows"] == 0 and not (hidden["star"] or hidden["arrows"]), hidden
    assert "Hidden until" in student.locator("#root-empty").inner_text()
    assert student.locator("#pv-line").inner_text() == ""
    for name in ("tree", "step", "charts"):
        _tab(student, name)
        assert student.locator(f"#panel-{name}").is_hidden(), name
    _tab(student, "moves")
    _tab(teacher, "moves")
    assert _shows_the_answer(teacher)["rows"] > 0  # the teacher watches it think

    teacher.wait_for_function(
        "() => document.querySelector('#quiz-verdict').textContent.startsWith('The engine waits')"
    )
    teacher.locator("#btn-go").click()  # the reveal: the engine's move
    student.wait_for_selector("body[data-quiz='closed'][data-secret=''][data-ply='2']")
    after = _shows_the_answer(student)
    assert after["rows"] > 0 and after["star"], after  # its search, kept beside its move
