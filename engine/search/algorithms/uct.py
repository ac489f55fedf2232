"""``uct`` — UCT with random playouts.

One iteration: from the root, descend by UCB1 ``Q/N + c·sqrt(2 ln N_parent / N)``
while every move of the node has a child; at the first node with an untried
move, add one child for a random untried move; play a random game out from it
(``uniform`` or ``capture_first``, capped at ``ply_cap`` plies); back the
result up as 1 / 0.5 / 0 for the side that moved into each node. A playout the
cap cuts off is scored by the game's rules (a chess draw, knight chess's knight
count) or, with ``at_cap=eval``, by the static evaluation where it stopped:
(1 + eval) / 2, early playout termination.
Final choice: most visits (``final=q``: highest Q/N). With several threads the
summed root statistics choose by reward/visits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from engine.core.borrow import borrow
from engine.core.playout import DEFAULT_PLY_CAP, POLICIES
from engine.search.algorithm import Worker
from engine.search.algorithms.ucb1_family import C_PARAM, UCB1Family
from engine.search.codes import (
    DONE,
    F_REWARD,
    F_SCORE,
    GO_ON,
    MAX_PATH,
    SIM_TERMINAL,
    T_PATH_LEN,
    T_SIM_PLIES,
    T_SIM_STATUS,
    T_SIM_WHITE,
)
from engine.search.params import ParamSpec, kernel_record
from engine.search.parts.backup import backup_average
from engine.search.parts.expand import expand_one, look
from engine.search.parts.final import FINAL_PARAM
from engine.search.parts.path import HIST_MAX, begin, descend, guard, record_new
from engine.search.parts.select import select_ucb1
from engine.search.parts.simulate import outcome_reward, playout_reward
from engine.search.scratch import Scratch
from engine.search.tree import FLAGS, NUM_CHILDREN, NUM_LEGAL, OUTCOME, ROOT, TERMINAL, UNKNOWN

#: What the kernel reads (:meth:`UCT.kernel_params`): the exploration constant, the playout
#: policy (``engine.core.playout.POLICIES``), the playout's ply cap, and whether a playout
#: the cap cuts off is scored by the evaluation (``at_cap=eval``).
KERNEL_PARAMS = np.dtype(
    [("c", np.float64), ("policy", np.int64), ("ply_cap", np.int64), ("cap_eval", np.bool_)],
    align=True,
)


@njit(cache=True, nogil=True)
def uct_iteration(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    rng: np.ndarray,
    c: float,
    policy: int,
    ply_cap: int,
    cap_eval: bool,
) -> None:
    """One UCT iteration: select, expand one, playout, back up. Trace in path/info/finfo/record."""
    s, moves, hist, record = scratch.state, scratch.moves, scratch.hist, scratch.record
    path, info, finfo, keys = scratch.path, scratch.info, scratch.finfo, scratch.keys
    flags, num_legal, num_children = tree[FLAGS], tree[NUM_LEGAL], tree[NUM_CHILDREN]
    length = begin(root, s, path, info, keys)
    node = int(np.int64(ROOT))  # not the literal 0: one compiled callee per signature
    while length < MAX_PATH - 1:
        if flags[node] & TERMINAL:
            break
        if num_legal[node] == UNKNOWN and look(tree, node, s, moves, keys, HIST_MAX + length - 1):
            break
        if num_children[node] < num_legal[node]:
            node = expand_one(tree, node, s, moves, rng, keys, length)  # plays it on s
            path[length] = node
            length += 1
            record_new(info, node, 1)
            break
        node = select_ucb1(tree, node, c)
        length = descend(tree, node, s, path, length, keys)
    info[T_PATH_LEN] = length
    if flags[node] & TERMINAL:
        reward = outcome_reward(tree[OUTCOME][node])
        info[T_SIM_STATUS] = SIM_TERMINAL
        info[T_SIM_PLIES] = 0
        info[T_SIM_WHITE] = 0
    else:
        reward, code, plies, white, score = playout_reward(
            s, rng, ply_cap, policy, moves, hist, record, cap_eval
        )
        info[T_SIM_STATUS] = code
        info[T_SIM_PLIES] = plies
        info[T_SIM_WHITE] = white
        finfo[F_SCORE] = score
    finfo[F_REWARD] = reward
    backup_average(tree, node, reward)


@njit(cache=True, nogil=True)
def uct_run(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    rng: np.ndarray,
    kp: np.record,
    max_iters: int,
    stop: np.ndarray,
) -> tuple[int, int]:
    """Up to ``max_iters`` iterations; stops early on the stop flag or a full tree."""
    # Borrowed views (engine.core.borrow): nothing below counts references to them.
    tree, root, scratch, rng = borrow(tree), borrow(root), borrow(scratch), borrow(rng)
    stop = borrow(stop)
    c, policy, ply_cap, cap_eval = kp.c, kp.policy, kp.ply_cap, kp.cap_eval
    for it in range(max_iters):
        code = guard(tree, stop, 1)
        if code != GO_ON:
            return it, code
        uct_iteration(tree, root, scratch, rng, c, policy, ply_cap, cap_eval)
    return max_iters, DONE


AT_CAP = ("rules", "eval")


class UCT(UCB1Family):
    name = "uct"
    title = "UCT (random playouts)"
    summary = "plain UCT: the textbook algorithm with random playouts, weak at tactics"
    description = (
        "Upper Confidence bounds applied to Trees: descend by UCB1, expand one untried move, "
        "play a random game to the end, back up 1 / ½ / 0."
    )
    params = (
        C_PARAM,
        ParamSpec(
            "policy", "choice", "uniform",
            "playout policy: uniform random, or captures only whenever a capture exists",
            choices=tuple(POLICIES), game_defaults={"knight": "capture_first"},
        ),
        ParamSpec(
            "ply_cap", "int", DEFAULT_PLY_CAP,
            "playout length cap in plies (an unfinished playout is scored as at_cap says)",
            min=1, max=2000,
        ),
        ParamSpec(
            "at_cap", "choice", "rules",
            "how a playout cut off by ply_cap is scored: rules (chess: a draw; knight "
            "chess: most knights wins) or eval ((1 + static evaluation) / 2; with a short "
            "ply_cap this is early playout termination)",
            choices=AT_CAP,
        ),
        FINAL_PARAM,
    )  # fmt: skip

    @classmethod
    def kernel_params(cls, params: dict[str, Any]) -> np.record:
        return kernel_record(
            KERNEL_PARAMS,
            c=params["c"],
            policy=POLICIES[params["policy"]],
            ply_cap=params["ply_cap"],
            cap_eval=params["at_cap"] == "eval",
        )

    @classmethod
    def make_worker(
        cls, root: np.ndarray, params: dict[str, Any], seed: int, thread: int, node_budget: int
    ) -> Worker:
        return Worker(cls, root, params, seed, thread, node_budget, ply_cap=params["ply_cap"])

    @classmethod
    def run_kernel(
        cls, worker: Worker, max_iters: int, stop: np.ndarray, trace: bool
    ) -> tuple[int, int]:
        w = worker
        return uct_run(w.tree.arrays, w.root, w.scratch(trace), w.rng, w.kparams, max_iters, stop)
