"""The app in headless Chromium: whole games through the board, the live search
table, FEN setup, promotion, PGN export, spectators, keyboard and layouts.
"""

from __future__ import annotations

import io
import random
import re
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from engine.rules.games import get_game
from tests.browser.conftest import (
    api_create,
    api_get,
    click_move,
    open_game,
    page_state,
)

pytestmark = pytest.mark.browser

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def greedy_move(game: dict[str, Any], rng: random.Random) -> str:
    """A quick, decisive human: mate in one, else the biggest capture, else a random move."""
    board = get_game(game["game"]).board(game["fen"])
    legal = [chess.Move.from_uci(u) for u in game["legal"]]
    for move in legal:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return move.uci()
    captures = [m for m in legal if board.piece_at(m.to_square)]
    if captures:
        best = max(VALUES.get(board.piece_type_at(m.to_square), 0) for m in captures)
        return rng.choice(
            [m for m in captures if VALUES.get(board.piece_type_at(m.to_square), 0) == best]
        ).uci()
    promotions = [m for m in legal if m.promotion == chess.QUEEN]
    return rng.choice(promotions or legal).uci()


def rendered(page: Any) -> None:
    """Wait until the page has drawn the latest state (redraws happen on animation frames)."""
    page.wait_for_function(
        "() => document.body.dataset.version === String(window.canopy.state.game.version)"
    )


def human_turn(page: Any) -> dict[str, Any]:
    """Wait until the game is over or it is the human's turn with the engine idle."""
    page.wait_for_function(
        """() => {
            const g = window.canopy.state.game;
            return g && (g.result || (g.turn === g.human && g.search.status === "idle"));
        }""",
        timeout=30_000,
    )
    return page_state(page)


def play_through_the_board(page: Any, rng: random.Random, *, max_plies: int = 600) -> dict:
    state = human_turn(page)
    while not state["result"]:
        assert state["ply"] < max_plies, "the game should have ended by now"
        ply = state["ply"]
        click_move(page, greedy_move(state, rng))
        page.wait_for_function(f"() => Number(document.body.dataset.ply) > {ply}")
        state = human_turn(page)
    return state


def create_through_the_dialog(page: Any, base: str, *, game: str, human: str, iterations: int):
    page.goto(base + "/")
    dialog = page.locator("#new-dialog")
    dialog.wait_for(state="visible")
    dialog.locator(f"input[name=game][value={game}]").check()
    dialog.locator(f"input[name=human][value={human}]").check()
    dialog.locator("#new-fields-advanced > summary").click()  # the budget in iterations is there
    dialog.locator("input[type=radio][value=iterations]").check()
    dialog.locator("input[name=iterations]").fill(str(iterations))
    if game == "knight":
        assert "Black knights (move first)" in dialog.inner_text()
    dialog.locator("#new-create").click()
    page.wait_for_url(re.compile(r"/games/[0-9a-f]{12}$"))
    page.wait_for_selector("body[data-conn=open][data-role=player]")


def test_a_whole_chess_game_against_the_engine_through_the_board(server, page) -> None:
    create_through_the_dialog(page, server, game="chess", human="white", iterations=150)
    final = play_through_the_board(page, random.Random(11))
    rendered(page)
    assert final["result"] in ("1-0", "0-1", "1/2-1/2")
    result_text = page.locator("#result").inner_text()
    assert final["result"] in result_text and final["reason"] in result_text
    assert page.locator("#status").inner_text().startswith(final["result"])
    # The move list shows every move in SAN, and the PGN agrees with the board.
    assert page.locator("#movelist button.move").count() == final["ply"]
    pgn = api_get(server, f"/api/games/{final['id']}/pgn")
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert parsed.headers["Result"] == final["result"]
    assert parsed.end().board().fen() == final["fen"]


def test_a_whole_knight_chess_game_against_the_engine_through_the_board(server, page) -> None:
    create_through_the_dialog(page, server, game="knight", human="white", iterations=60)
    assert page.locator("#player-bottom .name").inner_text() == "Black knights (move first)"
    assert page.locator("#player-top .name").inner_text() == "Pink knights"
    final = play_through_the_board(page, random.Random(5), max_plies=201)
    rendered(page)
    assert final["result"] in ("1-0", "0-1", "1/2-1/2")
    assert final["reason"] in ("no knights left", "200-ply limit", "no legal move")
    assert final["ply"] <= 200
    result = page.locator("#result").inner_text()
    assert "knights win" in result or "Draw" in result


