"""The learning curve of a weights file: each generation's Elo against the hand evaluation.

``canopy train`` keeps, in the ``meta`` of the weights it publishes (``best.npz``), one
record per generation (:class:`engine.learn.train.Generation`): the gating match of that
generation's candidate against the best weights so far — the hand evaluation until a
generation is accepted. A gating result is therefore an Elo difference against *its
opponent*, not against the hand evaluation. The curve chains them: a generation's Elo
against the baseline (the hand evaluation, or the ``--init`` weights the run started
from) is its opponent's plus its own gating Elo.

Elo and its 95 % interval come from :class:`engine.match.stats.MatchScore`, exactly as
``canopy match`` reports them. Along a chain the intervals' half-widths on each side are
added in quadrature (independent matches, the normal approximation the match interval
itself uses); an end that is unbounded anywhere along the chain stays unbounded
(``None``). A generation gated against the baseline has exactly its match's interval.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from engine.errors import CanopyError
from engine.match.stats import MatchScore

BASELINES = ("hand", "init")  # opponents that are not a generation of the run
RESULTS = ("wins", "draws", "losses")  # a gating record's gate_wins, gate_draws, gate_losses


class TrainingRecordError(CanopyError):
    """A weights file's ``meta`` holds no readable training record."""

    code = "bad_training_record"


@dataclass(frozen=True)
class CurvePoint:
    """One generation: its gating match and its Elo against the baseline."""

    generation: int
    opponent: str  # "hand", "init" or "gen-NNN": whom it was gated against
    wins: int  # the candidate's, in its gating match
    draws: int
    losses: int
    score: float  # candidate's gating score in [0, 1]
    accepted: bool  # became the best weights
    games: int  # self-play games of the generation
    seconds: float
    gate_elo: float | None  # Elo against its opponent (None: one side scored everything)
    gate_low: float | None  # that match's 95 % interval; None: unbounded
    gate_high: float | None
    elo: float | None  # Elo against the baseline, chained through the accepted generations
    low: float | None
    high: float | None


@dataclass(frozen=True)
class LearningCurve:
    baseline: str  # "hand" or "init"
    points: tuple[CurvePoint, ...]
    games: int  # self-play games of every generation
    gate_games: int  # gating games of every generation
    seconds: float  # training time in all (the trainer's own count)

    def as_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "points": [asdict(p) for p in self.points],
            "games": self.games,
            "gate_games": self.gate_games,
            "seconds": self.seconds,
        }


def _count(record: dict[str, Any], key: str, where: str) -> int:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TrainingRecordError(f"{where}: {key!r} must be a whole number >= 0; got {value!r}")
    return value


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0.0
    return max(0.0, float(value))


def _widen(a: float | None, b: float | None) -> float | None:
    """Two independent half-widths in quadrature (None: unbounded)."""
    if a is None or b is None:
        return None
    return math.hypot(a, b)


def learning_curve(meta: dict[str, Any]) -> LearningCurve:
    """The curve of a weights file's ``meta``; :class:`TrainingRecordError` when it holds no
    training record (``generations``) or a malformed one."""
    records = meta.get("generations")
    if not isinstance(records, list) or not records:
        raise TrainingRecordError(
            "these weights carry no training record (meta has no generations): they were "
            "not published by canopy train"
        )
    ratings: dict[str, tuple[float | None, float | None, float | None]] = {}
    points = []
    baseline = "hand"
    for i, record in enumerate(records):
        where = f"generation record {i + 1}"
        if not isinstance(record, dict):
            raise TrainingRecordError(f"{where} is not an object")
        number = _count(record, "number", where)
        wins, draws, losses = (_count(record, f"gate_{k}", where) for k in RESULTS)
        opponent = record.get("opponent")
        if not isinstance(opponent, str):
            raise TrainingRecordError(f"{where}: 'opponent' must be a name; got {opponent!r}")
        if i == 0 and opponent in BASELINES:
            baseline = opponent
        if opponent in BASELINES:
            ratings.setdefault(opponent, (0.0, 0.0, 0.0))
        match = MatchScore(wins, draws, losses)
        gate_elo = match.elo
        gate_low, gate_high = match.elo_ci95()
        opp_elo, opp_down, opp_up = ratings.get(opponent, (None, None, None))
        elo = low = high = None
        if opp_elo is not None and gate_elo is not None:
            elo = opp_elo + gate_elo
            down = _widen(opp_down, None if gate_low is None else gate_elo - gate_low)
            up = _widen(opp_up, None if gate_high is None else gate_high - gate_elo)
            low = None if down is None else elo - down
            high = None if up is None else elo + up
        accepted = bool(record.get("accepted"))
        if accepted:
            ratings[f"gen-{number:03d}"] = (
                elo,
                None if low is None or elo is None else elo - low,
                None if high is None or elo is None else high - elo,
            )
        points.append(
            CurvePoint(
                generation=number,
                opponent=opponent,
                wins=wins,
                draws=draws,
                losses=losses,
                score=match.score,
                accepted=accepted,
                games=_count(record, "games", where),
                seconds=_seconds(record.get("seconds")),
                gate_elo=gate_elo,
                gate_low=gate_low,
                gate_high=gate_high,
                elo=elo,
                low=low,
                high=high,
            )
        )
    return LearningCurve(
        baseline=baseline,
        points=tuple(points),
        games=sum(p.games for p in points),
        gate_games=sum(p.wins + p.draws + p.losses for p in points),
        seconds=_seconds(meta.get("seconds")) or sum(p.seconds for p in points),
    )
