"""The streaming benchmark runs end to end. Speeds are recorded, never asserted on (they
depend on the machine); what is pinned is that the figures are what they say: one per
round, ratios that are the values' quotient, latencies of every move played, and a
benchmark server that keeps its games out of the user's store."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from app import bench
from app.bench_server import BenchServer
from app.settings import Settings


def test_the_streaming_benchmark_measures_both_runs_and_the_latencies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = bench.measure(seconds=0.4, rounds=1, plies=5)
    summary = report.summary()
    assert report.algorithm == "mcts"  # the default opponent's search is what is watched
    assert len(report.headless_nps) == len(report.streaming_nps) == report.rounds == 1
    assert summary["ratio"] == pytest.approx(
        statistics.median(report.streaming_nps) / statistics.median(report.headless_nps)
    )
    assert report.frames >= 1
    assert report.frame_bytes_mean <= report.frame_bytes_max < 65536
    stats = summary["stats_latency_ms"]
    assert stats["n"] == len(report.stats_latency_ms) >= 1
    assert 0 <= stats["p50"] <= stats["p95"] <= stats["max"]
    assert summary["move_latency_ms"]["n"] == 5  # every move played was timed

    # canopy bench's two figures are this report, in their units.
    monkeypatch.setitem(bench._LAST, True, report)
    throughput = bench.bench_streaming_throughput(True)
    assert throughput.unit == "iterations/s" and throughput.baseline_label == "headless"
    assert throughput.value == statistics.median(report.streaming_nps)
    assert throughput.baseline == statistics.median(report.headless_nps)
    assert throughput.ratio == pytest.approx(throughput.value / throughput.baseline)
    latency = bench.bench_streaming_latency(True)
    assert latency.unit == "ms" and latency.value == stats["p95"] and latency.ratio is None


def test_the_benchmark_server_keeps_its_games_out_of_the_configured_store(
    tmp_path: Path,
) -> None:
    user_data = tmp_path / "user-data"
    user_data.mkdir()
    with BenchServer(Settings(data_dir=user_data, warmup=False)) as server:
        game = server.create(game="chess", human="both")
        store = server.settings.data_dir
        assert store != user_data and (store / "canopy.db").exists()
    assert game["id"]
    assert list(user_data.iterdir()) == []  # nothing written where the user keeps games
    assert not store.exists()  # and the benchmark's own store is gone
