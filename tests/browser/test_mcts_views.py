"""``mcts`` (the default opponent) inside the search in headless Chromium: step mode's
PUCT rows, each kind of simulation, minimax and proofs backed up; the tree view's node
card; the race against its partner; the menus. (That the tree view follows a running
mcts search, and the threads view, are test_inside's, with uct's.)

The numbers the page shows are checked against the step frame the page holds, and the
frame's own numbers against the formulas (PUCT, the blend of Q and minimax) recomputed
here.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise
from pathlib import Path
from typing import Any

import chess
import pytest

from tests.browser.conftest import (
    analyse,
    api_create,
    api_get,
    open_game,
    page_state,
    run_server,
    selected_info,
    step_times,
    tab,
)

pytestmark = pytest.mark.browser

#: No mate in one; the moves differ in value.
MIDDLEGAME = "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 6 8"
#: Ra8# (Stockfish: #1).
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
#: Qd8+ Bxd8 Re8# (Stockfish: #2).
MATE_IN_TWO = "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 0"
#: Kc7 Ka7 Ra1#: proven in the tree, its first move being quiet.
QUIET_MATE_IN_TWO = "k7/8/2K5/8/8/8/8/1R6 w - - 0 1"
#: Bxg5 takes a queen: the leaves' quiescence lines have captures in them.
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1"
#: King moves commute, so a leaf is soon reached by a second move order.
ROOK_ENDING = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"
#: How a step's proof is for the side that moved into a node (trace: 1 win, -1 loss).
PROVEN_LOSS = -1
PHASE_TITLES = ["1 · Selection", "2 · Expansion", "3 · Simulation", "4 · Back-propagation"]


def number(text: str) -> float:
    """A number as the page prints it (a minus sign, or a leading '+')."""
    return float(text.strip().split()[0].replace("−", "-").replace("+", ""))


def fixed(x: float, digits: int = 3) -> str:
    """JavaScript's ``toFixed``: an exact half rounds away from zero (Python's format
    rounds it to even: 0.0625 would read 0.062 here and 0.063 on the page)."""
    step = Decimal(1).scaleb(-digits)
    return str(Decimal(x).quantize(step, rounding=ROUND_HALF_UP))


def signed(x: float, digits: int = 3) -> str:
    """notation.js's ``signed``: '+0.123', '−0.123', 'mate +' beyond ±1."""
    if abs(x) > 1.0001:
        return "mate +" if x > 0 else "mate −"
    return ("+" if x >= 0 else "−") + fixed(abs(x), digits)


def phase(page: Any, name: str) -> Any:
    return page.locator(f"#phases .phase[data-phase={name}]")


def step_game(server: str, page: Any, fen: str | None, params: dict, game: str = "chess") -> None:
    """A game analysed by ``mcts`` with ``params``, open in the Step tab."""
    created = api_create(server, human="both", game=game, fen=fen, algorithm="mcts", params=params)
    open_game(page, server, created)
    tab(page, "step")
    page.select_option("#step-speed", "fast")


def step_until(page: Any, wanted: Callable[[dict], bool], *, at_most: int) -> dict:
    """Step until a step frame satisfies ``wanted``; that frame."""
    for _ in range(at_most):
        step = step_times(page, 1)
        if wanted(step):
            return step
    raise AssertionError(f"no step of {at_most} showed what the test needs")


def rounding(row: dict, parent_visits: int, c: float) -> float:
    """How far :func:`puct_score` of a row may be from the kernel's: the step frame rounds
    every number to 4 decimals, and the prior's rounding is scaled by c·√N_parent/(1 + N)."""
    return 2e-4 + 6e-5 * c * math.sqrt(max(1, parent_visits)) / (1 + row["visits"])


def proof_text(row: dict, depth: int) -> str:
    """A proof as the step view words it, for the winner: ``row['proof']`` is for the side
    that moved into the node at ``depth`` (White at odd depths: White is to move at the
    roots of these tests)."""
    if not row["proof"]:
        return ""
    if row["proof"] == 2:
        return "proven draw"
    white_won = (depth % 2 == 1) == (row["proof"] > 0)
    what = "proven win" if row["mate"] is None else f"mate in {math.ceil(row['mate'] / 2)}"
    return f"{what} for {'White' if white_won else 'Black'}"


