"""Fit the weights of a few features alone, every other weight and both tables held fixed.

Why: the shipped chess weights were fitted, tables and all, on 1.25 million positions
(b970ae4). A feature added later is best judged by what *it* adds: refitting
everything on another, smaller sample would change forty-odd weights and 768 table
entries at once, and a match could not tell the new feature from the refit (the threat
features of d893111 were measured that way, and reverted in 965aea9). Here the shipped
evaluation is a fixed centipawn offset a position, and Texel's regression
(:mod:`engine.tune.texel`) fits only the named features' middlegame and endgame weights on
top of it, from their hand-set values and pulled towards them by the cross-validated prior::

    python -m engine.tune.texel_added --chess chess-s53.tsv.gz --only NAME[,NAME...]

Three new features were fitted so (``king_attack``, ``low_mobility``, ``pinned``,
commits ``60fa862``, ``a9b9df9``); they did not play better and were reverted in ``3878def``
(docs/algorithms.md).

The kernels read their tables from the shipped file, so the offset is exactly the
shipped evaluation and ``K`` is fitted to it.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.eval.names import FEATURES
from engine.eval.weights import (
    EvalWeights,
    hand_weights,
    save_weights,
    shipped_weights,
)
from engine.tune.fitting import feature_matrix, fit_k_to, quiet_rows, weight_lines
from engine.tune.texel import choose_prior, design_matrix, fit_parser, fit_weights, mse


@dataclass(frozen=True)
class AddedFit:
    game: str
    names: tuple[str, ...]  # the features fitted
    w_mg: np.ndarray  # every feature's weights: the base's, the fitted ones replaced
    w_eg: np.ndarray
    k: float
    prior: float
    games: int
    positions: int
    mse_base: float  # the base weights (the named features at theirs) on every position
    mse_cv: float  # fits at the chosen prior on the games each did not see (nan: prior given)
    mse_fit: float
    digest: str
    cv_errors: dict[float, float]


def feature_columns(game: str, names: tuple[str, ...]) -> np.ndarray:
    """The design matrix's columns of ``names`` (middlegame, then endgame)."""
    all_names = FEATURES[game]
    unknown = [n for n in names if n not in all_names]
    if unknown or not names:
        what = f"unknown {game} features {unknown}" if unknown else f"no {game} feature named"
        raise ValueError(f"{what}; known: {list(all_names)}")
    idx = [all_names.index(n) for n in names]
    return np.array(idx + [len(all_names) + i for i in idx])


def fit_added(
    path: Path, game: str, names: tuple[str, ...], base: EvalWeights, prior: float | None
) -> AddedFit:
    """Fit ``names``' weights on ``path``'s quiet positions, the rest held at ``base``.

    ``base`` is meant to be the shipped weights: the kernels' piece-square features sum
    the shipped file's tables, so only then is the offset the evaluation the engine plays."""
    fens, r, games = quiet_rows(path)
    features, phase = feature_matrix(fens, game)
    x = design_matrix(features, phase)
    w_base = np.concatenate(base.for_game(game))
    free = feature_columns(game, names)
    held = np.ones(len(w_base), dtype=bool)
    held[free] = False
    offset = x[:, held] @ w_base[held]
    xf = x[:, free]
    hand = np.concatenate(hand_weights().for_game(game))
    start = hand[free]
    k = fit_k_to(lambda kk: mse(x, r, w_base, kk))
    cv = float("nan")
    errors: dict[float, float] = {}
    if prior is None:
        prior, errors = choose_prior(xf, r, games, k, start, offset)
        cv = errors[prior]
    fit = fit_weights(xf, r, k, start, prior=prior, offset=offset)
    w = w_base.copy()
    w[free] = fit.weights
    width = len(w) // 2
    return AddedFit(
        game, names, w[:width], w[width:], k, prior,
        games=int(games.max()) + 1, positions=len(r),
        mse_base=mse(x, r, w_base, k), mse_cv=cv, mse_fit=mse(x, r, w, k),
        digest=hashlib.sha256(path.read_bytes()).hexdigest()[:16], cv_errors=errors,
    )  # fmt: skip


def describe_added(fit: AddedFit) -> str:
    idx = [FEATURES[fit.game].index(n) for n in fit.names]
    return "\n".join([
        f"{fit.game}: {', '.join(fit.names)} fitted alone on {fit.positions} quiet positions "
        f"from {fit.games} games, the rest held; K = {fit.k:.4f}, prior {fit.prior:g}; mean "
        f"squared error: held weights {fit.mse_base:.5f}, fitted on left-out games "
        f"{fit.mse_cv:.5f}, fitted (all games) {fit.mse_fit:.5f}",
        *weight_lines(fit.cv_errors, fit.names, fit.w_mg[idx], fit.w_eg[idx]),
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = fit_parser(
        "python -m engine.tune.texel_added",
        "fit a few features' weights, the shipped weights and tables held fixed",
    )
    parser.add_argument("--only", required=True, help="comma-separated feature names to fit")
    args = parser.parse_args(argv)
    given = [(g, p) for g, p in (("chess", args.chess), ("knight", args.knight)) if p]
    if len(given) != 1:
        parser.error("give exactly one of --chess and --knight")
    if args.prior is not None and args.prior < 0:
        parser.error(f"--prior must be >= 0, got {args.prior}")
    game, path = given[0]
    names = tuple(dict.fromkeys(n.strip() for n in args.only.split(",") if n.strip()))
    try:
        feature_columns(game, names)
    except ValueError as e:
        parser.error(str(e))
    base = shipped_weights()
    fit = fit_added(path, game, names, base, args.prior)
    print(describe_added(fit))
    mg, eg = fit.w_mg, fit.w_eg
    chess = (mg, eg) if game == "chess" else (base.chess_mg, base.chess_eg)
    knight = (mg, eg) if game == "knight" else (base.knight_mg, base.knight_eg)
    source = (
        f"python -m engine.tune.texel_added --{game} {path.name} --only {','.join(names)}"
        + (f" --prior {args.prior:g}" if args.prior is not None else "")
        + f"; {game}: {', '.join(names)} fitted on {path.name} (sha256 {fit.digest}), "
        f"{fit.games} games, {fit.positions} positions, K {fit.k:.4f}, prior {fit.prior:g}, "
        f"MSE held {fit.mse_base:.5f}, left-out games {fit.mse_cv:.5f}, the rest held at: "
        + base.source
    )
    save_weights(
        args.out, EvalWeights(*chess, *knight, source=source, chess_tables=base.chess_tables)
    )
    print(f"weights -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
