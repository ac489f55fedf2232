"""``alphabeta``: no tree to walk; a step is one more depth of iterative deepening."""

from __future__ import annotations

from engine.explain.explainer import Explainer
from engine.search.algorithms.alphabeta import AlphaBeta


class AlphaBetaExplainer(Explainer):
    algorithm = AlphaBeta
    selection_rule = "score"
    formula = "negamax alpha-beta score"
    exploit_label = "score"
    score_label = "score"
    simulation = "alphabeta"
    backup_rule = "negamax"
    race_partner = "bfms"  # the best-first search that claims to beat it
