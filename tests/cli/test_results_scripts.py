"""The scripts behind docs/results.md: the match records (a CSV row per match, a PGN archive
per group), the tables and figure written from them, and the pairing of two matches' games.
They turn raw matches into what readers trust, so they get tests."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine.match.stats import MatchScore

ROOT = Path(__file__).resolve().parents[2]
MARKERS = ("glance", "vs-alphabeta", "ladder", "paper", "tried", "study-chess", "study-knight")
STOCKFISH = "uci:/usr/games/stockfish:UCI_LimitStrength=true,UCI_Elo={},name=stockfish-elo{}"


def _script(name: str) -> ModuleType:
    """A script of ``scripts/`` as a module (they import each other as ``scripts.NAME``)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(f"scripts.{name}")


def _summary(game: str, a: str, b: str, results: list[str], seed: int = 1) -> dict[str, Any]:
    """What ``canopy match --json`` prints for games whose results (for ``a``) are given."""
    w, d, lo = results.count("1"), results.count("="), results.count("0")
    score = MatchScore(w, d, lo)
    return {
        "game": game,
        "engines": [
            {"spec": a, "name": a, "mean_ms": 301.0},
            {"spec": b, "name": b, "mean_ms": 299.0},
        ],
        "time_control": "300 ms/move",
        "games": w + d + lo,
        "wins": w,
        "draws": d,
        "losses": lo,
        "score": score.score,
        "elo": score.elo,
        "elo_ci95": list(score.elo_ci95()),
        "openings": 60,
        "seed": seed,
    }  # fmt: skip


def _pgn(a: str, b: str, results: list[str], opening: str = "o") -> str:
    """Games of ``a`` against ``b``, colours alternating, the n-th from opening ``o(n // 2)``."""
    text = []
    for n, result in enumerate(results):
        white, black = (a, b) if n % 2 == 0 else (b, a)
        mine = {"1": 1.0, "=": 0.5, "0": 0.0}[result]
        points = mine if n % 2 == 0 else 1.0 - mine
        tag = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[points]
        text.append(
            f'[Event "Canopy match"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{tag}"]\n'
            f'[Opening "{opening}{n // 2}"]\n\n1. e4 e5 {tag}\n'
        )
    return "\n".join(text)


@pytest.fixture
def records(tmp_path: Path) -> Path:
    """An empty records directory and a markdown file with every table's markers."""
    results = tmp_path / "results"
    results.mkdir()
    _script("match_records").write_records(results / "matches.csv", [])
    lines = ["# before"]
    for name in MARKERS:
        lines += [f"<!-- results:{name} -->", "stale", f"<!-- /results:{name} -->"]
    (tmp_path / "results.md").write_text("\n".join([*lines, "after", ""]))
    return results


def _add(
    results: Path, group: str, a: str, b: str, games: list[str], **fields: str
) -> dict[str, str]:
    records = _script("match_records")
    summary = results.parent / "m.json"
    summary.write_text("Score of ...\n" + json.dumps(_summary("chess", a, b, games)) + "\n")
    pgn = results.parent / "m.pgn"
    pgn.write_text(_pgn(a, b, games))
    base = {"group": group, "commit": "abc1234", "date": "2026-12-02"}
    row: dict[str, str] = records.add_match(results, summary, pgn, {**base, **fields})
    return row


def test_an_added_match_takes_the_next_id_and_its_games_are_tagged_in_its_archive(
    records: Path,
) -> None:
    match_records = _script("match_records")
    first = _add(records, "vs-alphabeta", "mcts", "alphabeta", ["1", "=", "0", "1"])
    second = _add(records, "vs-alphabeta", "uct", "alphabeta", ["0", "0"], note="plain UCT")
    assert (first["id"], second["id"]) == ("1", "2")
    rows = match_records.read_records(records / "matches.csv")
    assert [r["id"] for r in rows] == ["1", "2"]
    assert rows[0]["commit"] == "abc1234" and rows[0]["score"] == "0.6250"
    assert rows[0]["pgn"] == "vs-alphabeta.pgn.gz" and rows[1]["note"] == "plain UCT"
    games = match_records.archive_games(records, ["1", "2"])
    assert [len(games["1"]), len(games["2"])] == [4, 2]
    assert {g["Match"] for g in games["2"]} == {"2"}


