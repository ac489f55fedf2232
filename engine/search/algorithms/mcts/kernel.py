"""The ``mcts`` iteration and its batch kernel: select by PUCT, expand (lazily with
priors, or scoring every child: :mod:`~engine.search.algorithms.mcts.scoring`), score the
leaf by its search, back the reward up with the implicit minimax value and the proofs;
and, once the root is proven, the proven line played out to the game's end."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.borrow import borrow
from engine.core.state import MAX_MOVES
from engine.search.algorithms.mcts.depth import (
    FULL_TREE_PLIES,
    children_depth,
    rescore_due,
    search_depth,
)
from engine.search.algorithms.mcts.scoring import (
    expand_evaluating,
    refuted,
    rescore_children,
    resume_scoring,
    settle_terminal,
)
from engine.search.codes import (
    BEST_EARLIER,
    DONE,
    F_REWARD,
    F_SCORE,
    GO_ON,
    MAX_PATH,
    SIM_CACHED,
    SIM_EXPANDED,
    SIM_RESCORED,
    SIM_TERMINAL,
    SOLVED,
    STOPPED,
    T_PATH_LEN,
    T_SIM_BEST,
    T_SIM_DEPTH,
    T_SIM_HOW,
    T_SIM_PLIES,
    T_SIM_STATUS,
)
from engine.search.parts.alphabeta import ABORTED, SearchArrays
from engine.search.parts.backup import backup_solver
from engine.search.parts.expand import expand_with_priors, look
from engine.search.parts.leaf import leaf_score
from engine.search.parts.path import HIST_MAX, begin, descend, guard, record_new
from engine.search.parts.pv import PV_PROVEN_FIRST, pv_child
from engine.search.parts.select import select_puct
from engine.search.parts.simulate import outcome_reward
from engine.search.parts.solver import prove
from engine.search.scratch import Scratch
from engine.search.tree import (
    DEPTH,
    EVAL,
    EVALUATED,
    FIRST_CHILD,
    FLAGS,
    META,
    NEXT_SIBLING,
    NONE,
    NUM_LEGAL,
    OUTCOME,
    PARENT,
    PARTIAL,
    PROVEN,
    ROOT,
    TERMINAL,
    UNKNOWN,
    USED,
    VALUE,
    VALUE_SUM,
    VISITS,
)


@njit(cache=True, nogil=True)
def expand(
    tree: tuple,
    node: int,
    scratch: Scratch,
    temperature: float,
    uniform: bool,
    mix: float,
    solver: bool,
) -> bool:
    """Create ``node``'s children with their priors; True if that proved ``node``
    (a child ends the game in a win for its mover: a mate in one)."""
    s, moves, info = scratch.state, scratch.moves, scratch.info
    child_state, child_moves = scratch.child_state, scratch.child_moves
    first_new = tree[META][USED]
    count = expand_with_priors(
        tree, node, s, moves, child_state, child_moves, temperature, uniform, mix
    )
    record_new(info, first_new, count)
    flags = tree[FLAGS]
    child = tree[FIRST_CHILD][node]
    while child != NONE:
        if flags[child] & TERMINAL:
            settle_terminal(tree, child, solver)
        child = tree[NEXT_SIBLING][child]
    return solver and prove(tree, node)


@njit(cache=True, nogil=True)
def mcts_iteration(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    ctx: SearchArrays,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kp: np.record,
    full: bool,
) -> bool:
    """One iteration; False when the stop flag cut the leaf's search (nothing backed up).

    ``full``: the tree is at its node budget, so a leaf that would be expanded is
    searched again one ply deeper instead (up to :data:`FULL_TREE_PLIES`) — the search
    goes on sharpening the leaves it has rather than stopping."""
    s, moves, record, path = scratch.state, scratch.moves, scratch.record, scratch.path
    info, finfo, keys = scratch.info, scratch.finfo, scratch.keys
    c_puct, alpha, fpu = kp.c_puct, kp.alpha, kp.fpu
    temperature, mix = kp.prior_temp, kp.prior_mix
    uniform, quiesce = kp.uniform, kp.quiesce
    solver, use_cache = kp.solver, kp.tt
    evaluate_all = kp.evaluate
    expanded = False
    rescored = False  # (rescore) a node with children had its untried children scored again
    deeper = False  # a full tree's leaf visited again: searched deeper, not expanded
    # Scorings a node has had before its first visit: an evaluating expansion scores
    # every child when their parent is expanded, a lazy one scores a leaf at its first
    # visit. A full tree's leaf is scored one ply deeper at each scoring.
    scored_unvisited = 1 if evaluate_all else 0
    flags = tree[FLAGS]
    length = begin(root, s, path, info, keys)
    info[T_SIM_PLIES] = 0  # (a scoring of a node's children records the line deciding it)
    info[T_SIM_BEST] = NONE
    info[T_SIM_HOW] = BEST_EARLIER
    node = int(np.int64(ROOT))  # not the literal 0: one compiled callee per signature
    while length < MAX_PATH - 1:
        f = flags[node]
        if f & (PROVEN | TERMINAL) or not (f & EVALUATED):
            break  # a known result, or a leaf to evaluate
        if full and tree[FIRST_CHILD][node] == NONE and node != ROOT:
            deeper = True
            break  # no room for its expansion: search it deeper
        if tree[FIRST_CHILD][node] == NONE:
            if tree[NUM_LEGAL][node] == UNKNOWN and look(
                tree, node, s, moves, keys, HIST_MAX + length - 1
            ):  # scored before its moves were known, and the game is over there
                settle_terminal(tree, node, solver)
                break
            if evaluate_all:
                done = expand_evaluating(
                    tree, node, length, scratch, ctx, cache_keys, cache_scores, kp
                )
                if done < 0:
                    return False
                expanded = True
                break  # the node's children scored: its new minimax value is backed up
            if expand(tree, node, scratch, temperature, uniform, mix, solver):
                break  # proven by a child that ends the game
        elif rescore_due(tree, node, kp):
            done = rescore_children(tree, node, length, scratch, ctx, cache_keys, cache_scores, kp)
            if done < 0:
                return False
            expanded = rescored = True
            break  # its untried replies scored deeper: its new minimax value is backed up
        elif flags[node] & PARTIAL and not refuted(tree, node):
            done = resume_scoring(tree, node, length, scratch, ctx, cache_keys, cache_scores, kp)
            if done < 0:
                return False
            expanded = True
            break  # its other replies scored: its new minimax value is backed up
        c = kp.c_root if node == ROOT and kp.c_root > 0.0 else c_puct
        child = select_puct(tree, node, c, alpha, fpu, solver)
        if child == NONE:
            break
        node = child
        length = descend(tree, node, s, path, length, keys)
    info[T_PATH_LEN] = length
    # the depth of the leaf's search, or of its children's when it was expanded
    own = search_depth(kp, tree[DEPTH][node])  # the leaf's own depth, no rescore
    if expanded:
        depth = children_depth(tree, node, kp)
    elif deeper and evaluate_all:
        # Count on from the depth of the score it replaces: its parent scored it with the
        # parent's rescore plies already (the parent's visits only grow, so the re-search
        # is never shallower than that score, and each visit adds one).
        depth = children_depth(tree, tree[PARENT][node], kp)
    else:
        depth = own
    info[T_SIM_DEPTH] = depth
    f = flags[node]
    if not (f & (PROVEN | TERMINAL | EVALUATED)) and tree[NUM_LEGAL][node] == UNKNOWN:
        look(tree, node, s, moves, keys, HIST_MAX + length - 1)  # is the game over here?
        f = flags[node]
    if f & TERMINAL and not (f & EVALUATED):
        settle_terminal(tree, node, solver)
        f = flags[node]
    if expanded and not (f & PROVEN):
        score = min(1.0, max(-1.0, tree[VALUE][node]))  # the negamax of its new children
        reward = 0.5 * (1.0 + score)
        info[T_SIM_STATUS] = SIM_RESCORED if rescored else SIM_EXPANDED
    elif f & (PROVEN | TERMINAL):
        reward = outcome_reward(tree[OUTCOME][node])
        score = float(tree[OUTCOME][node])
        info[T_SIM_STATUS] = SIM_TERMINAL
    elif f & EVALUATED and not deeper:  # every child proven lost, the node not yet
        reward = tree[VALUE_SUM][node] / max(1, tree[VISITS][node])  # its mean stands
        score = 2.0 * reward - 1.0
        info[T_SIM_STATUS] = SIM_CACHED
    else:  # a new leaf, or a full tree's leaf visited again, one ply deeper
        if deeper:  # one ply deeper for each scoring it has had, capped
            extra = depth - own + tree[VISITS][node] + scored_unvisited
            depth = own + min(extra, FULL_TREE_PLIES)
        info[T_SIM_DEPTH] = depth
        # The table holds quiescence scores only: a deeper score must not read the
        # table's shallower one, nor be stored in it. The ply goes as an int64, the type
        # every caller of the leaf search passes (one compiled leaf search, not two).
        to_move, cached = leaf_score(
            ctx, s, quiesce, depth, cache_keys, cache_scores,
            use_cache and own == 0 and not deeper, np.int64(tree[DEPTH][node]),
        )  # fmt: skip
        if ctx.stats[ABORTED]:
            return False
        score = -to_move  # for the side that moved into the leaf
        tree[EVAL][node] = score
        tree[VALUE][node] = score
        flags[node] |= EVALUATED
        reward = 0.5 * (1.0 + score)
        info[T_SIM_STATUS] = SIM_CACHED if cached else 0
        plies = min(ctx.pv_len[0], record.shape[0])
        record[:plies] = ctx.pv[0, :plies]
        info[T_SIM_PLIES] = plies
    finfo[F_REWARD] = reward
    finfo[F_SCORE] = score
    backup_solver(tree, path, length, reward, solver)
    return True


@njit(cache=True, nogil=True)
def complete_proof(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    ctx: SearchArrays,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kp: np.record,
    stop: np.ndarray,
) -> None:
    """Expand the proven line from a proven root down to the game's end.

    A mate found by the search that scores a child at its parent's expansion proves the
    child with no children of its own, so the tree would stop a ply or two into the
    mate: the principal variation would show ``Qd8+`` and not the mate that follows,
    and after the move is played the reused root would be proven with no move to play.
    Following the proof (a quickest win, a longest defence: the PV's rule) and
    expanding each childless node on it re-proves every ply — the children's scorings
    find the shorter mates — until a finished game ends the line, for the cost of a
    few expansions (one per ply of the mate)."""
    s, moves, path = scratch.state, scratch.moves, scratch.path
    info, keys = scratch.info, scratch.keys
    flags, first_child = tree[FLAGS], tree[FIRST_CHILD]
    length = begin(root, s, path, info, keys)
    node = int(np.int64(ROOT))  # not the literal 0: one compiled callee per signature
    while length < MAX_PATH - 1 and not stop[0]:
        f = flags[node]
        if not (f & PROVEN) or f & TERMINAL:
            return
        if first_child[node] == NONE:
            if guard(tree, stop, MAX_MOVES) != GO_ON:
                return
            if tree[NUM_LEGAL][node] == UNKNOWN and look(
                tree, node, s, moves, keys, HIST_MAX + length - 1
            ):
                settle_terminal(tree, node, True)
                return
            if (
                expand_evaluating(tree, node, length, scratch, ctx, cache_keys, cache_scores, kp)
                < 0
                or first_child[node] == NONE
            ):
                return
        node = pv_child(tree, node, PV_PROVEN_FIRST, False)
        length = descend(tree, node, s, path, length, keys)


@njit(cache=True, nogil=True)
def mcts_run(
    tree: tuple,
    root: np.ndarray,
    scratch: Scratch,
    ctx: SearchArrays,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kp: np.record,
    max_iters: int,
    stop: np.ndarray,
    full: bool,
) -> tuple[int, int]:
    """Up to ``max_iters`` iterations; stops early on the stop flag, a full tree (unless
    ``full`` says it is at its budget: then no node is added), or a root whose value is
    proven."""
    # Borrowed views (engine.core.borrow): nothing below counts references to them (the
    # record ``kp`` is passed by pointer, with no count to skip).
    tree, root, scratch, ctx = borrow(tree), borrow(root), borrow(scratch), borrow(ctx)
    cache_keys, cache_scores = borrow(cache_keys), borrow(cache_scores)
    stop = borrow(stop)
    # a root not yet expanded needs room even in a full tree
    room = 0 if full and tree[FIRST_CHILD][ROOT] != NONE else MAX_MOVES
    for it in range(max_iters):
        code = guard(tree, stop, room)
        if code != GO_ON:
            return it, code
        if tree[FLAGS][ROOT] & PROVEN:
            if kp.solver:
                complete_proof(tree, root, scratch, ctx, cache_keys, cache_scores, kp, stop)
            return it, SOLVED
        if not mcts_iteration(tree, root, scratch, ctx, cache_keys, cache_scores, kp, full):
            return it, STOPPED
    return max_iters, DONE
