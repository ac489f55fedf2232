"""Scoring a node's children in ``mcts`` (``expand=evaluate``): all at its expansion, the
rest when a scoring was cut short or cleared (``refresh``), again deeper as the node
gathers visits (``rescore``) — each child by an alpha-beta search of the depth
:mod:`~engine.search.algorithms.mcts.depth` gives it, searched as a principal-variation
search does, through the table of leaf scores."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.core.bits import table_slot
from engine.core.games import make_move
from engine.core.prefetch import prefetch
from engine.core.state import HASH
from engine.eval.evaluate import SQUASH_CP, WIN, game_value
from engine.search.algorithms.mcts.depth import children_depth, search_depth, untried
from engine.search.codes import (
    BEST_CACHED,
    BEST_MATE,
    BEST_SEARCHED,
    BEST_TERMINAL,
    T_SIM_BEST,
    T_SIM_HOW,
    T_SIM_PLIES,
)
from engine.search.parts.alphabeta import ABORTED, INF, NULL_WINDOW, SearchArrays
from engine.search.parts.expand import expand_with_priors, mark_repetition
from engine.search.parts.implicit import implicit_value
from engine.search.parts.leaf import window_score
from engine.search.parts.path import HIST_MAX, record_new
from engine.search.parts.prior import move_gain, normalise_priors
from engine.search.parts.solver import prove
from engine.search.scratch import Scratch
from engine.search.tree import (
    DEPTH,
    EVAL,
    EVALUATED,
    FIRST_CHILD,
    FLAGS,
    META,
    MOVE,
    NEXT_SIBLING,
    NONE,
    OUTCOME,
    PARENT,
    PARTIAL,
    PRIOR,
    PROVEN,
    ROOT,
    TERMINAL,
    USED,
    VALUE,
)


@njit(cache=True, nogil=True)
def settle_terminal(tree: tuple, node: int, solver: bool) -> None:
    """A finished game's node: its game value is its evaluation, and a proof if ``solver``."""
    outcome = tree[OUTCOME][node]
    tree[VALUE][node] = game_value(outcome, tree[DEPTH][node])
    tree[EVAL][node] = float(outcome)
    tree[FLAGS][node] |= EVALUATED | (PROVEN if solver else 0)


@njit(cache=True, nogil=True)
def value_cp(value: float) -> float:
    """An evaluation in [-1, 1] back in centipawns (the prior's unit), clamped at ±2000."""
    v = min(0.999, max(-0.999, value))
    return min(2000.0, max(-2000.0, SQUASH_CP * math.log10((1.0 + v) / (1.0 - v))))


@njit(cache=True, nogil=True)
def refutation_bound(tree: tuple, node: int) -> float:
    """The score, for the side to move at ``node``, from which a reply refutes the move
    into ``node``: its chooser then has a sibling at least as good (``-max`` of the
    siblings' values; +inf at the root or without an evaluated sibling)."""
    if node == ROOT:
        return INF
    flags, value, outcome = tree[FLAGS], tree[VALUE], tree[OUTCOME]
    top = -INF
    sibling = tree[FIRST_CHILD][tree[PARENT][node]]
    while sibling != NONE:
        f = flags[sibling]
        if sibling != node and f & EVALUATED and not (f & PROVEN and outcome[sibling] < 0):
            top = max(top, min(1.0, max(-1.0, value[sibling])))
        sibling = tree[NEXT_SIBLING][sibling]
    return -top if top > -INF else INF


@njit(cache=True, nogil=True)
def expand_evaluating(
    tree: tuple,
    node: int,
    length: int,
    scratch: Scratch,
    ctx: SearchArrays,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kp: np.record,
) -> int:
    """Create ``node``'s children and score them now (:func:`score_children`, in the
    order of their move-ordering priors): 1 if that proved ``node``, 0 if not, -1 if the
    stop flag cut a search short."""
    s, moves, info = scratch.state, scratch.moves, scratch.info
    child_state, child_moves = scratch.child_state, scratch.child_moves
    first_new = tree[META][USED]
    count = expand_with_priors(
        tree, node, s, moves, child_state, child_moves, kp.prior_temp, False, 0.0
    )
    record_new(info, first_new, count)
    children = child_list(tree, node, count)
    ranks = np.empty(count, dtype=np.float64)
    for i in range(count):
        ranks[i] = -tree[PRIOR][children[i]]
    return score_children(
        tree, node, length, scratch, ctx, cache_keys, cache_scores, kp, children, ranks
    )


