"""A tiny seeded training run: the same seed gives the same weights, and a run stopped
after one generation and resumed ends where an uninterrupted run does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from engine.eval.learned_weights import ChessNetWeights, load_weights
from engine.learn import train as train_module
from engine.learn.train import TrainConfig, Trainer, TrainError, td_targets

TINY = {"games": 2, "gate_games": 2, "nodes": 60, "random_plies": 2, "iterations": 20}


def train(out: Path, generations: int, seed: int = 3) -> dict:
    config = TrainConfig(generations=generations, seed=seed, **TINY)
    return Trainer(config, out, threads=1, command="test").run()


def candidates(out: Path) -> list[np.ndarray]:
    return [load_weights(path).weights for path in sorted(out.glob("gen-*/candidate.npz"))]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("train")
    train(base / "a", 2)
    train(base / "b", 2)
    train(base / "c", 1)  # stopped after one generation …
    train(base / "c", 2)  # … and resumed
    return base / "a", base / "b", base / "c"


def test_same_seed_gives_the_same_weights(two_runs: tuple[Path, Path, Path]) -> None:
    a, b, _ = two_runs
    wa, wb = candidates(a), candidates(b)
    assert len(wa) == len(wb) == 2
    for x, y in zip(wa, wb, strict=True):
        assert np.array_equal(x, y)
    assert np.array_equal(
        np.load(a / "gen-002" / "games.npz")["states"],
        np.load(b / "gen-002" / "games.npz")["states"],
    )


def test_a_resumed_run_ends_where_an_uninterrupted_one_does(
    two_runs: tuple[Path, Path, Path],
) -> None:
    a, _, c = two_runs
    for x, y in zip(candidates(a), candidates(c), strict=True):
        assert np.array_equal(x, y)
    ja, jc = (json.loads((d / "train.json").read_text()) for d in (a, c))
    strip = ("seconds",)
    assert [{k: v for k, v in g.items() if k not in strip} for g in ja["generations"]] == [
        {k: v for k, v in g.items() if k not in strip} for g in jc["generations"]
    ]


def test_the_run_records_each_generation_and_its_gating(two_runs: tuple[Path, Path, Path]) -> None:
    a, _, _ = two_runs
    state = json.loads((a / "train.json").read_text())
    assert [g["number"] for g in state["generations"]] == [1, 2]
    first = state["generations"][0]
    assert first["opponent"] == "hand"
    assert first["gate_wins"] + first["gate_draws"] + first["gate_losses"] == 2
    assert state["best"] in ("hand", "gen-001", "gen-002")
    if state["best"] != "hand":
        best = load_weights(a / "best.npz")
        assert best.command == "test"
        # Every generation, kept or not, so the Learning view's curve has them all.
        assert [g["number"] for g in best.meta["generations"]] == [1, 2]


def test_a_different_seed_plays_different_games(
    two_runs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    a, _, _ = two_runs
    config = TrainConfig(generations=1, seed=4, **TINY)
    trainer = Trainer(config, tmp_path / "d", threads=1)
    trainer.out.mkdir()
    from engine.learn.train import Pool

    pool = Pool(1)
    try:
        trainer.self_play(1, pool)
    finally:
        pool.close()
    other = np.load(tmp_path / "d" / "gen-001" / "games.npz")["states"]
    mine = np.load(a / "gen-001" / "games.npz")["states"]
    assert other.shape != mine.shape or not np.array_equal(other, mine)


def test_resuming_with_other_settings_is_refused(two_runs: tuple[Path, Path, Path]) -> None:
    a, _, _ = two_runs
    config = TrainConfig(generations=3, seed=99, **TINY)
    with pytest.raises(TrainError, match=r"other settings \(seed\)"):
        Trainer(config, a, threads=1).run()


@pytest.fixture(scope="module")
def chess_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("train-chess")
    for name in ("a", "b"):
        config = TrainConfig(game="chess", generations=1, seed=5, hidden=4, **TINY)
        Trainer(config, base / name, threads=1, command="test").run()
    return base / "a", base / "b"


def test_same_seed_gives_the_same_chess_weights(chess_runs: tuple[Path, Path]) -> None:
    a, b = chess_runs
    wa, wb = (load_weights(d / "gen-001" / "candidate.npz", "chess") for d in (a, b))
    assert isinstance(wa, ChessNetWeights) and isinstance(wb, ChessNetWeights)
    for name in ("linear", "hidden", "bias", "out"):
        assert np.array_equal(getattr(wa, name), getattr(wb, name)), name
    assert wa.bias.shape == (4,)
    assert not np.array_equal(wa.out, np.zeros(4))  # the hidden layer learned something
    assert json.loads((a / "train.json").read_text())["settings"]["game"] == "chess"


def test_td_targets_bootstrap_from_the_following_searches_and_end_on_the_result() -> None:
    # One game, three moves: White to move, Black, White; White won (1.0).
    search = np.array([0.6, 0.3, 0.8])  # each for its own side to move
    turn = np.array([0, 1, 0])
    out = td_targets(search, turn, np.zeros(3, dtype=np.int64), np.array([1.0]), lam=0.5)
    white = [0.6, 0.7, 0.8]  # the same, from White's view
    g2 = 1.0
    g1 = 0.5 * white[2] + 0.5 * g2
    g0 = 0.5 * white[1] + 0.5 * g1
    assert out == pytest.approx([g0, 1.0 - g1, g2])


def test_td_with_lambda_one_is_the_result_alone() -> None:
    turn = np.array([0, 1, 0, 1])
    game_of = np.array([0, 0, 1, 1])
    out = td_targets(np.full(4, 0.9), turn, game_of, np.array([0.0, 0.5]), lam=1.0)
    assert out == pytest.approx([0.0, 1.0, 0.5, 0.5])


STATIC_CONFIG = TrainConfig(
    generations=1, seed=6, target="quiescence", lam=0.3, fit_linear=True,
    fit_contact=True, gate_algo="uct-minimax", gate_budget=40, **TINY,
)  # fmt: skip


@pytest.fixture(scope="module")
def static_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``--target quiescence --gate-algo uct-minimax``: the weights for unsettled leaves,
    gated with the algorithm they are for, twice from the same seed."""
    base = tmp_path_factory.mktemp("train-static")
    for name in ("a", "b"):
        Trainer(STATIC_CONFIG, base / name, threads=1, command="test").run()
    return base / "a", base / "b"


