"""The Learning page and the "hand · learned" toggle in headless Chromium.

The shared server of the other browser tests has the shipped weights of both games,
whose pages are checked; a server whose ``CANOPY_LEARNED_WEIGHTS`` names a missing file
has none, and the page must say why and how to train them; another runs with
``CANOPY_LEARNED_WEIGHTS`` pointing at weights saved
here from a :class:`LearnedWeights` object, with a training record in the format
``canopy train`` writes (``engine.learn.train.Generation``), and the page must draw
their learning curve and heat map — on a projector (large type) and on a 360 px phone.

The chess NNUE likewise: that server's ``CANOPY_NNUE_WEIGHTS`` names a random network saved
here with a training record (loss per epoch, two gating matches), and the page must draw
its heat map per piece, what it adds in a position and its curve, and the game page's
toggle must show three numbers in chess; the server without learned weights has no NNUE
either, and the page must say how to train one.

The weights files are written once to a fixed path in the numba cache's parent and reused:
their bytes name the numba cache directory (engine/__init__.py), so a second run finds the
kernels compiled by the first.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.eval import nnue_weights
from engine.eval.learned_weights import ENV_VAR, load_weights, save_weights
from engine.learn.chessnet import ChessModel
from engine.learn.ntuple import Model, tuple_squares
from engine.learn.train import Generation
from tests.browser.conftest import api_create, open_game, run_server
from tests.browser.test_inside import selected_info, tab, visible_node
from tests.networks import large_network

pytestmark = pytest.mark.browser

KNIGHT_MIDDLE = "nn1nnn1n/1nn1nnnn/8/3n4/4N3/2N5/NNNN1NNN/N1NNNN1N b - - 3 6"
#: Three generations as a real run records them: the first kept, the next two not.
GATES = [(1, "hand", 25, 52, 23, True), (2, "gen-001", 16, 67, 17, False),
         (3, "gen-001", 20, 59, 21, False)]  # fmt: skip
COMMAND = "canopy train --game knight --games 800 --generations 3 --gate-games 100 --out k3"
CHESS_COMMAND = "canopy train --game chess --games 800 --generations 3 --gate-games 100 --out c3"
CHESS_MIDDLE = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
NNUE_COMMAND = "canopy train --game chess --model nnue --generations 2 --out n2"


def _records() -> list[dict[str, Any]]:
    return [
        asdict(Generation(n, 800, 130_000 * n, 0.53, 0.54, 0.58, w, d, lose,
                          (w + d / 2) / (w + d + lose), 0.0, kept, opponent, 300.0 + 100 * n))
        for n, opponent, w, d, lose, kept in GATES
    ]  # fmt: skip


def _fixed_path(name: str) -> Path:
    base = Path(os.environ.get("CANOPY_NUMBA_CACHE") or Path.home() / ".cache/canopy/numba")
    return base.parent / "test-weights" / name


def weights_file() -> Path:
    """Knight test weights with a training record, written once (see the module docstring)."""
    path = _fixed_path("learning-view-v2.npz")
    try:
        load_weights(path)
        return path
    except ValueError:
        pass
    model = Model(tuple_squares("pst"))
    theta = model.start()
    rng = np.random.default_rng(11)
    theta[model.tied_at :] = rng.normal(scale=0.1, size=model.size - model.tied_at)
    meta = {"generation": 1, "positions": 130_000, "seed": 1, "generations": _records(),
            "seconds": 1211.0}  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    save_weights(path, model.unpack(theta, COMMAND, meta))
    return path


def chess_weights_file() -> Path:
    """Chess test weights (a network of 8 units) with a training record, written once."""
    path = _fixed_path("learning-view-chess-v1.npz")
    try:
        load_weights(path, "chess")
        return path
    except ValueError:
        pass
    model = ChessModel(8)
    theta = model.start() + np.random.default_rng(12).normal(scale=0.3, size=model.size)
    meta = {"generation": 1, "positions": 90_000, "seed": 1, "generations": _records(),
            "seconds": 2400.0}  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    save_weights(path, model.unpack(theta, CHESS_COMMAND, meta))
    return path


def nnue_file() -> Path:
    """A chess NNUE (a random network of 16 units) with a training record, written once."""
    path = _fixed_path("learning-view-nnue-v1.npz")
    try:
        nnue_weights.load(path)
        return path
    except ValueError:
        pass
    net = large_network(hidden=16, seed=31)
    meta = {"generation": 2, "positions": 52_000, "epochs": 4, "seed": 1, "date": "2026-12-07",
            "train_loss": [0.031, 0.024, 0.021, 0.019], "held_loss": [0.027, 0.023, 0.022, 0.022],
            "generations": [
                {"number": 1, "score": 0.61, "elo": 77.7, "elo_ci95": [12.0, 148.0],
                 "positions": 26_000, "games": 60},
                {"number": 2, "score": 0.47, "elo": -20.9, "elo_ci95": [-84.0, 41.0],
                 "positions": 52_000, "games": 60}]}  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    nnue_weights.save(path, nnue_weights.NNUEWeights(**{**net.__dict__, "command": NNUE_COMMAND,
                                                        "meta": meta}))  # fmt: skip
    return path


@pytest.fixture(scope="module")
def learned_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("learned-data")
    log = tmp_path_factory.mktemp("learned-log") / "server.log"
    both = f"{weights_file()}{os.pathsep}{chess_weights_file()}"
    env = {ENV_VAR: both, nnue_weights.ENV_VAR: str(nnue_file()), "CANOPY_WARMUP": "false"}
    with run_server(data, log, env) as base:
        yield base


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server without learned weights or an NNUE: ``CANOPY_LEARNED_WEIGHTS`` and
    ``CANOPY_NNUE_WEIGHTS`` name missing files."""
    data = tmp_path_factory.mktemp("bare-data")
    log = tmp_path_factory.mktemp("bare-log") / "server.log"
    env = {ENV_VAR: str(data / "missing.npz"), nnue_weights.ENV_VAR: str(data / "none.npz"),
           "CANOPY_WARMUP": "false"}  # fmt: skip
    with run_server(data, log, env) as base:
        yield base


