"""``bfms``: every new child evaluated, values overwritten by negamax, chosen by eval + U."""

from __future__ import annotations

from typing import Any

from engine.explain.explainer import Explainer
from engine.explain.prose import worked_eval
from engine.search.algorithm import ChildStats, SelectionTerms
from engine.search.algorithms.bfms import BFMS


class BFMSExplainer(Explainer):
    algorithm = BFMS
    selection_rule = "bfms"
    formula = "eval + C·sqrt(ln N_parent / N)  (N = 0: eval + FPU)"
    exploit_label = "eval"
    score_label = "eval+U"
    selection_params = ("C", "fpu")
    simulation = "evaluation"
    backup_rule = "negamax"
    race_partner = "uct"  # negamax against averages

    @classmethod
    def selection_row(cls, child: ChildStats, terms: SelectionTerms) -> dict[str, Any]:
        return {"value": terms.exploit, "explore": terms.explore, "score": terms.score}

    @classmethod
    def worked(
        cls, level: dict[str, Any], winner: dict[str, Any], params: dict[str, Any]
    ) -> str | None:
        return worked_eval(level, winner, params)