@njit(cache=True, nogil=True)
def all_children(tree: tuple, node: int) -> np.ndarray:
    """Every child of ``node``, in sibling order (:func:`child_list` of them all)."""
    count = 0
    child = tree[FIRST_CHILD][node]
    while child != NONE:
        count += 1
        child = tree[NEXT_SIBLING][child]
    return child_list(tree, node, count)


@njit(cache=True, nogil=True)
def child_list(tree: tuple, node: int, count: int) -> np.ndarray:
    children = np.empty(count, dtype=np.int64)
    child = tree[FIRST_CHILD][node]
    for i in range(count):
        children[i] = child
        child = tree[NEXT_SIBLING][child]
    return children


@njit(cache=True, nogil=True)
def best_scored(tree: tuple, node: int) -> float:
    """The best value among ``node``'s scored children, for the side choosing there
    (clamped to [-1, 1]); -inf if none is scored."""
    best = -INF
    child = tree[FIRST_CHILD][node]
    while child != NONE:
        if tree[FLAGS][child] & EVALUATED:
            best = max(best, min(1.0, max(-1.0, tree[VALUE][child])))
        child = tree[NEXT_SIBLING][child]
    return best


@njit(cache=True, nogil=True)
def refuted(tree: tuple, node: int) -> bool:
    """Whether ``node``'s best scored reply still refutes the move into it."""
    return best_scored(tree, node) >= refutation_bound(tree, node)


@njit(cache=True, nogil=True)
def resume_scoring(
    tree: tuple,
    node: int,
    length: int,
    scratch: Scratch,
    ctx: SearchArrays,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kp: np.record,
) -> int:
    """A node whose children are not all scored (``refresh`` cleared the scores of some,
    or the stop flag cut their scoring short) and whose best scored reply does not refute
    the move into it: score the others (captures and the rest in the order of their
    move-ordering gains). Returns as :func:`expand_evaluating`."""
    s, child_state = scratch.state, scratch.child_state
    children = all_children(tree, node)
    count = children.shape[0]
    ranks = np.zeros(count, dtype=np.float64)
    for i in range(count):
        if not (tree[FLAGS][children[i]] & EVALUATED):
            child_state[:] = s
            make_move(child_state, tree[MOVE][children[i]])
            ranks[i] = -move_gain(s, child_state, tree[MOVE][children[i]])
    return score_children(
        tree, node, length, scratch, ctx, cache_keys, cache_scores, kp, children, ranks
    )


@njit(cache=True, nogil=True)
def rescore_children(
    tree: tuple,
    node: int,
    length: int,
    scratch: Scratch,
    ctx: SearchArrays,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kp: np.record,
) -> int:
    """``rescore``: a node the search keeps coming back to has its childless children
    scored again, by searches :func:`visit_plies` more plies deep — the moves its
    chooser has not tried yet were judged by the shallow searches of their first
    scoring, and a reply that only works a ply or two further on (a quiet move after a
    check, a piece trapped) stays untried unless a deeper search shows it. The best
    scored first, as before. Returns as :func:`expand_evaluating`."""
    children = all_children(tree, node)
    count = children.shape[0]
    ranks = np.zeros(count, dtype=np.float64)
    for i in range(count):
        child = children[i]
        if untried(tree, child):
            ranks[i] = -tree[VALUE][child]
            tree[FLAGS][child] &= ~EVALUATED
    return score_children(
        tree, node, length, scratch, ctx, cache_keys, cache_scores, kp, children, ranks
    )


@njit(cache=True, nogil=True)
def searched_mate(child: int, to_move: float, low: float, high: float, tree: tuple) -> bool:
    """A search of ``child`` (window ``(low, high)`` for its side to move) that found a
    forced mate proves the child, as a finished game would: a mate score is only ever
    backed up through every legal reply of the side being mated (the quiescence search
    tries every evasion when in check, and would stand pat rather than walk into a mate
    otherwise). A score at or below ``low`` is an upper bound, at or above ``high`` a
    lower bound: the side to move is proven mated only by an exact score or an upper
    bound, proven to mate only by an exact score or a lower bound. Returns whether the
    child was proven (it is then ``EVALUATED | PROVEN`` with its game value, ply-exact
    as the search counted it from the tree's root)."""
    mated = to_move < -WIN / 2 and to_move < high
    mates = to_move > WIN / 2 and to_move > low
    if not (mated or mates):
        return False
    tree[OUTCOME][child] = 1 if mated else -1
    tree[VALUE][child] = -to_move
    tree[EVAL][child] = 1.0 if mated else -1.0
    tree[FLAGS][child] |= EVALUATED | PROVEN
    return True