def test_a_match_whose_pgn_disagrees_with_its_summary_is_refused(records: Path) -> None:
    match_records = _script("match_records")
    summary = records.parent / "m.json"
    summary.write_text(json.dumps(_summary("chess", "mcts", "alphabeta", ["1", "1"])))
    pgn = records.parent / "m.pgn"
    pgn.write_text(_pgn("mcts", "alphabeta", ["1"]))
    with pytest.raises(SystemExit, match="1 games, the summary says 2"):
        match_records.add_match(records, summary, pgn, {"group": "ladder"})
    assert match_records.read_records(records / "matches.csv") == []


def test_tables_are_written_between_their_markers_and_check_finds_them_stale(
    records: Path,
) -> None:
    tables = _script("results_tables")
    _add(records, "vs-alphabeta", "mcts", "alphabeta", ["1", "=", "0", "1"])
    _add(records, "ladder", "mcts", STOCKFISH.format(1750, 1750), ["1", "1"])
    _add(records, "ladder", "mcts", STOCKFISH.format(1750, 1750), ["0", "1"])
    markdown = records.parent / "results.md"
    args = ["--results", str(records), "--markdown", str(markdown), "--no-figure"]
    assert tables.main([*args, "--check"]) == 1
    assert tables.main(args) == 0
    text = markdown.read_text()
    assert text.startswith("# before\n") and text.endswith("after\n") and "stale" not in text
    assert "| `mcts` | **62.5 %** of 4 " in text  # against alphabeta, pooled
    assert "| `mcts` | 1750 | 4 | +3 =0 −1 | 75.0 % |" in text  # the rung, pooled over two
    assert tables.main([*args, "--check"]) == 0
    markdown.write_text(text.replace("62.5 %", "70.0 %"))
    assert tables.main([*args, "--check"]) == 1
    # a match filed from the command line joins the pooled rung, and the page follows
    summary, pgn = records.parent / "new.json", records.parent / "new.pgn"
    summary.write_text(json.dumps(_summary("chess", "mcts", STOCKFISH.format(1750, 1750), ["="])))
    pgn.write_text(_pgn("mcts", STOCKFISH.format(1750, 1750), ["="]))
    added = ["--add", str(summary), "--pgn", str(pgn), "--group", "ladder", "--commit", "def5678"]
    assert tables.main([*args, *added]) == 0
    assert "| `mcts` | 1750 | 5 | +3 =1 −1 | 70.0 % |" in markdown.read_text()
    assert "`abc1234`, `def5678` | 2, 3, 4 |" in markdown.read_text()


def test_a_tried_setting_is_paired_game_by_game_with_the_default_beside_it(
    records: Path,
) -> None:
    tables = _script("results_tables")
    base = _add(records, "history", "mcts", "alphabeta", ["1", "0", "=", "0"])
    _add(
        records, "tried", "mcts:c_puct=2", "alphabeta", ["1", "1", "0", "0"],
        setting="c_puct=2", base=base["id"],
    )  # fmt: skip
    rows = _script("match_records").read_records(records / "matches.csv")
    text = tables.tried(rows, lambda ids: tables.archive_games(records, ids))
    # per opening and colour: 1-1, 1-0, 0-0.5, 0-0 → 0, +1, −0.5, 0; mean +0.125, SE 0.315
    assert "| `c_puct=2` | `alphabeta` | 2026-12-02 | `abc1234` | 4 | 50.0 % |" in text
    assert "+12.5 (SE 31.5, 4; 37.5 %) | 2 |" in text


