"""Every algorithm's explainer, by the algorithm's name, and the menus' list of algorithms."""

from __future__ import annotations

from typing import Any

from engine.errors import UnknownAlgorithmError
from engine.explain.explainer import Explainer
from engine.explain.explainers.alphabeta import AlphaBetaExplainer
from engine.explain.explainers.bfms import BFMSExplainer
from engine.explain.explainers.mcts import MCTSExplainer
from engine.explain.explainers.ucb1 import UCTExplainer, UCTMinimaxExplainer
from engine.search.registry import ALGORITHMS, describe_algorithms

EXPLAINERS: dict[str, type[Explainer]] = {
    e.algorithm.name: e
    for e in (UCTExplainer, UCTMinimaxExplainer, BFMSExplainer, AlphaBetaExplainer, MCTSExplainer)
}


def explainer_for(name: str) -> type[Explainer]:
    """The explainer of the algorithm registered as ``name``."""
    try:
        return EXPLAINERS[name]
    except KeyError:
        known = ", ".join(ALGORITHMS)
        raise UnknownAlgorithmError(f"unknown algorithm {name!r}; known: {known}") from None


def describe(game: str = "chess") -> list[dict[str, Any]]:
    """Each algorithm as the menus list it (``GET /api/algorithms``): its search contract
    (:func:`engine.search.registry.describe_algorithms`) with the capabilities its
    explainer adds (the names of its formula's parts, its kinds of simulation and
    back-up) and the algorithm the race view sets against it by default."""
    out = []
    for entry in describe_algorithms(game):
        explainer = explainer_for(entry["name"])
        tail = {key: entry.pop(key) for key in ("threads", "default")}
        entry["capabilities"] = explainer.capabilities()
        out.append({**entry, "race_partner": explainer.race_partner, **tail})
    return out
