"""Elo, its interval, LOS and SPRT against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from engine.errors import CanopyError
from engine.match.stats import MatchScore, Sprt, elo_of, per_game_variance, score_of, wilson


@pytest.mark.parametrize(
    ("score", "elo"),
    [(0.5, 0.0), (0.75, 400 * math.log10(3)), (0.25, -400 * math.log10(3)), (0.9, 381.7)],
)
def test_elo_of_a_score_follows_the_logistic_model(score: float, elo: float) -> None:
    assert elo_of(score) == pytest.approx(elo, abs=0.05)
    assert score_of(elo_of(score)) == pytest.approx(score)  # type: ignore[arg-type]


def test_a_perfect_or_zero_score_has_no_finite_elo() -> None:
    assert elo_of(1.0) is None and elo_of(0.0) is None
    assert MatchScore(5, 0, 0).elo is None


def test_interval_of_30_wins_40_draws_30_losses() -> None:
    # var per game = (30·0.25 + 40·0 + 30·0.25)/100 = 0.15; se = sqrt(0.15/100)
    s = MatchScore(30, 40, 30)
    half = 1.959964 * math.sqrt(0.0015)
    high = 400 * math.log10((0.5 + half) / (0.5 - half))
    low, hi = s.elo_ci95()
    assert s.elo == 0.0
    assert hi == pytest.approx(high) and low == pytest.approx(-high)
    assert hi == pytest.approx(53.16, abs=0.01)  # cutechess prints "0.0 +/- 53.2" here
    assert s.elo_error() == pytest.approx(53.16, abs=0.01)


def test_interval_is_asymmetric_away_from_an_even_score() -> None:
    s = MatchScore(60, 20, 20)  # score 0.7
    low, high = s.elo_ci95()
    assert s.elo == pytest.approx(147.19, abs=0.01)
    assert low is not None and high is not None
    assert high - s.elo > s.elo - low  # type: ignore[operator]


def test_more_games_narrow_the_interval() -> None:
    small, big = MatchScore(6, 8, 6), MatchScore(60, 80, 60)
    assert big.elo_error() < small.elo_error() / 3  # type: ignore[operator]


def test_all_wins_fall_back_to_the_wilson_lower_bound() -> None:
    low, high = MatchScore(40, 0, 0).elo_ci95()
    # Wilson lower bound for 40/40: n / (n + z²) = 40 / 43.8415
    assert wilson(1.0, 40)[0] == pytest.approx(40 / (40 + 1.959964**2))
    assert low == pytest.approx(elo_of(40 / (40 + 1.959964**2)))
    assert high is None


def test_per_game_variance_of_a_trinomial() -> None:
    assert per_game_variance(1, 0, 1) == pytest.approx(0.25)
    assert per_game_variance(0, 4, 0) == 0.0
    assert per_game_variance(2, 1, 1) == pytest.approx((2 * 0.375**2 + 0.125**2 + 0.625**2) / 4)


def test_los_matches_the_normal_approximation() -> None:
    assert MatchScore(10, 5, 10).los == pytest.approx(0.5)
    assert MatchScore(14, 0, 6).los == pytest.approx(0.5 * (1 + math.erf(8 / math.sqrt(40))))
    assert MatchScore(0, 7, 0).los == 0.5


def test_sprt_bounds_and_log_likelihood_ratio() -> None:
    sprt = Sprt(0, 50)
    lower, upper = sprt.bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(-lower)
    s = MatchScore(60, 20, 20)
    s0, s1 = 0.5, 1 / (1 + 10 ** (-50 / 400))
    var = per_game_variance(60, 20, 20)
    assert sprt.llr(s) == pytest.approx(100 * (s1 - s0) * (2 * 0.7 - s0 - s1) / (2 * var))


def test_sprt_accepts_h1_for_a_clearly_stronger_engine_and_h0_for_an_equal_one() -> None:
    sprt = Sprt(0, 50)
    assert sprt.decision(MatchScore(60, 20, 20)) == "H1"
    assert sprt.decision(MatchScore(100, 200, 100)) == "H0"
    assert sprt.decision(MatchScore(3, 2, 2)) is None


def test_sprt_parse_and_validation() -> None:
    assert Sprt.parse("0,50") == Sprt(0, 50)
    assert Sprt.parse("-10,10,0.1,0.1") == Sprt(-10, 10, 0.1, 0.1)
    for bad in ("50", "a,b", "50,0", "0,50,0.6,0.05"):
        with pytest.raises(CanopyError):
            Sprt.parse(bad)


def test_ratings_recover_a_single_pairing_and_stay_finite_for_a_whitewash() -> None:
    from engine.match.stats import ratings

    # one pairing, no prior: the fit is exactly the pair's own Elo difference
    r = ratings([("a", "b", 60, 20, 20)], anchor="b", prior_draws=0.0)
    assert r["b"] == 0.0 and r["a"] == pytest.approx(elo_of(0.7), abs=0.1)
    # transitive: a beats b by 0.75, b beats c by 0.75, a-c unplayed
    r = ratings([("a", "b", 75, 0, 25), ("b", "c", 75, 0, 25)], anchor="c", prior_draws=0.0)
    assert r["b"] == pytest.approx(190.85, abs=0.5) and r["a"] == pytest.approx(381.7, abs=1)
    # 10-0 has no finite MLE; the prior draws keep it finite and positive
    r = ratings([("a", "b", 10, 0, 0)], anchor="b")
    assert 0 < r["a"] < 1000
