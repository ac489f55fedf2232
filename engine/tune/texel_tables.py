"""Texel's method for the chess piece-square tables themselves: 768 more weights.

:mod:`engine.tune.texel` fits one weight per feature, and the two piece-square
features (``pst_mg``, ``pst_eg``) are sums over hand-made tables, so the fit can only
scale the tables as a whole: it cannot learn that a knight on a6 is worse than one on
c6 by more than the formula that made the table says. Here every table entry (six
piece types × 64 squares, middlegame and endgame) is a weight of its own, fitted with
the other features' weights against the same self-play results.

Why a module of its own: the design matrix grows from 44 to 808 columns, about 13 GB
dense for the 1.6 million positions such a fit wants. But a position has at most 32
pieces, so a row has 40 dense columns (the features other than the tables, middlegame
and endgame) and at most 64 table entries (each piece's square, middlegame and
endgame), so the design is a sparse matrix (:func:`table_design`, built row by row in
numba), and the same least-squares fit and ridge prior as the feature fit
(:class:`engine.tune.fitting.RidgeFit`) run on it. The prior pulls each
entry towards the hand-made table, so a square the games rarely show a piece on keeps
its hand value.

The fitted tables are rounded to whole centipawns before they are stored: the
evaluation sums them as integers (:func:`engine.eval.features.chess_features`),
so every feature stays a whole number and searches stay bit-for-bit reproducible.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from numba import njit, prange
from scipy import sparse

from engine.core.bits import lsb, pop_lsb
from engine.core.state import KING, PAWN, WHITE_BB
from engine.eval.features import C_PST_EG, C_PST_MG, CHESS_FEATURES, MAX_PHASE, N_CHESS
from engine.eval.tables import hand_piece_square_tables
from engine.tune.fitting import (
    FOLDS,
    RidgeFit,
    column_spread,
    column_variance,
    feature_matrix,
    fit_k_to,
    quiet_rows,
    quiet_targets,
    sigmoid,
    weight_lines,
)

SQUARES = 64
TABLE = 6 * SQUARES  # one table's entries: piece type × square (White's view)
MAX_PIECES = 32
#: The design columns kept dense: every feature but the two table sums, middlegame then
#: endgame (the tables' entries replace those two).
DENSE_FEATURES = np.array([i for i in range(N_CHESS) if i not in (C_PST_MG, C_PST_EG)])
N_DENSE = 2 * len(DENSE_FEATURES)
N_PARAMS = N_DENSE + 2 * TABLE
TABLE_PRIORS = (0.1, 0.3, 1.0, 3.0, 10.0)  # prior strengths tried by cross-validation


@dataclass(frozen=True)
class TableRows:
    """The quiet positions of a self-play file in the sparse form the fit reads."""

    dense: np.ndarray  # (n, N_DENSE) the other features' design columns
    cols: np.ndarray  # (n, MAX_PIECES) each piece's entry: pt·64 + White-view square (-1: none)
    signs: np.ndarray  # (n, MAX_PIECES) +1 a White piece, -1 a Black one
    share: np.ndarray  # (n,) phase / 24: the middlegame table's share of an entry
    results: np.ndarray  # (n,) the game's result for White
    games: np.ndarray  # (n,) which game each row came from

    def subset(self, rows: np.ndarray) -> TableRows:
        return TableRows(
            self.dense[rows], self.cols[rows], self.signs[rows], self.share[rows],
            self.results[rows], self.games[rows],
        )  # fmt: skip


@njit(cache=True, nogil=True)
def _piece_entries(states: np.ndarray, cols: np.ndarray, signs: np.ndarray) -> None:
    for i in range(states.shape[0]):
        s = states[i]
        k = 0
        for color in range(2):
            own = s[WHITE_BB + color]
            flip = 0 if color == 0 else 56  # Black's squares mirrored, as the tables are read
            for pt in range(PAWN, KING + 1):
                b = s[pt] & own
                while b:
                    cols[i, k] = pt * SQUARES + (lsb(b) ^ flip)
                    signs[i, k] = 1.0 if color == 0 else -1.0
                    b = pop_lsb(b)
                    k += 1


def table_rows(fens: list[str], results: np.ndarray, games: np.ndarray) -> TableRows:
    """Rows of the fit for the positions ``fens`` (chess)."""
    features, phase, states = feature_matrix(fens, "chess", keep_states=True)
    share = phase / MAX_PHASE
    kept = features[:, DENSE_FEATURES]
    dense = np.hstack([kept * share[:, None], kept * (1.0 - share)[:, None]])
    cols = np.full((len(fens), MAX_PIECES), -1, dtype=np.int16)
    signs = np.zeros((len(fens), MAX_PIECES))
    _piece_entries(states, cols, signs)
    return TableRows(dense, cols, signs, share, results, games)


def start_params(
    w_mg: np.ndarray, w_eg: np.ndarray, tables: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """The parameter vector of the weights ``w_mg, w_eg`` with ``tables`` (default: the
    hand-made ones) scaled by their ``pst_mg`` / ``pst_eg`` weights: what those weights
    and tables evaluate to."""
    mg_table, eg_table = hand_piece_square_tables() if tables is None else tables
    tables_mg = w_mg[C_PST_MG] * mg_table + w_mg[C_PST_EG] * eg_table
    tables_eg = w_eg[C_PST_MG] * mg_table + w_eg[C_PST_EG] * eg_table
    return np.concatenate([
        w_mg[DENSE_FEATURES], w_eg[DENSE_FEATURES],
        tables_mg.ravel().astype(np.float64), tables_eg.ravel().astype(np.float64),
    ])  # fmt: skip


def split_params(params: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(w_mg, w_eg, table_mg, table_eg)`` of a parameter vector: the weights with
    ``pst_mg`` at (1, 0) and ``pst_eg`` at (0, 1), so the tables are read as they are,
    and the tables rounded to whole centipawns."""
    half = len(DENSE_FEATURES)
    w_mg, w_eg = np.zeros(N_CHESS), np.zeros(N_CHESS)
    w_mg[DENSE_FEATURES] = params[:half]
    w_eg[DENSE_FEATURES] = params[half:N_DENSE]
    w_mg[C_PST_MG], w_eg[C_PST_EG] = 1.0, 1.0
    table_mg = np.rint(params[N_DENSE : N_DENSE + TABLE]).astype(np.int64).reshape(6, SQUARES)
    table_eg = np.rint(params[N_DENSE + TABLE :]).astype(np.int64).reshape(6, SQUARES)
    return w_mg, w_eg, table_mg, table_eg


