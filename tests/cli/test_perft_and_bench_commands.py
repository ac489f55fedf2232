"""``canopy perft`` and ``canopy bench``: JSON output and one-line refusals of bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from canopy.cli import main


def _json_tail(text: str) -> dict:
    return json.loads(text.strip().splitlines()[-1])


def test_perft_json_reports_nodes_seconds_and_nps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "startpos", "3", "--json"]) == 0
    out = _json_tail(capsys.readouterr().out)
    assert out["nodes"] == 8902 and out["seconds"] >= 0
    if out["seconds"] > 0:  # nps is the count over the time, not a separate figure
        assert out["nps"] == pytest.approx(out["nodes"] / out["seconds"], rel=0.01)


def test_perft_knight_game_and_divide(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "startpos", "2", "--game", "knight", "--divide", "--json"]) == 0
    out = _json_tail(capsys.readouterr().out)
    assert out["nodes"] == 1600
    assert len(out["divide"]) == 40 and sum(out["divide"].values()) == 1600


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["perft", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "2"],
            "malformed FEN",
        ),
        (["perft", "8/8/8/8/8/8/8/8 w - - 0 1", "2"], "impossible position"),
        (["perft", "startpos", "-1"], "must not be negative"),
        (["perft", "startpos", "two"], "whole number"),
        (["perft", "startpos", "2", "--game", "go"], "invalid choice"),
    ],
)
def test_bad_input_exits_non_zero_with_one_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_real_process_prints_no_traceback_for_a_bad_fen() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "canopy", "perft", "not a fen", "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_bench_quick_reports_each_result_beside_python_chess(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "--quick", "--only", "perft", "knight-playouts", "--json"]) == 0
    results = _json_tail(capsys.readouterr().out)["results"]
    assert [r["name"].split()[0] for r in results] == ["chess", "knight"]
    assert [r["unit"] for r in results] == ["nodes/s", "playouts/s"]
    for r in results:
        assert {"name", "value", "unit", "baseline", "ratio"} <= set(r)  # the contract's keys
        assert r["value"] > 0 and r["baseline"] > 0 and r["baseline_label"] == "python-chess"
        assert r["ratio"] == pytest.approx(r["value"] / r["baseline"])


def test_installed_console_script_runs() -> None:
    from pathlib import Path

    script = Path(sys.executable).with_name("canopy")
    if not script.exists():
        pytest.skip("the canopy console script is not installed next to this Python")
    proc = subprocess.run(
        [str(script), "perft", "startpos", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["nodes"] == 400