def puct_score(row: dict, parent_visits: int, alpha: float, c: float) -> float:
    """PUCT as the kernel ranks a child: (1 − α)·Q + α·(1 + minimax)/2 (an evaluated child
    never visited: its minimax alone; one not yet evaluated: its parent's urgency, the row's
    value) plus c·P·√N_parent / (1 + N)."""
    if row["evaluated"]:
        minimax = 0.5 * (1.0 + max(-1.0, min(1.0, row["minimax"])))
        mean = row["q_mean"]
        exploit = (1 - alpha) * mean + alpha * minimax if row["visits"] else minimax
    else:
        exploit = row["q"]
    return exploit + c * row["prior"] * math.sqrt(max(1, parent_visits)) / (1 + row["visits"])


@pytest.mark.parametrize(
    ("game", "fen", "steps"), [("chess", MIDDLEGAME, 14), ("knight", None, 14)]
)
def test_step_mode_shows_puct_rows_whose_winner_has_the_largest_recomputed_score(
    server: str, page: Any, game: str, fen: str | None, steps: int
) -> None:
    step_game(server, page, fen, {}, game)
    step = step_times(page, steps)
    params = page_state(page)["settings"]["params"]
    alpha = params["alpha"]
    titles = [t.strip() for t in page.locator("#phases .phase h3").all_text_contents()]
    assert titles == PHASE_TITLES
    levels = [(i, lv) for i, lv in enumerate(step["selection"]) if lv["rule"] == "puct"]
    assert levels, "the walk should choose by PUCT at least once"
    blended = False
    for i, level in levels:
        rows = level["children"]
        # the root's moves are weighed by c_root where it is set (chess), the rest by c_puct
        at_root = level["level"] == 0 and params["c_root"] > 0
        c = params["c_root"] if at_root else params["c_puct"]
        assert level["params"]["c_puct"] == c
        urgencies = {round(r["q"], 9) for r in rows if not r["evaluated"]}
        assert len(urgencies) <= 1  # every unevaluated sibling counts as the parent's urgency
        scores, slack = {}, {}
        for row in rows:
            scores[row["node"]] = puct_score(row, level["visits"], alpha, c)
            slack[row["node"]] = rounding(row, level["visits"], c)
            assert scores[row["node"]] == pytest.approx(row["score"], abs=slack[row["node"]])
            blended |= row["visits"] > 0 and row["evaluated"] and alpha < 1
        # The winner: the largest score among the children the kernel may choose (never
        # one proven lost), and the child the walk went to.
        (winner,) = [r for r in rows if r["winner"]]
        assert winner["node"] == level["chosen"]["node"]
        for row in rows:
            if row["proof"] != PROVEN_LOSS:
                margin = slack[row["node"]] + slack[winner["node"]]
                assert scores[winner["node"]] >= scores[row["node"]] - margin, row["san"]
        # The page's row for it: P, the blend, the exploration term and the score.
        box = phase(page, "selection").locator(f".level[data-level='{i}']")
        assert f"c = {c:.2f}" in box.inner_text()
        cells = box.locator("tr.winner td").all_text_contents()
        assert cells[0] == winner["san"] and cells[-1] == "✔ best"
        assert number(cells[2]) == pytest.approx(winner["prior"], abs=6e-4)
        assert number(cells[5]) == pytest.approx(winner["q"], abs=6e-4)
        assert number(cells[6]) == pytest.approx(winner["explore"], abs=6e-4)
        assert number(cells[7]) == pytest.approx(winner["score"], abs=6e-4)
        minimax = signed(winner["minimax"]) if winner["evaluated"] else "not yet"
        assert cells[4] == (proof_text(winner, level["depth"] + 1) or minimax)
        head = box.locator("thead").inner_text()
        assert all(t in head for t in ("P", "minimax", "+ explore", "= PUCT"))
        worked = box.locator("p.worked").inner_text()
        shown = re.search(r"= (−?\d\.\d{3}), the largest PUCT", worked)
        assert shown and number(shown.group(1)) == pytest.approx(winner["score"], abs=6e-4)
        assert "UCB1" not in box.inner_text() and "∞" not in box.inner_text()
    if game == "knight":  # α = 0.3 there: the mean and the minimax value both count
        assert alpha < 1 and blended
    assert_backup_rows(page, step)


