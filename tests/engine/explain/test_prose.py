"""The words of the step view: typed blocks for every phase, written from the numbers the
frame carries, in the page's sentences."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from engine.explain.explainers import explainer_for
from engine.explain.prose import PHASES, Context, tie_note
from engine.explain.step import step_trace
from engine.explain.words import fixed, rounded
from engine.search.controller import SearchController

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PARAGRAPHS = {
    "lede",
    "text",
    "note",
    "hint",
    "worked",
    "tie",
    "idle",
    "line",
    "deciding-line",
    "line-key",
}
MARKS = {"strong", "big", "level", "ab", "qs", "reply"}
TABLES = {"selection", "deepening", "backpropagation"}


def _check_text(text: Any) -> str:
    """The plain text of a block's ``Text`` (a string or runs), checking every run."""
    if isinstance(text, str):
        return text
    assert isinstance(text, list) and text
    out = []
    for run in text:
        if isinstance(run, dict):
            assert set(run) == {"text", "mark"} and run["mark"] in MARKS, run
            out.append(run["text"])
        else:
            assert isinstance(run, str), run
            out.append(run)
    return "".join(out)


def _check_blocks(blocks: list[dict[str, Any]]) -> list[str]:
    """Every block well formed; the texts of all of them, in order."""
    texts = []
    for block in blocks:
        kind = block["kind"]
        if kind in PARAGRAPHS:
            texts.append(_check_text(block["text"]))
        elif kind == "facts":
            for term, value in block["items"]:
                texts.append(f"{_check_text(term)}: {_check_text(value)}")
        elif kind == "chips":
            texts.extend(_check_text(item["text"]) for item in block["items"])
        elif kind == "level":
            texts.append(_check_text(block["head"]))
            texts.extend(_check_blocks(block["blocks"]))
        elif kind == "table":
            assert block["table"] in TABLES
            texts.extend(_check_blocks(block.get("notes") or []))
        else:
            raise AssertionError(f"unknown block kind {kind!r}")
    return texts


@pytest.mark.parametrize(
    ("algorithm", "game"),
    [
        ("uct", "chess"),
        ("uct-minimax", "knight"),
        ("bfms", "chess"),
        ("alphabeta", "chess"),
        ("mcts", "chess"),
        ("mcts", "knight"),
    ],
)
def test_every_phase_of_every_step_has_its_words_in_known_blocks(algorithm: str, game: str) -> None:
    with SearchController(game, algorithm=algorithm, seed=4) as controller:
        for _ in range(4 if algorithm == "alphabeta" else 30):
            prose = step_trace(controller).prose
            assert prose is not None and set(prose) == set(PHASES)
            for phase in PHASES:
                blocks = prose[phase]
                assert blocks, phase
                assert all(_check_blocks(blocks)), phase


def _runs(text: Any) -> list[tuple[str, str | None]]:
    """A block's text as (text, mark) runs."""
    if isinstance(text, str):
        return [(text, None)]
    return [(r, None) if isinstance(r, str) else (r["text"], r["mark"]) for r in text]


def test_mcts_sets_the_line_that_decided_a_leaf_apart_in_its_searches_parts() -> None:
    """The best reply, then the alpha-beta plies its search played, then the quiescence
    plies, each marked, with the key under the line counting each part."""
    middlegame = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
    seen = 0
    with SearchController("chess", middlegame, algorithm="mcts", seed=5) as controller:
        for _ in range(30):
            trace = step_trace(controller)
            sim = trace.simulation
            assert trace.prose is not None
            blocks = trace.prose["simulation"]
            if not (sim.get("expanded") and sim.get("best") and sim["best_how"] == "searched"):
                continue
            line = next(b for b in blocks if b["kind"] == "deciding-line")
            runs = _runs(line["text"])
            assert runs[0] == (runs[0][0], "reply") and runs[0][0].endswith(sim["best"]["san"])
            marked = {m: t for t, m in runs if m}
            ab, qs = sim["searched_plies"], len(sim["san"]) - 1 - sim["searched_plies"]
            assert ("ab" in marked) == (ab > 0) and ("qs" in marked) == (qs > 0)
            if ab or qs:
                key = "".join(t for t, _ in _runs(blocks[blocks.index(line) + 1]["text"]))
                assert key.startswith("The best reply, then ")
                assert (f"{ab} pl" in key) == bool(ab) and (f"{qs} pl" in key) == bool(qs)
            facts = next(b for b in blocks if b["kind"] == "facts")["items"]
            assert facts[0][0] == "best reply's score" and facts[1][0] == "minimax score"
            seen += 1
    assert seen >= 5