def test_the_study_tables_order_ladders_by_level_and_fit_ratings(records: Path) -> None:
    tables = _script("results_tables")
    for level in ("5", "-20", "-5"):
        name = f"fairy-stockfish-skill{level}"
        _add(records, "study-100ms", "alphabeta", f"uci:fairy:name={name}", ["1", "1"])
    _add(records, "study-100ms", "uct", "alphabeta", ["0", "=", "0", "0"])
    rows = [{**r, "game": "knight"} for r in tables.read_records(records / "matches.csv")]
    text = tables.study(rows, "knight")
    order = [text.index(f"fairy-stockfish-skill{n}`") for n in ("-20", "-5", "5")]
    assert order == sorted(order)
    assert "| `uct` | `alphabeta` | 4 | +0 =1 −3 | 12.5 % |" in text
    assert "`alphabeta` +0, `uct` −" in text


def test_the_figure_is_a_png(records: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    tables = _script("results_tables")
    _add(records, "ladder", "mcts", STOCKFISH.format(1850, 1850), ["1", "0", "="])
    _add(records, "vs-alphabeta", "mcts", "alphabeta", ["1", "="])
    png = tmp_path / "strength.png"
    tables.figure(tables.read_records(records / "matches.csv"), png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_probe_reads_each_records_games_in_the_order_given(
    records: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = _script("probe_moves")
    _add(records, "tried", "mcts", "alphabeta", ["1", "0"])
    _add(records, "tried", "uct", "alphabeta", ["0", "0", "="])
    monkeypatch.setattr(probe, "RESULTS", records)
    games = list(probe.match_games(["2", "1"]))
    assert [g.headers["Match"] for g in games] == ["2", "2", "2", "1", "1"]
    with pytest.raises(SystemExit, match="no games kept for record '3'"):
        list(probe.match_games(["3"]))


def test_docs_results_md_holds_the_tables_its_records_give() -> None:
    """make results after every change to the records: the page never drifts from them."""
    assert _script("results_tables").main(["--check", "--no-figure"]) == 0


def test_each_match_names_the_commit_it_ran_from() -> None:
    commit = _script("match_records").source_commit()
    assert commit == "unknown" or commit.split("+")[0].isalnum()


def _headers(games: list[tuple[str, str, str]]) -> list[dict[str, str]]:
    """(opening, candidate's colour, result) per game, candidate ``mcts``."""
    out = []
    for opening, colour, result in games:
        white, black = ("mcts", "alphabeta") if colour == "w" else ("alphabeta", "mcts")
        out.append({"White": white, "Black": black, "Result": result, "Opening": opening})
    return out


def test_paired_games_pairs_twins_by_opening_and_colour() -> None:
    paired = _script("paired_games")
    games = [("o1", "w", "1-0"), ("o1", "b", "1-0"), ("o2", "w", "1/2-1/2"), ("o3", "b", "*")]
    new = paired.candidate_scores(_headers(games), "alphabeta", "new")
    games = [("o1", "b", "0-1"), ("o1", "w", "0-1"), ("o2", "w", "1-0"), ("o4", "w", "1-0")]
    base = paired.candidate_scores(_headers(games), "alphabeta", "base")
    assert new == {("o1", "", True): 1.0, ("o1", "", False): 0.0, ("o2", "", True): 0.5}
    row = paired.pair("s1", new, base)
    # o1 White: 1 - 0; o1 Black: 0 - 1; o2 White: 0.5 - 1; the unfinished o3 and o4 unpaired;
    # SE: sample deviation of (1, -1, -0.5) over sqrt(3)
    assert sorted(row.diffs) == [-1.0, -0.5, 1.0]
    assert (row.new_points, row.new_games, row.base_points, row.base_games) == (1.5, 3, 3.0, 4)
    assert "paired 3: -16.7 points a game (SE 60.1)" in row.line()


def test_paired_games_refuses_one_opening_twice_in_one_colour_or_an_unknown_opponent() -> None:
    paired = _script("paired_games")
    with pytest.raises(SystemExit, match="o1"):
        paired.candidate_scores(
            _headers([("o1", "w", "1-0"), ("o1", "w", "0-1")]), "alphabeta", "x"
        )
    with pytest.raises(SystemExit, match="not exactly one of the players"):
        paired.candidate_scores(_headers([("o1", "w", "1-0")]), "stockfish", "x")
