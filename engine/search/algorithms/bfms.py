"""``bfms`` — Best-First Minimax Search with UCT.

One iteration: from the root, descend to the child maximising
``eval + C·sqrt(ln N / n)`` (an unvisited child scores ``eval + FPU``), where
``eval`` is the child's current value for the side to move at the parent; at
a leaf, create every child and score each as ``leaf`` says (statically or by a
quiescence search; terminal children get their game-theoretic value, a win at
depth d being ``10000 − 10·d``);
then back up: every node on the path gets a visit and its value is
*overwritten* by ``−max(children's values)`` (negamax), leaf to root.
Final move: the root child maximising ``eval + ln(visits)``.
Defaults C = 1.5, FPU = 0.5.

``leaf=quiescence`` scores each new child by a quiescence search instead of its
static evaluation — Eta's design, Best-First Minimax with UCT selection and
quiescence at the leaves. ``solver=true`` marks proven nodes with MCTS-Solver's
rules (a terminal child; a child proven won for its mover; every child proven): a
proven node is neither expanded nor re-scored, and the search stops once the root is
proven. The defaults are ``leaf=quiescence`` in chess (a static leaf calls a queen lost
to a recapture a pawn won), ``leaf=static`` in knight chess, and ``solver=false`` in both:
with proofs on, a 10,000-point win found first takes every visit and the search stops
before a shorter mate. ``leaf=static, solver=false`` is the classic algorithm, unchanged;
docs/algorithms.md gives the measured effect of each.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from engine.core.borrow import borrow
from engine.core.state import MAX_MOVES
from engine.search.algorithm import (
    Algorithm,
    ChildStats,
    SelectionTerms,
    Worker,
    proof_from_value,
)
from engine.search.codes import (
    DONE,
    F_SCORE,
    GO_ON,
    MAX_PATH,
    SIM_TERMINAL,
    SOLVED,
    STOPPED,
    T_PATH_LEN,
    T_SIM_STATUS,
)
from engine.search.params import ParamSpec, kernel_record
from engine.search.parts.alphabeta import ABORTED, SearchArrays, SearchContext
from engine.search.parts.backup import backup_negamax, backup_negamax_proofs
from engine.search.parts.expand import expand_all, expand_all_quiescence
from engine.search.parts.final import value_plus_log_visits
from engine.search.parts.path import HIST_MAX, begin, descend, guard, record_new
from engine.search.parts.pv import PV_VALUE
from engine.search.parts.select import bfms_score, select_bfms
from engine.search.scratch import Scratch
from engine.search.tree import (
    FIRST_CHILD,
    FLAGS,
    META,
    NONE,
    PROVEN,
    ROOT,
    TERMINAL,
    USED,
    VALUE,
)

#: What the kernel reads (:meth:`BFMS.kernel_params`): the exploration weight ``C``, the
#: first-play urgency, whether new children are scored by a quiescence search
#: (``leaf=quiescence``), and whether proofs are kept (``solver``).
KERNEL_PARAMS = np.dtype(
    [("c", np.float64), ("fpu", np.float64), ("quiesce", np.bool_), ("solver", np.bool_)],
    align=True,
)


@njit(cache=True, nogil=True)
def bfms_iteration(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    c: float,
    fpu: float,
    ctx: SearchArrays,
    quiesce: bool,
    solver: bool,
) -> bool:
    """One iteration; False when the stop flag cut a leaf's quiescence search short
    (its expansion is undone and nothing is backed up)."""
    s, moves = scratch.state, scratch.moves
    child_state, child_moves = scratch.child_state, scratch.child_moves
    path, info, finfo, keys = scratch.path, scratch.info, scratch.finfo, scratch.keys
    flags = tree[FLAGS]
    length = begin(root, s, path, info, keys)
    node = int(np.int64(ROOT))  # not the literal 0: one compiled callee per signature
    stop_at = TERMINAL | PROVEN if solver else TERMINAL
    while length < MAX_PATH - 1 and not (flags[node] & stop_at):
        if tree[FIRST_CHILD][node] == NONE:
            first_new = tree[META][USED]
            index = HIST_MAX + length - 1
            if quiesce:
                count = expand_all_quiescence(
                    tree, node, s, moves, child_state, child_moves, keys, index, ctx
                )
                if count < 0:
                    return False
            else:
                count = expand_all(
                    tree, node, s, moves, child_state, child_moves, True, keys, index
                )
            if count:
                record_new(info, first_new, count)
                if solver:
                    for child in range(first_new, first_new + count):
                        if flags[child] & TERMINAL:
                            flags[child] |= PROVEN
            break
        node = select_bfms(tree, node, c, fpu)
        length = descend(tree, node, s, path, length, keys)
    info[T_PATH_LEN] = length
    info[T_SIM_STATUS] = SIM_TERMINAL if flags[node] & TERMINAL else 0
    if solver:
        if flags[node] & TERMINAL:
            flags[node] |= PROVEN
        backup_negamax_proofs(tree, node)
    else:
        backup_negamax(tree, node)
    finfo[F_SCORE] = tree[VALUE][node]
    return True


@njit(cache=True, nogil=True)
def bfms_run(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    ctx: SearchArrays,
    kp: np.record,
    max_iters: int,
    stop: np.ndarray,
) -> tuple[int, int]:
    # Borrowed views (engine.core.borrow): nothing below counts references to them.
    tree, root, scratch, ctx = borrow(tree), borrow(root), borrow(scratch), borrow(ctx)
    stop = borrow(stop)
    c, fpu, quiesce, solver = kp.c, kp.fpu, kp.quiesce, kp.solver
    for it in range(max_iters):
        code = guard(tree, stop, MAX_MOVES)
        if code != GO_ON:
            return it, code
        if solver and tree[FLAGS][ROOT] & PROVEN:
            return it, SOLVED
        if not bfms_iteration(tree, root, scratch, c, fpu, ctx, quiesce, solver):
            return it, STOPPED
    return max_iters, DONE


class BFMS(Algorithm):
    name = "bfms"
    title = "Best-First Minimax Search with UCT"
    summary = "every child evaluated, values backed up by minimax instead of averaged"
    description = (
        "Expand every child of the selected leaf and evaluate each; select by "
        "eval + C·sqrt(ln N_parent / N) (never visited: eval + FPU); back up by overwriting "
        "each value with −max(children); play the child maximising eval + ln(visits)."
    )
    params = (
        ParamSpec(
            "C", "float", 1.5, "exploration weight C in eval + C·sqrt(ln N_parent / N)",
            min=0.0, max=10.0,
        ),
        ParamSpec(
            "fpu", "float", 0.5, "first-play urgency: the bonus of an unvisited child",
            min=-2.0, max=2.0,
        ),
        ParamSpec(
            "leaf", "choice", "static",
            "how each new child is scored: the static evaluation, or a quiescence search "
            "(captures, promotions, evasions; Eta's design)",
            choices=("static", "quiescence"),
            game_defaults={"chess": "quiescence"},  # a static leaf misses every capture
        ),
        ParamSpec(
            "solver", "bool", False,
            "prove wins, losses and draws (MCTS-Solver's rules): a proven node is "
            "neither expanded nor re-scored, and the search stops once the root is proven",
        ),
    )  # fmt: skip
    free_per_iteration = MAX_MOVES
    pv_needs_visits = False  # the negamax line may run through children never selected
    pv_rule = PV_VALUE  # the best backed-up value
    keeps_proofs = True  # negamax over every child turns mate scores into proofs
    value_kind = "eval"

    @staticmethod
    def q(child: ChildStats) -> float:
        """bfms keeps no averages: Q is the negamax value read as an expected score."""
        return 0.5 * (1.0 + max(-1.0, min(1.0, child.value)))

    @staticmethod
    def q_array(visits: np.ndarray, value_sum: np.ndarray, value: np.ndarray) -> np.ndarray:
        return 0.5 * (1.0 + np.clip(value, -1.0, 1.0))

    @staticmethod
    def display_eval(child: ChildStats) -> float:
        return child.value

    @classmethod
    def kernel_params(cls, params: dict[str, Any]) -> np.record:
        return kernel_record(
            KERNEL_PARAMS,
            c=params["C"],
            fpu=params["fpu"],
            quiesce=params["leaf"] == "quiescence",
            solver=params["solver"],
        )

    @classmethod
    def selection_terms(
        cls, child: ChildStats, parent_visits: int, params: dict[str, Any]
    ) -> SelectionTerms:
        """The child's value and its exploration term (FPU when unvisited), whose sum is
        the kernel's own ``bfms_score``."""
        score = float(
            bfms_score(child.value, child.visits, parent_visits, params["C"], params["fpu"])
        )
        explore = float(params["fpu"]) if child.visits == 0 else score - child.value
        return SelectionTerms(child.value, explore, score)

    @classmethod
    def child_proof(cls, child: ChildStats) -> tuple[int, int | None]:
        return proof_from_value(child)

    @classmethod
    def final_key(cls, child: ChildStats, params: dict[str, Any], threads: int) -> float:
        return value_plus_log_visits(child)

    @classmethod
    def make_worker(
        cls, root: np.ndarray, params: dict[str, Any], seed: int, thread: int, node_budget: int
    ) -> Worker:
        worker = Worker(cls, root, params, seed, thread, node_budget)
        worker.extra = SearchContext(tt_bits=8)  # the leaves' quiescence searches
        return worker

    @classmethod
    def run_kernel(
        cls, worker: Worker, max_iters: int, stop: np.ndarray, trace: bool
    ) -> tuple[int, int]:
        w = worker
        w.extra.stop = stop  # the quiescence searches poll the controller's stop flag
        w.extra.stats[ABORTED] = 0
        return bfms_run(
            w.tree.arrays, w.root, w.scratch(trace), w.extra.arrays, w.kparams, max_iters, stop
        )
