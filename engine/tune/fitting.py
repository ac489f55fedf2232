"""What both of Texel's fits share: the positions, the sigmoid, K and the optimiser.

:mod:`engine.tune.texel` fits one weight per feature from a dense design matrix;
:mod:`engine.tune.texel_tables` fits the piece-square tables entry by entry from sparse
rows. Both read the same quiet positions, predict with the same sigmoid, choose ``K``
the same way, scale the ridge prior by the same curvature and step by the same
Levenberg-Marquardt iteration, which live here so neither fit imports the other.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

from engine.core.state import STATE_SIZE
from engine.eval.features import N_CHESS, N_KNIGHT, chess_features, knight_features
from engine.rules.convert import state_from_fen
from engine.tune.selfplay import data_rows, read_positions, search_score

LN10 = math.log(10.0)
FOLDS = 5  # cross-validation folds, by game


@njit(cache=True, nogil=True)
def _feature_rows(states: np.ndarray, chess: bool, out: np.ndarray, phase: np.ndarray) -> None:
    for i in range(states.shape[0]):
        if chess:
            phase[i] = chess_features(states[i], out[i])
        else:
            phase[i] = knight_features(states[i], out[i])


def feature_matrix(fens: list[str], game: str, keep_states: bool = False) -> tuple[np.ndarray, ...]:
    """Each position's feature vector (White minus Black) and phase (and, with
    ``keep_states``, the positions as states, for fits that read more of them)."""
    states = np.zeros((len(fens), STATE_SIZE), dtype=np.uint64)
    for i, fen in enumerate(fens):
        states[i] = state_from_fen(fen, game)
    width = N_CHESS if game == "chess" else N_KNIGHT
    features = np.zeros((len(fens), width))
    phase = np.zeros(len(fens))
    _feature_rows(states, game == "chess", features, phase)
    return (features, phase, states) if keep_states else (features, phase)


def sigmoid(cp: np.ndarray, k: float) -> np.ndarray:
    """Expected score for White of a score in centipawns: ``1 / (1 + 10^(−K·cp/400))``."""
    return 1.0 / (1.0 + np.exp(-LN10 * k * cp / 400.0))


def fit_k_to(error: Callable[[float], float]) -> float:
    """The ``K`` minimising ``error(K)`` (a grid, then golden-section search on log K)."""
    lo, hi = math.log(0.05), math.log(5.0)
    grid = np.linspace(lo, hi, 41)
    errors = [error(math.exp(g)) for g in grid]
    best = int(np.argmin(errors))
    a, b = grid[max(0, best - 1)], grid[min(len(grid) - 1, best + 1)]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(60):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if error(math.exp(c)) < error(math.exp(d)):
            b = d
        else:
            a = c
    return math.exp((a + b) / 2.0)


def column_spread(variance: np.ndarray, k: float) -> np.ndarray:
    """The curvature one average position gives along each column's spread: the unit of
    the ridge prior, so a prior's strength does not depend on the features' units."""
    return np.maximum(variance, 1e-9) * (0.25 * LN10 * k / 400.0) ** 2


def levenberg_marquardt(
    terms: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    loss_of: Callable[[np.ndarray], float],
    start: np.ndarray,
    max_iterations: int = 200,
    tolerance: float = 1e-12,
) -> tuple[np.ndarray, int, float]:
    """Minimise ``loss_of`` from ``start``: Gauss-Newton steps on ``terms(w)`` (the
    approximate Hessian and the gradient, prior included) with a damping that grows
    tenfold when a step fails and shrinks when one succeeds. Returns the weights, the
    iterations run and the final loss."""
    w = start.astype(np.float64).copy()
    loss = loss_of(w)
    damping = 1e-3
    iterations = 0
    while iterations < max_iterations:
        iterations += 1
        hess, grad = terms(w)
        improved = False
        while damping < 1e12:
            step = np.linalg.solve(hess + damping * np.diag(np.diag(hess) + 1e-12), -grad)
            trial = w + step
            trial_loss = loss_of(trial)
            if trial_loss < loss:
                improved = True
                break
            damping *= 10.0
        if not improved:
            break
        done = loss - trial_loss < tolerance * max(loss, 1e-12)
        w, loss = trial, trial_loss
        damping = max(damping / 10.0, 1e-9)
        if done:
            break
    return w, iterations, loss


def game_ids(plies: np.ndarray) -> np.ndarray:
    """Which game each row came from (a game's rows start at ply 0)."""
    return np.cumsum(plies == 0) - 1


def quiet_rows(path: Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The quiet positions of a self-play file: their FENs, White's results and games."""
    fens, results, flags, plies = read_positions(path)
    games = game_ids(plies)
    quiet = np.array([f == "" for f in flags])
    return [f for f, q in zip(fens, quiet, strict=True) if q], results[quiet], games[quiet]


def quiet_targets(path: Path, blend: float) -> np.ndarray:
    """The target a blended fit aims at on :func:`quiet_rows`' positions:
    ``(1 − blend)·result + blend·search``, ``search`` the self-play search's own score of
    the position as White's expected score (:func:`engine.tune.selfplay.search_score`).

    Why: a result says who won a game, decided many moves later and by every mistake in
    between, so it is a noisy label for one position; the search that chose the move saw
    further than the static evaluation does and labels the position itself (Stockfish
    trains its networks on such a mix, its ``lambda``). Only the target changes: ``K``
    and the errors a fit reports are still reckoned against the results, so fits with
    and without a blend compare. Measured with ab3a19c (docs/algorithms.md): from the
    shipped weights, a mix of one half predicted left-out games' results barely better
    than the results alone, and played no better."""
    if not 0.0 <= blend <= 1.0:
        raise ValueError(f"blend must be in [0, 1], got {blend:g}")
    return np.array(  # one pass over the file (a quiet row's flags column is empty)
        [
            (1.0 - blend) * float(fields[1]) + blend * search_score(fields)
            for fields in data_rows(path)
            if fields[3] == ""
        ]
    )


def weight_lines(
    cv_errors: dict[float, float], names: tuple[str, ...], w_mg: np.ndarray, w_eg: np.ndarray
) -> list[str]:
    """A fit's report after its summary line: the left-out error per prior tried, then
    one line per feature with its middlegame and endgame weight."""
    lines = [
        "  left-out error per prior: " + ", ".join(f"{p:g}: {e:.5f}" for p, e in cv_errors.items()),
        f"  {'feature':<22} {'mg':>9} {'eg':>9}",
    ]
    for name, mg, eg in zip(names, w_mg, w_eg, strict=True):
        lines.append(f"  {name:<22} {mg:9.2f} {eg:9.2f}")
    return lines