def assert_backup_rows(page: Any, step: dict) -> list[list[str]]:
    """The back-propagation table is the step's rows: N up by one, Q and the minimax value
    before → after, the proof for its winner; the table's cells."""
    rows = phase(page, "backpropagation").locator("tbody tr")
    assert rows.count() == len(step["backpropagation"])
    table = []
    for k, row in enumerate(step["backpropagation"]):
        cells = rows.nth(k).locator("td").all_text_contents()
        assert cells[2] == f"{row['visits_before']} → {row['visits_after']}"
        assert cells[3].endswith(f"→ {fixed(row['q_after'])}")
        before = "new" if row["minimax_before"] is None else signed(row["minimax_before"])
        assert cells[4] == f"{before} → {signed(row['minimax_after'])}"
        assert cells[5] == proof_text(row, row["depth"])
        table.append(cells)
    return table


def test_step_mode_proves_a_mate_in_one_when_it_expands_the_root(server, page) -> None:
    step_game(server, page, MATE_IN_ONE, {})
    step = step_times(page, 1)  # the root's own quiescence search sees the mate
    assert step["simulation"]["kind"] == "quiescence" and step["simulation"]["san"] == ["Ra8#"]
    assert "1. Ra8#" in phase(page, "simulation").locator(".playout").inner_text()
    step = step_times(page, 1)  # the root expanded: Ra8# ends the game
    assert [n["san"] for n in step["expansion"]["nodes"] if n["terminal"]] == ["Ra8#"]
    simulation = phase(page, "simulation").inner_text()
    assert "was expanded, and its moves settle it: it is proven (mate in 1 for White)" in simulation
    assert "finished game" not in simulation
    cells = phase(page, "backpropagation").locator("tbody tr").first.locator("td")
    assert cells.nth(4).inner_text().endswith("→ mate −")  # for Black, who moved into the root
    assert cells.nth(5).inner_text() == "mate in 1 for White"
    # Nothing is left to search: the next step says so instead of showing an empty walk.
    step = step_times(page, 1)
    assert step["iterations"] == 0
    for name in ("selection", "expansion", "simulation", "backpropagation"):
        assert "No iteration ran: the root is proven" in phase(page, name).inner_text()
    assert "no iteration" in page.locator("#step-history li").first.inner_text()


def test_step_mode_backs_a_mate_in_two_up_the_path_as_proofs(server, page) -> None:
    # A quiet first move: Qd8+ (MATE_IN_TWO) is proven at the root's expansion, when its
    # reply's search finds the mate, so nothing would be backed up along a path.
    step_game(server, page, QUIET_MATE_IN_TWO, {"root_depth": 0})  # 2 would prove it at once
    step = step_until(  # (a stalemate's proven draw may be backed up first)
        page,
        lambda s: any(r["mate"] and r["depth"] >= 1 for r in s["backpropagation"]),
        at_most=30,
    )
    cells = assert_backup_rows(page, step)
    # Kc7 Ka7 Ra1#: the plies proven on the way up, White mating in 2.
    assert "mate in 2 for White" in [row[5] for row in cells]