def new_page(browser: Any, width: int, height: int, *, mobile: bool = False) -> Any:
    context = browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=2 if mobile else 1,
        is_mobile=mobile,
        has_touch=mobile,
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
    page.set_default_timeout(30_000)
    return page


def overflow(page: Any) -> int:
    return int(
        page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    )


def plot_pixels(page: Any, canvas: str = "#curve-plot canvas") -> int:
    """Non-blank pixels of a plot's canvas (uPlot draws on one; the curve's by default)."""
    return int(
        page.evaluate(
            "(sel) => { const c = document.querySelector(sel);"
            " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            " let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n += 1; return n; }",
            canvas,
        )
    )


def test_without_weights_the_page_says_why_and_how_to_train(bare_server: str, page: Any) -> None:
    open_game(page, bare_server, api_create(bare_server, game="chess", human="both"))
    page.click("#link-learning")
    page.wait_for_selector("body[data-state=missing]")
    missing = page.locator("#learn-missing")
    assert missing.is_visible() and not page.locator("#learn-curve").is_visible()
    text = missing.inner_text()
    assert "missing.npz is missing" in text and "No learned weights on this server" in text
    assert page.locator("#cmd-train").inner_text().startswith("canopy train --game chess")
    assert page.locator("#cmd-serve").inner_text().startswith("CANOPY_LEARNED_WEIGHTS=")


def test_the_shipped_knight_weights_show_their_training_and_heat_map(
    server: str, page: Any
) -> None:
    """The weights in engine/data/learned/knight.npz, as a class sees them: one generation,
    kept after its gating match with uct-minimax, and the squares it learned."""
    shipped = load_weights(Path(__file__).resolve().parents[2] / "engine/data/learned/knight.npz")
    page.goto(server + "/learning?game=knight")
    page.wait_for_selector("body[data-state=ready]")
    page.wait_for_function("() => document.querySelector('#curve-plot').dataset.points === '1'")
    assert plot_pixels(page) > 500
    row = page.locator("#generations-body tr").nth(0).inner_text()
    first = shipped.meta["generations"][0]
    assert f"+{first['gate_wins']} ={first['gate_draws']} −{first['gate_losses']}" in row
    assert "yes" in row
    facts = page.locator("#learn-facts").inner_text()
    assert "--target quiescence" in facts and "--gate-algo uct-minimax" in facts
    assert page.locator("#heatmap .cell").count() == 64
    values = page.locator("#heatmap .cell").evaluate_all(
        "(els) => els.map((e) => Number(e.dataset.cp))"
    )
    assert any(v != 0 for v in values)


