"""Match statistics: score, Elo difference, its 95 % interval, LOS and SPRT.

All from the first engine's point of view, with the logistic Elo model
``score = 1 / (1 + 10^(−elo/400))`` (the one cutechess, fishtest and the
evaluation's squash use).

* The interval treats each game as an independent draw from {1, ½, 0} with the
  observed frequencies (the "trinomial" model): the standard error of the mean
  score ``sqrt(var / n)`` with ``var`` the per-game variance, ±1.96 of it,
  and both ends mapped to Elo. The bounds are therefore asymmetric; an end
  that reaches a score of 0 or 1 is unbounded (reported as ``None``). When
  every game had the same result the observed variance is zero and that
  interval would be a point, so we fall back to the Wilson score interval
  (e.g. 40 wins out of 40: score ≥ 0.912, Elo ≥ +405, no upper bound).
* LOS (likelihood of superiority) is the normal approximation
  ``½·(1 + erf((W − L) / sqrt(2(W + L))))``; draws carry no information.
* SPRT is the generalised SPRT on the same trinomial model (fishtest's
  "logistic" GSPRT): with ``s0``, ``s1`` the scores of the two hypotheses,
  ``LLR = n·(s1 − s0)·(2·s̄ − s0 − s1) / (2·var)``, stopped when it leaves
  ``[ln(β/(1−α)), ln((1−β)/α)]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import CanopyError

Z95 = 1.959963984540054
SCORE_EPSILON = 1e-9  # closer to 0 or 1 than this is rounding error: unbounded


def score_of(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of(score: float) -> float | None:
    """Elo difference for an expected score; None at 0 or 1 (unbounded)."""
    if score <= SCORE_EPSILON or score >= 1.0 - SCORE_EPSILON:
        return None
    return -400.0 * math.log10(1.0 / score - 1.0)


def per_game_variance(wins: int, draws: int, losses: int) -> float:
    n = wins + draws + losses
    if n == 0:
        return 0.0
    s = (wins + 0.5 * draws) / n
    return (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s**2) / n


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` (at least two) and its standard error, from their sample
    variance. The paired figures read it: two settings' differences position by position
    (:func:`engine.match.probe.paired_difference`) or game by game
    (``scripts/paired_games.py``), where pairing removes what the positions or openings
    themselves were worth."""
    n = len(values)
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p`` observed in ``n`` trials."""
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


@dataclass(frozen=True)
class MatchScore:
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game in [0, 1] (0.5 before any game)."""
        n = self.games
        return (self.wins + 0.5 * self.draws) / n if n else 0.5

    @property
    def elo(self) -> float | None:
        return elo_of(self.score) if self.games else None

    def elo_ci95(self) -> tuple[float | None, float | None]:
        """(low, high) Elo; None for an end that is unbounded."""
        n = self.games
        if n == 0:
            return None, None
        var = per_game_variance(self.wins, self.draws, self.losses)
        if var > 0.0:
            half = Z95 * math.sqrt(var / n)
            return elo_of(self.score - half), elo_of(self.score + half)
        low, high = wilson(self.score, n)
        return elo_of(low), elo_of(high)

    def elo_error(self) -> float | None:
        """Half the interval's width (cutechess's "±"); None if it is unbounded."""
        low, high = self.elo_ci95()
        if low is None or high is None:
            return None
        return (high - low) / 2.0

    @property
    def los(self) -> float:
        decisive = self.wins + self.losses
        if decisive == 0:
            return 0.5
        return 0.5 * (1.0 + math.erf((self.wins - self.losses) / math.sqrt(2.0 * decisive)))

    @property
    def draw_ratio(self) -> float:
        return self.draws / self.games if self.games else 0.0

    def describe(self) -> str:
        low, high = self.elo_ci95()
        elo = "n/a" if self.elo is None else f"{self.elo:+.1f}"
        lo = "-inf" if low is None else f"{low:+.1f}"
        hi = "+inf" if high is None else f"{high:+.1f}"
        return f"Elo {elo} [{lo}, {hi}]"


@dataclass(frozen=True)
class Sprt:
    """A sequential test of H0: elo = elo0 against H1: elo = elo1."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise CanopyError(f"SPRT needs elo0 < elo1; got {self.elo0:g}, {self.elo1:g}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise CanopyError(f"SPRT {name} must be between 0 and 0.5; got {value:g}")

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``elo0,elo1[,alpha,beta]``, e.g. ``0,50`` or ``0,50,0.05,0.05``."""
        try:
            values = [float(v) for v in text.split(",")]
        except ValueError:
            raise CanopyError(f"--sprt expects elo0,elo1[,alpha,beta]; got {text!r}") from None
        if len(values) not in (2, 4):
            raise CanopyError(f"--sprt expects elo0,elo1[,alpha,beta]; got {text!r}")
        return cls(*values)

    @property
    def bounds(self) -> tuple[float, float]:
        lower = math.log(self.beta / (1.0 - self.alpha))
        upper = math.log((1.0 - self.beta) / self.alpha)
        return lower, upper

    def llr(self, score: MatchScore) -> float:
        n = score.games
        var = per_game_variance(score.wins, score.draws, score.losses)
        if n == 0 or var <= 0.0:
            return 0.0
        s0, s1 = score_of(self.elo0), score_of(self.elo1)
        return n * (s1 - s0) * (2.0 * score.score - s0 - s1) / (2.0 * var)

    def decision(self, score: MatchScore) -> str | None:
        """ "H1" (elo ≥ elo1 accepted), "H0" (elo ≤ elo0 accepted) or None (go on)."""
        llr = self.llr(score)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None


def ratings(
    results: list[tuple[str, str, int, int, int]],
    anchor: str,
    prior_draws: float = 1.0,
    iterations: int = 2000,
) -> dict[str, float]:
    """Elo ratings fitting a set of pairwise results (Bradley–Terry, maximum likelihood).

    ``results`` holds ``(a, b, wins_of_a, draws, losses_of_a)``. Draws count half a win
    each way; ``prior_draws`` virtual draws per pairing keep a 100 % score finite (as
    BayesElo's prior does). Solved by the minorisation–maximisation update
    ``γ_i ← points_i / Σ_j n_ij / (γ_i + γ_j)``; ``anchor`` is rated 0.
    """
    players = sorted({p for r in results for p in r[:2]})
    if anchor not in players:
        raise CanopyError(f"anchor {anchor!r} played no games")
    points = {p: 0.0 for p in players}
    games: dict[tuple[str, str], float] = {}
    for a, b, wins, draws, losses in results:
        n = wins + draws + losses + 2 * prior_draws
        points[a] += wins + 0.5 * draws + prior_draws
        points[b] += losses + 0.5 * draws + prior_draws
        games[(a, b)] = games.get((a, b), 0.0) + n
        games[(b, a)] = games.get((b, a), 0.0) + n
    gamma = {p: 1.0 for p in players}
    for _ in range(iterations):
        new = {}
        for p in players:
            denom = sum(n / (gamma[p] + gamma[q]) for (x, q), n in games.items() if x == p)
            new[p] = points[p] / denom if denom else gamma[p]
        scale = new[anchor]
        gamma = {p: g / scale for p, g in new.items()}
    return {p: 400.0 * math.log10(g) for p, g in gamma.items()}
