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

import math
from typing import Any

import numpy as np
from numba import njit

from engine.core.games import make_move
from engine.core.state import MAX_MOVES
from engine.search.algorithm import (
    DONE,
    F_REWARD,
    F_SCORE,
    FULL,
    MAX_PATH,
    ROOT_TERMINAL,
    STOPPED,
    T_FIRST_NEW,
    T_NEW_COUNT,
    T_PATH_LEN,
    T_SIM_PLIES,
    T_SIM_STATUS,
    Algorithm,
    ChildStats,
    Worker,
)
from engine.search.alphabeta_core import SearchContext
from engine.search.params import ParamSpec
from engine.search.parts.backup import backup_average
from engine.search.parts.expand import expand_all, look
from engine.search.parts.select import random_unvisited, select_ucb1, ucb1
from engine.search.parts.simulate import minimax_reward, outcome_reward
from engine.search.tree import (
    CAPACITY,
    DEPTH,
    FIRST_CHILD,
    FLAGS,
    META,
    MOVE,
    NONE,
    NUM_LEGAL,
    OUTCOME,
    ROOT,
    TERMINAL,
    UNKNOWN,
    USED,
)


@njit(cache=True, nogil=True)
def uct_minimax_iteration(
    tree: tuple,
    root: np.ndarray,
    s: np.ndarray,
    moves: np.ndarray,
    child_state: np.ndarray,
    child_moves: np.ndarray,
    ctx: tuple,
    path: np.ndarray,
    info: np.ndarray,
    finfo: np.ndarray,
    rng: np.ndarray,
    c: float,
    depth: int,
    scaled: bool,
    quiesce: bool,
) -> None:
    flags = tree[FLAGS]
    s[:] = root
    node = ROOT
    length = 1
    path[0] = node
    info[T_FIRST_NEW] = -1
    info[T_NEW_COUNT] = 0
    while length < MAX_PATH - 1:
        if flags[node] & TERMINAL:
            break
        if tree[FIRST_CHILD][node] == NONE:
            if tree[NUM_LEGAL][node] != UNKNOWN and tree[NUM_LEGAL][node] == 0:
                break
            first_new = tree[META][USED]
            count = expand_all(tree, node, s, moves, child_state, child_moves, False)
            if count == 0:
                break  # the game is over here: marked terminal
            info[T_FIRST_NEW] = first_new
            info[T_NEW_COUNT] = count
        nxt = random_unvisited(tree, node, rng)
        if nxt != NONE:
            node = nxt
            make_move(s, tree[MOVE][node])
            path[length] = node
            length += 1
            break
        node = select_ucb1(tree, node, c)
        make_move(s, tree[MOVE][node])
        path[length] = node
        length += 1
    info[T_PATH_LEN] = length
    if not (flags[node] & TERMINAL) and tree[NUM_LEGAL][node] == UNKNOWN:
        look(tree, node, s, moves)  # learn whether the leaf's game is over
    if flags[node] & TERMINAL:
        reward = outcome_reward(tree[OUTCOME][node])
        score = 2.0 * reward - 1.0
        info[T_SIM_STATUS] = -1
    else:
        reward, score = minimax_reward(ctx, s, depth, quiesce, tree[DEPTH][node], scaled)
        info[T_SIM_STATUS] = 0
    info[T_SIM_PLIES] = depth
    finfo[F_REWARD] = reward
    finfo[F_SCORE] = score
    backup_average(tree, node, reward)


@njit(cache=True, nogil=True)
def uct_minimax_run(
    tree: tuple,
    root: np.ndarray,
    s: np.ndarray,
    moves: np.ndarray,
    child_state: np.ndarray,
    child_moves: np.ndarray,
    ctx: tuple,
    path: np.ndarray,
    info: np.ndarray,
    finfo: np.ndarray,
    rng: np.ndarray,
    kparams: np.ndarray,
    max_iters: int,
    stop: np.ndarray,
) -> tuple[int, int]:
    meta = tree[META]
    c = kparams[0]
    depth = np.int64(kparams[1])
    scaled = kparams[2] != 0.0
    quiesce = kparams[3] != 0.0
    for it in range(max_iters):
        if stop[0]:
            return it, STOPPED
        if meta[CAPACITY] - meta[USED] < MAX_MOVES:
            return it, FULL
        if tree[FLAGS][ROOT] & TERMINAL:
            return it, ROOT_TERMINAL
        uct_minimax_iteration(
            tree, root, s, moves, child_state, child_moves, ctx, path, info, finfo, rng,
            c, depth, scaled, quiesce,
        )  # fmt: skip
    return max_iters, DONE


class UCTMinimax(Algorithm):
    name = "uct-minimax"
    title = "UCT with minimax simulation"
    description = (
        "UCT whose random playout is replaced by a shallow alpha-beta search of the leaf "
        "(depth 3 by default) with the static evaluation; the score's sign is the reward."
    )
    params = (
        ParamSpec(
            "c", "float", round(1 / math.sqrt(2), 6),
            "exploration constant c in Q/N + c·sqrt(2 ln N_parent / N)", min=0.0, max=10.0,
        ),
        ParamSpec("depth", "int", 3, "alpha-beta depth of the leaf search (plies)", min=1, max=6),
        ParamSpec(
            "reward", "choice", "sign",
            "sign: win / draw / loss by the score's sign; scaled: (1 + score) / 2",
            choices=("sign", "scaled"),
        ),
        ParamSpec(
            "quiescence", "bool", False,
            "extend the leaf search through captures before evaluating",
        ),
        ParamSpec(
            "final", "choice", "visits", "final move: most visits, or highest Q/N",
            choices=("visits", "q"),
        ),
    )  # fmt: skip
    free_per_iteration = MAX_MOVES

    @classmethod
    def kernel_params(cls, params: dict[str, Any]) -> np.ndarray:
        return np.array(
            [params["c"], params["depth"], params["reward"] == "scaled", params["quiescence"]],
            dtype=np.float64,
        )

    @classmethod
    def selection_score(
        cls, child: ChildStats, parent_visits: int, params: dict[str, Any]
    ) -> float:
        return float(ucb1(child.value_sum, child.visits, max(1, parent_visits), params["c"]))

    @classmethod
    def final_key(cls, child: ChildStats, params: dict[str, Any], threads: int) -> float:
        if threads > 1 or params.get("final") == "q":
            return cls.q(child) if child.visits else -1.0
        return float(child.visits)

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
        w.extra.stop[0] = 0
        return uct_minimax_run(
            w.tree.arrays, w.root, w.state, w.moves, w.child_state, w.child_moves, w.extra.arrays,
            w.path, w.info, w.finfo, w.rng, w.kparams, max_iters, stop,
        )  # fmt: skip
