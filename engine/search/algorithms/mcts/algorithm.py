"""The ``mcts`` algorithm as the search contract sees it: its parameters, how its tree's
numbers read (Q, the PUCT terms, proofs), its final choice, and the worker and kernel
that run it. What it says in the views around the search is its explainer's
(:mod:`engine.explain.explainers.mcts`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from engine.core.state import MAX_MOVES
from engine.eval.evaluate import WIN
from engine.search.algorithm import (
    NOT_PROVEN,
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    Algorithm,
    ChildStats,
    SelectionTerms,
    Worker,
)
from engine.search.algorithms.mcts.kernel import mcts_run
from engine.search.algorithms.mcts.params import PARAMS, kernel_params
from engine.search.algorithms.mcts.worker import LeafScoring, MCTSWorker
from engine.search.parts.alphabeta import ABORTED, MAX_PLY, QCHECKS, QPRUNE
from engine.search.parts.pv import PV_PROVEN_FIRST
from engine.search.parts.select import blended_q, puct_score

if TYPE_CHECKING:
    from engine.search.info import MoveStats

#: How far above a draw (an evaluation in [-1, 1]; 0.05 is about 35 cp) a move not yet
#: proven must be valued for the final choice to prefer it to a proven draw.
DRAW_MARGIN = 0.05


def proof_rank(child: ChildStats) -> int:
    """2 for a proven win, 0 for a proven loss, 1 otherwise (draws and the unknown)."""
    if child.proof == PROVEN_WIN:
        return 2
    if child.proof == PROVEN_LOSS:
        return 0
    return 1


class MCTS(Algorithm):
    name = "mcts"
    title = "MCTS with quiescence leaves, priors, solver and implicit minimax"
    summary = "MCTS built for strength: quiescence leaves, proofs, priors (the default)"
    description = (
        "MCTS built for strength: PUCT selection with a move-ordering prior over "
        "(1 − α)·Q + α·minimax, leaves scored by a quiescence search instead of a random "
        "playout, proven wins and losses backed up (MCTS-Solver)."
    )
    params = PARAMS
    free_per_iteration = MAX_MOVES
    plays_on_full = True  # a tree too small to fold: its leaves are searched deeper
    pv_needs_visits = False  # a mate in one is proven unvisited; the rule ranks it first
    pv_rule = PV_PROVEN_FIRST  # a proven win (the quickest), then visits, a proven loss last
    keeps_proofs = True
    value_kind = "q"

    @classmethod
    def kernel_params(cls, params: dict[str, Any]) -> np.record:
        return kernel_params(params)

    @classmethod
    def node_params(cls, params: dict[str, Any], at_root: bool) -> dict[str, Any]:
        """``c_puct`` becomes ``c_root`` among the root's moves when ``c_root`` is set."""
        if not at_root or params["c_root"] <= 0.0:
            return params
        return {**params, "c_puct": params["c_root"]}

    # ------------------------------------------------------------ reading the tree
    @staticmethod
    def q(child: ChildStats) -> float:
        """The mean reward; a proven child reads as its result (1, ½, 0) even unvisited."""
        if child.proof == PROVEN_WIN:
            return 1.0
        if child.proof == PROVEN_LOSS:
            return 0.0
        if child.proof == PROVEN_DRAW and not child.visits:
            return 0.5
        return child.value_sum / child.visits if child.visits else 0.5

    @staticmethod
    def q_array(visits: np.ndarray, value_sum: np.ndarray, value: np.ndarray) -> np.ndarray:
        """:meth:`q` for many nodes: a game value beyond ±1 is only ever a proven node's."""
        mean = np.where(visits > 0, value_sum / np.maximum(visits, 1), 0.5)
        return np.where(value > WIN / 2, 1.0, np.where(value < -WIN / 2, 0.0, mean))

    @staticmethod
    def display_eval(child: ChildStats) -> float:
        """The implicit minimax value: an evaluation in [-1, 1], or a proven game value."""
        return child.value

    @classmethod
    def selection_terms(
        cls, child: ChildStats, parent_visits: int, params: dict[str, Any]
    ) -> SelectionTerms:
        """``(1 − α)·Q + α·minimax`` (an unevaluated child: the parent's urgency) plus
        ``c·P·sqrt(N) / (1 + n)``: the numbers :func:`select_puct` compares. A root move
        merged over several threads' trees has no single prior: its exploration term is
        left out (None)."""
        if child.prior is None:
            exploit = float(blended_q(child.value_sum, child.visits, child.value, params["alpha"]))
            return SelectionTerms(exploit, None, exploit)
        if child.evaluated:
            exploit = float(blended_q(child.value_sum, child.visits, child.value, params["alpha"]))
        else:
            exploit = child.urgency
        score, explore = puct_score(
            exploit, child.prior, child.visits, parent_visits, params["c_puct"]
        )
        return SelectionTerms(exploit, float(explore), float(score))

    @classmethod
    def selectable(cls, child: ChildStats, params: dict[str, Any]) -> bool:
        """Never a move proven lost for its chooser while the solver is on
        (:func:`select_puct` skips it, however high its formula)."""
        return not (params["solver"] and child.proof == PROVEN_LOSS)

    @classmethod
    def child_proof(cls, child: ChildStats) -> tuple[int, int | None]:
        return child.proof, child.mate

    @staticmethod
    def root_prior(child: ChildStats) -> float | None:
        """The PUCT prior P, so the root table shows what the visits were steered by."""
        return child.prior

    @classmethod
    def final_rank(
        cls, child: ChildStats, params: dict[str, Any], threads: int
    ) -> tuple[int, float, float, float]:
        """A proven win first (the shortest), a proven loss last (the longest); between
        them the most visits, then Q, then the minimax value."""
        rank = proof_rank(child)
        q = cls.q(child) if child.visits else -1.0
        if rank != 1:  # the shortest win first; of losses, the longest
            plies = float(child.mate or 0)
            return rank, -plies if rank == 2 else plies, q, child.value
        return rank, float(child.visits), q, child.value

    @classmethod
    def final_key(cls, child: ChildStats, params: dict[str, Any], threads: int) -> float:
        return float(child.visits)

    @classmethod
    def final_order(cls, moves: list[MoveStats], params: dict[str, Any]) -> list[MoveStats]:
        """A proven draw at the top gives way to a move not yet proven that the search
        values above a draw (by :data:`DRAW_MARGIN`) and has visited at least half as
        often. A proven draw costs nothing to visit again — each visit returns at once —
        so it gathers visits while the better move is still being searched; in a won
        game that repeated the position (the games behind commit 468d1dd, 2026-11-26)."""
        if not moves or moves[0].proof != PROVEN_DRAW:
            return moves
        top = moves[0]
        for i, m in enumerate(moves[1:], start=1):
            if m.proof == NOT_PROVEN and m.eval > DRAW_MARGIN and 2 * m.visits >= top.visits:
                return [m, *moves[:i], *moves[i + 1 :]]
        return moves

    # ------------------------------------------------------------ running
    @classmethod
    def make_worker(
        cls, root: np.ndarray, params: dict[str, Any], seed: int, thread: int, node_budget: int
    ) -> MCTSWorker:
        worker = MCTSWorker(cls, root, params, seed, thread, node_budget, ply_cap=MAX_PLY)
        worker.extra = LeafScoring(params["tt_mb"])
        return worker

    @classmethod
    def run_kernel(
        cls, worker: Worker, max_iters: int, stop: np.ndarray, trace: bool
    ) -> tuple[int, int]:
        w = worker
        search, cache = w.extra.search, w.extra.cache
        # The quiescence searches poll the controller's own stop flag.
        search.stop = stop
        search.stats[ABORTED] = 0
        search.stats[QCHECKS] = w.params["qchecks"]
        search.stats[QPRUNE] = w.params["qprune"]
        return mcts_run(
            w.tree.arrays, w.root, w.scratch(trace), search.arrays,
            cache.keys, cache.scores, w.kparams, max_iters, stop, w.full,
        )  # fmt: skip