def simulation_kinds() -> list[Any]:
    """(position, parameters, which step to wait for, what its panel says)."""

    def line(sim: dict) -> list[str]:
        return [*sim["san"], signed(sim["score"])]

    return [
        pytest.param(
            HANGING_QUEEN,
            {"expand": "lazy", "root_depth": 0},
            lambda s: s["kind"] == "quiescence" and len(s["san"]) >= 2 and not s["cached"],
            lambda s: ["Quiescence search: captures and promotions", *line(s)],
            id="quiescence-line",
        ),
        pytest.param(
            HANGING_QUEEN,
            {"expand": "lazy", "root_depth": 2},  # so a root move gets a 1-ply search
            lambda s: s["kind"] == "quiescence" and s["depth"] == 1 and not s["cached"],
            lambda s: [
                "scored by an alpha-beta search of 1 ply (the nearer the root, the deeper)",
                "An alpha-beta search of 1 ply, then quiescence search",
            ],
            id="root-depth-line",
        ),
        pytest.param(
            MIDDLEGAME,
            {"expand": "evaluate", "root_depth": 0},
            lambda s: s.get("expanded") and "every child scored" in s["note"],
            lambda s: ["The leaf was expanded and every child scored (the first exactly"],
            id="evaluating-expansion",
        ),
        pytest.param(
            MIDDLEGAME,
            {"expand": "evaluate", "root_depth": 2},  # the root's children: 1-ply searches
            lambda s: s.get("expanded") and "every child scored by" in s["note"],
            lambda s: [
                "The leaf was expanded and every child scored by an alpha-beta search of 1 ply "
                "and quiescence (the first exactly"
            ],
            id="root-depth-expansion",
        ),
        pytest.param(
            MIDDLEGAME,
            {"expand": "evaluate", "root_depth": 0, "rescore": 1},
            lambda s: s.get("rescored"),
            lambda s: [
                "is not a new leaf: the search keeps coming back to it",
                "for the 33rd time, so its",
                "scored again by alpha-beta searches of 1 ply and quiescence",
            ],
            id="rescore",
        ),
        pytest.param(
            ROOK_ENDING,
            {"expand": "lazy"},
            lambda s: s.get("cached"),
            lambda s: ["in the table of leaf evaluations (a transposition)", "from the table"],
            id="cached",
        ),
    ]


def assert_simulation_board(page: Any, sim: dict) -> None:
    """The simulation phase on the board: the leaf position with the step's line — the
    quiescence line, or the reply that decided an expanded leaf's value and its search — as
    numbered arrows (at most 8), and a caption naming it."""
    page.click(".phase-chip[data-phase='2']")
    page.wait_for_selector("#phases .phase[data-phase=simulation].active")
    caption = page.locator("#overlay-text")
    page.wait_for_function(
        "() => document.querySelector('#overlay-text').textContent.startsWith('Phase 3 of 4')"
    )
    text = caption.inner_text()
    moves = sim["moves"]
    if not moves:
        assert text.startswith("Phase 3 of 4 · the leaf position")
        # no arrow: the board redraws its shapes after the caption (a frame later)
        page.wait_for_function("() => !document.querySelector('svg.cg-shapes line')")
        return
    if sim["expanded"]:
        assert "the line that decided the leaf's value: its best reply" in text
    else:
        assert "quiescence line from the leaf" in text
    drawn = min(len(moves), 8)
    assert (f"(the first 8 of {len(moves)} plies)" in text) == (len(moves) > 8)
    page.wait_for_function(
        "(n) => document.querySelectorAll('svg.cg-custom-svgs text').length === n", arg=drawn
    )
    labels = sorted(int(t) for t in page.locator("svg.cg-custom-svgs text").all_text_contents())
    assert labels == list(range(1, drawn + 1))


def assert_deciding_line(page: Any, sim: dict, text: str) -> None:
    """An expanded leaf's panel shows the line that decided its new value: its best reply
    (the child whose score, negated, is the leaf's) in bold, then that reply's search line
    with its quiescence plies set apart, and the reply's score beside the minimax one."""
    best = sim["best"]
    assert best and sim["san"] and sim["san"][0] == best["san"]
    assert sim["line_score"] == pytest.approx(-sim["score"], abs=2e-4)
    assert f"{signed(sim['line_score'])} for" in text and "best reply's score" in text
    shown = phase(page, "simulation").locator(".deciding-line")
    assert shown.locator("strong.reply").inner_text().endswith(best["san"])
    moves = [w for w in shown.inner_text().split() if not re.fullmatch(r"\d+(\.|…)|…", w)]
    assert moves == sim["san"][:40]
    quiet = sim["san"][1 + sim["searched_plies"] :]
    if quiet:  # the quiescence plies set apart, and counted in the key
        assert shown.locator(".qs").inner_text().split()[-1] == quiet[-1]
        key = phase(page, "simulation").locator(".line-key").inner_text()
        assert f"{len(quiet)} pl" in key and "of quiescence search" in key
    else:
        assert shown.locator(".qs").count() == 0
    if sim["best_how"] in ("table", "game over", "earlier"):
        assert len(sim["san"]) == 1 and "no line" in text