def selection_levels(
    controller: SearchController, rule: str, steps: int = 10
) -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """Each selection level choosing by ``rule`` over ``steps`` steps: (the level's numbers,
    its prose block, the winning child's numbers)."""
    for _ in range(steps):
        trace = step_trace(controller)
        assert trace.prose is not None
        levels = [b for b in trace.prose["selection"] or [] if b["kind"] == "level"]
        for level, block in zip(trace.selection, levels, strict=True):
            if level["rule"] == rule:
                yield level, block, next(c for c in level["children"] if c["winner"])


def test_mcts_works_out_its_puct_winner_with_the_tables_numbers() -> None:
    with SearchController("chess", algorithm="mcts", seed=9) as controller:
        controller.search(iterations=100)
        checked = 0
        for level, block, winner in selection_levels(controller, "puct"):
            table = next(b for b in block["blocks"] if b["kind"] == "table")
            assert table["notes"][0]["text"].startswith("Q and minimax are for the side")
            worked = next(b for b in block["blocks"] if b["kind"] == "worked")["text"]
            shown = [fixed(rounded(winner[k])) for k in ("q", "explore", "score")]
            assert worked.startswith(f"{winner['san']} wins: ")
            assert f"; {shown[0]} + {shown[1]} = {shown[2]}, the largest PUCT" in worked
            c = fixed(level["params"]["c_puct"], 2)
            assert f"{c}·{fixed(rounded(winner['prior']))}·√{level['visits']} / " in worked
            checked += 1
        assert checked >= 10


def test_the_worked_example_shows_the_winners_numbers_as_the_table_does() -> None:
    with SearchController("chess", algorithm="uct", params={"c": 1.0}, seed=9) as controller:
        controller.search(iterations=200)
        checked = 0
        for _level, block, winner in selection_levels(controller, "ucb1"):
            worked = next(b for b in block["blocks"] if b["kind"] == "worked")["text"]
            # the table draws the frame's rounded numbers: the sentence writes the same
            shown = [fixed(rounded(winner[k])) for k in ("q", "explore", "score")]
            assert f"= {shown[0]} + {shown[1]} = {shown[2]}" in worked, worked
            assert worked.startswith(f"{winner['san']} wins: ")
            assert re.search(r"\+ 1\.00·√\(2·ln \d+ / \d+\)", worked), worked
            checked += 1
        assert checked >= 10


def _level(scores: list[float | None], winner: int) -> list[dict[str, Any]]:
    return [
        {"node": k + 1, "san": f"M{k}", "visits": 1, "score": s, "winner": k == winner}
        for k, s in enumerate(scores)
    ]


def test_a_tie_at_the_top_is_said_truthfully() -> None:
    note = tie_note(_level([2.245, 1.0, 2.245], winner=0))
    assert (
        note is not None
        and note["text"] == "2 moves tie at 2.245; the first in list order is taken."
    )
    # the sent scores are rounded: a winner after the first tied one won by later digits
    later = tie_note(_level([2.245, 2.245, 1.0], winner=1))
    assert later is not None and later["text"] == (
        "2 moves show 2.245; their exact scores differ in later digits, and the largest, M1, "
        "is taken."
    )
    unvisited = tie_note(_level([None, None], winner=0))
    assert unvisited is not None and "tie at ∞ (all unvisited)" in unvisited["text"]
    assert tie_note(_level([2.0, 1.0], winner=0)) is None


def test_the_words_name_the_sides_of_knight_chess_and_its_move_numbers() -> None:
    step = {
        "algorithm": "uct",
        "iterations": 1,
        "selection": [
            {
                "depth": 0,
                "visits": 3,
                "rule": "expand",
                "note": "a random untried move is added",
                "chosen": {"node": 1, "move": "b1c3", "san": "Nc3", "depth": 1},
            }
        ],
    }
    fen = "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 7"
    prose = explainer_for("uct").prose(step, Context("uct", "knight", {}, fen, fen))
    level = prose["selection"][1]  # type: ignore[index]
    assert level["head"][1] == " at the root position · N = 3 · Black knights choose"
    assert level["blocks"][0]["text"] == [
        "a random untried move is added: ",
        {"text": "Nc3", "mark": "strong"},
    ]


def test_a_step_that_ran_no_iteration_says_why_in_every_phase() -> None:
    with SearchController("chess", algorithm="alphabeta", params={"max_depth": 1}) as controller:
        step_trace(controller)
        idle = step_trace(controller)
    assert idle.iterations == 0 and idle.prose is not None
    for phase in PHASES:
        assert idle.prose[phase] == [
            {
                "kind": "idle",
                "text": "No iteration ran: the search has reached its maximum depth.",
            }
        ]
