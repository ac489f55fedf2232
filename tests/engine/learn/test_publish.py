"""``python -m engine.learn.publish``: a chosen generation of a run, with the run's record.

The shipped chess weights are such a publication (no generation of their run was kept), so
they are checked here against the recorded run in docs/results/learning/.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.eval.learned_weights import load_weights, save_weights, shipped_path
from engine.learn.chessnet import ChessModel
from engine.learn.curve import learning_curve
from engine.learn.ntuple import Model, tuple_squares
from engine.learn.publish import PublishError, main, publish_generation

ROOT = Path(__file__).resolve().parents[3]
ARRAYS = ("linear", "scale", "hidden", "bias", "out")


def record(number: int, accepted: bool) -> dict:
    return {"number": number, "games": 30, "positions": 2000, "fit_loss": 0.5,
            "holdout_loss": 0.5, "holdout_loss_best": 0.51, "gate_wins": 9 if accepted else 7,
            "gate_draws": 2, "gate_losses": 7 if accepted else 9, "score": 0.5, "elo": 0.0,
            "accepted": accepted, "opponent": "hand", "seconds": 12.5}  # fmt: skip


def make_run(tmp_path: Path, game: str = "chess") -> Path:
    """A finished two-generation run: train.json and each generation's candidate."""
    run = tmp_path / "run"
    for number in (1, 2):
        (run / f"gen-{number:03d}").mkdir(parents=True)
        if game == "chess":
            model = ChessModel(4)
            theta = model.start() + np.random.default_rng(number).normal(scale=0.2, size=model.size)
        else:
            model = Model(tuple_squares("pst"))
            theta = model.start()
        meta = {"generation": number, "positions": 2000 * number}
        save_weights(run / f"gen-{number:03d}" / "candidate.npz", model.unpack(theta, "x", meta))
    state = {"settings": {"game": game}, "command": f"canopy train --game {game} --out run",
             "generations": [record(1, False), record(2, False)], "seconds": 25.0}  # fmt: skip
    (run / "train.json").write_text(json.dumps(state))
    return run


def test_a_rejected_generation_is_published_with_the_runs_whole_record(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    dest = tmp_path / "chess.npz"
    publish_generation(run, 1, dest)
    w = load_weights(dest, "chess")
    candidate = load_weights(run / "gen-001" / "candidate.npz", "chess")
    assert all(np.array_equal(getattr(w, k), getattr(candidate, k)) for k in ARRAYS)
    assert w.command == "canopy train --game chess --out run"
    assert w.meta["generation"] == 1 and w.meta["seconds"] == 25.0
    assert w.meta["positions"] == 2000  # the candidate's own meta is kept
    curve = learning_curve(w.meta)
    assert [p.generation for p in curve.points] == [1, 2]
    assert not any(p.accepted for p in curve.points)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda run: None, "has no finished generation 3 (finished: 1, 2)"),
        (lambda run: (run / "train.json").unlink(), "holds no training run"),
        (lambda run: (run / "train.json").write_text("{"), "is not a training record"),
        (lambda run: (run / "gen-003").mkdir(), "has no finished generation 3"),
    ],
)
def test_a_generation_that_is_not_there_is_refused_and_nothing_is_written(
    tmp_path: Path, change, needle: str
) -> None:
    run = make_run(tmp_path)
    change(run)
    dest = tmp_path / "out.npz"
    with pytest.raises(PublishError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        publish_generation(run, 3, dest)
    assert not dest.exists()


def test_a_bad_candidate_or_destination_leaves_the_old_file(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    dest = tmp_path / "chess.npz"
    publish_generation(run, 2, dest)
    before = dest.read_bytes()
    (run / "gen-001" / "candidate.npz").write_bytes(b"junk")
    with pytest.raises(PublishError, match="unreadable"):
        publish_generation(run, 1, dest)
    with pytest.raises(PublishError, match="cannot write"):
        publish_generation(run, 2, tmp_path / "no-such-dir" / "chess.npz")
    assert dest.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_knight_run_publishes_knight_weights(tmp_path: Path) -> None:
    publish_generation(make_run(tmp_path, "knight"), 2, tmp_path / "knight.npz")
    assert load_weights(tmp_path / "knight.npz", "knight").meta["generation"] == 2


def test_the_command_line_says_what_it_wrote_or_why_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(tmp_path)
    dest = tmp_path / "chess.npz"
    assert main(["--out", str(run), "--generation", "2", "--to", str(dest)]) == 0
    assert "chess generation 2 (not kept by its gating match)" in capsys.readouterr().out
    assert main(["--out", str(run), "--generation", "9", "--to", str(dest)]) == 2
    assert "error: " in capsys.readouterr().err


def test_the_shipped_chess_weights_are_generation_3_of_the_recorded_run() -> None:
    """docs/learning.md: engine/data/learned/chess.npz is the recorded run's third candidate,
    published with the run's record (docs/results/learning/chess-train.json)."""
    shipped = load_weights(shipped_path("chess"), "chess")
    results = ROOT / "docs" / "results" / "learning"
    candidate = load_weights(results / "chess-gen-003-candidate.npz", "chess")
    run = json.loads((results / "chess-train.json").read_text())
    assert all(np.array_equal(getattr(shipped, k), getattr(candidate, k)) for k in ARRAYS)
    assert shipped.meta["generation"] == 3 and shipped.command == run["command"]
    assert shipped.meta["generations"] == run["generations"]
    assert run["best"] == "hand"  # none kept: hand stays chess's default (test_eval_parameter)
