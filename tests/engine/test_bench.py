"""``engine.bench``: the tree-memory benchmark reports both of its figures."""

from __future__ import annotations

import pytest

from engine import bench
from engine.search.tree import BYTES_PER_NODE


def test_memory_bench_reports_bytes_per_allocated_and_per_used_node() -> None:
    per_slot, per_used = bench.run(["memory"], quick=True)
    assert per_slot.name == "tree bytes per node"
    assert per_slot.value == pytest.approx(BYTES_PER_NODE, abs=0.01)  # 32 bytes of meta
    assert per_used.name == "tree bytes per used node"
    # Used nodes fill between half the capacity (just after a doubling) and all of it.
    assert BYTES_PER_NODE <= per_used.value <= 2.1 * BYTES_PER_NODE
    assert "nodes used of" in per_used.note


def test_the_algorithms_bench_measures_mcts_beside_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's "canopy bench reports mcts iterations/s beside the others": each search
    is timed through the controller (stubbed here: speeds are never asserted on)."""
    timed: list[tuple[str, int]] = []

    def rate(algorithm: str, threads: int, iterations: int) -> float:
        timed.append((algorithm, threads))
        return 1000.0 + len(timed)

    monkeypatch.setattr(bench, "_controller_rate", rate)
    results = {r.name: r for r in bench.bench_algorithms(quick=True)}
    assert [name for name, _ in timed] == ["uct-minimax", "bfms", "mcts", "alphabeta"]
    mcts = results["mcts (chess start)"]
    assert mcts.unit == "iterations/s" and mcts.value == 1003.0
    assert results["alphabeta (chess start)"].unit == "nodes/s"
