"""The tree-view benchmark runs end to end. Speeds are recorded, never asserted on; what
is pinned is the frame limit (a rule rather than a speed), the sizes, and that each
reported figure is derived from the measurements as its name says."""

from __future__ import annotations

import statistics

import pytest

from app import bench_tree
from engine import bench


def test_the_tree_frame_benchmark_builds_500_nodes_under_the_frame_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = bench_tree.measure_frame(iterations=3000, repeat=2)
    assert report.nodes == 500 and report.tree_nodes_total > 500
    assert report.bytes_compact < 65536  # what the page subscribes to fits a frame
    assert report.bytes_without_tree < report.bytes_compact < report.bytes_rows
    # A 500-node tree is snapshotted at 10 Hz × 200 / 500 (app.subscriptions.snapshot_interval).
    assert report.snapshots_per_second == pytest.approx(4.0)
    assert report.cpu_ms_per_second == pytest.approx(
        4.0
        * (
            report.snapshot_with_tree_ms
            - report.snapshot_without_tree_ms
            + report.encode_compact_ms
        )
    )

    monkeypatch.setitem(bench_tree._FRAME, True, report)
    build, size = bench_tree.bench_tree_frame(True)
    assert build.unit == "ms" and build.value == report.build_warm_ms and build.ratio is None
    assert size.unit == "KiB" and size.value == pytest.approx(report.bytes_compact / 1024)
    assert size.baseline == pytest.approx(report.bytes_rows / 1024)
    assert size.ratio == pytest.approx(size.value / size.baseline) and size.ratio < 1


def test_the_tree_view_benchmark_compares_with_headless(monkeypatch: pytest.MonkeyPatch) -> None:
    report = bench_tree.measure_view(seconds=0.4, rounds=1, browser=False)
    assert len(report.headless_nps) == len(report.websocket_nps) == len(report.plain_nps) == 1
    assert report.browser_nps == [] and report.ratio("browser") is None
    assert report.frames >= 1 and report.frame_bytes_max < 65536
    assert report.ratio("websocket") == pytest.approx(
        report.websocket_nps[0] / report.headless_nps[0]
    )

    monkeypatch.setitem(bench_tree._VIEW, True, report)
    (view,) = bench_tree.bench_tree_view(True)  # no browser: one figure
    assert view.unit == "iterations/s" and view.baseline_label == "headless"
    assert view.baseline == statistics.median(report.headless_nps)
    assert view.ratio == pytest.approx(view.value / view.baseline)


def test_canopy_bench_lists_the_tree_figures() -> None:
    from app.bench import register

    register()
    assert {"tree-frame", "tree-view"} <= set(bench.BENCHMARKS)
