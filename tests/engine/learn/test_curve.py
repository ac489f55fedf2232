"""The learning curve from a weights file's training record: Elo as ``canopy match`` has it."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from engine.eval.learned_weights import load_weights, save_weights
from engine.learn.curve import TrainingRecordError, learning_curve
from engine.learn.ntuple import Model, tuple_squares
from engine.learn.train import Generation, TrainConfig, Trainer
from engine.match.stats import MatchScore


def record(number: int, opponent: str, w: int, d: int, lose: int, accepted: bool) -> dict[str, Any]:
    """One generation as ``canopy train`` writes it (engine.learn.train.Generation)."""
    return {
        "number": number, "games": 800, "positions": 1000, "fit_loss": 0.5,
        "holdout_loss": 0.5, "holdout_loss_best": 0.6, "gate_wins": w, "gate_draws": d,
        "gate_losses": lose, "score": (w + d / 2) / (w + d + lose), "elo": 0.0,
        "accepted": accepted, "opponent": opponent, "seconds": 100.0 * number,
    }  # fmt: skip


#: The run docs/learning.md describes: generation 1 kept, 2 and 3 not.
META = {
    "generations": [
        record(1, "hand", 25, 52, 23, True),
        record(2, "gen-001", 16, 67, 17, False),
        record(3, "gen-001", 20, 59, 21, False),
    ],
    "seconds": 1211.0,
}


def test_a_generation_gated_against_hand_has_the_match_runners_elo_and_interval() -> None:
    first = learning_curve(META).points[0]
    match = MatchScore(25, 52, 23)
    assert first.elo == pytest.approx(match.elo)
    assert (first.low, first.high) == pytest.approx(match.elo_ci95())
    assert (first.gate_low, first.gate_high) == pytest.approx(match.elo_ci95())


def test_elo_by_hand_for_three_quarters_of_the_points() -> None:
    point = learning_curve({"generations": [record(1, "hand", 30, 0, 10, True)]}).points[0]
    assert point.elo == pytest.approx(400 * math.log10(3))  # +190.8
    assert point.score == 0.75


def test_later_generations_chain_through_the_accepted_one() -> None:
    curve = learning_curve(META)
    one, two, three = curve.points
    gate = MatchScore(16, 67, 17)
    assert two.opponent == "gen-001" and not two.accepted
    assert two.gate_elo == pytest.approx(gate.elo)
    assert two.elo == pytest.approx(one.elo + gate.elo)
    g_low, g_high = gate.elo_ci95()
    down = math.hypot(one.elo - one.low, gate.elo - g_low)
    up = math.hypot(one.high - one.elo, g_high - gate.elo)
    assert (two.low, two.high) == pytest.approx((two.elo - down, two.elo + up))
    assert three.elo == pytest.approx(one.elo + MatchScore(20, 59, 21).elo)


def test_totals_and_time_come_from_the_record() -> None:
    curve = learning_curve(META)
    assert curve.baseline == "hand"
    assert curve.games == 2400 and curve.gate_games == 300
    assert curve.seconds == 1211.0


def test_an_unbounded_end_stays_unbounded_down_the_chain() -> None:
    meta = {
        "generations": [record(1, "hand", 10, 0, 0, True), record(2, "gen-001", 5, 5, 5, False)]
    }
    one, two = learning_curve(meta).points
    assert one.elo is None and one.high is None  # every game won: no finite Elo
    assert two.elo is None and two.gate_elo == pytest.approx(0.0)


def test_a_run_from_init_weights_is_measured_against_them() -> None:
    meta = {"generations": [record(1, "init", 30, 0, 10, True)]}
    assert learning_curve(meta).baseline == "init"
    assert learning_curve(meta).points[0].elo == pytest.approx(400 * math.log10(3))


@pytest.mark.parametrize(
    "meta",
    [{}, {"generations": []}, {"generations": "x"}, {"generations": [1]},
     {"generations": [{**record(1, "hand", 1, 1, 1, True), "gate_wins": -1}]},
     {"generations": [{**record(1, "hand", 1, 1, 1, True), "opponent": None}]}],
)  # fmt: skip
def test_weights_without_a_readable_record_say_so(meta: dict[str, Any]) -> None:
    with pytest.raises(TrainingRecordError):
        learning_curve(meta)


def test_the_curve_of_a_published_best_has_every_generation(tmp_path: Path) -> None:
    """What ``canopy train`` publishes after generation 2 (rejected) reads as two points."""
    trainer = Trainer(TrainConfig(games=2, gate_games=2), tmp_path, command="canopy train")
    model = Model(tuple_squares("pst"))
    (tmp_path / "gen-001").mkdir()
    save_weights(tmp_path / "gen-001" / "candidate.npz", model.unpack(model.start(), "", {}))
    for n, w, d, lose, kept, opponent in (
        (1, 1, 1, 0, True, "hand"),
        (2, 0, 1, 1, False, "gen-001"),
    ):
        score = (w + d / 2) / 2
        trainer.generations.append(
            Generation(n, 2, 100, 0.5, 0.5, 0.5, w, d, lose, score, 0.0, kept, opponent, 1.0)
        )
    trainer.seconds = 2.0
    trainer._publish_best()
    best = load_weights(tmp_path / "best.npz")
    curve = learning_curve(best.meta)
    assert [p.generation for p in curve.points] == [1, 2] and best.command == "canopy train"
    assert curve.points[1].elo == pytest.approx(MatchScore(1, 1, 0).elo + MatchScore(0, 1, 1).elo)