@njit(cache=True, nogil=True)
def _row_entries(
    dense: np.ndarray, cols: np.ndarray, signs: np.ndarray, share: float,
    index: np.ndarray, value: np.ndarray,
) -> int:  # fmt: skip
    """Row ``dense/cols/signs`` as (column, coefficient) pairs; return how many."""
    n = 0
    for j in range(dense.shape[0]):
        if dense[j] != 0.0:
            index[n] = j
            value[n] = dense[j]
            n += 1
    for k in range(cols.shape[0]):
        c = cols[k]
        if c < 0:
            break
        index[n] = N_DENSE + c
        value[n] = signs[k] * share
        index[n + 1] = N_DENSE + TABLE + c
        value[n + 1] = signs[k] * (1.0 - share)
        n += 2
    return n


@njit(cache=True, nogil=True, parallel=True)
def centipawns(
    params: np.ndarray, dense: np.ndarray, cols: np.ndarray, signs: np.ndarray, share: np.ndarray
) -> np.ndarray:
    """Every row's score for White in centipawns."""
    out = np.empty(dense.shape[0])
    for i in prange(dense.shape[0]):
        index = np.empty(N_DENSE + 2 * MAX_PIECES, dtype=np.int64)
        value = np.empty(N_DENSE + 2 * MAX_PIECES)
        n = _row_entries(dense[i], cols[i], signs[i], share[i], index, value)
        cp = 0.0
        for a in range(n):
            cp += params[index[a]] * value[a]
        out[i] = cp
    return out


@njit(cache=True, nogil=True)
def _design_entries(
    dense: np.ndarray, cols: np.ndarray, signs: np.ndarray, share: np.ndarray,
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
) -> None:  # fmt: skip
    index = np.empty(N_DENSE + 2 * MAX_PIECES, dtype=np.int64)
    value = np.empty(N_DENSE + 2 * MAX_PIECES)
    at = 0
    for i in range(dense.shape[0]):
        n = _row_entries(dense[i], cols[i], signs[i], share[i], index, value)
        for a in range(n):
            indices[at] = index[a]
            data[at] = value[a]
            at += 1
        indptr[i + 1] = at


def table_design(rows: TableRows) -> sparse.csr_matrix:
    """The fit's design matrix, sparse: ``table_design(rows) @ params`` is every row's
    score in centipawns (:func:`centipawns`). A column held twice in a row (a White and a
    Black piece on mirrored squares) holds the sum of the two."""
    entries = np.count_nonzero(rows.dense, axis=1) + 2 * np.count_nonzero(rows.cols >= 0, axis=1)
    indptr = np.zeros(len(entries) + 1, dtype=np.int64)
    indices = np.empty(int(entries.sum()), dtype=np.int64)
    data = np.empty(len(indices))
    _design_entries(rows.dense, rows.cols, rows.signs, rows.share, indptr, indices, data)
    design = sparse.csr_matrix((data, indices, indptr), shape=(len(entries), N_PARAMS))
    design.sum_duplicates()
    return design


@dataclass(frozen=True)
class TableFit:
    params: np.ndarray
    iterations: int
    loss: float


