"""``uct-minimax`` — UCT whose simulation is a shallow alpha-beta search.

Same tree policy as ``uct`` (UCB1). When the descent reaches a node with no
children, all its children are generated and one is chosen at random; a
node whose children are not all visited yet sends the iteration to a random
unvisited child. Instead of a random playout, the chosen node is scored by a
depth-``depth`` (default 3) alpha-beta search with the static evaluation;
the score becomes the reward for the side that moved into it — by its sign
(1 / ½ / 0) or, with ``reward=scaled``, ``(1 + score) / 2``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from engine.core.borrow import borrow
from engine.core.state import MAX_MOVES
from engine.search.algorithm import Worker
from engine.search.algorithms.ucb1_family import C_PARAM, UCB1Family
from engine.search.codes import (
    DONE,
    F_REWARD,
    F_SCORE,
    GO_ON,
    MAX_PATH,
    SIM_TERMINAL,
    STOPPED,
    T_PATH_LEN,
    T_SIM_PLIES,
    T_SIM_STATUS,
)
from engine.search.params import ParamSpec, eval_param, kernel_record
from engine.search.parts.alphabeta import ABORTED, SearchArrays, SearchContext
from engine.search.parts.backup import backup_average
from engine.search.parts.expand import expand_all, look
from engine.search.parts.final import FINAL_PARAM
from engine.search.parts.path import HIST_MAX, begin, descend, guard, record_new
from engine.search.parts.select import random_unvisited, select_ucb1
from engine.search.parts.simulate import minimax_reward, outcome_reward
from engine.search.scratch import Scratch
from engine.search.tree import (
    DEPTH,
    FIRST_CHILD,
    FLAGS,
    META,
    NONE,
    NUM_LEGAL,
    OUTCOME,
    ROOT,
    TERMINAL,
    UNKNOWN,
    USED,
)

#: What the kernel reads (:meth:`UCTMinimax.kernel_params`): the exploration constant, the
#: leaf search's depth, whether the reward is the scaled score (``reward=scaled``) rather
#: than its sign, whether the leaf search ends in quiescence, and the sign's draw margin.
KERNEL_PARAMS = np.dtype(
    [
        ("c", np.float64),
        ("depth", np.int64),
        ("scaled", np.bool_),
        ("quiesce", np.bool_),
        ("draw_margin", np.float64),
    ],
    align=True,
)


@njit(cache=True, nogil=True)
def uct_minimax_iteration(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    ctx: SearchArrays,
    rng: np.ndarray,
    c: float,
    depth: int,
    scaled: bool,
    quiesce: bool,
    draw_margin: float,
) -> bool:
    """One iteration; False when the leaf search was stopped half-way (nothing backed up)."""
    s, moves = scratch.state, scratch.moves
    child_state, child_moves = scratch.child_state, scratch.child_moves
    path, info, finfo, keys = scratch.path, scratch.info, scratch.finfo, scratch.keys
    flags = tree[FLAGS]
    length = begin(root, s, path, info, keys)
    node = int(np.int64(ROOT))  # not the literal 0: one compiled callee per signature
    while length < MAX_PATH - 1 and not (flags[node] & TERMINAL):
        if tree[FIRST_CHILD][node] == NONE:
            first_new = tree[META][USED]
            count = expand_all(
                tree, node, s, moves, child_state, child_moves, False, keys, HIST_MAX + length - 1
            )
            if count == 0:
                break  # the game is over here: marked terminal
            record_new(info, first_new, count)
        child = random_unvisited(tree, node, rng)
        if child != NONE:
            node = child
            length = descend(tree, node, s, path, length, keys)
            break
        node = select_ucb1(tree, node, c)
        length = descend(tree, node, s, path, length, keys)
    info[T_PATH_LEN] = length
    if not (flags[node] & TERMINAL) and tree[NUM_LEGAL][node] == UNKNOWN:
        look(tree, node, s, moves, keys, HIST_MAX + length - 1)  # is the leaf's game over?
    if flags[node] & TERMINAL:
        reward = outcome_reward(tree[OUTCOME][node])
        score = 2.0 * reward - 1.0
        info[T_SIM_STATUS] = SIM_TERMINAL
    else:
        reward, score = minimax_reward(
            ctx, s, depth, quiesce, tree[DEPTH][node], scaled, draw_margin
        )
        if ctx.stats[ABORTED]:
            # The controller's stop reached the leaf search (a deep one, with quiescence,
            # can run for a second): its score is meaningless, so the iteration ends here.
            # The children it expanded stay, unvisited, as after any expansion.
            return False
        info[T_SIM_STATUS] = 0
    info[T_SIM_PLIES] = depth
    finfo[F_REWARD] = reward
    finfo[F_SCORE] = score
    backup_average(tree, node, reward)
    return True


@njit(cache=True, nogil=True)
def uct_minimax_run(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    ctx: SearchArrays,
    rng: np.ndarray,
    kp: np.record,
    max_iters: int,
    stop: np.ndarray,
) -> tuple[int, int]:
    # Borrowed views (engine.core.borrow): nothing below counts references to them.
    tree, root, scratch, ctx = borrow(tree), borrow(root), borrow(scratch), borrow(ctx)
    rng, stop = borrow(rng), borrow(stop)
    c, depth = kp.c, kp.depth
    scaled, quiesce, draw_margin = kp.scaled, kp.quiesce, kp.draw_margin
    for it in range(max_iters):
        code = guard(tree, stop, MAX_MOVES)
        if code != GO_ON:
            return it, code
        if not uct_minimax_iteration(
            tree, root, scratch, ctx, rng, c, depth, scaled, quiesce, draw_margin
        ):
            return it, STOPPED
    return max_iters, DONE


class UCTMinimax(UCB1Family):
    name = "uct-minimax"
    title = "UCT with minimax simulation"
    summary = "UCT whose playout is a short alpha-beta search: sees short tactics, grows slowly"
    description = (
        "UCT whose random playout is replaced by a shallow alpha-beta search of the leaf "
        "(depth 3 by default) with the static evaluation; the score's sign is the reward."
    )
    params = (
        C_PARAM,
        ParamSpec("depth", "int", 3, "alpha-beta depth of the leaf search (plies)", min=1, max=6),
        ParamSpec(
            "reward", "choice", "sign",
            "sign: win / draw / loss by the score's sign; scaled: (1 + score) / 2",
            choices=("sign", "scaled"),
        ),
        ParamSpec(
            "draw_margin", "float", 0.0,
            "with reward=sign, scores within this distance of 0 count as draws "
            "(0: the pure sign; 0.1 ≈ 35 centipawns)",
            min=0.0, max=1.0,
        ),
        ParamSpec(
            "quiescence", "bool", False,
            "extend the leaf search through captures before evaluating",
        ),
        FINAL_PARAM,
        # Its 3-ply leaf search has no quiescence, so it evaluates unsettled positions: the
        # knight-chess weights were trained for those (canopy train --target quiescence)
        # and measured better than the hand evaluation with it (docs/learning.md).
        eval_param(knight="learned"),
    )  # fmt: skip
    free_per_iteration = MAX_MOVES

    @classmethod
    def kernel_params(cls, params: dict[str, Any]) -> np.record:
        return kernel_record(
            KERNEL_PARAMS,
            c=params["c"],
            depth=params["depth"],
            scaled=params["reward"] == "scaled",
            quiesce=params["quiescence"],
            draw_margin=params["draw_margin"],
        )

    @classmethod
    def make_worker(
        cls, root: np.ndarray, params: dict[str, Any], seed: int, thread: int, node_budget: int
    ) -> Worker:
        worker = Worker(cls, root, params, seed, thread, node_budget)
        worker.extra = SearchContext(tt_bits=16)
        return worker

    @classmethod
    def run_kernel(
        cls, worker: Worker, max_iters: int, stop: np.ndarray, trace: bool
    ) -> tuple[int, int]:
        w = worker
        # The leaf searches poll the controller's own stop flag, so a stop lands within
        # about 1,000 alpha-beta nodes however deep the leaf search goes.
        w.extra.stop = stop
        w.extra.stats[ABORTED] = 0
        return uct_minimax_run(
            w.tree.arrays,
            w.root,
            w.scratch(trace),
            w.extra.arrays,
            w.rng,
            w.kparams,
            max_iters,
            stop,
        )