def test_the_shipped_chess_weights_show_their_run_and_that_hand_stays_the_default(
    server: str, page: Any
) -> None:
    """engine/data/learned/chess.npz: generation 3 of a run that kept no generation, shipped
    to compare; the page must draw all three gating matches and say it is not a default."""
    page.goto(server + "/learning?game=chess")
    page.wait_for_selector("body[data-state=ready][data-game=chess]")
    page.wait_for_function("() => document.querySelector('#curve-plot').dataset.points === '3'")
    assert plot_pixels(page) > 500
    rows = page.locator("#generations-body tr")
    assert rows.count() == 3 and all("no" in rows.nth(i).inner_text() for i in range(3))
    assert (
        "generation 3 of the run, not kept by its gating match"
        in page.locator("#learn-facts").inner_text()
    )
    note = page.locator("#learn-note")
    assert note.is_visible() and "not as a default" in note.inner_text()
    assert page.locator("#features-body tr").count() == 22


def test_the_hand_learned_toggle_is_not_offered_without_weights(
    bare_server: str, page: Any
) -> None:
    game = api_create(bare_server, game="chess", human="both")
    open_game(page, bare_server, game)
    page.wait_for_timeout(500)  # the page has asked /api/learning by now
    assert page.locator("#opt-evals-wrap").is_hidden()


def test_the_learning_page_draws_the_curve_and_the_heat_map(
    learned_server: str, browser: Any
) -> None:
    page = new_page(browser, 1600, 900)
    open_game(page, learned_server, api_create(learned_server, game="knight", human="both"))
    page.click("#link-learning")
    page.wait_for_selector("body[data-state=ready]")
    page.click("#btn-large")  # projector: large type
    page.wait_for_function("() => document.querySelector('#curve-plot').dataset.points === '3'")
    assert plot_pixels(page) > 2000
    rows = page.locator("#generations-body tr")
    assert rows.count() == 3
    assert "+25 =52 −23" in rows.nth(0).inner_text() and "yes" in rows.nth(0).inner_text()
    assert page.locator("#learn-facts").inner_text().count(COMMAND) == 1
    assert "2,400" in page.locator("#learn-facts").inner_text()  # self-play games
    cells = page.locator("#heatmap .cell")
    assert cells.count() == 64
    assert page.locator("#heatmap").get_attribute("data-map") == "middlegame-own"
    own = cells.evaluate_all("(els) => els.map((e) => Number(e.dataset.cp))")
    page.click("button[data-owner=enemy]")
    assert page.locator("#heatmap").get_attribute("data-map") == "middlegame-enemy"
    enemy = cells.evaluate_all("(els) => els.map((e) => Number(e.dataset.cp))")
    assert own != enemy and any(v != 0 for v in own)
    page.click("button[data-owner=own]")
    assert overflow(page) == 0
    assert not page.errors, page.errors
    page.context.close()


def test_the_learning_page_fits_a_360_px_phone(learned_server: str, browser: Any) -> None:
    page = new_page(browser, 360, 740, mobile=True)
    page.goto(learned_server + "/learning")
    page.wait_for_selector("body[data-state=ready]")
    page.wait_for_function("() => document.querySelector('#curve-plot').dataset.points === '3'")
    assert plot_pixels(page) > 1000
    assert overflow(page) == 0
    box = page.locator("#heatmap").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    assert not page.errors, page.errors
    page.context.close()


def analyse_and_compare(page: Any, game: str, fen: str) -> Any:
    """Analyse the open game, turn the hand · learned toggle on, and check the first
    root move's numbers (hand, learned, and the NNUE's where the server has one) against
    ``/api/evaluations``; return that move's cell."""
    page.keyboard.press("Space")  # analyse (a fresh server compiles its kernels first)
    page.wait_for_function("() => Number(document.body.dataset.iterations) >= 50", timeout=240_000)
    page.keyboard.press("Space")
    page.check("#opt-evals")
    move = page.locator("#root-body tr").first.get_attribute("data-move")
    cell = page.locator(f"tr[data-move={move}] td.c-static")
    filled = f"document.querySelector('tr[data-move={move}] td.c-static').textContent"
    page.wait_for_function(f"() => {filled}.includes('·')", timeout=60_000)
    shown = [float(x.replace("−", "-")) for x in cell.inner_text().split(" · ")]
    answer = page.evaluate(
        "(body) => fetch('/api/evaluations', {method: 'POST', headers: {'Content-Type':"
        " 'application/json'}, body: JSON.stringify(body)}).then((r) => r.json())",
        {"game": game, "fen": fen, "moves": [move]},
    )["moves"][0]
    expected = [answer["hand"], answer["learned"]]
    if answer["nnue"] is not None:
        expected.append(answer["nnue"])
    assert shown == [round(x, 2) for x in expected]
    return cell


