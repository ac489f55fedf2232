"""Analysing a pasted PGN in headless Chromium: the form, the progress bar, the marks.

A 40-ply game in which Black leaves the queen to a knight is pasted into the form
at /analysis; the game's page shows the analysis's progress in the status line (it
survives a reload) and, when it is done, marks 2…Qh4?? as a blunder in the move
list, on the evaluation graph and in words, with the engine's better move as an
arrow and in the search table. A bad PGN is refused in the form with its line.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

#: 40 plies; 2…Qh4?? hangs the queen to 3.Nxh4. Player names are user input.
PLANTED = """[Event "Club night"]
[Date "2024.03.14"]
[White "Ann <b>Bold</b>"]
[Black "Bob"]
[Result "1-0"]

1. e4 e5 2. Nf3 Qh4 {hangs the queen} 3. Nxh4 Nc6 4. Nf3 Nf6 5. Nc3 Bc5 6. Bc4 d6
7. d3 O-O 8. O-O Bg4 9. h3 Bh5 10. g4 Bg6 11. Bg5 h6 12. Bh4 Kh7 13. Qd2 a6
14. a3 b5 15. Ba2 Bb6 16. Nd5 Nxd5 17. Bxd5 Rac8 18. c3 Ne7 19. Bb3 c5 20. Kh2 c4 1-0
"""


def open_form(page: Any, server: str) -> None:
    page.goto(server + "/analysis")
    page.wait_for_selector("#analysis-fields select option", state="attached")


def fraction(page: Any) -> float:
    value = page.evaluate(
        "getComputedStyle(document.getElementById('progress-bar')).getPropertyValue('--fraction')"
    )
    return float(value or 0)


def test_a_pasted_game_is_analysed_with_a_progress_bar_and_its_blunder_marked(
    page: Any, server: str
) -> None:
    open_form(page, server)
    page.fill("#pgn-text", PLANTED)
    page.fill("#analysis-fields-movetime", "150")
    page.click("#analysis-submit")
    page.wait_for_url("**/games/*")
    analysis_id = page.url.rsplit("/", 1)[1]

    # While it runs: the status line says so, with a progress bar that grows.
    page.wait_for_selector("body[data-analysis-status=running]", timeout=60_000)
    page.wait_for_function("() => window.canopy.state.analysis.done >= 3", timeout=120_000)
    assert page.locator("#progress").is_visible()
    assert "Analysing position" in page.locator("#status-text").inner_text()
    assert 0 < fraction(page) < 1
    shown = page.evaluate("window.canopy.state.analysis.done")

    # The progress is the server's: a reload picks it up where it was.
    page.reload()
    page.wait_for_function(
        f"() => window.canopy.state.analysis && window.canopy.state.analysis.done >= {shown}"
    )
    page.wait_for_selector("body[data-analysis-status=done]", timeout=300_000)
    assert page.locator("#progress").is_hidden()
    assert "Analysis complete" in page.locator("#status-text").inner_text()

    # The blunder in the move list, on the graph and in words; the better move.
    blunder = page.locator("#movelist button[data-ply='4']")
    assert blunder.get_attribute("data-mark") == "blunder"
    assert blunder.inner_text().replace("\n", "") == "Qh4??"
    assert page.locator("#evalgraph .swing.mark-blunder[data-ply='4']").count() == 1
    blunder.click()
    verdict = page.locator("#analysis-verdict")
    page.wait_for_function("() => document.getElementById('analysis-verdict').dataset.mark")
    text = verdict.inner_text()
    assert text.startswith("2…Qh4??: Blunder (Black −") and "Better was 2…" in text, text
    best = page.evaluate("window.canopy.state.review.plies[3].best")
    assert best and best != "d8h4"
    label = page.locator("#search-label").inner_text()
    assert label.startswith("Canopy's analysis before 2…Qh4 (mcts · "), label
    assert page.locator("#root-body tr.played").count() == 1
    # The better move is the green arrow (chessground draws it from its brush's colour).
    page.wait_for_function("() => document.querySelectorAll('svg.cg-shapes line').length > 0")
    assert page.locator("svg.cg-shapes line[stroke='#15803d']").count() >= 1

    # The summary per side, the PGN's tags as text, never markup.
    summary = page.locator("#analysis-summary").inner_text()
    assert "Blunders ??" in summary and "Average loss" in summary
    assert "Ann <b>Bold</b>" in page.locator("#analysis-tags").inner_text()
    assert page.locator("#analysis-card b").count() == 0
    assert page.locator("#player-bottom .who").inner_text() == "Ann <b>Bold</b>"

    # Linked like a game: the list under the form has it.
    open_form(page, server)
    assert page.locator(f"#recent-analyses tr[data-analysis-id='{analysis_id}']").count() == 1


def test_a_bad_pgn_is_refused_in_the_form_with_its_line_selected(browser: Any, server: str) -> None:
    # Its own page: Chromium logs the refusal (a 400) on the console, which is expected here.
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        refused_with_line(page, server)
    finally:
        context.close()
    assert [e for e in errors if "status of 400" not in e] == [], errors


def refused_with_line(page: Any, server: str) -> None:
    open_form(page, server)
    page.fill("#pgn-text", '[Event "x"]\n\n1. e4 e5\n2. Qh7 *')
    page.click("#analysis-submit")
    error = page.locator("#analysis-error")
    error.wait_for(state="visible")
    assert error.inner_text() == "line 4: 'Qh7' (White's move 2) is not legal after e5"
    selected = page.evaluate(
        "(() => { const a = document.getElementById('pgn-text');"
        " return a.value.slice(a.selectionStart, a.selectionEnd); })()"
    )
    assert selected == "2. Qh7 *"
    assert page.url.endswith("/analysis")


def test_the_analysis_page_fits_a_phone(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    page = context.new_page()
    try:
        open_form(page, server)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"the form is {width} px wide on a 360 px screen"
    finally:
        context.close()
