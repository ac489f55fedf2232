"""``mcts`` explained: its PUCT selection, its leaf searches and its back-up with implicit
minimax, in the step view and the node card.

:mod:`.explainer` (the class the registry of explainers names), :mod:`.phases` (the
numbers of its step phases and its node card, read from the worker's tree and trace).
"""

from engine.explain.explainers.mcts.explainer import MCTSExplainer

__all__ = ["MCTSExplainer"]
