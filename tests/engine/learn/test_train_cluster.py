"""``canopy train --scheduler``: a Dask cluster plays the same games as the local pool, and
a cluster that cannot be used is one line on stderr, exit status 2, and nothing written.

Dask is an optional extra; ``make test`` installs it, so in CI (``CI`` set) these tests
fail rather than skip when it is missing.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

if not os.environ.get("CI"):
    pytest.importorskip("distributed", reason="the optional extra canopy[cluster]")

from canopy.cli import main
from engine.eval.learned_weights import load_weights
from engine.learn import cluster
from engine.learn.players import GameTask, Searcher
from engine.learn.train import TrainConfig, Trainer

# The tiny run of test_train_reproducible (same seed and command, so its numba caches serve).
TINY = {"games": 2, "gate_games": 2, "nodes": 60, "random_plies": 2, "iterations": 20}


def train(out: Path, scheduler: str | None) -> dict[str, Any]:
    config = TrainConfig(generations=1, seed=3, **TINY)
    return Trainer(config, out, threads=2, command="test", scheduler=scheduler).run()


def refused(out: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """``canopy train --out OUT ARGS`` fails with exit 2, one line, and nothing written;
    the line."""
    code = main(["train", "--game", "knight", "--out", str(out), *args])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert not out.exists()
    return err


def test_a_local_cluster_plays_the_same_games_and_fits_the_same_weights_as_the_pool(
    tmp_path: Path,
) -> None:
    pool, dask = tmp_path / "pool", tmp_path / "dask"
    summary_pool = train(pool, None)
    summary_dask = train(dask, "local")
    assert summary_pool["scheduler"] is None and summary_dask["scheduler"] == "local"
    assert summary_dask["workers"] == 2
    for name in ("gen-001/games.npz", "gen-001/candidate.npz"):
        with np.load(pool / name) as a, np.load(dask / name) as b:
            assert a.files == b.files
            for key in a.files:
                assert np.array_equal(a[key], b[key]), (name, key)
    assert np.array_equal(
        load_weights(pool / "gen-001" / "candidate.npz").weights,
        load_weights(dask / "gen-001" / "candidate.npz").weights,
    )

    def record(out: Path) -> list[dict[str, Any]]:
        gens = json.loads((out / "train.json").read_text())["generations"]
        return [{k: v for k, v in g.items() if k != "seconds"} for g in gens]

    assert record(pool) == record(dask)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_scheduler_is_refused_within_the_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"
    args = ["--scheduler", address, "--scheduler-timeout", "1"]
    err = refused(tmp_path / "run", args, capsys)
    assert f"cannot reach the Dask scheduler at {address} within 1 s" in err


def test_a_scheduler_without_workers_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import distributed

    with distributed.LocalCluster(n_workers=0, dashboard_address=None) as empty:
        address = empty.scheduler_address
        args = ["--scheduler", address, "--scheduler-timeout", "1"]
        err = refused(tmp_path / "run", args, capsys)
    assert f"the Dask scheduler at {address} has no workers" in err


def test_a_worker_with_another_canopy_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # This machine claims another version; the worker processes report the real one.
    fake = {**cluster.identity(), "version": "0.0.0-other"}
    monkeypatch.setattr(cluster, "identity", lambda: fake)
    err = refused(tmp_path / "run", ["--scheduler", "local", "--threads", "1"], capsys)
    assert "runs Canopy " in err and "but this machine runs Canopy 0.0.0-other" in err
    assert "install the same Canopy on every worker" in err


def test_without_dask_the_error_names_the_optional_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed → ImportError
    err = refused(tmp_path / "run", ["--scheduler", "local"], capsys)
    assert "install the optional extra: pip install 'canopy[cluster]'" in err


@pytest.mark.parametrize(
    ("theirs", "refused"),
    [
        ({}, False),
        ({"commit": None}, False),  # a wheel install knows no commit; the digest decides
        ({"commit": "0123456789"}, True),
        ({"engine": "000000000000"}, True),
        ({"format": 99}, True),
    ],
    ids=["same", "no-commit", "other-commit", "other-engine", "other-format"],
)
def test_a_worker_must_match_version_commit_engine_and_weights_format(
    theirs: dict[str, Any], refused: bool
) -> None:
    mine = {"version": "0.1.0", "commit": "abcdef0123", "format": 1, "engine": "a" * 12}
    refusal = cluster.mismatch(mine, {**mine, **theirs}, "tcp://w:1")
    assert (refusal is not None) == refused
    if refusal:
        assert refusal.startswith("worker tcp://w:1 runs Canopy 0.1.0")


def test_a_bad_scheduler_timeout_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(tmp_path / "run", ["--scheduler", "local", "--scheduler-timeout", "0"], capsys)
    assert "argument --scheduler-timeout: must be more than 0 seconds" in err


def test_a_game_on_a_worker_with_another_canopy_fails_with_the_refusal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A worker that joined after the check on connect: each game checks again there.
    pool = cluster.ClusterPool.connect("local", 1, 10.0)
    try:
        fake = {**cluster.identity(), "engine": "000000000000"}
        monkeypatch.setattr(cluster, "identity", lambda: fake)
        task = GameTask(np.zeros(16, dtype=np.uint64), None, None, 0, 0, 10, Searcher(budget=60))
        with pytest.raises(cluster.ClusterError, match=r"^worker tcp://\S+ runs Canopy .*"):
            pool.play([task], lambda done: None)
    finally:
        pool.close()
