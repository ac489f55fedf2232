"""Texel's method: fit the evaluation's weights to the results of self-play games.

The evaluation is linear in its weights (:mod:`engine.eval.features`), so a
position's predicted score for White is ``sigmoid(K · X w)`` with

    X = [f · phase / 24, f · (24 − phase) / 24]      (middlegame | endgame columns)
    sigmoid(cp) = 1 / (1 + 10 ** (−cp / 400))

and the fit minimises the mean squared error between that prediction and the game's
result (1, ½, 0 for White), as Peter Österlund described for Texel (2014). ``K``
scales centipawns to expected score and is fitted first, with the starting weights,
then held fixed (otherwise ``K`` and the weights' overall scale trade off against each
other). The weights are then fitted as a nonlinear least-squares problem
(``scipy.optimize.least_squares``, :class:`engine.tune.fitting.RidgeFit`), with a weak
ridge prior pulling each weight towards its hand-set value in proportion to its
feature's spread, so a feature the games rarely show keeps a sane weight instead of a
wild one. Every step works on full batches, so the same data give the same weights.

Only quiet positions are used (not in check, the move played neither captured nor
promoted, the move before it did not capture): a static evaluation cannot see a
capture that is about to happen, and Texel's method assumes it does not have to.

A few thousand games are a small sample for a few dozen weights, and positions of
one game are far from independent, so the prior's strength is chosen by 5-fold
cross-validation **by game** (each fold leaves out every fifth game): the strength
whose fits predict the left-out games best wins, and the out-of-fold error is the
honest figure of what the fit gained over the hand-set weights.

The whole pipeline, from nothing to ``engine/data/eval/weights.npz``, is
``scripts/fit_evaluation.sh`` (self-play with the hand-set weights, then this fit)::

    python -m engine.tune.texel --chess chess.tsv.gz --knight knight.tsv.gz \\
        --out engine/data/eval/weights.npz

With ``--tables`` the chess fit also fits every entry of the two piece-square tables
(:mod:`engine.tune.texel_tables`); the shipped chess weights were made so (b970ae4).
``--start FILE`` starts the fit from (and pulls it towards) a weights file instead of the
hand-set weights, so new games refine a fit rather than replace it; ``--blend L`` aims the
weights at ``(1 − L)·result + L·search``, the self-play search's own score of each position
mixed in (:func:`engine.tune.fitting.quiet_targets`; tried with ab3a19c, not adopted).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.eval.features import MAX_PHASE
from engine.eval.names import FEATURES
from engine.eval.weights import (
    DEFAULT_PATH,
    EvalWeights,
    EvalWeightsError,
    hand_weights,
    load_weights,
    save_weights,
)
from engine.tune.fitting import (
    FOLDS,
    RidgeFit,
    column_spread,
    feature_matrix,
    fit_k_to,
    quiet_rows,
    quiet_targets,
    sigmoid,
    weight_lines,
)
from engine.tune.texel_tables import describe_tables, fit_chess_tables

PRIORS = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)  # prior strengths tried by cross-validation


def design_matrix(features: np.ndarray, phase: np.ndarray) -> np.ndarray:
    """``[f·phase/24 | f·(24−phase)/24]``: the evaluation is ``design @ [w_mg, w_eg]``."""
    mg = (phase / MAX_PHASE)[:, None]
    return np.hstack([features * mg, features * (1.0 - mg)])


def predict(x: np.ndarray, w: np.ndarray, k: float, offset: np.ndarray | float = 0.0) -> np.ndarray:
    """Expected score for White of each row of the design matrix ``x`` (plus ``offset``
    centipawns a row: the part of the evaluation held fixed, :mod:`engine.tune.texel_added`)."""
    return sigmoid(x @ w + offset, k)


def mse(
    x: np.ndarray, results: np.ndarray, w: np.ndarray, k: float, offset: np.ndarray | float = 0.0
) -> float:
    return float(np.mean((predict(x, w, k, offset) - results) ** 2))


def fit_k(x: np.ndarray, results: np.ndarray, w: np.ndarray) -> float:
    """The ``K`` minimising the error for fixed weights."""
    return fit_k_to(lambda k: mse(x, results, w, k))


@dataclass(frozen=True)
class Fit:
    weights: np.ndarray
    k: float
    iterations: int
    loss: float  # training error plus the prior's penalty


def fit_weights(
    x: np.ndarray,
    results: np.ndarray,
    k: float,
    start: np.ndarray,
    prior: float = 0.01,
    max_iterations: int = 200,
    tolerance: float = 1e-12,
    offset: np.ndarray | float = 0.0,
) -> Fit:
    """Minimise ``mean((sigmoid(K·x w) − results)²) + ridge`` (least squares,
    :class:`engine.tune.fitting.RidgeFit`).

    The ridge term pulls each weight towards ``start`` with strength ``prior`` times the
    curvature one average position gives along that feature's spread, so ``prior`` is
    roughly "how many positions' worth of belief the starting weights carry, per
    position" and does not depend on the features' units. ``offset`` is a fixed
    centipawn term a row, added before the sigmoid (the weights held where they are).
    """
    ridge = prior * column_spread(x.var(axis=0), k)
    w, iterations, loss = RidgeFit(x, results, k, start, ridge, offset).solve(
        max_iterations, tolerance
    )
    return Fit(w, k, iterations, loss)


def choose_prior(
    x: np.ndarray,
    results: np.ndarray,
    games: np.ndarray,
    k: float,
    start: np.ndarray,
    offset: np.ndarray | float = 0.0,
    scored: np.ndarray | None = None,
) -> tuple[float, dict[float, float]]:
    """The prior strength whose fits (to ``results``) best predict left-out games (their
    ``scored`` values, by default ``results`` too), and each one's error."""
    truth = results if scored is None else scored
    fold = games % FOLDS
    off = np.broadcast_to(np.asarray(offset, dtype=np.float64), results.shape)
    errors: dict[float, float] = {}
    for prior in PRIORS:
        squared = 0.0
        for f in range(FOLDS):
            train = fold != f
            w = fit_weights(
                x[train], results[train], k, start, prior=prior, offset=off[train]
            ).weights
            left = predict(x[~train], w, k, off[~train]) - truth[~train]
            squared += float(np.sum(left**2))
        errors[prior] = squared / len(results)
    return min(errors, key=lambda p: errors[p]), errors