def test_hand_and_learned_side_by_side_in_the_moves_table(
    learned_server: str, browser: Any
) -> None:
    page = new_page(browser, 1400, 900)
    game = api_create(learned_server, game="knight", human="both", fen=KNIGHT_MIDDLE)
    open_game(page, learned_server, game)
    toggle = page.locator("#opt-evals-wrap")
    toggle.wait_for(state="visible")
    assert page.locator("td.c-static").count() == 0 or page.locator("td.c-static").first.is_hidden()
    cell = analyse_and_compare(page, "knight", KNIGHT_MIDDLE)
    assert "learned" in cell.get_attribute("title")
    # The tree's node card: both numbers, for the side that moved into the node.
    tab(page, "tree")
    node = visible_node(page)
    node_id = int(node.get_attribute("data-id"))
    node.click()
    page.wait_for_function(selected_info(node_id))
    facts = page.locator("#node-card .node-facts")
    page.wait_for_function(
        "() => /static eval\\s*hand [+−]\\d\\.\\d\\d · learned [+−]\\d\\.\\d\\d for /"
        ".test(document.querySelector('#node-card .node-facts').innerText)"
    )
    assert "static eval" in facts.inner_text()
    tab(page, "moves")
    page.uncheck("#opt-evals")
    page.wait_for_function("() => !document.querySelector('#root-moves.with-static')")
    assert page.locator("td.c-static").first.is_hidden()
    assert not page.errors, page.errors
    page.context.close()


def test_the_chess_learning_page_shows_each_features_weight(
    learned_server: str, browser: Any
) -> None:
    page = new_page(browser, 1400, 900)
    open_game(page, learned_server, api_create(learned_server, game="chess", human="both"))
    page.click("#link-learning")  # the game on show: chess
    page.wait_for_selector("body[data-state=ready][data-game=chess]")
    assert page.locator("#learn-heat").is_hidden() and page.locator("#learn-features").is_visible()
    assert "chess evaluation" in page.locator("#learn-sub").inner_text()
    page.wait_for_function("() => document.querySelector('#curve-plot').dataset.points === '3'")
    rows = page.locator("#features-body tr")
    assert rows.count() == 22
    assert rows.nth(0).get_attribute("data-feature") == "pawn"
    middle = page.locator("#features-body").inner_text()
    page.click("button[data-feature-phase=endgame]")
    assert page.locator("#features-body").inner_text() != middle
    assert "8 hidden units" in page.locator("#learn-facts").inner_text()
    assert page.locator("#learn-facts").inner_text().count(CHESS_COMMAND) == 1
    page.click("#learn-games [data-game=knight]")
    page.wait_for_selector("body[data-state=ready][data-game=knight]")
    assert page.locator("#learn-heat").is_visible() and page.locator("#learn-features").is_hidden()
    assert overflow(page) == 0
    assert not page.errors, page.errors
    page.context.close()


def test_hand_learned_and_nnue_side_by_side_in_a_chess_game(
    learned_server: str, browser: Any
) -> None:
    page = new_page(browser, 1400, 900)
    game = api_create(learned_server, game="chess", human="both", fen=CHESS_MIDDLE)
    open_game(page, learned_server, game)
    page.locator("#opt-evals-wrap").wait_for(state="visible")
    page.wait_for_function(
        "() => document.querySelector('#opt-evals-label').textContent === 'hand · learned · nnue'"
    )
    cell = analyse_and_compare(page, "chess", CHESS_MIDDLE)
    assert len(cell.inner_text().split(" · ")) == 3 and "nnue" in cell.get_attribute("title")
    heading = page.locator("#root-head th[data-key=static]").inner_text()
    assert heading == "Hand · learned · NNUE"
    # The game page's Learning link carries the position for "what it adds".
    assert "fen=" in page.locator("#link-learning").get_attribute("href")
    assert not page.errors, page.errors
    page.context.close()


def map_values(page: Any) -> list[float | None]:
    return list(
        page.locator("#nnue-heatmap .cell").evaluate_all(
            "(els) => els.map((e) => (e.dataset.cp === undefined ? null : Number(e.dataset.cp)))"
        )
    )