@pytest.mark.parametrize(("fen", "params", "wanted", "says"), simulation_kinds())
def test_step_mode_shows_each_kind_of_mcts_simulation(
    server: str,
    page: Any,
    fen: str,
    params: dict,
    wanted: Callable[[dict], bool],
    says: Callable[[dict], list[str]],
) -> None:
    step_game(server, page, fen, params)
    step = step_until(page, lambda s: bool(s["iterations"] and wanted(s["simulation"])), at_most=60)
    sim = step["simulation"]
    text = phase(page, "simulation").inner_text()
    for part in says(sim):
        assert part in text
    assert f"{fixed(sim['reward'])} for" in text  # the reward, for the side that moved in
    if sim.get("rescored"):  # nothing new: the node's own children scored again
        assert not step["expansion"]["nodes"] and "minimax score" in text
        assert_deciding_line(page, sim, text)
    elif sim.get("expanded"):
        total = len(step["expansion"]["nodes"])
        assert total > 1
        lede = phase(page, "expansion").locator(".lede").inner_text()
        assert f"All {total} moves" in lede and "scored by quiescence searches" in lede
        assert "minimax score" in text and "already quiet" not in text
        assert_deciding_line(page, sim, text)
    elif params.get("expand") == "lazy" and step["expansion"]["nodes"]:
        lede = phase(page, "expansion").locator(".lede").inner_text()
        assert "none scored yet" in lede and "static evaluation" not in lede
    # The children are listed by name: none has a score to show (not yet, or only a bound).
    sans = {n["san"] for n in step["expansion"]["nodes"]}
    chips = phase(page, "expansion").locator("ol.chips li").all_text_contents()
    assert all(chip.strip() in sans for chip in chips)
    assert_simulation_board(page, sim)


def card_facts(card: Any) -> dict[str, str]:
    """The node card's rows, term → text."""
    return dict(
        zip(
            card.locator(".node-facts dt").all_text_contents(),
            card.locator(".node-facts dd").all_text_contents(),
            strict=True,
        )
    )


def search_text(leaf: str, low: int, high: int) -> str:
    """How the card names a leaf search: nodecard.js's ``searchText``."""
    last = "static evaluation" if leaf == "static" else "quiescence"
    plies = str(low) if low == high else f"{low}–{high}"
    return f"{plies}-ply alpha-beta + {last}" if high else last


def assert_scoring_rows(card: Any, sc: dict, whom: str) -> None:
    """The card's rows of ``mcts``'s ``scoring`` (the node frame's), for the mover ``whom``:
    the node's own score and its search, its children's scoring, the leaf table."""
    facts = card_facts(card)
    if sc["score"] is None:
        assert facts["own score"] == "not scored yet"
    elif sc["scored_by"] == "game over":
        assert facts["own score"] == f"{signed(sc['score'])} for {whom} (the game is over here)"
    else:
        search = search_text(sc["scored_by"], sc["depth"], sc["depth_max"])
        assert facts["own score"] == f"{signed(sc['score'])} for {whom} ({search})"
    if sc["children"]:
        done = f"{sc['children_scored']} of {sc['children']}, "
        if sc["children_depth"] is None:
            assert facts["children scored"] == done + "each when first visited"
        else:
            how = search_text("quiescence", sc["children_depth"], sc["children_depth"])
            assert facts["children scored"].startswith(f"{done}by {how}")
            plies = sc["rescore_plies"]
            assert (f"({plies} rescore pl" in facts["children scored"]) == bool(plies)
        assert ("partial: the rest wait" in facts["children scored"]) == sc["partial"]
    else:
        assert "children scored" not in facts
    table = facts["in leaf table"]
    if sc["in_table"]:
        assert table == f"yes: {signed(sc['table_score'])} for {whom}"
    else:
        assert table.startswith("no")
    tip = card.locator(".node-facts dt", has_text="in leaf table").locator(
        "xpath=following-sibling::dd[1]"
    )
    assert tip.get_attribute("title") == f"Zobrist key {sc['key']}"
    assert "prior's tables" not in facts


