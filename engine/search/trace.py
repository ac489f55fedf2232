"""The averaging back-up rows of a step's explanation.

They belong with the other phase builders in :mod:`engine.explain.phases`, which uses
them from here: ``mcts``'s own back-up rows, written in its algorithm module, extend
them, and ``engine.search`` never imports ``engine.explain``. They move there with
``mcts``'s views.
"""

from __future__ import annotations

from typing import Any


def average_rows(view: Any) -> list[dict[str, Any]]:
    """Each path node's visits and reward sum before and after; the reward flips sides
    at every ply. ``view`` is an :class:`engine.explain.phases.StepView`."""
    tree = view.tree
    rows: list[dict[str, Any]] = []
    r = view.reward
    for node in reversed(view.path):
        existed = node < view.used
        row: dict[str, Any] = {
            **view.name(node),
            "visits_before": int(view.before_visits[node]) if existed else 0,
            "visits_after": int(tree.visits[node]),
            "rule": "average",
            "reward": r,
        }
        sum_before = float(view.before_sum[node]) if existed else 0.0
        row["value_sum_before"] = sum_before
        row["value_sum_after"] = float(tree.value_sum[node])
        row["q_before"] = sum_before / row["visits_before"] if row["visits_before"] else None
        row["q_after"] = float(tree.value_sum[node]) / max(1, row["visits_after"])
        r = 1.0 - r
        rows.append(row)
    return rows