@dataclass(frozen=True)
class GameFit:
    game: str
    w_mg: np.ndarray
    w_eg: np.ndarray
    k: float
    prior: float
    games: int
    positions: int
    mse_hand: float  # the starting weights (hand-set unless --start) on every position
    mse_cv: float  # fits at the chosen prior on the games each did not see (nan: prior given)
    mse_fit: float  # the final fit on every position
    digest: str
    cv_errors: dict[float, float]  # left-out error per prior strength tried


def fit_game(
    path: Path, game: str, prior: float | None, base: EvalWeights | None = None,
    blend: float = 0.0,
) -> GameFit:  # fmt: skip
    """Fit one game's weights to the quiet positions of a self-play file, from (and
    pulled towards) ``base`` (default: the hand-set weights), against the target
    ``blend`` makes (:func:`engine.tune.fitting.quiet_targets`); ``K`` and every error
    reported are reckoned against the games' results."""
    fens, r, games = quiet_rows(path)
    aimed = r if blend == 0.0 else quiet_targets(path, blend)
    features, phase = feature_matrix(fens, game)
    x = design_matrix(features, phase)
    mg, eg = (hand_weights() if base is None else base).for_game(game)
    start = np.concatenate([mg, eg])
    k = fit_k(x, r, start)
    cv = float("nan")
    errors: dict[float, float] = {}
    if prior is None:
        prior, errors = choose_prior(x, aimed, games, k, start, scored=r)
        cv = errors[prior]
    fit = fit_weights(x, aimed, k, start, prior=prior)
    width = len(mg)
    return GameFit(
        game=game,
        w_mg=fit.weights[:width],
        w_eg=fit.weights[width:],
        k=k,
        prior=prior,
        games=int(games.max()) + 1,
        positions=len(r),
        mse_hand=mse(x, r, start, k),
        mse_cv=cv,
        mse_fit=mse(x, r, fit.weights, k),
        digest=hashlib.sha256(path.read_bytes()).hexdigest()[:16],
        cv_errors=errors,
    )


def describe(fit: GameFit) -> str:
    names = FEATURES[fit.game]
    lines = [
        f"{fit.game}: {fit.positions} quiet positions from {fit.games} games, K = {fit.k:.4f}, "
        f"prior {fit.prior:g}; mean squared error: starting weights {fit.mse_hand:.5f}, "
        f"fitted on left-out games {fit.mse_cv:.5f}, fitted (all games) {fit.mse_fit:.5f}",
        *weight_lines(fit.cv_errors, names, fit.w_mg, fit.w_eg),
    ]
    return "\n".join(lines)