def test_the_tree_view_opens_an_mcts_node_card_with_its_minimax_value(server, page) -> None:
    game = api_create(server, human="both", fen=MIDDLEGAME, algorithm="mcts")
    open_game(page, server, game)
    tab(page, "tree")
    page.select_option("#tree-size", "50")
    analyse(page, at_least=600)
    page.wait_for_function("() => Number(document.body.dataset.treeNodes) === 50")
    assert page.locator("#tree-area g.tnode").count() == 50
    node_id = page.evaluate(
        "(() => { const t = window.canopy.state.inside.tree;"
        " const kids = t.filter((n) => n.depth === 1);"
        " return kids.reduce((a, b) => (b.visits > a.visits ? b : a)).id; })()"
    )
    node = page.locator(f"#tree-area g.tnode[data-id='{node_id}']")
    node.hover()
    tip = page.locator("#tree-area .tree-tip")
    tip.wait_for(state="visible")
    assert "null" not in tip.inner_text() and "N " in tip.inner_text()
    node.click()
    page.wait_for_function(selected_info(node_id))
    info = page.evaluate("window.canopy.state.inside.nodeInfo")
    card = page.locator("#node-card")
    terms = card.locator(".node-facts dt").all_text_contents()
    values = card.locator(".node-facts dd").all_text_contents()
    facts = dict(zip(terms, values, strict=True))
    assert facts["N (visits)"].startswith(f"{info['visits']:,}")
    assert facts["Q"] == f"{fixed(info['q_white'])} for White"
    assert facts["minimax"] == f"{signed(info['eval'])} for White" and "eval" not in facts
    sel = info["selection"]
    assert sel["rule"] == "puct" and sel["exploit"] + sel["explore"] == pytest.approx(
        sel["score"], abs=2e-5
    )
    formula = card.locator(".node-formula").inner_text()
    c_puct = sel["params"]["c_puct"]  # the weight its parent chose by (c_root at the root)
    assert f"c = {c_puct:.2f}" in formula and f"{sel['exploit_label']} " in formula
    assert f"prior P = {fixed(sel['prior'])}" in formula
    shown = re.search(r"= (\d\.\d{3})$", formula.strip())
    assert shown and float(shown.group(1)) == pytest.approx(sel["score"], abs=6e-4)
    # How it was scored: its own quiescence score (chess: by its parent's expansion), the
    # depth of that search and of its children's, and whether the leaf table holds it.
    sc = info["scoring"]
    assert sc["score"] is not None and sc["children"] == sc["children_scored"] > 0
    assert_scoring_rows(card, sc, "White")


def test_an_unvisited_lazy_child_s_card_says_it_is_not_scored_yet(server, page) -> None:
    """``expand=lazy``: a node's children are created unscored and each is scored at its
    first visit, so the card of one never visited says so (and no depth), and its parent's
    card gives no common depth for its children."""
    params = {"expand": "lazy", "root_depth": 0}
    game = api_create(server, human="both", fen=MIDDLEGAME, algorithm="mcts", params=params)
    open_game(page, server, game)
    tab(page, "tree")
    page.select_option("#tree-size", "500")  # deep enough to hold nodes of a few visits
    analyse(page, at_least=300)
    page.wait_for_function("() => window.canopy.state.inside.tree.length > 100")
    # An expanded node of at most 12 visits: at most 11 of its children visited, so the
    # card's first 12 chips (most visited first) include one never visited.
    node = page.evaluate(
        "window.canopy.state.inside.tree.find((n) => n.depth > 0 && n.visits >= 2"
        " && n.visits <= 12 && n.children > 0 && !n.terminal) || null"
    )
    assert node is not None
    page.locator(f"#tree-area g.tnode[data-id='{node['id']}']").dispatch_event("click")
    page.wait_for_function(selected_info(node["id"]))
    info = page.evaluate("window.canopy.state.inside.nodeInfo")
    card = page.locator("#node-card")
    assert info["scoring"]["children_depth"] is None
    # White is to move at the root: White moved into the nodes at odd depths
    mover, kid_mover = ("White", "Black") if node["depth"] % 2 else ("Black", "White")
    assert_scoring_rows(card, info["scoring"], mover)
    kid = next(k for k in info["children"][:12] if k["visits"] == 0)
    card.locator(f".child-chips button[data-id='{kid['id']}']").click()
    page.wait_for_function(selected_info(kid["id"]))
    info = page.evaluate("window.canopy.state.inside.nodeInfo")
    sc = info["scoring"]
    assert sc["score"] is None and sc["depth"] is None and not sc["children"]
    assert card_facts(card)["own score"] == "not scored yet"
    assert_scoring_rows(card, sc, kid_mover)


