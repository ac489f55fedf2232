"""What ``uct`` and ``uct-minimax`` share: UCB1 selection read back with its terms, the
exploration constant, and the most-visits / Q final choice."""

from __future__ import annotations

import math
from typing import Any

from engine.search.algorithm import Algorithm, ChildStats, SelectionTerms
from engine.search.params import ParamSpec
from engine.search.parts.final import visits_or_q
from engine.search.parts.select import ucb1

C_PARAM = ParamSpec(
    "c",
    "float",
    round(1 / math.sqrt(2), 6),
    "exploration constant c in W/N + c·sqrt(2 ln N_parent / N); 1/√2 suits rewards in [0, 1]",
    min=0.0,
    max=10.0,
)


class UCB1Family(Algorithm):
    """Base of the algorithms that select by UCB1 and back up averages."""

    value_kind = "q"

    @classmethod
    def selection_terms(
        cls, child: ChildStats, parent_visits: int, params: dict[str, Any]
    ) -> SelectionTerms:
        """Q/N and the exploration term of UCB1, whose sum is the kernel's own ``ucb1``;
        an unvisited child scores +inf and has neither term."""
        score = float(ucb1(child.value_sum, child.visits, max(1, parent_visits), params["c"]))
        if child.visits == 0:
            return SelectionTerms(None, None, score)
        exploit = child.value_sum / child.visits
        return SelectionTerms(exploit, score - exploit, score)

    @classmethod
    def decides_by_visits(cls, params: dict[str, Any]) -> bool:
        return params.get("final") == "visits"

    @classmethod
    def final_key(cls, child: ChildStats, params: dict[str, Any], threads: int) -> float:
        return visits_or_q(child, params, threads)
