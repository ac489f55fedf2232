"""The scripts behind docs/results.md: tables and plot from match JSONs, and the provenance
each result records. They turn raw results into what readers trust, so they get tests."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine.match.stats import MatchScore

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _result(game: str, a: str, b: str, w: int, d: int, lo: int) -> dict[str, Any]:
    score = MatchScore(w, d, lo)
    low, high = score.elo_ci95()
    return {
        "game": game,
        "engines": [{"name": a, "mean_ms": 105.0}, {"name": b, "mean_ms": 103.0}],
        "games": w + d + lo,
        "wins": w,
        "draws": d,
        "losses": lo,
        "score": score.score,
        "elo": score.elo,
        "elo_ci95": [low, high],
        "elo_error": score.elo_error(),
        "mean_plies": 80,
        "colours": {},
    }


def test_tables_order_ladders_by_level_and_state_whitewash_bounds(tmp_path: Path) -> None:
    plot = _script("plot_results")
    results = [
        _result("knight", "alphabeta", "fairy-stockfish-skill5", 20, 0, 0),
        _result("knight", "alphabeta", "fairy-stockfish-skill-5", 20, 0, 0),
        _result("knight", "alphabeta", "fairy-stockfish-skill-20", 20, 0, 0),
        _result("knight", "alphabeta", "fairy-stockfish-skill10", 8, 10, 2),
        _result("knight", "uct", "alphabeta", 0, 0, 30),
        _result("knight", "bfms", "alphabeta", 5, 20, 5),
    ]
    text = plot.markdown(results)
    order = [text.index(f"fairy-stockfish-skill{n} ") for n in ("-20", "-5", "5", "10")]
    assert order == sorted(order)
    assert "| uct | alphabeta | 30 | +0 =0 −30 | 0.0 % | — | [−∞," in text
    whitewash = results[4]
    high = whitewash["elo_ci95"][1]
    assert plot.cell_elo(whitewash, False) == f"≤ {high:+.0f}".replace("-", "−")
    assert plot.cell_elo(whitewash, True) == f"≥ {-high:+.0f}"
    assert plot.cell_elo(results[5], False) == f"+0 (±{results[5]['elo_error']:.0f})"

    data = tmp_path / "data"
    data.mkdir()
    for i, r in enumerate(results):
        (data / f"{i}.json").write_text(json.dumps(r))
    doc = tmp_path / "results.md"
    doc.write_text("before\n<!-- tables:begin -->\nold\n<!-- tables:end -->\nafter\n")
    png = tmp_path / "results.png"
    pytest.importorskip("matplotlib")
    argv = ["plot_results", "--data", str(data), "--png", str(png), "--markdown", str(doc)]
    old_argv, sys.argv = sys.argv, argv
    try:
        assert plot.main() == 0
    finally:
        sys.argv = old_argv
    written = doc.read_text()
    assert written.startswith("before\n") and written.endswith("after\n")
    assert "old" not in written and "fairy-stockfish-skill-20" in written
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_each_result_names_the_commit_it_ran_from() -> None:
    commit = _script("run_results").source_commit()
    assert commit == "unknown" or commit.split("+")[0].isalnum()


def _pgn(path: Path, games: list[tuple[str, str, str]]) -> Path:
    """A match file: (opening, candidate's colour, result) per game, candidate ``mcts``."""
    text = []
    for opening, colour, result in games:
        white, black = ("mcts", "alphabeta") if colour == "w" else ("alphabeta", "mcts")
        text.append(
            f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[Opening "{opening}"]\n\n1. e4 e5 {result}\n'
        )
    path.write_text("\n".join(text))
    return path


def test_paired_games_pairs_twins_by_opening_and_colour(tmp_path: Path) -> None:
    paired = _script("paired_games")
    new = paired.candidate_scores(
        _pgn(
            tmp_path / "new.pgn",
            [("o1", "w", "1-0"), ("o1", "b", "1-0"), ("o2", "w", "1/2-1/2"), ("o3", "b", "*")],
        ),
        "alphabeta",
    )
    base = paired.candidate_scores(
        _pgn(
            tmp_path / "base.pgn",
            [("o1", "b", "0-1"), ("o1", "w", "0-1"), ("o2", "w", "1-0"), ("o4", "w", "1-0")],
        ),
        "alphabeta",
    )
    assert new == {("o1", "", True): 1.0, ("o1", "", False): 0.0, ("o2", "", True): 0.5}
    row = paired.pair("s1", new, base)
    # o1 White: 1 - 0; o1 Black: 0 - 1; o2 White: 0.5 - 1; the unfinished o3 and o4 unpaired;
    # SE: sample deviation of (1, -1, -0.5) over sqrt(3)
    assert sorted(row.diffs) == [-1.0, -0.5, 1.0]
    assert (row.new_points, row.new_games, row.base_points, row.base_games) == (1.5, 3, 3.0, 4)
    assert "paired 3: -16.7 points a game (SE 60.1)" in row.line()


def test_paired_games_refuses_a_file_with_one_opening_twice_in_one_colour(
    tmp_path: Path,
) -> None:
    paired = _script("paired_games")
    path = _pgn(tmp_path / "twice.pgn", [("o1", "w", "1-0"), ("o1", "w", "0-1")])
    with pytest.raises(SystemExit, match="o1"):
        paired.candidate_scores(path, "alphabeta")


def test_ladder_commands_replay_a_row_with_todays_spelling_when_it_changed() -> None:
    _script("plot_results")  # ladder_table imports it by name
    ladder = _script("ladder_table")
    data = _result("chess", "mcts:c_root=1", "alphabeta", 1, 0, 0)
    data["engines"] = [{"spec": "mcts:c_root=1"}, {"spec": "alphabeta"}]
    data["seed"] = 41
    assert "--engine mcts:c_root=1 --engine alphabeta --games 1" in ladder.command(data)
    data["rerun"] = ["mcts:c_root=1,eval=scaled", "alphabeta:eval=scaled"]
    assert (
        "--engine mcts:c_root=1,eval=scaled --engine alphabeta:eval=scaled --games 1 "
        "--movetime 300 --concurrency 1 --seed 41"
    ) in ladder.command(data)


_AGAINST_STOCKFISH = """[White "mcts"]
[Black "stockfish-elo2000"]
[Result "0-1"]

1. f3 {+0.10/6 0.3s} e5 {+1.60/14 0.3s} 2. g4 {-0.40/6 0.3s} Qh4# {+M1/3 0.3s} 0-1

[White "stockfish-elo2000"]
[Black "mcts:movetime=600"]
[Result "1/2-1/2"]

1. e4 {+0.20/14 0.3s} e5 {-0.10/6 0.3s} 2. Nf3 {-1.70/14 0.3s} Nc6 {+1.20/6 0.3s} 1/2-1/2

[White "mcts"]
[Black "alphabeta"]
[Result "1-0"]

1. e4 {+0.30/6 0.3s} e5 {+2.00/6 0.3s} 1-0
"""


def test_decided_phase_reads_the_named_opponents_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--opponent stockfish`` reads Stockfish's move comments (its own point of view), and
    Canopy is the other player whatever its spelling; the default still reads `alphabeta`'s.
    Why: the Stockfish ladder's losses are placed by Stockfish's judgement (session 60)."""
    monkeypatch.syspath_prepend(str(SCRIPTS))  # decided_phase imports its sibling
    phase = _script("decided_phase")
    path = tmp_path / "chess-mcts-vs-stockfish.pgn"
    path.write_text(_AGAINST_STOCKFISH)
    played = list(phase.games([path]))
    assert [phase.plays(g, "stockfish") for g in played] == [True, True, False]
    assert [phase.plays(g, "alphabeta") for g in played] == [False, False, True]
    # Stockfish's 1...e5 {+1.60} is its lead beyond 1.5, held to the end (the mate's comment
    # is not a centipawn score): decided in the opening; the draw's last score (-1.70 after
    # 2. Nf3, Stockfish's own view) is beyond the margin too, on Canopy's side.
    assert phase.decided(played[0], 1.5, "stockfish") == ("loss", "open")
    assert phase.decided(played[1], 1.5, "stockfish") == ("draw", "open")
    assert phase.canopy_outcome(played[1], "stockfish") == (False, "draw")
    # Entering a "14-piece endgame" is the first move: Stockfish's first score there.
    assert phase.entry(played[0], 14, "stockfish")[:2] == ("loss", 1.6)
    assert phase.entry(played[1], 14, "stockfish")[:2] == ("draw", 0.2)
    phase.print_entries([path], 14, 1.0, 0.3, "stockfish")
    table = capsys.readouterr().out
    assert "stockfish ahead            1     0     0     1" in table
    assert "level                      1     0     1     0" in table
    phase.print_entries([path], 14, 1.0, 0.3)  # alphabeta's one game: its +2.00 after 1...e5
    assert "alphabeta ahead            1     1     0     0" in capsys.readouterr().out