def test_the_node_card_of_an_mcts_node_shows_its_proof(server, page) -> None:
    game = api_create(server, human="both", fen=MATE_IN_TWO, algorithm="mcts")
    open_game(page, server, game)
    tab(page, "tree")
    page.keyboard.press("Space")  # the search stops by itself once the root is proven
    page.wait_for_function(
        "() => { const s = window.canopy.state.stats; return !!s && !s.running"
        " && window.canopy.state.inside.tree.some((n) => n.san === 'Qd8+'); }",
        timeout=30_000,
    )
    node_id = page.evaluate("window.canopy.state.inside.tree.find((n) => n.san === 'Qd8+').id")
    page.locator(f"#tree-area g.tnode[data-id='{node_id}']").dispatch_event("click")
    page.wait_for_function(selected_info(node_id))
    card = page.locator("#node-card")
    facts = dict(
        zip(
            card.locator(".node-facts dt").all_text_contents(),
            card.locator(".node-facts dd").all_text_contents(),
            strict=True,
        )
    )
    assert facts["proven"] == "mate in 2 for White"
    assert facts["minimax"] == "mate + for White"
    assert facts["Q"].startswith("1.000 for White")  # a proven win reads as its result


def test_race_sets_mcts_against_uct_and_marks_where_they_disagree(server, page) -> None:
    game = api_create(server, human="both", fen=MIDDLEGAME)  # the default opponent
    open_game(page, server, game)
    assert page_state(page)["settings"]["algorithm"] == "mcts"
    tab(page, "race")
    sides = page.locator(".race-algo")
    assert [sides.nth(0).input_value(), sides.nth(1).input_value()] == ["mcts", "uct"]
    page.fill(".race-options input[aria-label='iterations per side']", "1500")
    page.click("#race-start")
    page.wait_for_function("() => document.body.dataset.race === 'done'", timeout=90_000)
    race = page.evaluate("window.canopy.state.inside.race")
    assert race["a"]["algorithm"] == "mcts" and race["b"]["algorithm"] == "uct"
    assert race["a"]["iterations"] == race["b"]["iterations"] == 1500
    tables = page.locator(".race-table")
    marked = 0
    for side, table in zip(("a", "b"), (tables.nth(0), tables.nth(1)), strict=True):
        moves = race[side]["moves"]
        rows = table.locator("tbody tr")
        assert rows.count() == len(moves) > 5
        assert table.locator("tbody tr.best td.san").inner_text().endswith(race[side]["best_san"])
        classes = rows.evaluate_all("(els) => els.map((e) => e.className)")
        for move, cls in zip(moves, classes, strict=True):
            other = move["other_rank"]
            differs = other is None or abs(other - move["rank"]) >= 2
            assert ("differs" in cls.split()) == differs, move["san"]
            marked += differs
    assert marked  # two algorithms this different rank some moves apart
    verdict = page.locator(".race-verdict").inner_text()
    assert ("Agree" in verdict) == race["agree"]
    # (the score column is hidden at this width; wider windows show it)
    assert "PUCT" in tables.nth(0).locator("thead").text_content()


def test_new_game_offers_mcts_first_with_its_summary_and_starts_with_it(server, page) -> None:
    algorithms = api_get(server, "/api/algorithms?game=chess")
    mcts = next(a for a in algorithms if a["name"] == "mcts")
    page.goto(server + "/")
    dialog = page.locator("#new-dialog")
    dialog.wait_for(state="visible")
    menu = dialog.locator("#new-fields select[name=algorithm]")
    options = menu.locator("option")
    assert options.first.get_attribute("value") == "mcts" and menu.input_value() == "mcts"
    assert options.first.inner_text() == f"mcts — {mcts['summary']}"
    assert options.count() == len(algorithms)
    dialog.locator("input[name=human][value=both]").check()
    dialog.locator("#new-create").click()
    page.wait_for_url(re.compile(r"/games/[0-9a-f]{12}$"))
    page.wait_for_selector("body[data-conn=open][data-role=player]")
    assert page_state(page)["settings"]["algorithm"] == "mcts"
    engine = page.locator("#settings-fields select[name=algorithm]")  # the Engine card
    page.wait_for_function(
        "() => document.querySelector('#settings-fields select[name=algorithm]').value === 'mcts'"
    )
    assert engine.locator("option").first.get_attribute("value") == "mcts"


