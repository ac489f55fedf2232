"""The tree-view benchmark runs end to end (figures are recorded, never asserted on,
except the frame limit, which is a rule rather than a speed)."""

from __future__ import annotations

from app import bench_tree
from engine import bench


def test_the_tree_frame_benchmark_builds_500_nodes_under_the_frame_limit() -> None:
    report = bench_tree.measure_frame(iterations=3000, repeat=2)
    assert report.nodes == 500 and report.tree_nodes_total > 500
    assert report.bytes_compact < 65536  # what the page subscribes to fits a frame
    assert report.bytes_compact < report.bytes_rows
    assert report.build_warm_ms > 0 and report.build_cold_ms > 0 and report.encode_compact_ms > 0


def test_the_tree_view_benchmark_compares_with_headless() -> None:
    report = bench_tree.measure_view(seconds=0.4, rounds=1, browser=False)
    assert report.headless_nps[0] > 0 and report.websocket_nps[0] > 0
    assert report.frames >= 1 and report.frame_bytes_max < 65536
    assert report.ratio("websocket") is not None and report.ratio("browser") is None


def test_canopy_bench_lists_the_tree_figures() -> None:
    from app.bench import register

    register()
    assert {"tree-frame", "tree-view"} <= set(bench.BENCHMARKS)
