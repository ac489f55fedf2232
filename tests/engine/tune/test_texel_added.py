"""Fitting a few features alone: the rest of the evaluation is a fixed offset, the named
weights are found on top of it, and the command changes nothing else in the file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.eval.names import CHESS_FEATURES, N_CHESS
from engine.eval.weights import load_weights, shipped_weights
from engine.tune.selfplay import SelfPlayConfig, play_games, write_games
from engine.tune.texel import choose_prior, fit_weights
from engine.tune.texel_added import feature_columns
from engine.tune.texel_added import main as added_main
from tests.engine.tune.test_texel import TRUE, synthetic

HELD = np.array([0, 3])  # the first feature's middlegame and endgame columns
FREE = np.array([1, 2, 4, 5])


def test_with_the_rest_as_an_offset_the_free_weights_are_recovered() -> None:
    x, results = synthetic(1.0, TRUE, 40_000, seed=13)
    offset = x[:, HELD] @ TRUE[HELD]
    fit = fit_weights(x[:, FREE], results, 1.0, np.zeros(len(FREE)), prior=0.0, offset=offset)
    assert fit.weights == pytest.approx(TRUE[FREE], rel=0.1, abs=1.0)
    # Without the offset the same columns must stand in for the missing feature and miss.
    blind = fit_weights(x[:, FREE], results, 1.0, np.zeros(len(FREE)), prior=0.0).weights
    assert np.abs(blind - TRUE[FREE]).max() > np.abs(fit.weights - TRUE[FREE]).max()


def test_cross_validation_scores_the_folds_with_their_offsets() -> None:
    x, results = synthetic(1.0, TRUE, 10_000, seed=14)
    games = np.arange(len(results)) // 50
    start = np.zeros(len(FREE))
    offset = x[:, HELD] @ TRUE[HELD]
    _, with_offset = choose_prior(x[:, FREE], results, games, 1.0, start, offset)
    _, without = choose_prior(x[:, FREE], results, games, 1.0, start)
    assert all(with_offset[p] < without[p] for p in with_offset)


def test_feature_columns_are_the_middlegame_and_endgame_ones() -> None:
    i = CHESS_FEATURES.index("bishop_pair")
    assert feature_columns("chess", ("bishop_pair",)).tolist() == [i, N_CHESS + i]
    with pytest.raises(ValueError, match="unknown chess features"):
        feature_columns("chess", ("bishop_pairs",))
    with pytest.raises(ValueError, match="no knight feature named"):
        feature_columns("knight", ())


def test_the_command_fits_the_named_weights_and_keeps_the_rest(tmp_path: Path) -> None:
    config = SelfPlayConfig(game="chess", games=12, seed=3, nodes=150)
    games = tmp_path / "games.tsv.gz"
    write_games(games, config, play_games(config), "test")
    out = tmp_path / "w.npz"
    argv = ["--chess", str(games), "--only", "bishop_pair,tempo", "--prior", "1"]
    assert added_main([*argv, "--out", str(out)]) == 0
    w, base = load_weights(out), shipped_weights()
    named = feature_columns("chess", ("bishop_pair", "tempo"))
    fitted = np.concatenate([w.chess_mg, w.chess_eg])
    held = np.concatenate([base.chess_mg, base.chess_eg])
    rest = np.ones(len(held), dtype=bool)
    rest[named] = False
    assert np.array_equal(fitted[rest], held[rest])
    assert not np.array_equal(fitted[named], held[named])
    assert np.array_equal(w.chess_tables[0], base.chess_tables[0])
    assert np.array_equal(w.knight_mg, base.knight_mg)
    assert "--only bishop_pair,tempo" in w.source and base.source in w.source
    for bad in (["--chess", str(games), "--only", "bishop_pairs"],
                ["--chess", str(games), "--knight", str(games), "--only", "tempo"]):  # fmt: skip
        with pytest.raises(SystemExit):
            added_main([*bad, "--out", str(out)])
