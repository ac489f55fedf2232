"""``uct`` and ``uct-minimax``: UCB1 selection read back with its terms, averages backed up."""

from __future__ import annotations

from typing import Any

from engine.explain.explainer import Explainer
from engine.explain.prose import worked_ucb1
from engine.search.algorithms.uct import UCT
from engine.search.algorithms.uct_minimax import UCTMinimax


class UCB1Explainer(Explainer):
    selection_rule = "ucb1"
    formula = "W/N + c·sqrt(2 ln N_parent / N)"
    exploit_label = "W/N"
    score_label = "UCB1"
    selection_params = ("c",)
    backup_rule = "average"
    race_partner = "bfms"  # averages against negamax

    @classmethod
    def worked(
        cls, level: dict[str, Any], winner: dict[str, Any], params: dict[str, Any]
    ) -> str | None:
        return worked_ucb1(level, winner, params)


class UCTExplainer(UCB1Explainer):
    algorithm = UCT
    simulation = "playout"


class UCTMinimaxExplainer(UCB1Explainer):
    algorithm = UCTMinimax
    simulation = "minimax"
    unvisited_first = "children not yet visited are tried first, in random order"