def fit_tables(rows: TableRows, k: float, start: np.ndarray, prior: float) -> TableFit:
    """Minimise the mean squared error plus the ridge prior towards ``start``.

    The feature weights' ridge is scaled by each column's spread, as in the feature fit.
    The table entries share one ridge, the mean of their columns' spreads: scaled entry
    by entry, a square a piece rarely stands on (a king on f7 in the middlegame) would
    get almost no pull towards its hand value and take whatever its few positions said
    (+343 cp in a first fit); shared, every entry carries the same belief in centipawns,
    and an entry moves far only where many positions ask it to."""
    design = table_design(rows)
    ridge = prior * column_spread(column_variance(design), k)
    ridge[N_DENSE:] = ridge[N_DENSE:].mean()
    params, iterations, loss = RidgeFit(design, rows.results, k, start, ridge).solve()
    return TableFit(params, iterations, loss)


def table_mse(rows: TableRows, params: np.ndarray, k: float) -> float:
    cp = centipawns(params, rows.dense, rows.cols, rows.signs, rows.share)
    return float(np.mean((sigmoid(cp, k) - rows.results) ** 2))


@dataclass(frozen=True)
class TablesFit:
    w_mg: np.ndarray
    w_eg: np.ndarray
    table_mg: np.ndarray
    table_eg: np.ndarray
    k: float
    prior: float
    games: int
    positions: int
    mse_start: float  # the starting weights and tables on every position
    mse_cv: float  # fits at the chosen prior on the games each did not see
    mse_fit: float  # the final fit, tables rounded, on every position
    digest: str
    cv_errors: dict[float, float]


def fit_chess_tables(
    path: Path, w_mg: np.ndarray, w_eg: np.ndarray, k: float | None = None,
    prior: float | None = None, tables: tuple[np.ndarray, np.ndarray] | None = None,
    blend: float = 0.0,
) -> TablesFit:  # fmt: skip
    """Fit the feature weights and both tables to a chess self-play file, starting from
    (and pulled towards) ``w_mg, w_eg`` with ``tables`` (default: the hand-made ones),
    against the target ``blend`` makes (:func:`engine.tune.fitting.quiet_targets`); ``K``
    and every error reported are reckoned against the games' results."""
    fens, results, games = quiet_rows(path)
    rows = table_rows(fens, results, games)
    aimed = rows if blend == 0.0 else replace(rows, results=quiet_targets(path, blend))
    start = start_params(w_mg, w_eg, tables)
    if k is None:
        k = fit_k_to(lambda kk: table_mse(rows, start, kk))
    errors: dict[float, float] = {}
    if prior is None:
        fold = rows.games % FOLDS
        for p in TABLE_PRIORS:
            squared = 0.0
            for f in range(FOLDS):
                train = fold != f
                fit = fit_tables(aimed.subset(np.flatnonzero(train)), k, start, p)
                left = rows.subset(np.flatnonzero(~train))
                squared += table_mse(left, fit.params, k) * len(left.results)
            errors[p] = squared / len(rows.results)
        prior = min(errors, key=lambda p: errors[p])
    fit = fit_tables(aimed, k, start, prior)
    fw_mg, fw_eg, table_mg, table_eg = split_params(fit.params)
    rounded = start_params(fw_mg, fw_eg)  # the stored weights as a parameter vector
    rounded[N_DENSE:] = np.concatenate([table_mg.ravel(), table_eg.ravel()])
    return TablesFit(
        fw_mg, fw_eg, table_mg, table_eg, k, prior,
        games=int(rows.games.max()) + 1, positions=len(rows.results),
        mse_start=table_mse(rows, start, k), mse_cv=errors.get(prior, float("nan")),
        mse_fit=table_mse(rows, rounded, k),
        digest=hashlib.sha256(path.read_bytes()).hexdigest()[:16], cv_errors=errors,
    )  # fmt: skip


def describe_tables(fit: TablesFit) -> str:
    """The fit's figures, its weights and, per piece type, how far its tables moved."""
    hand_mg, hand_eg = hand_piece_square_tables()
    lines = [
        f"chess with tables: {fit.positions} quiet positions from {fit.games} games, "
        f"K = {fit.k:.4f}, prior {fit.prior:g}; mean squared error: starting weights "
        f"{fit.mse_start:.5f}, fitted on left-out games {fit.mse_cv:.5f}, fitted (all "
        f"games, tables rounded) {fit.mse_fit:.5f}",
        *weight_lines(fit.cv_errors, CHESS_FEATURES, fit.w_mg, fit.w_eg),
    ]
    lines.append("  piece-square tables: mean |fitted − hand| (mg, eg), mean entry (mg, eg)")
    for pt, name in enumerate(("pawn", "knight", "bishop", "rook", "queen", "king")):
        squares = slice(8, 56) if pt == PAWN else slice(0, 64)
        move_mg = np.abs(fit.table_mg[pt, squares] - hand_mg[pt, squares]).mean()
        move_eg = np.abs(fit.table_eg[pt, squares] - hand_eg[pt, squares]).mean()
        lines.append(
            f"  {name:<8} {move_mg:6.1f} {move_eg:6.1f}   "
            f"{fit.table_mg[pt, squares].mean():7.1f} {fit.table_eg[pt, squares].mean():7.1f}"
        )
    return "\n".join(lines)
