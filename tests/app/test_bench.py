"""The streaming benchmark runs end to end (figures are recorded, never asserted on)."""

from __future__ import annotations

from app import bench


def test_the_streaming_benchmark_measures_both_runs_and_the_latencies() -> None:
    report = bench.measure(seconds=0.4, rounds=1, plies=5)
    summary = report.summary()
    assert report.headless_nps[0] > 0 and report.streaming_nps[0] > 0
    assert report.frames >= 1 and 0 < report.frame_bytes_max < 65536
    assert summary["stats_latency_ms"]["n"] >= 1
    assert summary["move_latency_ms"]["n"] == 5
    assert summary["ratio"] > 0
