"""``alphabeta`` — the baseline: iterative-deepening negamax alpha-beta.

Transposition table, killer moves, MVV-LVA capture ordering, principal
variation search at the root and (by default) a quiescence search, with the
same static evaluation the MCTS algorithms use. Each completed depth
publishes every root move's score (exact for the best move and any move that
raised alpha, an upper bound for the rest), its principal variation and the
nodes spent under it.

Its "iterations" are nodes searched, so an iteration budget is a node budget,
and it is kept exactly: the kernel stops on the Nth node of a search given N.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from engine.core.games import legal_moves, make_move, status
from engine.core.state import MAX_MOVES, ONGOING
from engine.eval.evaluate import evaluate
from engine.rules.convert import legal_move_array
from engine.search.algorithm import (
    NOT_PROVEN,
    Algorithm,
    ChildStats,
    SelectionTerms,
    proof_from_value,
)
from engine.search.codes import DONE, EXHAUSTED, ROOT_TERMINAL, STOPPED
from engine.search.params import ParamSpec
from engine.search.parts.alphabeta import (
    ABORTED,
    EXACT,
    MAX_PLY,
    NODES,
    SELDEPTH,
    SearchContext,
    search_root,
)

PV_LIMIT = 32


class AlphaBetaWorker:
    """Runs the deepening loop; exposes the last completed depth's root statistics."""

    def __init__(self, root: np.ndarray, params: dict[str, Any]) -> None:
        self.params = params
        self.thread = 0
        self.root = root.copy()
        hash_bits = max(10, min(26, int(params["hash_mb"] * 1024 * 1024 // 24).bit_length() - 1))
        self.ctx = SearchContext(tt_bits=hash_bits)
        self.history_keys: list[int] = []
        self.reset()

    def reset(self) -> None:
        self.moves = legal_move_array(self.root)
        n = len(self.moves)
        self.scores = np.zeros(n)
        self.bounds = np.zeros(n, dtype=np.int8)
        self.nodes = np.zeros(n, dtype=np.int64)
        self.pvs = np.zeros((n, PV_LIMIT), dtype=np.int32)
        self.pv_lens = np.zeros(n, dtype=np.int64)
        self.completed_depth = 0
        self._nodes_done = 0  # nodes searched in finished calls to search_root
        self._searching = False
        self.seldepth = 0
        child = self.root.copy()
        self.static = np.zeros(n)
        for i, m in enumerate(self.moves):
            child[:] = self.root
            make_move(child, int(m))
            self.static[i] = -evaluate(child)
        buf = np.zeros(MAX_MOVES, dtype=np.int32)
        self.root_over = status(self.root, legal_moves(self.root, buf)) != ONGOING

    # ------------------------------------------------------------ running
    @property
    def iterations(self) -> int:
        """Nodes searched, live while a depth is being searched."""
        live = int(self.ctx.stats[NODES]) if self._searching else 0
        return self._nodes_done + live

    def run(self, max_nodes: int, stop: np.ndarray, depths: int = 1 << 30) -> tuple[int, int]:
        """Deepen until ``max_nodes`` more nodes, ``depths`` more completed depths,
        the stop flag, or the maximum depth."""
        if self.root_over or len(self.moves) == 0:
            return 0, ROOT_TERMINAL
        ctx = self.ctx
        ctx.stop = stop
        ctx.set_history(self.history_keys)
        start = self.iterations
        while True:
            depth = self.completed_depth + 1
            if depth > self.params["max_depth"]:
                return self.iterations - start, EXHAUSTED
            ctx.reset_counters(node_limit=max(1, start + max_nodes - self.iterations))
            ctx.states[0] = self.root
            scores = np.zeros_like(self.scores)
            bounds = np.zeros_like(self.bounds)
            pvs = np.zeros_like(self.pvs)
            pv_lens = np.zeros_like(self.pv_lens)
            self._searching = True
            best = search_root(
                ctx.arrays, depth, bool(self.params["quiescence"]), self.moves,
                scores, bounds, self.nodes, pvs, pv_lens,
            )  # fmt: skip
            self._searching = False
            self._nodes_done += int(ctx.stats[NODES])
            self.seldepth = max(self.seldepth, int(ctx.stats[SELDEPTH]))
            if best < 0 or ctx.stats[ABORTED]:
                return self.iterations - start, STOPPED if stop[0] else DONE
            # Best first for the next iteration, then the rest by this iteration's score.
            order = np.argsort(-scores, kind="stable")
            order = np.concatenate(([best], order[order != best]))
            self.moves, self.scores, self.bounds = self.moves[order], scores[order], bounds[order]
            self.nodes, self.static = self.nodes[order], self.static[order]
            self.pvs, self.pv_lens = pvs[order], pv_lens[order]
            self.completed_depth = depth
            depths -= 1
            if self.iterations - start >= max_nodes or depths <= 0:
                return self.iterations - start, DONE

    def step(self, stop: np.ndarray) -> int:
        """One more depth of iterative deepening."""
        _, code = self.run(1 << 62, stop, depths=1)
        return code

    # ------------------------------------------------------------ reading
    @property
    def memory_bytes(self) -> int:
        return self.ctx.memory_bytes

    def root_children(self) -> list[tuple[int, ChildStats]]:
        out = []
        searched = self.completed_depth > 0
        for i, m in enumerate(self.moves):
            value = float(self.scores[i]) if searched else float(self.static[i])
            child = ChildStats(
                move=int(m), visits=int(self.nodes[i]), value_sum=0.0, value=value,
                eval=float(self.static[i]), terminal=False, outcome=0,
                bound="exact" if self.bounds[i] == EXACT else "upper",
            )  # fmt: skip
            proof, mate = AlphaBeta.child_proof(child) if searched else (NOT_PROVEN, None)
            if proof != NOT_PROVEN:
                child = replace(child, proof=proof, mate=mate)
            out.append((i, child))
        return out

    def principal_variation(self, index: int, limit: int = PV_LIMIT) -> list[int]:
        n = int(self.pv_lens[index])
        if n == 0:
            return [int(self.moves[index])]
        return [int(m) for m in self.pvs[index, : min(n, limit)]]

    def advance(self, move: int) -> bool:
        make_move(self.root, move)
        self.reset()
        return False


class AlphaBeta(Algorithm):
    name = "alphabeta"
    title = "Alpha-beta (baseline)"
    summary = "not MCTS: the depth-first baseline with the same evaluation, to compare against"
    description = (
        "Iterative-deepening negamax alpha-beta with a transposition table, killer moves, "
        "MVV-LVA ordering and quiescence, using the same evaluation as the MCTS algorithms."
    )
    mcts = False
    tree = False  # it keeps root moves only: no node card, tree view or step walk
    keeps_proofs = True  # an exact mate score is a proof
    stepping = "depth"
    value_kind = "eval"
    params = (
        ParamSpec(
            "max_depth", "int", 64, "deepest iteration of iterative deepening",
            min=1, max=MAX_PLY - 8,
        ),
        ParamSpec("quiescence", "bool", True, "search captures past the horizon before evaluating"),
        ParamSpec("hash_mb", "int", 16, "transposition table size in MB", min=1, max=1024),
    )  # fmt: skip

    @staticmethod
    def q(child: ChildStats) -> float:
        return 0.5 * (1.0 + max(-1.0, min(1.0, child.value)))

    @staticmethod
    def display_eval(child: ChildStats) -> float:
        return child.value

    @classmethod
    def selection_terms(
        cls, child: ChildStats, parent_visits: int, params: dict[str, Any]
    ) -> SelectionTerms:
        """No exploration: a move ranks by its search score."""
        return SelectionTerms(child.value, 0.0, child.value)

    @classmethod
    def child_proof(cls, child: ChildStats) -> tuple[int, int | None]:
        """An exact mate score (``WIN − 10·ply``) is a proven win or loss; bounds prove
        nothing here (a fail-low move's true score is only known to be lower)."""
        if child.bound != "exact":
            return NOT_PROVEN, None
        return proof_from_value(child)

    @classmethod
    def final_key(cls, child: ChildStats, params: dict[str, Any], threads: int) -> float:
        # Exact scores win ties against upper bounds that equal them.
        return child.value + (1e-9 if child.bound == "exact" else 0.0)

    @classmethod
    def make_worker(
        cls, root: np.ndarray, params: dict[str, Any], seed: int, thread: int, node_budget: int
    ) -> AlphaBetaWorker:
        return AlphaBetaWorker(root, params)