def test_static_leaf_training_is_reproducible_and_gated_with_its_algorithm(
    static_runs: tuple[Path, Path],
) -> None:
    a, b = static_runs
    wa, wb = (load_weights(d / "gen-001" / "candidate.npz") for d in (a, b))
    for name in ("linear", "weights", "contact"):
        assert np.array_equal(getattr(wa, name), getattr(wb, name)), name
    assert np.any(wa.contact != 0)  # the contact table learned
    ja, jb = (json.loads((d / "train.json").read_text()) for d in (a, b))
    assert ja["settings"]["gate_algo"] == "uct-minimax"
    assert ja["settings"]["gate_budget"] == 40
    strip = ("seconds",)
    assert [{k: v for k, v in g.items() if k not in strip} for g in ja["generations"]] == [
        {k: v for k, v in g.items() if k not in strip} for g in jb["generations"]
    ]
    # The positions fitted are more than the games' leaves: their children too.
    leaves = len(np.load(a / "gen-001" / "games.npz")["states"])
    assert wa.meta["positions"] > leaves / 3


def test_scored_leaves_are_kept_and_an_unreadable_copy_is_scored_again(
    static_runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = static_runs
    kept = a / "gen-001" / "static.npz"
    assert kept.exists()
    fresh = Trainer(STATIC_CONFIG, a, threads=1, command="test").training_data(1)
    copy = tmp_path / "run"
    shutil.copytree(a, copy)
    (copy / "gen-001" / "static.npz").write_bytes(b"not an npz")
    rescored = Trainer(STATIC_CONFIG, copy, threads=1, command="test").training_data(1)
    for want, got in zip(fresh, rescored, strict=True):
        assert np.array_equal(want, got)
    # … and written back whole: the next read scores nothing.
    monkeypatch.setattr(train_module, "static_positions", _no_scoring)
    again = Trainer(STATIC_CONFIG, copy, threads=1, command="test").training_data(1)
    for want, got in zip(fresh, again, strict=True):
        assert np.array_equal(want, got)
    # A truncated archive (not a plain ValueError to numpy) is scored again too.
    monkeypatch.undo()
    whole = kept.read_bytes()
    (copy / "gen-001" / "static.npz").write_bytes(whole[: len(whole) // 2])
    truncated = Trainer(STATIC_CONFIG, copy, threads=1, command="test").training_data(1)
    for want, got in zip(fresh, truncated, strict=True):
        assert np.array_equal(want, got)


def _no_scoring(*_args: object) -> None:
    raise AssertionError("the kept scores were not read")


def test_runs_from_before_the_gating_algorithm_existed_still_resume() -> None:
    fixed = TrainConfig(**TINY).fixed()
    assert "gate_algo" not in fixed and "gate_budget" not in fixed
    other = TrainConfig(gate_algo="bfms", **TINY).fixed()
    assert other["gate_algo"] == "bfms"
