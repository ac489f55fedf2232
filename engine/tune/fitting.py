"""What both of Texel's fits share: the positions, the sigmoid, K and the optimiser.

:mod:`engine.tune.texel` fits one weight per feature from a dense design matrix;
:mod:`engine.tune.texel_tables` fits the piece-square tables entry by entry from a sparse
one. Both read the same quiet positions, predict with the same sigmoid, choose ``K``
the same way, scale the ridge prior by the same curvature and minimise the same
regularised squared error (:class:`RidgeFit`), which live here so neither fit imports
the other. The minimiser is ``scipy.optimize.least_squares``, a well-kept trust-region
solver for exactly this kind of problem (it takes a dense or a sparse Jacobian), rather
than a Levenberg-Marquardt loop of our own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit
from scipy import sparse
from scipy.optimize import least_squares

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


def column_variance(x: sparse.csr_matrix) -> np.ndarray:
    """Each column's variance over the rows of a sparse design matrix (a dense one has
    ``x.var(axis=0)``)."""
    mean = np.asarray(x.mean(axis=0)).ravel()
    return np.asarray(x.multiply(x).mean(axis=0)).ravel() - mean**2


def column_spread(variance: np.ndarray, k: float) -> np.ndarray:
    """The curvature one average position gives along each column's spread: the unit of
    the ridge prior, so a prior's strength does not depend on the features' units."""
    return np.maximum(variance, 1e-9) * (0.25 * LN10 * k / 400.0) ** 2


@dataclass(frozen=True)
class RidgeFit:
    """The loss of Texel's fits, ``mean((sigmoid(K·(x w + offset)) − results)²) +
    Σ ridge·(w − start)²``, as a least-squares problem: the sum of the squares of each
    row's error over √n and of each weight's √ridge·(w − start). ``x`` (rows × weights)
    is dense or sparse, and so is the Jacobian; ``offset`` is a fixed centipawn term a row.
    """

    x: np.ndarray | sparse.csr_matrix
    results: np.ndarray
    k: float
    start: np.ndarray
    ridge: np.ndarray
    offset: np.ndarray | float = 0.0

    def residuals(self, w: np.ndarray) -> np.ndarray:
        error = sigmoid(self.x @ w + self.offset, self.k) - self.results
        root_n = math.sqrt(self.x.shape[0])
        return np.concatenate([error / root_n, np.sqrt(self.ridge) * (w - self.start)])

    def jacobian(self, w: np.ndarray) -> np.ndarray | sparse.csr_matrix:
        p = sigmoid(self.x @ w + self.offset, self.k)
        slope = p * (1.0 - p) * (LN10 * self.k / 400.0) / math.sqrt(self.x.shape[0])
        root_ridge = np.sqrt(self.ridge)
        if sparse.issparse(self.x):
            rows = sparse.diags(slope) @ self.x
            return sparse.vstack([rows, sparse.diags(root_ridge)], format="csr")
        return np.vstack([self.x * slope[:, None], np.diag(root_ridge)])

    def solve(
        self, max_iterations: int = 200, tolerance: float = 1e-12
    ) -> tuple[np.ndarray, int, float]:
        """The weights minimising the loss from ``start``, the iterations run and the
        final loss; the fit stops when a step lowers the loss by less than ``tolerance``
        of it. Each weight is scaled by its column of the Jacobian, so centipawn tables
        and piece counts step alike.

        A dense design is fitted by MINPACK's Levenberg-Marquardt (``method="lm"``); a
        sparse one by the trust-region reflective method with LSMR steps, which never
        forms the dense matrix MINPACK would need (808 columns of a million rows)."""
        fit = least_squares(
            self.residuals, self.start.astype(np.float64), jac=self.jacobian,
            method="trf" if sparse.issparse(self.x) else "lm", x_scale="jac",
            ftol=tolerance, xtol=tolerance, gtol=tolerance, max_nfev=max_iterations,
        )  # fmt: skip
        return fit.x, int(fit.njev), 2.0 * float(fit.cost)


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
