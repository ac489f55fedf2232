"""``canopy uci`` and ``canopy match`` from the command line: JSON, refusals, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from canopy.cli import main

FAKE = Path(__file__).resolve().parents[1] / "engine" / "match" / "fake_engine.py"
FIRST = f"uci:{sys.executable} {FAKE} first"


def test_match_json_has_the_contract_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgn = tmp_path / "out.pgn"
    code = main(
        ["match", "--engine", FIRST, "--engine", FIRST, "--games", "2", "--max-plies", "6",
         "--pgn", str(pgn), "--json", "--quiet", "--concurrency", "1"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out.strip().splitlines()
    data = json.loads(out[-1])
    for key in ("games", "wins", "draws", "losses", "score", "elo", "elo_ci95"):
        assert key in data
    assert data["games"] == 2 and data["draws"] == 2 and data["score"] == 0.5
    assert data["elo"] == 0.0 and len(data["elo_ci95"]) == 2
    assert out[1].startswith("Score of ")
    assert pgn.read_text().count("[Event ") == 2


def test_match_with_sprt_reports_the_test(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["match", "--engine", FIRST, "--engine", FIRST, "--games", "2", "--max-plies", "2",
         "--sprt", "0,50", "--json", "--quiet"]
    )  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["sprt"]["elo1"] == 50 and data["sprt"]["decision"] is None


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--engine", "uct"], "exactly two --engine"),
        (["--engine", "uct", "--engine", "nonsense"], "unknown algorithm"),
        (["--engine", "uct:c=-1", "--engine", "bfms"], "between 0 and 10"),
        (["--engine", "uct", "--engine", "bfms", "--sprt", "50,0"], "elo0 < elo1"),
        (["--engine", "uct", "--engine", "bfms", "--tc", "fast"], "--tc expects"),
        (["--engine", "uct", "--engine", "bfms", "--openings", "/nonexistent.epd"], "cannot read"),
        (["--engine", "uct", "--engine", "bfms", "--games", "0"], "at least 1"),
        (["--engine", "uci:/nonexistent/engine", "--engine", "uct"], "cannot start engine"),
    ],
)
def test_bad_match_input_exits_2_with_one_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", "--quiet", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_uci_command_starts_in_knight_chess_with_game_knight() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "canopy", "uci", "--game", "knight"],
        input="uci\nd\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and "uciok" in proc.stdout
    assert "Variant: knightchess" in proc.stdout
    assert "Fen: nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1" in proc.stdout