def fit_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The arguments every fitting command takes (this one and
    :mod:`engine.tune.texel_added`): the self-play files, the prior and the output."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--chess", type=Path, help="self-play file for chess")
    parser.add_argument("--knight", type=Path, help="self-play file for knight chess")
    parser.add_argument(
        "--prior", type=float, help="pull towards the hand weights (default: cross-validated)"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_PATH)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = fit_parser(
        "python -m engine.tune.texel",
        "fit the evaluation's weights to self-play results (Texel's method)",
    )
    parser.add_argument(
        "--tables",
        action="store_true",
        help="chess: fit the piece-square tables entry by entry too (engine.tune.texel_tables)",
    )
    parser.add_argument(
        "--hand", action="store_true", help="write the hand-set weights (no fit) and stop"
    )
    parser.add_argument(
        "--start", type=Path,
        help="a weights file to start from and pull towards (default: the hand-set weights)",
    )  # fmt: skip
    parser.add_argument(
        "--blend", type=float, default=0.0,
        help="share of the target taken from the self-play search's score of each position "
        "(0: the game's result alone, Texel's method)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.hand:
        save_weights(args.out, hand_weights())
        print(f"hand-set weights -> {args.out}")
        return 0
    if args.chess is None and args.knight is None:
        parser.error("give --chess and/or --knight self-play files (or --hand)")
    if args.prior is not None and args.prior < 0:
        parser.error(f"--prior must be >= 0, got {args.prior}")
    if not 0.0 <= args.blend <= 1.0:
        parser.error(f"--blend must be in [0, 1], got {args.blend:g}")
    if args.tables and args.chess is None:
        parser.error("--tables fits chess's tables: give --chess")
    base, kept = hand_weights(), "hand-set"  # where the fit starts, and what it keeps
    if args.start is not None:
        try:
            base, kept = load_weights(args.start), f"as in {args.start.name}"
        except EvalWeightsError as e:
            parser.error(f"--start: {e}")
    weights = {"chess": (base.chess_mg, base.chess_eg), "knight": (base.knight_mg, base.knight_eg)}
    tables = base.chess_tables
    target = f", target {1 - args.blend:g} result + {args.blend:g} search" if args.blend else ""
    notes = []
    for game, path in (("chess", args.chess), ("knight", args.knight)):
        if path is None:
            notes.append(f"{game}: {kept}")
            continue
        if game == "chess" and args.tables:
            table_fit = fit_chess_tables(
                path, base.chess_mg, base.chess_eg, prior=args.prior,
                tables=base.chess_tables, blend=args.blend,
            )  # fmt: skip
            print(describe_tables(table_fit))
            weights[game] = (table_fit.w_mg, table_fit.w_eg)
            tables = (table_fit.table_mg, table_fit.table_eg)
            notes.append(
                f"chess: fitted with its piece-square tables on {path.name} (sha256 "
                f"{table_fit.digest}), {table_fit.games} games, {table_fit.positions} "
                f"positions{target}, K {table_fit.k:.4f}, prior {table_fit.prior:g}, MSE start "
                f"{table_fit.mse_start:.5f}, left-out games {table_fit.mse_cv:.5f}"
            )
            continue
        fit = fit_game(path, game, args.prior, base, args.blend)
        print(describe(fit))
        weights[game] = (fit.w_mg, fit.w_eg)
        notes.append(
            f"{game}: fitted on {path.name} (sha256 {fit.digest}), {fit.games} games, "
            f"{fit.positions} positions{target}, K {fit.k:.4f}, prior {fit.prior:g}, MSE start "
            f"{fit.mse_hand:.5f}, left-out games {fit.mse_cv:.5f}"
        )
    source = (
        "python -m engine.tune.texel "
        + " ".join(f"--{g} {p.name}" for g, p in (("chess", args.chess), ("knight", args.knight))
                   if p is not None)
        + (" --tables" if args.tables else "")
        + (f" --start {args.start.name}" if args.start is not None else "")
        + (f" --blend {args.blend:g}" if args.blend else "")
        + (f" --prior {args.prior:g}" if args.prior is not None else "")
        + "; "
        + "; ".join(notes)
    )  # fmt: skip
    save_weights(
        args.out,
        EvalWeights(*weights["chess"], *weights["knight"], source=source, chess_tables=tables),
    )
    print(f"weights -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