def test_knight_chess_draws_the_first_movers_knights_black_and_the_others_pink(
    server, page
) -> None:
    open_game(page, server, api_create(server, game="knight", human="both"))
    white = page.locator("cg-board piece.knight.white").first
    black = page.locator("cg-board piece.knight.black").first
    assert "knight-black.svg" in white.evaluate("e => getComputedStyle(e).backgroundImage")
    assert "knight-pink.svg" in black.evaluate("e => getComputedStyle(e).backgroundImage")
    assert "pink" in page.locator("#legend").inner_text()


def test_a_search_started_on_the_page_updates_the_table_live(server, page) -> None:
    game = api_create(server, human="white", movetime_ms=3000)
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_game(page, server, game)
    click_move(page, "e2e4")
    page.wait_for_function("() => window.canopy.state.game.search.status === 'running'")
    seen = []
    for _ in range(4):
        page.wait_for_function(
            "n => Number(document.body.dataset.statsCount) > n", arg=len(seen) and seen[-1][0]
        )
        rows = page.locator("#root-body tr")
        seen.append(
            (
                int(page.evaluate("document.body.dataset.statsCount")),
                page.locator("#summary dd[data-key=iterations]").inner_text(),
                rows.count(),
                rows.first.locator("td.c-visits").inner_text(),
            )
        )
    assert seen[-1][2] >= 1  # rows shown
    assert len({s[3] for s in seen}) > 1, f"the visits column never changed: {seen}"
    assert page.locator("svg.cg-shapes line").count() >= 1  # candidate arrows on the board
    # Sorting by Q, then hovering a row previews its line on the board.
    page.locator("#root-head th[data-key=q] button").click()
    page.wait_for_selector("#root-head th[data-key=q][aria-sort=descending]")
    page.wait_for_function("() => window.canopy.state.game.ply === 2", timeout=10_000)
    page.keyboard.press("Space")  # analyse White's position
    page.wait_for_function("() => window.canopy.state.game.search.status === 'running'")
    page.wait_for_function("() => document.querySelectorAll('#root-body tr').length > 0")
    page.locator("#root-body tr").first.hover()
    page.wait_for_function("() => window.canopy.state.view.hover !== null")
    # The numbered PV arrows are drawn on the next animation frame, not with the hover itself.
    page.wait_for_function("() => document.querySelectorAll('svg.cg-custom-svgs text').length >= 1")
    page.keyboard.press("Space")
    page.wait_for_function("() => window.canopy.state.game.search.status === 'idle'")


def test_setting_up_a_position_from_fen(server, page) -> None:
    open_game(page, server, api_create(server, human="both"))
    fen = "r3k2r/ppp2ppp/8/3q4/8/8/PPP2PPP/R3K2R w KQkq - 0 12"
    page.locator("#fen-input").fill(fen)
    page.locator("#fen-apply").click()
    page.wait_for_function(f"() => document.body.dataset.fen === {fen!r}")
    page.wait_for_function("() => document.querySelectorAll('cg-board piece.fading').length === 0")
    assert page.locator("cg-board piece").count() == 19
    assert api_get(server, f"/api/games/{page_state(page)['id']}")["fen"] == fen
    page.locator("#fen-input").fill("this is not a fen")
    page.locator("#fen-apply").click()
    error = page.locator("#fen-error")
    error.wait_for(state="visible")
    assert "FEN" in error.inner_text()
    assert page.evaluate("document.body.dataset.fen") == fen  # unchanged


def test_promotion_asks_for_the_piece(server, page) -> None:
    open_game(page, server, api_create(server, human="both", fen="4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"))
    page.mouse.click(*_center(page, "b7"))
    page.mouse.click(*_center(page, "b8"))
    dialog = page.locator("#promotion")
    dialog.wait_for(state="visible")
    assert dialog.locator("button.promo-choice").count() == 4
    dialog.locator("button[data-piece=n]").click()
    page.wait_for_function("() => window.canopy.state.game.moves.join() === 'b7b8n'")
    page.wait_for_selector("cg-board piece.knight.white")
    page.wait_for_function("() => !document.querySelector('cg-board piece.pawn')")


def _center(page: Any, square: str) -> tuple[float, float]:
    from tests.browser.conftest import square_center

    return square_center(page, square)


