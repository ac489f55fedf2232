"""An ``mcts`` worker: its tree's children read with their priors and proofs, a kept tree
scored again near the new root after a move (``refresh``), and what it keeps beside the
tree (the leaf searcher and the table of leaf scores)."""

from __future__ import annotations

from dataclasses import replace

from engine.eval.evaluate import is_mate_score, mate_plies
from engine.search.algorithm import (
    NOT_PROVEN,
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    ChildStats,
    Worker,
)
from engine.search.algorithms.mcts.scoring import refresh_reused
from engine.search.parts.alphabeta import SearchContext
from engine.search.parts.leaf import LeafCache
from engine.search.parts.select import fpu_value
from engine.search.tree import EVALUATED, NONE, PROVEN


class LeafScoring:
    """What an ``mcts`` worker keeps beside its tree (``Worker.extra``): the searcher that
    scores its leaves and the table of leaf scores."""

    def __init__(self, tt_mb: float) -> None:
        # its table serves the alpha-beta searches (root_depth, rescore; qsearch keeps none)
        self.search = SearchContext(tt_bits=18)
        self.cache = LeafCache(tt_mb)

    @property
    def memory_bytes(self) -> int:
        return self.search.memory_bytes + self.cache.memory_bytes


class MCTSWorker(Worker):
    """A :class:`Worker` whose children carry their prior and their proof from the tree's
    ``PROVEN`` flag (a proven draw has no mate score to recognise it by), and whose reused
    tree is scored again near the root (``refresh``)."""

    extra: LeafScoring

    def advance(self, move: int) -> bool:
        reused = super().advance(move)
        if reused and self.params["refresh"] and self.params["expand"] == "evaluate":
            refresh_reused(self.tree.arrays, self.kparams)
        return reused

    def child_stats(self, node: int) -> ChildStats:
        stats = super().child_stats(node)
        t = self.tree
        proof, mate = NOT_PROVEN, None
        if t.flags[node] & PROVEN:
            proof = {1: PROVEN_WIN, -1: PROVEN_LOSS}.get(int(t.outcome[node]), PROVEN_DRAW)
            mate = mate_plies(stats.value) if is_mate_score(stats.value) else None
        parent = int(t.parent[node])
        urgency = 0.5
        if parent != NONE:
            urgency = float(fpu_value(t.arrays, parent, self.params["fpu"]))
        return replace(
            stats,
            proof=proof,
            mate=mate,
            prior=float(t.prior[node]),
            urgency=urgency,
            evaluated_unvisited=bool(t.flags[node] & EVALUATED) and stats.visits == 0,
        )