@njit(cache=True, nogil=True, inline="always")
def prefetch_next(
    tree: tuple,
    s: np.ndarray,
    children: np.ndarray,
    order: np.ndarray,
    start: int,
    ahead: np.ndarray,
    cache_keys: np.ndarray,
) -> int:
    """The next child :func:`score_children` will search (from ``order[start]`` on:
    neither scored nor a finished game), its position made in ``ahead`` and its leaf
    table slot prefetched; ``NONE`` if there is none. The table is read at random, so
    its slot is seldom in the cache: asked for now, it arrives while the current
    child's search runs instead of stalling the read (about a twentieth of the search's
    time went to that wait). Only the timing changes, never a score."""
    flags = tree[FLAGS]
    for j in range(start, order.shape[0]):
        child = children[order[j]]
        if flags[child] & (EVALUATED | TERMINAL):
            continue
        ahead[:] = s
        make_move(ahead, tree[MOVE][child])
        prefetch(cache_keys, table_slot(cache_keys, ahead[HASH]))
        return child
    return NONE


@njit(cache=True, nogil=True, inline="always")
def note_best(
    tree: tuple, child: int, how: int, ctx: SearchArrays, record: np.ndarray, info: np.ndarray
) -> None:
    """For the step trace: ``child``'s score is now the best of :func:`score_children`'s
    scoring (``how`` it came: ``BEST_*``). When tracing (``record`` is empty otherwise)
    the record takes the child's move and the line its search left in ``ctx``'s PV row 0
    — the next child's search overwrites that row, so it is kept now. Only a new best
    costs this, never a child its null window bounded, and no score depends on it."""
    info[T_SIM_BEST] = child
    info[T_SIM_HOW] = how
    if record.shape[0] == 0:
        return
    record[0] = tree[MOVE][child]
    plies = 0
    if how in (BEST_SEARCHED, BEST_MATE):
        plies = min(ctx.pv_len[0], record.shape[0] - 1)
        record[1 : 1 + plies] = ctx.pv[0, :plies]
    info[T_SIM_PLIES] = 1 + plies