def test_the_root_table_shows_mcts_priors_and_no_prior_column_for_uct(server, page) -> None:
    """The live table's P column: each root move's PUCT prior for ``mcts`` (what its visits
    were steered by, a distribution over the root's moves), hidden for an algorithm without
    priors. Why: the prior is one of the techniques a teacher switches off to show what it
    was worth, and the table is where a class sees visits follow it."""
    game = api_create(server, human="both", fen=MIDDLEGAME)  # the default opponent, mcts
    open_game(page, server, game)
    analyse(page, at_least=300)
    page.wait_for_selector("#root-moves.with-prior")
    header = page.locator("#root-head th[data-key=prior]")
    assert header.is_visible() and header.inner_text() == "P"
    stats = page.evaluate("window.canopy.state.stats")
    priors = {m["san"]: m["prior"] for m in stats["moves"]}
    assert not stats.get("moves_trimmed")
    assert len(priors) == chess.Board(MIDDLEGAME).legal_moves.count()
    assert all(0 < p < 1 for p in priors.values())
    assert abs(sum(priors.values()) - 1) < 0.005  # each sent to 4 places
    rows = page.locator("#root-body tr")
    for i in range(rows.count()):
        row = rows.nth(i)
        san = row.locator("td.c-san").inner_text()
        assert row.locator("td.c-prior").inner_text() == fixed(priors[san], 3), san
    # Sorting by P puts the largest prior first.
    page.locator("#root-head th[data-key=prior] button").click()
    page.wait_for_selector("#root-head th[data-key=prior][aria-sort=descending]")
    first = rows.first.locator("td.c-san").inner_text()
    assert priors[first] == max(priors.values())

    plain = api_create(server, human="both", fen=MIDDLEGAME, algorithm="uct")
    open_game(page, server, plain)
    analyse(page, at_least=300)
    assert page.evaluate("window.canopy.state.stats.moves.every((m) => m.prior === null)")
    page.wait_for_function("() => !document.querySelector('#root-moves.with-prior')")
    assert page.locator("#root-head th[data-key=prior]").is_hidden()
    assert page.locator("#root-body tr").first.locator("td.c-prior").is_hidden()


def test_a_60_second_mcts_analysis_is_still_searching_at_the_end_with_rising_iterations(
    browser: Any, tmp_path: Path
) -> None:
    """A server whose trees hold 20,000 nodes (mcts fills one within seconds) keeps an
    analysis going for the full minute: the iterations rise from one look to the next, the
    search still runs at the end, and the status line says the tree is full and is folded
    to make room."""
    env = {"CANOPY_NODE_BUDGET": "20000"}
    with run_server(tmp_path / "data", tmp_path / "server.log", env) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            open_game(page, base, api_create(base, human="white", algorithm="mcts"))
            page.keyboard.press("Space")
            page.wait_for_function("() => Number(document.body.dataset.iterations) > 0")
            counts, start = [], time.monotonic()
            while time.monotonic() - start < 60:
                page.wait_for_timeout(10_000)
                counts.append(int(page.evaluate("Number(document.body.dataset.iterations)")))
            stats = page.evaluate("window.canopy.state.stats")
            status = page.locator("#status-text").inner_text()
            assert page_state(page)["search"]["status"] == "running" and stats["running"]
            assert all(a < b for a, b in pairwise(counts)), counts
            assert stats["extra"]["full"] == "recycling" and stats["nodes"] <= 20_000
            assert status.startswith("Analysing for White") and "the tree is full" in status
            page.keyboard.press("Space")
            page.wait_for_function("() => window.canopy.state.game.search.status === 'idle'")
        finally:
            context.close()
        assert not errors, f"JavaScript errors on the page: {errors}"
