"""The NNUE's generations: positions, a network trained on them, its gating result kept,
the best network carried forward, and a run that resumes instead of starting over."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.eval.nnue_weights import load
from engine.learn.nnue_run import Run, RunConfig, RunError
from engine.learn.train import Pool

pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")

CONFIG = RunConfig(games=4, nodes=60, hidden=8, epochs=2, gate_games=2, distill=300,
                   distill_epochs=1)  # fmt: skip


def gate_scoring(score: float, calls: list[tuple[int, Path, Path | None]]) -> Any:
    def gate(number: int, candidate: Path, best: Path | None) -> dict[str, Any]:
        calls.append((number, candidate, best))
        return {"games": 2, "score": score, "elo": 0.0, "elo_ci95": [-1.0, 1.0],
                "wins": 1, "draws": 0, "losses": 1}  # fmt: skip

    return gate


def test_a_generation_trains_on_its_positions_and_keeps_its_provenance(tmp_path: Path) -> None:
    calls: list[tuple[int, Path, Path | None]] = []
    run = Run(tmp_path, CONFIG, lambda: Pool(2), 2, "canopy train ...", lambda *a: None,
              gate_scoring(0.75, calls))  # fmt: skip
    summary = run.run(1)
    (entry,) = summary["generations"]
    assert entry["accepted"] and summary["best"] == str(tmp_path / "gen-001" / "nnue.npz")
    assert calls == [(1, tmp_path / "gen-001" / "nnue.npz", None)]  # against the hand eval
    net = load(tmp_path / "gen-001" / "nnue.npz")
    assert net.command == "canopy train ..."
    assert net.meta["generation"] == 1 and net.meta["positions"] == entry["positions"] > 50
    assert net.meta["data"] == [str(tmp_path / "gen-000" / "positions")]
    assert net.meta["gate"]["score"] == 0.75
    assert len(net.meta["train_loss"]) == 2
    assert net.meta["start"] == "distilled" and net.meta["distilled"]["positions"] == 300
    manifest = json.loads((tmp_path / "gen-000" / "positions" / "data.json").read_text())
    assert manifest["settings"]["weights"] == "hand"


def test_a_rejected_network_leaves_the_best_and_a_resumed_run_plays_nothing_again(
    tmp_path: Path,
) -> None:
    calls: list[tuple[int, Path, Path | None]] = []
    Run(tmp_path, CONFIG, lambda: Pool(1), 1, "first", lambda *a: None,
        gate_scoring(0.25, calls)).run(1)  # fmt: skip
    state = json.loads((tmp_path / "run.json").read_text())
    assert state["best"] is None and not state["generations"][0]["accepted"]
    # Resuming to the same count redoes nothing: no game, no fit, no match
    again = Run(tmp_path, CONFIG, lambda: pytest.fail("no games to play"), 1, "second",
                lambda *a: None, gate_scoring(0.9, calls)).run(1)  # fmt: skip
    assert len(calls) == 1 and again["commands"] == ["first", "second"]
    # a second generation played by the same (hand) evaluation plays other games
    assert CONFIG.data_config("hand", 1).seed != CONFIG.data_config("hand", 0).seed
    with pytest.raises(RunError, match=r"other settings \(hidden\)"):
        Run(tmp_path, replace(CONFIG, hidden=16),
            lambda: Pool(1), 1, "", lambda *a: None)  # fmt: skip