def test_pgn_export_downloads_a_game_that_python_chess_reads_back(server, page) -> None:
    game = api_create(
        server, human="white", budget="iterations", iterations=150, algorithm="uct",
        params={"c": 1.1},
    )  # fmt: skip
    open_game(page, server, game)
    for _ in range(3):
        state = human_turn(page)
        ply = state["ply"]
        click_move(page, greedy_move(state, random.Random(ply)))
        page.wait_for_function(f"() => Number(document.body.dataset.ply) > {ply}")
    state = human_turn(page)
    with page.expect_download() as download:
        page.locator("#pgn-download").click()
    path = download.value.path()
    assert download.value.suggested_filename == f"canopy-{game['id']}.pgn"
    parsed = chess.pgn.read_game(io.StringIO(Path(path).read_text()))
    assert parsed is not None
    h = parsed.headers
    assert h["Algorithm"] == "uct" and "c=1.1" in h["AlgorithmParams"]
    assert h["Iterations"] == "150" and h["White"] == "Human"
    moves = list(parsed.mainline())
    assert [n.move.uci() for n in moves] == state["moves"]
    engine_comments = [n.comment for n in moves[1::2]]
    assert engine_comments and all(re.search(r"N=\d+ Q=[01]\.\d{3}", c) for c in engine_comments)


def test_undo_flip_help_and_large_type_from_the_keyboard(server, page) -> None:
    game = api_create(server, human="white", budget="iterations", iterations=100)
    open_game(page, server, game)
    click_move(page, "d2d4")
    page.wait_for_function("() => window.canopy.state.game.ply === 2")
    human_turn(page)
    page.keyboard.press("u")
    page.wait_for_function("() => window.canopy.state.game.ply === 0")
    page.keyboard.press("f")
    page.wait_for_selector(".cg-wrap.orientation-black")
    page.keyboard.press("f")
    page.wait_for_selector(".cg-wrap.orientation-white")
    page.keyboard.press("?")
    help_dialog = page.locator("#help-dialog")
    help_dialog.wait_for(state="visible")
    assert "Space" in help_dialog.inner_text() and "Undo" in help_dialog.inner_text()
    page.keyboard.press("Escape")
    help_dialog.wait_for(state="hidden")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.keyboard.press("l")
    assert "large" in page.evaluate("document.documentElement.className")
    page.keyboard.press("Space")  # analysis on the projector
    page.wait_for_function("() => Number(document.body.dataset.iterations) > 0")
    page.keyboard.press("Space")
    page.keyboard.press("l")


def test_a_laptop_screen_shows_board_controls_and_table_without_scrolling(server, page) -> None:
    game = api_create(server, human="white", movetime_ms=2000)
    page.set_viewport_size({"width": 1280, "height": 720})
    open_game(page, server, game)
    click_move(page, "e2e4")
    page.wait_for_function("() => Number(document.body.dataset.statsCount) > 2")
    for selector in ("cg-board", "#btn-start", "#btn-flip", "#status", ".table-card", "#summary"):
        box = page.locator(selector).bounding_box()
        assert box and box["y"] + box["height"] <= 720 and box["x"] + box["width"] <= 1280, (
            selector,
            box,
        )


def test_a_spectator_sees_the_game_but_cannot_change_it(server, page) -> None:
    game = api_create(server, human="none", budget="iterations", iterations=100)
    open_game(page, server, game, token=False)
    assert page.locator("#role").inner_text().startswith("Spectator")
    page.wait_for_function("() => window.canopy.state.game.ply >= 2")
    for button in ("#btn-start", "#btn-undo", "#btn-go", "#settings-apply", "#fen-apply"):
        assert page.locator(button).is_disabled(), button
    page.keyboard.press("u")  # the page says so in plain words (the server refuses too)
    page.locator(".toast").first.wait_for()
    assert "Read-only: you are watching" in page.locator(".toast").first.inner_text()
    assert page.locator(".toast.error").count() == 0  # no protocol error


def test_browsing_the_move_list_shows_old_positions_without_changing_the_game(server, page) -> None:
    game = api_create(server, human="both")
    open_game(page, server, game)
    for uci in ("e2e4", "e7e5", "g1f3"):
        ply = page_state(page)["ply"]
        click_move(page, uci)
        page.wait_for_function(f"() => Number(document.body.dataset.ply) > {ply}")
    page.locator("#movelist button[data-ply='1']").click()
    page.locator("#browse-banner").wait_for(state="visible")
    assert page.locator("cg-board piece.pawn.black").count() == 8  # before 1...e5
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    page.locator("#browse-banner").wait_for(state="hidden")
    assert page_state(page)["moves"] == ["e2e4", "e7e5", "g1f3"]
