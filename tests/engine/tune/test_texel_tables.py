"""The piece-square-table fit: its sparse rows score as the evaluation does, its least-squares
terms are its error and their derivatives, and on games drawn from a known table it finds it."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import numpy as np
import pytest

from engine.eval.features import C_PST_EG, C_PST_MG, N_CHESS, PST_EG, PST_MG
from engine.eval.tables import hand_piece_square_tables
from engine.eval.weights import (
    EvalWeights,
    hand_weights,
    load_weights,
    save_weights,
    shipped_weights,
)
from engine.tune.fitting import RidgeFit, feature_matrix, sigmoid
from engine.tune.selfplay import SelfPlayConfig, play_games, write_games
from engine.tune.texel import design_matrix
from engine.tune.texel import main as texel_main
from engine.tune.texel_tables import (
    N_DENSE,
    N_PARAMS,
    TABLE,
    centipawns,
    fit_tables,
    split_params,
    start_params,
    table_design,
    table_mse,
    table_rows,
)

E2 = 12  # White's view: a pawn on e2 (and a Black one on e7)


def random_fens(n: int, seed: int) -> list[str]:
    """Positions from seeded random games: every piece type on many squares."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < n:
        board = chess.Board()
        for _ in range(rng.randrange(4, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            fens.append(board.fen())
    return fens


@pytest.fixture(scope="module")
def fens() -> list[str]:
    return random_fens(3000, seed=11)


def rows_of(fens: list[str], results: np.ndarray | None = None):
    results = np.full(len(fens), 0.5) if results is None else results
    return table_rows(fens, results, np.arange(len(fens)) // 30)


def test_sparse_rows_score_as_the_dense_design_with_the_shipped_tables(fens: list[str]) -> None:
    """The feature kernel sums the shipped tables; the sparse rows given those tables and
    weights score every position as the dense design does."""
    shipped = shipped_weights()
    rows = rows_of(fens)
    features, phase = feature_matrix(fens, "chess")
    dense = design_matrix(features, phase) @ np.concatenate([shipped.chess_mg, shipped.chess_eg])
    start = start_params(shipped.chess_mg, shipped.chess_eg, shipped.chess_tables)
    sparse = centipawns(start, rows.dense, rows.cols, rows.signs, rows.share)
    assert sparse == pytest.approx(dense, abs=1e-6)


def test_stored_tables_score_as_the_parameters_that_made_them(fens: list[str]) -> None:
    """A parameter vector with whole-number tables, split into weights and tables, gives
    the evaluation those parameters give (the split reads the tables at weight 1)."""
    hand = hand_weights()
    params = start_params(hand.chess_mg, hand.chess_eg)
    rng = np.random.default_rng(2)
    params[N_DENSE:] += rng.integers(-30, 31, size=2 * TABLE)
    w_mg, w_eg, table_mg, table_eg = split_params(params)
    assert (w_mg[C_PST_MG], w_mg[C_PST_EG], w_eg[C_PST_MG], w_eg[C_PST_EG]) == (1, 0, 0, 1)
    again = start_params(w_mg, w_eg)
    again[N_DENSE:] = np.concatenate([table_mg.ravel(), table_eg.ravel()])
    assert np.array_equal(again, params)


def test_the_least_squares_terms_are_the_error_and_its_derivatives(fens: list[str]) -> None:
    rng = np.random.default_rng(3)
    results = rng.choice([0.0, 0.5, 1.0], size=400)
    rows = rows_of(fens[:400], results)
    hand = hand_weights()
    start = start_params(hand.chess_mg, hand.chess_eg)
    params = start + rng.normal(0, 5, N_PARAMS)
    k = 0.8
    design = table_design(rows)
    cp = centipawns(params, rows.dense, rows.cols, rows.signs, rows.share)
    assert design @ params == pytest.approx(cp, abs=1e-9)
    ridge = rng.uniform(0.0, 1e-6, N_PARAMS)
    fit = RidgeFit(design, results, k, start, ridge)
    residuals, jacobian = fit.residuals, fit.jacobian
    # The sum of the squared residuals is the mean squared error plus the prior's penalty.
    r = residuals(params)
    prior = float(np.sum(ridge * (params - start) ** 2))
    assert r @ r == pytest.approx(table_mse(rows, params, k) + prior, rel=1e-12)
    # The Jacobian, column by column, by central differences.
    jac = jacobian(params)
    for j in (0, N_DENSE - 1, N_DENSE + 64 + 18, N_DENSE + TABLE + 5 * 64 + 6, N_DENSE + E2):
        step = np.zeros(N_PARAMS)
        step[j] = 1e-3
        slope = (residuals(params + step) - residuals(params - step)) / 2e-3
        assert jac[:, [j]].toarray().ravel() == pytest.approx(slope, rel=1e-5, abs=1e-12)
    # The design built densely from the same rows.
    dense = np.zeros((len(results), N_PARAMS))
    for i in range(len(results)):
        dense[i, :N_DENSE] = rows.dense[i]
        for c, s in zip(rows.cols[i], rows.signs[i], strict=True):
            if c >= 0:
                dense[i, N_DENSE + c] += s * rows.share[i]
                dense[i, N_DENSE + TABLE + c] += s * (1 - rows.share[i])
    assert design.toarray() == pytest.approx(dense, abs=1e-12)


def test_fit_finds_a_table_entry_planted_in_the_games(fens: list[str]) -> None:
    """Results drawn from an evaluation whose pawn on e2 is worth 150 cp less: the fit,
    started from the hand tables, moves that entry down and leaves the game's scale."""
    hand = hand_weights()
    start = start_params(hand.chess_mg, hand.chess_eg)
    truth = start.copy()
    truth[N_DENSE + E2] -= 150
    truth[N_DENSE + TABLE + E2] -= 150
    rows = rows_of(fens)
    rng = np.random.default_rng(4)
    draws = []
    for _ in range(6):  # each position six times, for enough results
        p = sigmoid(centipawns(truth, rows.dense, rows.cols, rows.signs, rows.share), 1.0)
        draws.append((rng.uniform(size=len(p)) < p).astype(float))
    many = rows.subset(np.tile(np.arange(len(fens)), 6))
    many = type(many)(many.dense, many.cols, many.signs, many.share, np.concatenate(draws),
                      many.games)  # fmt: skip
    fit = fit_tables(many, 1.0, start, prior=0.1)
    moved = fit.params[N_DENSE + E2] - start[N_DENSE + E2]
    moved_eg = fit.params[N_DENSE + TABLE + E2] - start[N_DENSE + TABLE + E2]
    assert moved + moved_eg < -150  # together (the phase splits the entry between them)
    assert table_mse(many, fit.params, 1.0) < table_mse(many, start, 1.0)


def test_weights_file_keeps_the_tables_and_the_evaluation_reads_them(tmp_path: Path) -> None:
    hand = hand_weights()
    table_mg, table_eg = hand_piece_square_tables()
    table_mg = table_mg.copy()
    table_mg[1, 27] += 40  # a knight on d4
    path = tmp_path / "w.npz"
    save_weights(path, EvalWeights(hand.chess_mg, hand.chess_eg, hand.knight_mg,
                                   hand.knight_eg, chess_tables=(table_mg, table_eg)))  # fmt: skip
    back = load_weights(path)
    assert np.array_equal(back.chess_tables[0], table_mg)
    assert np.array_equal(back.chess_tables[1], table_eg)


def test_shipped_tables_are_what_the_evaluation_sums() -> None:
    """The feature kernel sums the shipped file's tables, square by square."""
    assert np.array_equal(PST_MG, shipped_weights().chess_tables[0])
    assert np.array_equal(PST_EG, shipped_weights().chess_tables[1])
    features, _ = feature_matrix(["4k3/8/8/8/3N4/8/8/4K3 w - - 0 1"], "chess")
    assert features[0, C_PST_MG] == PST_MG[1, 27] + PST_MG[5, 4] - PST_MG[5, 4]
    assert features[0].shape == (N_CHESS,)


def test_texel_command_fits_and_stores_the_tables(tmp_path: Path) -> None:
    """``python -m engine.tune.texel --chess F --tables`` writes a weights file whose
    tables are whole numbers that the loader accepts and whose source says how."""
    config = SelfPlayConfig(game="chess", games=12, seed=3, nodes=150)
    games = tmp_path / "games.tsv.gz"
    write_games(games, config, play_games(config), "test")
    out = tmp_path / "w.npz"
    assert texel_main(["--chess", str(games), "--tables", "--prior", "3", "--out", str(out)]) == 0
    w = load_weights(out)
    assert "--tables" in w.source and "piece-square tables" in w.source
    assert w.chess_tables[0].dtype == np.int64 and w.chess_tables[0].shape == (6, 64)
    assert (w.chess_mg[C_PST_MG], w.chess_eg[C_PST_EG]) == (1.0, 1.0)
    with pytest.raises(SystemExit):
        texel_main(["--knight", str(games), "--tables", "--out", str(out)])
