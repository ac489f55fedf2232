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