@njit(cache=True, nogil=True)
def score_children(
    tree: tuple,
    node: int,
    length: int,
    scratch: Scratch,
    ctx: SearchArrays,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kp: np.record,
    children: np.ndarray,
    ranks: np.ndarray,
) -> int:
    """Score ``node``'s children not scored yet, lowest ``ranks`` first: 1 if that proved
    ``node``, 0 if not, -1 if the stop flag cut a search short (the children left
    unscored are scored when the search comes back: :func:`resume_scoring`).

    The children are searched as a principal-variation search does: the first exactly,
    each later one first with a null window at the best score so far — a move that
    cannot beat it keeps the bound that proved so (an optimistic value: the true one is
    no higher), one that can is searched again exactly. The node's minimax value is
    exact either way, at the cost of about one alpha-beta search a ply deeper than the
    children's instead of a full search per child. The priors are then a softmax of the
    children's scores.

    The child whose score becomes the best is noted for the step trace
    (:func:`note_best`): at the end, the one whose score is the node's new value."""
    s, child_state, record = scratch.state, scratch.child_state, scratch.record
    info, keys = scratch.info, scratch.keys
    temperature, mix = kp.prior_temp, kp.prior_mix
    uniform, quiesce = kp.uniform, kp.quiesce
    solver, use_cache = kp.solver, kp.tt
    flags, value, prior = tree[FLAGS], tree[VALUE], tree[PRIOR]
    ply = tree[DEPTH][node] + 1
    depth = children_depth(tree, node, kp)
    # The table holds quiescence scores (no alpha-beta plies): a deeper search neither
    # reads nor fills it.
    use_cache = use_cache and depth == 0
    best = best_scored(tree, node)  # the best score so far, for the side choosing at node
    flags[node] |= PARTIAL  # until every child is scored
    order = np.argsort(ranks, kind="mergesort")
    ahead = np.empty_like(child_state)
    ready = NONE  # the child whose position ``ahead`` holds (its table slot prefetched)
    for i in range(order.shape[0]):
        child = children[order[i]]
        if flags[child] & EVALUATED:
            continue
        if not (flags[child] & TERMINAL):
            if child == ready:
                child_state[:] = ahead
            else:
                child_state[:] = s
                make_move(child_state, tree[MOVE][child])
            keys[HIST_MAX + length] = child_state[HASH]
            # A repetition is a draw now; the child's own moves (a stalemate without
            # check) are generated only if it is ever expanded — a move generation per
            # child was most of an expansion's cost.
            mark_repetition(tree, child, child_state, keys, HIST_MAX + length)
        if flags[child] & TERMINAL:
            settle_terminal(tree, child, solver)
            top = min(1.0, max(-1.0, value[child]))
            if top > best:
                best = top
                note_best(tree, child, BEST_TERMINAL, ctx, record, info)
            continue
        key = child_state[HASH]
        slot = table_slot(cache_keys, key)
        if use_cache and cache_keys[slot] == key:
            score = -float(cache_scores[slot])
            how = BEST_CACHED
        else:
            if use_cache:  # the table's read for the next child waits on memory meanwhile
                ready = prefetch_next(tree, s, children, order, i + 1, ahead, cache_keys)
            searched = best == -INF
            low, high = -best - NULL_WINDOW, -best
            if not searched:  # can it beat the best so far? (its mover's score below -best)
                to_move = window_score(ctx, child_state, quiesce, depth, low, high, ply)
                searched = to_move < -best
            if searched:
                low, high = -INF, INF if best == -INF else -best
                to_move = window_score(ctx, child_state, quiesce, depth, low, high, ply)
            if ctx.stats[ABORTED]:
                return -1
            if solver and searched_mate(child, to_move, low, high, tree):
                top = min(1.0, max(-1.0, value[child]))
                if top > best:
                    best = top
                    note_best(tree, child, BEST_MATE, ctx, record, info)
                continue
            exact = low < to_move < high
            # (a bound is never above the best so far: only an exact score becomes the best)
            how = BEST_SEARCHED
            to_move = min(1.0, max(-1.0, to_move))
            score = -to_move
            if exact and use_cache:
                cache_keys[slot] = key
                cache_scores[slot] = to_move
        tree[EVAL][child] = score
        value[child] = score
        flags[child] |= EVALUATED
        if score > best:
            best = score
            note_best(tree, child, how, ctx, record, info)
    flags[node] &= ~PARTIAL  # every child is scored now
    if not uniform:  # the prior: a softmax of the children's scores, in centipawns
        for child in children:
            prior[child] = value_cp(min(1.0, max(-1.0, value[child])))
    normalise_priors(tree, node, temperature, uniform, mix)
    if solver and prove(tree, node):
        return 1
    implicit_value(tree, node)
    return 0


@njit(cache=True, nogil=True)
def refresh_reused(tree: tuple, kp: np.record) -> int:
    """After a move, let the reused tree's nodes near the new root be scored again at the
    depth the root's flow (``root_depth``) gives them now: each was
    scored two plies further from the root, by a shallower search (the new root's
    children by the quiescence search alone with ``root_depth = 3``, where a fresh tree
    scores them by 2-ply searches). A childless node on such a ply loses its score and
    its parent is marked ``PARTIAL``: the next visit to the parent scores them again
    (:func:`resume_scoring`, the new root's children at the first iteration). A node
    with children keeps the value its subtree backed up, a proof its proof. Returns the
    nodes cleared."""
    flags, first_child, next_sibling = tree[FLAGS], tree[FIRST_CHILD], tree[NEXT_SIBLING]
    parents = np.empty(tree[META][USED], dtype=np.int64)  # one ply's nodes with children
    below = np.empty_like(parents)  # the next ply's
    parents[0] = ROOT
    count, cleared = 1, 0
    ply = 1
    while count > 0 and search_depth(kp, ply) > 0:
        found = 0
        for i in range(count):
            parent = parents[i]
            child = first_child[parent]
            while child != NONE:
                f = flags[child]
                if first_child[child] != NONE:
                    below[found] = child
                    found += 1
                elif f & EVALUATED and not (f & (PROVEN | TERMINAL)):
                    flags[child] = f & ~EVALUATED
                    flags[parent] |= PARTIAL
                    cleared += 1
                child = next_sibling[child]
        parents, below = below, parents
        count = found
        ply += 1
    return cleared
