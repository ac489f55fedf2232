"""``canopy search``: JSON output and one-line refusals of bad input."""

from __future__ import annotations

import json

import pytest

from canopy.cli import main


@pytest.mark.parametrize("interval", ["0", "-1", "nan", "3601", "0.0001"])
def test_log_intervals_outside_a_millisecond_to_an_hour_exit_2_with_one_line(
    interval: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "--iterations", "10", "--interval", interval]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "canopy search: error: argument --interval: "
        f"must be between 0.001 and 3600 seconds, got {interval}"
    )


def test_a_log_interval_that_is_not_a_number_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "--interval", "soon"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--interval" in err and "number of seconds" in err and len(err.splitlines()) == 1


def test_search_with_an_interval_in_range_runs(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["search", "--iterations", "50", "--seed", "1", "--interval", "0.001", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["iterations"] == 50 and out["bestmove"]


def test_a_long_search_goes_on_past_the_node_budget_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """1,000 nodes fill in a fraction of the two seconds: the search runs to its clock."""
    args = ["search", "--algo", "uct", "--node-budget", "1000", "--movetime", "2000"]
    assert main([*args, "--interval", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "the tree is full" in out and "folded" in out and "stopped by time" in out
    assert main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["stop_reason"] == "time" and result["full"] == "recycling"
    assert result["iterations"] > 1000 >= result["nodes"] and result["bestmove"]