def check_nnue_heat_map(page: Any) -> None:
    """64 squares, one map per piece and owner: switching either changes the map."""
    page.wait_for_selector("body[data-nnue=ready]")
    cells = page.locator("#nnue-heatmap .cell")
    assert cells.count() == 64
    assert page.locator("#nnue-heatmap").get_attribute("data-map") == "knight-own"
    knight = map_values(page)
    assert knight[4] is None and knight[60] is None  # the kings' squares
    page.click("#nnue-heat button[data-piece=queen]")
    assert page.locator("#nnue-heatmap").get_attribute("data-map") == "queen-own"
    queen = map_values(page)
    assert cells.count() == 64 and queen != knight
    page.click("#nnue-heat button[data-nnue-owner=enemy]")
    assert map_values(page) != queen
    page.click("#nnue-heat button[data-piece=pawn]")
    pawn = map_values(page)
    assert all(v is None for v in pawn[:8] + pawn[56:]) and pawn[8] is not None
    assert overflow(page) == 0


def test_the_nnue_section_draws_its_maps_a_position_and_its_curve(
    learned_server: str, browser: Any, tmp_path: Path
) -> None:
    page = new_page(browser, 1400, 900)
    page.goto(learned_server + "/learning?game=chess&fen=" + CHESS_MIDDLE.replace(" ", "%20"))
    check_nnue_heat_map(page)
    assert NNUE_COMMAND in page.locator("#nnue-provenance").inner_text()
    assert "52,000 positions" in page.locator("#nnue-provenance").inner_text()
    # What it adds: the game's position, a number on every piece but the kings.
    page.wait_for_selector("#nnue-position[data-state=ready]")
    assert page.locator("#nnue-fen").input_value() == CHESS_MIDDLE
    assert page.locator("#nnue-game").is_visible()
    assert page.locator("#nnue-board .glyph").count() == 32
    assert page.locator("#nnue-board .cell[data-cp]").count() == 30
    nnue = page.locator("#nnue-board").inner_text()
    page.click("#nnue-position button[data-mode=hand]")
    assert page.locator("#nnue-board").inner_text() != nnue
    assert "NNUE − hand" in page.locator("#nnue-values").inner_text()
    page.fill("#nnue-fen", "not a position")
    page.click("#nnue-fen-form button[type=submit]")
    page.wait_for_selector("#nnue-position[data-state=error]")
    assert "malformed FEN" in page.locator("#nnue-fen-message").inner_text()
    page.errors[:] = [e for e in page.errors if "status of 400" not in e]  # the refusal itself
    page.click("#nnue-start")
    page.wait_for_selector("#nnue-position[data-state=ready]")
    assert page.locator("#nnue-board .glyph").count() == 32
    # The curve: loss per epoch and two gating matches.
    assert page.locator("#nnue-loss").get_attribute("data-epochs") == "4"
    assert plot_pixels(page, "#nnue-loss canvas") > 500
    assert page.locator("#nnue-gates-plot").get_attribute("data-points") == "2"
    rows = page.locator("#nnue-gates-body tr")
    assert rows.count() == 2 and "61.0 %" in rows.nth(0).inner_text()
    assert "+78 [+12, +148]" in rows.nth(0).inner_text()
    page.locator("#nnue-heat").screenshot(path=tmp_path / "nnue-heat.png")
    page.locator("#nnue-position").screenshot(path=tmp_path / "nnue-position.png")
    assert not page.errors, page.errors
    page.context.close()


def test_the_nnue_heat_map_fits_a_360_px_phone(learned_server: str, browser: Any) -> None:
    page = new_page(browser, 360, 740, mobile=True)
    page.goto(learned_server + "/learning?game=chess")
    check_nnue_heat_map(page)
    for board in ("#nnue-heatmap", "#nnue-board"):
        box = page.locator(board).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    assert not page.errors, page.errors
    page.context.close()


def test_without_an_nnue_the_chess_page_says_how_to_train_one(bare_server: str, page: Any) -> None:
    page.goto(bare_server + "/learning?game=chess")
    page.wait_for_selector("body[data-nnue=missing]")
    assert page.locator("#nnue-missing").is_visible() and page.locator("#nnue-heat").is_hidden()
    assert page.locator("#nnue-train").inner_text() == "canopy train --game chess --model nnue"
    assert "none.npz" in page.locator("#nnue-why").inner_text()
