"""Inside the search in headless Chromium: the tree view (nodes drawn, a click opens
the node's details), step mode (four phases with their numbers), the charts, the
threads' merge, the algorithm race (two tables) and the JSON exports.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import (
    STEP_TIMEOUT_MS,
    analyse,
    api_create,
    api_get,
    open_game,
    selected_info,
    step_times,
    tab,
)

pytestmark = pytest.mark.browser

#: A tactical position (Black has just blundered: Qxf7 is mate), so Q differs across the tree.
SCHOLAR = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
#: Step mode's phases, in order (their chips' data-phase is the index).
PHASES = ["selection", "expansion", "simulation", "backpropagation"]
#: A middlegame where the moves differ in value without a mate in one.
MIDDLEGAME = "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 6 8"


def visible_node(page: Any, *, min_size: float = 6.0) -> Any:
    """A non-root tree node fully inside the tree's viewport (largest first)."""
    area = page.locator("#tree-area svg").bounding_box()
    nodes = page.locator("#tree-area g.tnode:not(.root)")
    best = None
    for i in range(min(nodes.count(), 200)):
        box = nodes.nth(i).bounding_box()
        if not box or box["width"] < min_size:
            continue
        inside = (
            area["x"] + 4 < box["x"]
            and box["x"] + box["width"] < area["x"] + area["width"] - 4
            and area["y"] + 4 < box["y"]
            and box["y"] + box["height"] < area["y"] + area["height"] - 4
        )
        if inside and (best is None or box["width"] > best[1]):
            best = (nodes.nth(i), box["width"])
    assert best is not None, "no tree node is visible"
    return best[0]


def q_line(card: Any) -> str:
    """The node card's Q entry."""
    facts = card.locator(".node-facts")
    terms = facts.locator("dt").all_text_contents()
    return str(facts.locator("dd").nth(terms.index("Q")).inner_text())


