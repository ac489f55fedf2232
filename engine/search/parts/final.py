"""Final choice: which root move to play, and the parameters that choose it.

Each rule returns a key, bigger is better; ``Algorithm.final_rank`` puts a
move that wins on the spot before any key.
"""

from __future__ import annotations

import math
from typing import Any

from engine.search.algorithm import ChildStats
from engine.search.params import ParamSpec

FINAL_PARAM = ParamSpec(
    "final", "choice", "visits", "final move: most visits, or highest Q/N", choices=("visits", "q")
)


def mean_reward(child: ChildStats) -> float:
    return child.value_sum / child.visits if child.visits else 0.5


def visits_or_q(child: ChildStats, params: dict[str, Any], threads: int) -> float:
    """Most visits; highest Q/N with ``final=q`` or when several threads' trees are merged
    (root parallelism chooses by summed reward / summed visits)."""
    if threads > 1 or params.get("final") == "q":
        return mean_reward(child) if child.visits else -1.0
    return float(child.visits)


def value_plus_log_visits(child: ChildStats) -> float:
    """bfms: ``eval + ln(visits)``; an unvisited child ranks below every visited one."""
    if child.visits == 0:
        return child.value - 1.0e9
    return child.value + math.log(child.visits)
