"""``canopy warm``: which part is compiling on stderr, the JSON line last on stdout."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine.warm
from canopy.cli import main


def test_warm_names_each_part_on_stderr_and_ends_with_the_json_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fake_warm(progress: Any, jobs: int = 1) -> float:
        progress(0, 2, "chess: move generation and playouts")
        progress(1, 2, "chess: uct")
        progress(2, 2, "ready")
        return 2.5

    monkeypatch.setattr(engine.warm, "warm", fake_warm)
    assert main(["warm", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "compiling chess: move generation and playouts (0/2)",
        "compiling chess: uct (1/2)",
    ]
    assert json.loads(out.splitlines()[-1]) == {"seconds": 2.5}