def q_text(info: dict[str, Any]) -> str:
    """Q as the card should put it: for White, and for the mover only when that is Black."""
    white = f"{info['q_white']:.3f} for White"
    if info["mover"] == "white":
        return white
    return f"{white} · {info['q']:.3f} for Black, who moved here"


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two bounding boxes share any area."""
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def test_the_tree_view_draws_nodes_and_a_click_opens_node_details(server, page) -> None:
    # uct-minimax scores leaves by a small minimax search, so Q (the colour) varies.
    game = api_create(
        server, human="both", fen=MIDDLEGAME, algorithm="uct-minimax", params={"depth": 2}
    )
    open_game(page, server, game)
    tab(page, "tree")
    page.click(".wide-toggle")
    page.select_option("#tree-size", "100")
    analyse(page, at_least=1200)
    page.wait_for_function("() => Number(document.body.dataset.treeNodes) === 100")
    drawn = page.locator("#tree-area g.tnode").count()
    assert drawn == 100  # the subscription asked for 100 and the view draws them all
    segments = page.locator("#tree-area path.tlink").evaluate_all(
        "(els) => els.reduce((n, e) => n + (e.getAttribute('d').match(/M/g) || []).length, 0)"
    )
    assert segments == 99  # one edge per non-root node
    fills = set(
        page.locator("#tree-area g.tnode:not(.root) circle").evaluate_all(
            "(els) => els.map((e) => e.getAttribute('fill'))"
        )
    )
    assert len(fills) > 5  # coloured by Q, which differs from node to node
    labels = page.locator("#tree-area text.tlabel:not(.off)").all_text_contents()
    top = page.evaluate(
        "(() => { const kids = window.canopy.state.inside.tree.filter((n) => n.depth === 1);"
        " const most = Math.max(...kids.map((n) => n.visits));"
        " return kids.filter((n) => n.visits === most).map((n) => n.san); })()"
    )
    assert set(top) & set(labels) and len(labels) >= 10  # edges carry SAN, most visited first
    node = visible_node(page)
    node_id = int(node.get_attribute("data-id"))
    node.click()
    card = page.locator("#node-card")
    card.wait_for(state="visible")
    page.wait_for_function(selected_info(node_id))
    info = page.evaluate("window.canopy.state.inside.nodeInfo")
    tree_node = page.evaluate(f"window.canopy.state.inside.tree.find((n) => n.id === {node_id})")
    assert info["visits"] == tree_node["visits"]
    # Its position: the mini board is made on first use, so give chessground a frame or two.
    page.wait_for_function(
        "() => document.querySelectorAll('#node-card .mini-board cg-board piece').length >= 20"
    )
    facts = card.locator(".node-facts").inner_text()
    assert f"{tree_node['visits']:,}" in facts and "Q" in facts and "eval" in facts
    if info["selection"] and info["selection"]["score"] is not None:
        sel = info["selection"]
        assert sel["exploit"] + sel["explore"] == pytest.approx(sel["score"], abs=1e-3)
        assert f"{sel['score']:.3f}" in card.locator(".node-formula").inner_text()
    # Q once, for White; the mover's view too only when the mover is the other side.
    assert q_line(card) == q_text(info)
    assert page.locator("#tree-area g.tnode.selected").count() == 1
    page.mouse.move(5, 5)  # the pointer off the tree: no tooltip over it
    page.wait_for_timeout(300)
    # The card is opaque, clear of the node it describes, and nothing of it is cut off.
    assert card.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(251, 250, 246)"
    assert not overlaps(
        card.bounding_box(), page.locator("#tree-area g.tnode.selected").bounding_box()
    )
    assert card.evaluate("e => e.scrollHeight <= e.clientHeight")
    assert card.bounding_box()["y"] + card.bounding_box()["height"] <= 800
    # Walk down: a child chip selects the child (Black moved into it: two views of Q).
    chips = card.locator(".child-chips button")
    if chips.count():
        child = int(chips.first.get_attribute("data-id"))
        chips.first.click()
        page.wait_for_function(selected_info(child))
        info = page.evaluate("window.canopy.state.inside.nodeInfo")
        assert info["mover"] == "black" and q_line(card) == q_text(info)
        selected = page.locator("#tree-area g.tnode.selected")
        if selected.count():  # (a child outside the drawn top 100 is not drawn)
            assert not overlaps(card.bounding_box(), selected.bounding_box())


@pytest.mark.parametrize("algorithm", ["uct", "mcts"])
def test_the_tree_view_follows_a_running_search(server, page, algorithm: str) -> None:
    game = api_create(server, human="both", algorithm=algorithm)
    open_game(page, server, game)
    tab(page, "tree")
    page.select_option("#tree-size", "50")
    page.keyboard.press("Space")
    page.wait_for_function("() => Number(document.body.dataset.treeNodes) === 50", timeout=30_000)
    first = page.evaluate("window.canopy.state.inside.tree[0].visits")
    page.wait_for_function(
        f"() => window.canopy.state.inside.tree[0].visits > {first} + 200", timeout=30_000
    )
    root = page.locator("#tree-area g.tnode.root")
    assert root.count() == 1
    assert page.locator("#tree-area g.tnode").count() == 50
    page.keyboard.press("Space")
    page.select_option("#tree-layout", "radial")
    page.wait_for_timeout(200)
    assert page.locator("#tree-area g.tnode").count() == 50


def test_step_mode_shows_the_four_phases_with_their_numbers(server, page) -> None:
    game = api_create(server, human="both", algorithm="uct", params={"c": 1.0})
    open_game(page, server, game)
    tab(page, "step")
    page.select_option("#step-speed", "fast")
    step_times(page, 25)
    phases = page.locator("#phases .phase")
    assert phases.count() == 4
    titles = [t.strip() for t in page.locator("#phases .phase h3").all_text_contents()]
    assert titles == ["1 · Selection", "2 · Expansion", "3 · Simulation", "4 · Back-propagation"]
    step = page.evaluate("window.canopy.state.inside.step")
    # Selection: the table's winner is the child with the largest UCB1, recomputed here.
    for level in step["selection"]:
        if level["rule"] != "ucb1":
            continue
        np_ = level["visits"]
        best = max(
            level["children"],
            key=lambda c: (
                math.inf
                if c["visits"] == 0
                else c["value_sum"] / c["visits"] + 1.0 * math.sqrt(2 * math.log(np_) / c["visits"])
            ),
        )
        assert best["winner"] and best["node"] == level["chosen"]["node"]
    selection = page.locator("#phases .phase[data-phase=selection]")
    winners = selection.locator("tr.winner td.san").all_text_contents()
    assert winners == [
        c["san"]
        for lv in step["selection"]
        if lv["rule"] == "ucb1"
        for c in lv["children"]
        if c["winner"]
    ]
    assert re.search(
        r"\d\.\d{3} \+ \d\.\d{3} = \d\.\d{3}", selection.inner_text()
    )  # worked example
    expansion = page.locator("#phases .phase[data-phase=expansion]").inner_text()
    assert step["expansion"]["nodes"][0]["san"] in expansion
    simulation = page.locator("#phases .phase[data-phase=simulation]").inner_text()
    assert step["simulation"]["result"] in simulation and "reward" in simulation
    back = page.locator("#phases .phase[data-phase=backpropagation] tbody tr")
    assert back.count() == len(step["backpropagation"])
    leaf = step["backpropagation"][0]
    assert f"{leaf['visits_before']} → {leaf['visits_after']}" in back.first.inner_text()
    # The animation ends on phase 4; a phase chip goes back to the selection, with the
    # path drawn on the board.
    page.wait_for_selector("#phases .phase[data-phase=backpropagation].active")
    page.click(".phase-chip[data-phase='0']")
    page.wait_for_selector("#phases .phase[data-phase=selection].active")
    # The caption of the board's picture is under the board, never over its pieces.
    banner = page.locator("#overlay-banner")
    assert banner.is_visible() or not step["path"]
    if step["path"]:
        # Read once the layout has settled: the banner takes the status line's place as
        # it appears, and for a frame or two the board above it is still moving.
        page.wait_for_function(
            "() => { const b = document.querySelector('cg-board').getBoundingClientRect();"
            " const c = document.querySelector('#overlay-banner').getBoundingClientRect();"
            " return c.height > 0 && c.top >= b.bottom; }",
            timeout=5_000,
        )
        assert not page.locator("#status").is_visible()  # it has the status line's place
    # On a projector: large type and the wide layout, 1920 × 1080. The page follows the
    # phases down and back up; the step toolbar stays at the window's top, over none of
    # the phase it scrolled to.
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.keyboard.press("l")
    page.click(".wide-toggle")
    for phase in ("backpropagation", "selection"):
        page.click(f".phase-chip[data-phase='{PHASES.index(phase)}']")
        page.wait_for_function(
            "(phase) => { const el = document.querySelector("
            "`#phases .phase[data-phase=${phase}].active`); if (!el) return false;"
            " const bar = document.querySelector('.step-toolbar').getBoundingClientRect();"
            " const box = el.getBoundingClientRect(); return window.scrollY > 0"
            " && Math.abs(bar.top) < 1 && box.top >= bar.bottom"
            " && box.bottom <= window.innerHeight; }",
            arg=phase,
        )
        assert page.locator("#step-once").is_visible()
        assert page.locator(".step-toolbar.stuck").count() == 1
    page.click(".phase-chip[data-phase='2']")
    page.wait_for_selector("#phases .phase[data-phase=simulation].active")
    # Esc shows the game again, and the status line with it.
    page.keyboard.press("Escape")
    page.wait_for_selector("#status", state="visible")
    assert banner.is_hidden()


def test_step_mode_takes_one_step_a_press_even_when_the_page_moves_the_button(server, page) -> None:
    """Step acts on the mouse's press: a press on the button whose release lands elsewhere
    (the page scrolled in between, as its own follow-scroll does) is one step; a full click
    is one step, not two (its click is swallowed); Enter on the focused button is one."""
    sent: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framesent", lambda f: sent.append(f) if '"action":"step"' in str(f) else None
        ),
    )
    game = api_create(server, human="both", algorithm="uct")
    open_game(page, server, game)
    tab(page, "step")
    page.select_option("#step-speed", "fast")
    step_times(page, 1)  # the phases are drawn: the page is tall enough to scroll

    def one_step(act: Any) -> None:
        # The last step's phases have played and the page has stopped scrolling.
        page.wait_for_selector("#phases .phase[data-phase=backpropagation].active")
        page.evaluate(
            "async () => { let y = -1; while (window.scrollY !== y) { y = window.scrollY;"
            " await new Promise((done) => setTimeout(done, 150)); } }"
        )
        asked, seen = len(sent), page.evaluate("window.canopy.state.inside.steps.length")
        iteration = page.evaluate("window.canopy.state.inside.step.iteration")
        act()
        page.wait_for_function(
            f"() => window.canopy.state.inside.steps.length > {seen}", timeout=STEP_TIMEOUT_MS
        )
        page.wait_for_timeout(1500)  # a second step, if one was asked, arrives meanwhile
        assert len(sent) - asked == 1, sent[asked:]
        assert page.evaluate("window.canopy.state.inside.steps.length") == seen + 1
        assert page.evaluate("window.canopy.state.inside.step.iteration") == iteration + 1

    def press_then_scroll() -> None:
        page.evaluate("window.scrollTo({top: 0, behavior: 'instant'})")
        box = page.locator("#step-once").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.evaluate("window.scrollBy({top: 120, behavior: 'instant'})")
        moved = page.locator("#step-once").bounding_box()
        assert moved["y"] + moved["height"] < y  # the button left the pointer behind
        assert page.evaluate(
            "([x, y]) => !document.elementFromPoint(x, y).closest('#step-once')", [x, y]
        )
        page.mouse.up()  # on whatever is under the pointer now: no click on Step

    one_step(press_then_scroll)
    one_step(lambda: page.click("#step-once"))

    def enter() -> None:
        page.focus("#step-once")
        page.keyboard.press("Enter")

    one_step(enter)


@pytest.mark.parametrize(
    ("params", "scorer"),
    [({}, "a quiescence search"), ({"leaf": "static"}, "the static evaluation")],
    ids=["chess-default-quiescence", "static"],
)
def test_step_mode_shows_the_bfms_overwrite_rule_and_the_leaf_scorer_that_ran(
    server: str, page: Any, params: dict, scorer: str
) -> None:
    # bfms scores a leaf's children by its ``leaf`` parameter: in chess a quiescence
    # search unless asked for the static evaluation, and the step view names that one.
    game = api_create(server, human="both", algorithm="bfms", fen=MIDDLEGAME, params=params)
    open_game(page, server, game)
    tab(page, "step")
    step_times(page, 5)
    back = page.locator("#phases .phase[data-phase=backpropagation]").inner_text()
    assert "−max" in back and "overwritten" in back
    selection = page.locator("#phases .phase[data-phase=selection]").inner_text()
    assert "eval + C·√(ln N_parent / N)" in selection
    simulation = page.locator("#phases .phase[data-phase=simulation]").inner_text()
    lede = page.locator("#phases .phase[data-phase=expansion] .lede").inner_text()
    assert f"were each scored by {scorer}" in simulation
    assert f"each scored by {scorer}" in lede
    if scorer == "the static evaluation":
        assert "quiescence" not in simulation + lede
    else:
        assert "each scored by the static evaluation" not in simulation + lede


def test_step_mode_shows_a_playout_cut_off_and_scored_by_the_evaluation(server, page) -> None:
    game = api_create(
        server, human="both", algorithm="uct", params={"ply_cap": 6, "at_cap": "eval"}
    )
    open_game(page, server, game)
    tab(page, "step")
    step_times(page, 1)
    sim = page.evaluate("window.canopy.state.inside.step.simulation")
    assert sim["plies"] == 6 and sim["at_cap"] == "eval"
    text = page.locator("#phases .phase[data-phase=simulation]").inner_text()
    assert "ply cap cuts it off" in text and "static evaluation" in text
    assert f"{sim['reward']:.3f}" in text and "(1 + evaluation) / 2" in text


def test_the_charts_draw_the_search_over_time(server, page) -> None:
    game = api_create(
        server, human="both", fen=MIDDLEGAME, algorithm="uct-minimax", params={"depth": 2}
    )
    open_game(page, server, game)
    tab(page, "charts")
    analyse(page, at_least=8000)
    page.wait_for_function("() => window.canopy.state.inside.history.x.length >= 4")
    page.wait_for_function("() => document.querySelectorAll('.chart-plot canvas').length === 4")
    history = page.evaluate(
        "(() => { const h = window.canopy.state.inside.history;"
        " return {x: h.x, moves: [...h.moves.values()].map((m) => m.share.length)}; })()"
    )
    assert history["x"] == sorted(history["x"])
    assert all(n == len(history["x"]) for n in history["moves"])
    legend = page.locator(".chart .u-legend").first.inner_text()
    top = page.evaluate("window.canopy.state.stats.moves[0].san")
    assert top in legend  # the most visited move is one of the drawn series


@pytest.mark.parametrize(("algorithm", "iterations"), [("uct", 4000), ("mcts", 1500)])
def test_the_threads_view_shows_each_thread_beside_the_merge(
    server, page, algorithm: str, iterations: int
) -> None:
    game = api_create(server, human="both", fen=MIDDLEGAME, algorithm=algorithm, threads=2)
    open_game(page, server, game)
    tab(page, "threads")
    analyse(page, at_least=iterations)
    page.wait_for_selector(".threads-table tbody tr")
    head = page.locator(".threads-table thead").inner_text()
    assert "thread 0" in head and "thread 1" in head
    stats = page.evaluate("window.canopy.state.stats")
    per_thread = [{m["move"]: m for m in t["moves"]} for t in stats["thread_stats"]]
    assert len(per_thread) == 2 and all(t["iterations"] > 0 for t in stats["thread_stats"])
    rows = page.locator(".threads-table tbody tr")
    checked = 0
    for k, merged in enumerate(stats["moves"][: rows.count()]):
        own = [t.get(merged["move"]) for t in per_thread]
        if None in own:  # (each thread lists its own top moves)
            continue
        assert sum(m["visits"] for m in own) == merged["visits"]  # the merge adds visits
        cells = rows.nth(k).locator("td").all_text_contents()  # each thread's N beside it
        assert cells[3].startswith(f"{own[0]['visits']:,} / ")
        assert cells[4].startswith(f"{own[1]['visits']:,} / ")
        checked += 1
    assert checked >= 3
    assert rows.first.locator(".merge-bar .seg").count() == 2


def test_race_mode_shows_two_tables_side_by_side(server, page) -> None:
    game = api_create(server, human="both", fen=SCHOLAR)
    open_game(page, server, game)
    tab(page, "race")
    page.locator(".presets button", has_text="UCT vs BFMS").click()
    page.fill(".race-options input[aria-label='iterations per side']", "3000")
    page.click("#race-start")
    page.wait_for_function("() => document.body.dataset.race === 'done'", timeout=60_000)
    race = page.evaluate("window.canopy.state.inside.race")
    assert race["a"]["iterations"] == race["b"]["iterations"] == 3000
    tables = page.locator(".race-table")
    assert tables.count() == 2
    for side, table in zip(("a", "b"), (tables.nth(0), tables.nth(1)), strict=True):
        assert table.locator("tbody tr").count() == len(race[side]["moves"])
        assert table.locator("tbody tr.best td.san").inner_text().endswith(race[side]["best_san"])
    verdict = page.locator(".race-verdict").inner_text()
    assert ("Agree" in verdict) == race["agree"]
    assert "Qxf7#" in page.locator(".race-side.side-a .race-best").inner_text()
    # The game's search did not take part: its summary says so instead of showing dashes.
    note = page.locator("#summary-note")
    assert note.is_visible() and "race" in note.inner_text()
    assert page.locator("#summary").evaluate("e => getComputedStyle(e).visibility") == "hidden"


def test_the_exports_parse_and_match_the_tree(server, page, tmp_path: Path) -> None:
    game = api_create(server, human="both", algorithm="uct")
    open_game(page, server, game)
    tab(page, "tree")
    analyse(page, at_least=2000)
    page.select_option(".export-size", "500")
    with page.expect_download() as download:
        page.click("#export-tree")
    path = tmp_path / "tree.json"
    download.value.save_as(path)
    tree = json.loads(path.read_text())
    stats = page.evaluate("window.canopy.state.stats")
    assert tree["format"] == "canopy-tree" and tree["exported"] == len(tree["nodes"]) == 500
    assert tree["iterations"] == stats["iterations"] == tree["root_visits"]
    assert tree["tree_nodes"] == stats["nodes"]
    drawn = {n["id"]: n for n in page.evaluate("window.canopy.state.inside.tree")}
    for node in tree["nodes"][: len(drawn)]:
        assert drawn[node["id"]]["visits"] == node["visits"]  # the drawn tree's numbers
    tab(page, "step")
    step_times(page, 3)
    with page.expect_download() as download:
        page.click("#export-steps")
    path = tmp_path / "steps.json"
    download.value.save_as(path)
    log = json.loads(path.read_text())
    assert log["format"] == "canopy-steps" and log["count"] == 3
    last = page.evaluate("window.canopy.state.inside.step")
    assert log["steps"][-1]["iteration"] == last["iteration"]
    assert log["steps"][-1]["path"] == last["path"]


def test_the_threads_tab_offers_root_parallelism_and_tabs_have_keys(server, page) -> None:
    game = api_create(server, human="both", algorithm="uct", threads=1)
    open_game(page, server, game)
    page.keyboard.press("5")  # the fifth tab: Threads
    page.wait_for_function("() => document.body.dataset.tab === 'threads'")
    page.click("#use-threads")
    page.wait_for_function("() => window.canopy.state.game.settings.threads === 2")
    page.keyboard.press("2")
    page.wait_for_function("() => document.body.dataset.tab === 'tree'")
    page.keyboard.press("?")
    help_text = page.locator("#shortcuts").inner_text()
    assert "Tabs: Moves, Tree, Step, Charts, Threads, Race" in help_text


@pytest.mark.parametrize("algorithm", ["uct", "uct-minimax", "bfms", "mcts", "alphabeta"])
def test_the_step_heading_states_the_formula_its_table_computes(server, page, algorithm) -> None:
    """The selection heading is the algorithm's own formula (its hooks, as /api/algorithms
    describes them), and the table under it names the same terms: UCB1's exploitation is
    W/N beside a column Q = W/N, never Q/N."""
    info = next(a for a in api_get(server, "/api/algorithms?game=chess") if a["name"] == algorithm)
    caps = info["capabilities"]
    game = api_create(server, human="both", algorithm=algorithm)
    open_game(page, server, game)
    if caps["tree"]:
        analyse(page, at_least=60)  # every root move visited: the next step ranks them all
    tab(page, "step")
    page.select_option("#step-speed", "fast")
    step_times(page, 1 if caps["tree"] and algorithm != "bfms" else 2)
    selection = page.locator("#phases .phase[data-phase=selection]")
    if caps["stepping"] == "depth":
        assert "has no selection phase" in selection.inner_text()
        assert selection.locator(".formula").count() == 0
        return
    heading = selection.locator(".formula").first.inner_text()
    label, formula = caps["score_label"], " ".join(caps["formula"].replace("sqrt", "√").split())
    assert heading.startswith(f"{label} = {formula}"), heading
    head = selection.locator(".formula-table").first.locator("th").all_inner_texts()
    assert f"= {label}" in head and any(caps["exploit_label"] in th for th in head), head
    if caps["selection_rule"] == "ucb1":
        assert heading.startswith("UCB1 = W/N + c·√(2 ln N_parent / N)")
        assert "Q = W/N" in head and "Q/N" not in heading
        worked = selection.locator(".worked").first.inner_text()
        assert re.search(r"\d+\.\d\d/\d+ \+ ", worked), worked  # W/N, worked out
