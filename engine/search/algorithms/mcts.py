"""``mcts`` — Monte Carlo Tree Search built for strength in tactical games.

The same tree, visits and averages as ``uct``; what changes is each part:

* **Selection** — PUCT over a blend of two values: ``(1 − α)·Q + α·minimax +
  c·P·sqrt(N) / (1 + n)``, ``Q`` the child's mean reward, ``minimax`` its implicit
  minimax value (below) read as an expected score, ``P`` its prior. A child not yet
  evaluated is taken to be worth the parent's own leaf evaluation (for the chooser)
  less ``fpu`` (first-play urgency). A move proven lost is never chosen.
* **Expansion** — on a node's second visit every child is created with a move-ordering
  prior (:mod:`~engine.search.parts.prior`: captures by victim and exchange, promotions,
  checks, pieces saved or put en prise; softmax at ``prior_temp`` centipawns); a child
  that mates, stalemates or ends the game otherwise is recognised at once.
* **Simulation** — none at random: the new leaf is scored by a quiescence search
  (captures, promotions, every evasion in check; in chess quiet checks in its first
  plies, and no capture or check that loses the exchange, ``qprune``) with the shared
  evaluation, squashed to a reward in [0, 1] (:mod:`~engine.search.parts.leaf`),
  through a Zobrist-keyed table so transpositions share it.
* **Back-propagation** — rewards averaged as in UCT; above the leaf every node's
  implicit minimax value (the negamax of its children's evaluations; Lanctot et al.
  2014) and its proof (MCTS-Solver; Winands, Björnsson & Saito 2008) are refreshed.
* **Final move** — a proven win (the shortest) first; else the most visited move,
  ties by Q; never a proven loss while another move exists.

The search stops by itself once the root's value is proven (``SOLVED``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from engine.core.bits import table_slot
from engine.core.borrow import borrow
from engine.core.games import make_move
from engine.core.prefetch import prefetch
from engine.core.state import HASH, MAX_MOVES
from engine.eval.evaluate import SQUASH_CP, WIN, game_value, is_mate_score, mate_plies
from engine.rules.convert import move_to_uci
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
from engine.search.codes import (
    BEST_CACHED,
    BEST_EARLIER,
    BEST_MATE,
    BEST_SEARCHED,
    BEST_TERMINAL,
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
from engine.search.params import ParamSpec, kernel_record
from engine.search.parts.alphabeta import (
    ABORTED,
    INF,
    MAX_PLY,
    NULL_WINDOW,
    QCHECKS,
    QPRUNE,
    SearchArrays,
    SearchContext,
)
from engine.search.parts.backup import backup_solver
from engine.search.parts.expand import expand_with_priors, look, mark_repetition
from engine.search.parts.implicit import best_evaluated, implicit_value
from engine.search.parts.leaf import LeafCache, leaf_score, window_score
from engine.search.parts.path import HIST_MAX, begin, descend, guard, record_new
from engine.search.parts.prior import move_gain, normalise_priors
from engine.search.parts.pv import PV_PROVEN_FIRST, pv_child
from engine.search.parts.select import blended_q, fpu_value, puct_score, select_puct
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
    MOVE,
    NEXT_SIBLING,
    NONE,
    NUM_LEGAL,
    OUTCOME,
    PARENT,
    PARTIAL,
    PRIOR,
    PROVEN,
    ROOT,
    TERMINAL,
    UNKNOWN,
    USED,
    VALUE,
    VALUE_SUM,
    VISITS,
)

if TYPE_CHECKING:
    from engine.search.info import MoveStats

#: What the kernel reads, by name (:meth:`MCTS.kernel_params` builds it from the parameters).
KERNEL_PARAMS = np.dtype(
    [
        ("c_puct", np.float64),
        ("c_root", np.float64),  # 0: c_puct at the root too
        ("alpha", np.float64),
        ("fpu", np.float64),
        ("prior_temp", np.float64),
        ("prior_mix", np.float64),
        ("uniform", np.bool_),  # prior = none
        ("quiesce", np.bool_),  # leaf = quiescence (else the static evaluation)
        ("solver", np.bool_),
        ("tt", np.bool_),
        ("evaluate", np.bool_),  # expand = evaluate (else lazy)
        ("root_depth", np.int64),
        ("rescore", np.int64),
    ],
    align=True,
)
#: How far above a draw (an evaluation in [-1, 1]; 0.05 is about 35 cp) a move not yet
#: proven must be valued for the final choice to prefer it to a proven draw.
DRAW_MARGIN = 0.05
#: In a full tree a leaf is re-scored one ply deeper at each visit, up to this many
#: plies beyond its own depth (deeper still would take longer than a move).
FULL_TREE_PLIES = 4
#: ``rescore``: the visits at which a node's untried children are first scored again (the
#: value measured with it; 8 lost 9 points a game in a paired match, docs/results.md,
#: code e412672).
RESCORE_VISITS = 32
#: ``rescore``: each further ply comes at this many times the visits of the one before.
RESCORE_GROWTH = 4


@njit(cache=True, nogil=True)
def settle_terminal(tree: tuple, node: int, solver: bool) -> None:
    """A finished game's node: its game value is its evaluation, and a proof if ``solver``."""
    outcome = tree[OUTCOME][node]
    tree[VALUE][node] = game_value(outcome, tree[DEPTH][node])
    tree[EVAL][node] = float(outcome)
    tree[FLAGS][node] |= EVALUATED | (PROVEN if solver else 0)


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
def search_depth(kp: np.record, ply: int) -> int:
    """Plies of alpha-beta search before the quiescence search for a node ``ply`` plies
    below the root: ``root_depth − ply`` while that is positive, so the depth flows down
    the tree from the root (Scorpio's hybrid) — the few nodes near the root, where a
    missed quiet tactic costs the game, are searched as an alpha-beta search of that
    depth would, the many deep ones by the quiescence search alone and stay cheap."""
    return max(0, kp.root_depth - ply)


@njit(cache=True, nogil=True)
def visit_plies(kp: np.record, visits: int) -> int:
    """Plies ``rescore`` adds to the searches that score the children of a node with
    ``visits`` visits: one from :data:`RESCORE_VISITS` on, one more at each
    :data:`RESCORE_GROWTH` times as many, ``rescore`` at most (0: off)."""
    most = kp.rescore
    mark = np.int64(RESCORE_VISITS)
    plies = 0
    while plies < most and visits >= mark:
        plies += 1
        mark *= RESCORE_GROWTH
    return plies


@njit(cache=True, nogil=True)
def children_depth(tree: tuple, node: int, kp: np.record) -> int:
    """Plies of alpha-beta search that score ``node``'s children now:
    what :func:`search_depth` gives a node one ply below ``node``, plus the plies
    ``rescore`` has earned ``node`` with its visits (:func:`visit_plies`). The scoring
    itself (:func:`score_children`), the step view's report of it and the depth a child's
    own re-search counts on from all read it here, so the three cannot disagree."""
    ply = tree[DEPTH][node] + 1
    return search_depth(kp, ply) + visit_plies(kp, tree[VISITS][node])


@njit(cache=True, nogil=True)
def rescore_due(tree: tuple, node: int, kp: np.record) -> bool:
    """Whether ``node`` has just reached a visit count where :func:`visit_plies` grows and
    has an :func:`untried` child to score again (a child tried has a value its subtree
    backed up)."""
    if kp.rescore <= 0 or not kp.evaluate or tree[FLAGS][node] & PROVEN:
        return False  # (a lazy expansion scores each child at its own first visit)
    visits = tree[VISITS][node]
    if visit_plies(kp, visits) == visit_plies(kp, visits - 1):
        return False
    child = tree[FIRST_CHILD][node]
    while child != NONE:
        if untried(tree, child):
            return True
        child = tree[NEXT_SIBLING][child]
    return False


@njit(cache=True, nogil=True)
def untried(tree: tuple, child: int) -> bool:
    """A child scored when its parent was expanded and never chosen since (no visit, no
    children), neither proven nor a finished game: what ``rescore`` scores again."""
    f = tree[FLAGS][child]
    return (
        tree[VISITS][child] == 0
        and tree[FIRST_CHILD][child] == NONE
        and f & EVALUATED != 0
        and f & (PROVEN | TERMINAL) == 0
    )


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
    node = ROOT
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
        # table's shallower one, nor be stored in it.
        to_move, cached = leaf_score(
            ctx, s, quiesce, depth, cache_keys, cache_scores,
            use_cache and own == 0 and not deeper, tree[DEPTH][node],
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
    node = ROOT
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


class MCTSScratch:
    """What an ``mcts`` worker keeps beside its tree: the quiescence searcher and the
    table of leaf scores."""

    def __init__(self, tt_mb: float) -> None:
        # its table serves the alpha-beta searches (root_depth, rescore; qsearch keeps none)
        self.search = SearchContext(tt_bits=18)
        self.cache = LeafCache(tt_mb)

    @property
    def memory_bytes(self) -> int:
        return self.search.memory_bytes + self.cache.memory_bytes


@dataclass(frozen=True)
class MCTSChildStats(ChildStats):
    """A child's numbers plus what its PUCT score needs: its prior, the value it is taken
    at while unevaluated (its parent's first-play urgency, fixed once the parent is
    evaluated), and whether it was evaluated without a visit (a game over at once)."""

    prior: float = 0.0
    urgency: float = 0.5
    evaluated_unvisited: bool = False

    @property
    def evaluated(self) -> bool:
        return self.visits > 0 or self.evaluated_unvisited


class MCTSWorker(Worker):
    """A :class:`Worker` whose children carry their prior and their proof from the tree's
    ``PROVEN`` flag (a proven draw has no mate score to recognise it by), and whose reused
    tree is scored again near the root (``refresh``)."""

    extra: MCTSScratch

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
        return MCTSChildStats(
            **{**stats.__dict__, "proof": proof, "mate": mate},
            prior=float(t.prior[node]),
            urgency=urgency,
            evaluated_unvisited=bool(t.flags[node] & EVALUATED) and stats.visits == 0,
        )


#: How the best child's score came, as the step trace words ``BEST_*``.
BEST_HOWS = {
    BEST_EARLIER: "earlier",
    BEST_SEARCHED: "searched",
    BEST_CACHED: "table",
    BEST_TERMINAL: "game over",
    BEST_MATE: "mate",
}


def deciding_note(how: int, reply: str, depth: int, plies: int, short: int, visited: bool) -> str:
    """The step view's words for the line that decided an expanded leaf's value: how its
    best reply's score came (``BEST_*``); ``plies``: the line's length after the reply;
    ``short``: alpha-beta plies missing from its end, where the search's table answered
    for the position (or it repeated); ``visited``: a reply scored earlier has a subtree
    of its own."""
    if how == BEST_SEARCHED and not plies:  # (only a quiescence search stands pat at once)
        return (
            f"The best reply, {reply}, was scored exactly: the position after it is quiet, "
            "so the evaluation scored it"
        )
    searched = "alpha-beta, then quiescence" if depth else "quiescence"
    cut = (
        f"; it stops {ply_count(short)} short of the alpha-beta horizon, where the search "
        "stopped early (its transposition table held the position's score, or the "
        "position repeated)"
        if short
        else ""
    )
    return {
        BEST_SEARCHED: f"The best reply, {reply}, was scored exactly: shown with the line its "
        f"search played out ({searched}){cut}",
        BEST_MATE: f"The best reply, {reply}, mates: its search found the forced mate shown, "
        f"which proves it{cut}",
        BEST_CACHED: f"The best reply, {reply}, had its score in the table of leaf evaluations "
        "(a transposition), so it has no line",
        BEST_TERMINAL: f"The best reply, {reply}, ends the game: its result is its score, with "
        "no line",
        BEST_EARLIER: f"The best reply, {reply}, was scored before this step ("
        + ("its value backed up from its own subtree" if visited else "at an earlier scoring")
        + "), so this step has no line for it",
    }[how]


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st (the step view's notes)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ply_count(n: int) -> str:
    """The count with its noun, "1 ply" or "3 plies" (the step view's notes)."""
    return f"{n} {'ply' if n == 1 else 'plies'}"


def proof_rank(child: ChildStats) -> int:
    """2 for a proven win, 0 for a proven loss, 1 otherwise (draws and the unknown)."""
    if child.proof == PROVEN_WIN:
        return 2
    if child.proof == PROVEN_LOSS:
        return 0
    return 1


# ---------------------------------------------------------------- the node card


def node_position(worker: Worker, node: int) -> np.ndarray:
    """``node``'s position, replayed from the worker's root by the engine's own move
    function: the tree keeps no position and no Zobrist key per node, and one node's
    path is a few moves (the card asks for one)."""
    s = worker.root.copy()
    for n in worker.tree.path(node):
        make_move(s, int(worker.tree.move[n]))
    return s


def own_depths(worker: Worker, node: int) -> tuple[int, int]:
    """The lowest and the highest number of alpha-beta plies (before the quiescence
    search or the evaluation) the search that gave ``node`` its present score can have
    had, by the rules :func:`mcts_iteration` and :func:`score_children` follow; the tree
    keeps no depth per score.

    The two differ only with ``expand=evaluate`` and ``rescore``, for a node tried since
    its parent's scoring: the rescore plies its parent has earned by now
    (:func:`visit_plies` of its visits at its latest walk, one fewer than now — the
    visits its step counted) may have come after the node's score. A child not tried yet
    was scored again at each of them (:func:`rescore_children`), so its depth is known,
    and it is the one the step view reported (``T_SIM_DEPTH``). In a tree kept from the
    previous move, a score that ``refresh`` did not renew was searched before the move,
    two plies further from that root."""
    tree, kp, params = worker.tree, worker.kparams, worker.params
    visits = int(tree.visits[node])
    has_kids = int(tree.first_child[node]) != NONE
    own = int(search_depth(kp, int(tree.depth[node])))  # a leaf scored on its own
    if node == ROOT:  # a leaf at the first iteration, never re-scored
        return own, own
    if params["expand"] != "evaluate":  # scored at its first visit
        # a full tree's leaf: one ply deeper at each visit since (mcts_iteration)
        scorings = 0 if has_kids else max(0, visits - 1)
        depth = own + min(scorings, FULL_TREE_PLIES)
        return depth, depth
    parent = int(tree.parent[node])
    earned = int(visit_plies(kp, max(0, int(tree.visits[parent]) - 1)))
    low, high = 0, earned  # rescore plies of the parent's scoring of it
    if untried(tree.arrays, node) and not tree.flags[parent] & PROVEN:
        low = high  # scored again at each rescore step of its parent
    if not visits or has_kids:  # its parent's scoring of it stands
        return own + low, own + high
    # A full tree's leaf, searched again at each visit, counting on from the depth of its
    # parent's scoring of it (the rescore plies the parent had then) plus one ply a
    # scoring, capped. That visit came at the parent's walk ``visits + 1`` or later (the
    # parent is walked through at each of the node's visits): the parent had those
    # rescore plies at least.
    low = min(high, max(low, int(visit_plies(kp, visits + 1))))
    return (
        own + min(low + visits, FULL_TREE_PLIES),
        own + min(high + visits, FULL_TREE_PLIES),
    )


def node_scoring(worker: MCTSWorker, node: int) -> dict[str, Any]:
    """The node card's account of how ``node`` and its children were scored (see
    :meth:`MCTS.node_scoring`)."""
    tree, kp, params = worker.tree, worker.kparams, worker.params
    flags = int(tree.flags[node])
    s = node_position(worker, node)
    evaluate = params["expand"] == "evaluate"
    scored = bool(flags & EVALUATED)
    terminal = bool(flags & TERMINAL)
    depths = own_depths(worker, node) if scored and not terminal else None
    kids = tree.children(node)
    children_depth = rescore_plies = None
    if kids and evaluate:  # what its latest walk scored untried children at
        rescore_plies = int(visit_plies(kp, max(0, int(tree.visits[node]) - 1)))
        children_depth = int(search_depth(kp, int(tree.depth[node]) + 1)) + rescore_plies
    key = np.uint64(s[HASH])
    cache = worker.extra.cache
    slot = int(table_slot(cache.keys, key))
    in_table = bool(params["tt"]) and int(cache.keys[slot]) == int(key)
    return {
        # for the side that moved into the node, as its minimax value (the root: the side
        # not to move there)
        "score": float(tree.eval[node]) if scored else None,
        "scored_by": "game over" if terminal else params["leaf"] if scored else None,
        "depth": depths[0] if depths else None,
        "depth_max": depths[1] if depths else None,
        "expand": params["expand"],
        "children": len(kids),
        "children_scored": sum(1 for k in kids if tree.flags[k] & EVALUATED),
        "partial": bool(flags & PARTIAL),
        "children_depth": children_depth,
        "rescore_plies": rescore_plies,
        "key": f"{int(key):016x}",
        "tt": bool(params["tt"]),
        "table_depth": 0,  # the table keeps quiescence scores (no alpha-beta plies)
        "in_table": in_table,
        # the table keeps the score for the side to move in the position: negated here
        "table_score": -float(cache.scores[slot]) if in_table else None,
    }


class MCTS(Algorithm):
    name = "mcts"
    title = "MCTS with quiescence leaves, priors, solver and implicit minimax"
    summary = "MCTS built for strength: quiescence leaves, proofs, priors (the default)"
    description = (
        "MCTS built for strength: PUCT selection with a move-ordering prior over "
        "(1 − α)·Q + α·minimax, leaves scored by a quiescence search instead of a random "
        "playout, proven wins and losses backed up (MCTS-Solver)."
    )
    params = (
        ParamSpec(
            "c_puct", "float", 1.0,
            "exploration weight c in c·P·sqrt(N_parent) / (1 + N)", min=0.0, max=10.0,
            game_defaults={"chess": 0.25},  # results.md: pooled 34 % (200 games), c = 1 30 % (170)
        ),
        ParamSpec(
            "c_root", "float", 0.0,
            "exploration weight at the root alone (0: c_puct there too): the root's moves "
            "are the ones played, so each candidate's value is checked more evenly while "
            "the lines below stay narrow", min=0.0, max=10.0,
            game_defaults={"chess": 1.0},  # docs/results.md (code 38de02b): +10.3 points a
            # game against alphabeta (160 paired, SE 4.5); on Stockfish's ladder -1.7 over
            # 120 (SE 6.0), though -27.5 against 1750, where an earlier trial had lost too
        ),
        ParamSpec(
            "alpha", "float", 0.3,
            "weight α of the implicit minimax value in (1 − α)·Q + α·minimax (0: off)",
            min=0.0, max=1.0,
            game_defaults={"chess": 1.0},  # with every child scored, minimax leads
            # (docs/results.md, against alphabeta, 160 paired: 0.8 -3.4 points a game, 0.9
            # -7.5)
        ),
        ParamSpec(
            "fpu", "float", 0.1,
            "first-play urgency: an unvisited child counts as the parent's own evaluation "
            "(as an expected score) less this",
            min=-1.0, max=1.0,
        ),
        ParamSpec(
            "prior", "choice", "order",
            "order: move-ordering prior (captures, promotions, checks, pieces en prise); "
            "none: every move alike",
            choices=("order", "none"),
        ),
        ParamSpec(
            "prior_temp", "float", 100.0,
            "softmax temperature of the prior, in centipawns of estimated gain",
            min=10.0, max=2000.0,
            # docs/results.md: 200 scored -0.8 points a game against UCI_Elo 2000 (120
            # paired openings, SE 4.4), 60 scored -2.5 (SE 4.3); neither adopted
        ),
        ParamSpec(
            "prior_mix", "float", 0.1,
            "share of the uniform prior mixed in, so every move is tried in time",
            min=0.0, max=1.0,
        ),
        ParamSpec(
            "expand", "choice", "lazy",
            "lazy: children are created with a move-ordering prior and each is scored when "
            "first chosen; evaluate: every child is scored when its parent is expanded and "
            "the prior is a softmax of those scores",
            choices=("lazy", "evaluate"),
            game_defaults={"chess": "evaluate"},  # measured: docs/algorithms.md
        ),
        ParamSpec(
            "leaf", "choice", "quiescence",
            "leaf evaluation: quiescence search (captures, promotions, evasions) or the "
            "static evaluation alone",
            choices=("quiescence", "static"),
        ),
        ParamSpec(
            "root_depth", "int", 0,
            "plies of search that flow down from the root: a node p plies below it is "
            "scored by an alpha-beta search of max(0, root_depth − p) plies before its "
            "quiescence search (0: the quiescence search alone everywhere)", min=0, max=6,
            game_defaults={"chess": 3},  # docs/results.md (code 0c555c9): +2.5 points a game
            # over 2 (240 paired games against alphabeta, SE 3.5); 4 scored 10 points less (80)
        ),
        ParamSpec(
            "refresh", "bool", False,
            "expand=evaluate: after a move, the kept tree's leaves near the new root are "
            "scored again at the depth root_depth gives them there (they were scored two "
            "plies further down, by shallower searches)",
            game_defaults={"chess": True},  # docs/results.md (code 555aa75): +5.6 points a
            # game over the default before it on 160 paired games from fresh openings (SE 3.6)
        ),
        ParamSpec(
            "rescore", "int", 0,
            "plies at most added to the searches that score a node's untried children as "
            "the node gathers visits: at 32 visits (and at 4, 16 … times as many) they are "
            "scored again one ply deeper (0: off)", min=0, max=3,
            game_defaults={"chess": 2},  # docs/results.md (code d8fb853): +3.3 points a game
            # against alphabeta (240 paired, SE 3.5), +0.8 on Stockfish's ladder (120)
        ),
        ParamSpec(
            "qchecks", "int", 2,
            "plies at the start of the quiescence search that also try quiet checks "
            "(mates and forks that begin with a check)", min=0, max=4,
            game_defaults={"knight": 0},  # knight chess has no check
        ),
        ParamSpec(
            "qprune", "bool", False,
            "the quiescence search skips captures and quiet checks that lose the exchange "
            "by a one-exchange estimate (a queen taking a defended pawn); knight chess has "
            "no such loss",
            game_defaults={"chess": True},  # docs/results.md (code 9a6cdab)
        ),
        ParamSpec("solver", "bool", True, "prove wins, losses and draws (MCTS-Solver)"),
        ParamSpec(
            "tt", "bool", True,
            "share leaf evaluations between transpositions (a Zobrist-keyed table)",
        ),
        ParamSpec("tt_mb", "int", 4, "size of that table in MB", min=1, max=256),
    )  # fmt: skip
    free_per_iteration = MAX_MOVES
    plays_on_full = True  # a full tree's leaves are searched deeper instead
    pv_needs_visits = False  # a mate in one is proven unvisited; the rule ranks it first
    pv_rule = PV_PROVEN_FIRST  # a proven win (the quickest), then visits, a proven loss last
    keeps_proofs = True
    value_kind = "q"
    selection_rule = "puct"
    formula = (
        "(1 − α)·Q + α·(1 + minimax)/2 + c·P·sqrt(N_parent) / (1 + N)"
        "  (not yet evaluated: the parent's urgency in place of the first two terms)"
    )
    exploit_label = "value"
    score_label = "PUCT"
    selection_params = ("c_puct", "alpha", "fpu")
    simulation = "quiescence"
    backup_rule = "average"
    race_partner = "uct"  # the textbook algorithm against the one built for strength

    @classmethod
    def kernel_params(cls, params: dict[str, Any]) -> np.record:
        return kernel_record(
            KERNEL_PARAMS,
            c_puct=params["c_puct"],
            c_root=params["c_root"],
            alpha=params["alpha"],
            fpu=params["fpu"],
            prior_temp=params["prior_temp"],
            prior_mix=params["prior_mix"],
            uniform=params["prior"] == "none",
            quiesce=params["leaf"] == "quiescence",
            solver=params["solver"],
            tt=params["tt"],
            evaluate=params["expand"] == "evaluate",
            root_depth=params["root_depth"],
            rescore=params["rescore"],
        )

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
        if not isinstance(child, MCTSChildStats):
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

    @classmethod
    def as_before(cls, stats: ChildStats, flags: int) -> ChildStats:
        """Evaluated-unvisited and the proof as the flags had them before the step (a
        child evaluated or proven by this very step was neither when it was chosen)."""
        if not isinstance(stats, MCTSChildStats):
            return stats
        evaluated = bool(flags & EVALUATED) and stats.visits == 0
        if flags & PROVEN:
            return replace(stats, evaluated_unvisited=evaluated)
        return replace(stats, evaluated_unvisited=evaluated, proof=NOT_PROVEN, mate=None)

    @staticmethod
    def root_prior(child: ChildStats) -> float | None:
        """The PUCT prior P, so the root table shows what the visits were steered by."""
        return float(child.prior) if isinstance(child, MCTSChildStats) else None

    @classmethod
    def node_scoring(cls, worker: Worker, node: int) -> dict[str, Any] | None:
        """The node's own leaf score (its quiescence or alpha-beta score, ``eval``), the
        depths its search and its children's had, whether every child is scored
        (``PARTIAL``: not while a refutation stops the scoring) and whether the leaf table
        holds the position now: what the step view shows as it happens, kept for the card.
        Every score is for the side that moved into the node, as its minimax value."""
        if not isinstance(worker, MCTSWorker):
            return None
        return node_scoring(worker, node)

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

    # ------------------------------------------------------------ step trace
    @classmethod
    def expansion_note(cls, new_count: int) -> str:
        return (
            f"all {new_count} children created with their priors; the one with the "
            "best PUCT score (unevaluated: urgency + c·P·sqrt(N)) is evaluated"
        )

    @classmethod
    def selection_row(cls, child: ChildStats, terms: SelectionTerms) -> dict[str, Any]:
        row = super().selection_row(child, terms)
        if isinstance(child, MCTSChildStats):
            row.update(
                prior=child.prior,
                evaluated=child.evaluated,
                minimax=child.value if child.evaluated else None,
                q_mean=child.value_sum / child.visits if child.visits else None,
            )
        row.update(proof=child.proof, mate=child.mate)
        return row

    @classmethod
    def simulation_trace(cls, view: Any) -> dict[str, Any] | None:
        """The quiescence line from the leaf (captures, promotions, evasions, early
        checks) and its score, or the table's cached score, and the reward. A leaf whose
        children were scored instead (``expand=evaluate``, ``rescore``, a resumed scoring)
        has the line that decided its new value: its best reply and that reply's search
        line (:meth:`deciding_line`)."""
        worker, tree = view.worker, view.tree
        plies = int(worker.info[T_SIM_PLIES])
        moves = [move_to_uci(int(m)) for m in worker.record[:plies]]
        path_moves = [move_to_uci(int(tree.move[n])) for n in view.path[1:]]
        san = view.sans.line(path_moves + moves)[len(path_moves) :]
        cached = view.status == SIM_CACHED
        expanded = view.status in (SIM_EXPANDED, SIM_RESCORED)
        leaf = view.params["leaf"]
        depth = int(worker.info[T_SIM_DEPTH])
        depth_text = ply_count(depth)
        searched = f"an alpha-beta search of {depth_text}, then " if depth else ""
        if view.status == SIM_RESCORED:
            kids = tree.children(view.leaf)
            fresh = sum(1 for k in kids if untried(tree.arrays, k))  # the ones scored again
            visits = int(view.before_visits[view.leaf])
            note = (
                f"the search came back to this node for the {ordinal(visits + 1)} time, so "
                f"its {fresh} untried {'move was' if fresh == 1 else 'moves were'} "
                f"scored again by alpha-beta searches of {depth_text} and quiescence, "
                "deeper than their first scoring (rescore: one ply more at "
                f"{RESCORE_VISITS} visits, and at each {RESCORE_GROWTH} times "
                "as many); the reward is the node's new minimax value"
            )
        elif view.status == SIM_EXPANDED:
            leaf_node = view.leaf
            kids = tree.children(leaf_node)
            scored = sum(1 for k in kids if tree.flags[k] & EVALUATED)
            if not view.created:
                note = (
                    "scoring resumed: not every reply here had its score (refresh cleared "
                    "those of the kept tree's leaves near the new root, or a stopped search "
                    f"cut the scoring short), so the others were scored ({scored} of "
                    f"{len(kids)} now); the reward is its new minimax value"
                )
            else:
                how = f" by an alpha-beta search of {depth_text} and quiescence" if depth else ""
                note = (
                    f"the leaf was expanded and every child scored{how} (the first exactly, "
                    "the others with a null window at the best so far); the reward is its "
                    "minimax value"
                )
        elif cached:
            note = "the position's score was in the table of leaf evaluations (a transposition)"
        elif leaf == "quiescence":
            note = searched + (
                "quiescence search: captures and promotions (every evasion in check, quiet "
                "checks in its first plies) until the position is quiet, then the evaluation"
            )
        else:
            note = searched + "the static evaluation of the leaf"
        leaf_node = view.leaf
        existed = leaf_node < view.used
        before = int(view.before_visits[leaf_node]) if existed else 0
        scored = existed and bool(view.before_flags[leaf_node] & EVALUATED)
        if view.status not in (SIM_EXPANDED, SIM_RESCORED, SIM_CACHED) and scored:
            # Scored before: at its earlier visits and, with expand = evaluate, once more
            # when its parent was expanded — so even its first visit can be a re-search.
            first = view.params["expand"] == "evaluate"
            scoring = ordinal(before + (2 if first else 1))
            why = " (its parent's expansion scored it first)" if first and not before else ""
            if worker.full:
                why += " — the tree is full (node budget), so it is searched deeper"
            prefix = f"visit {before + 1} of a leaf not yet expanded, its {scoring} scoring"
            note = f"{prefix}{why}: {note}"
        trace = {
            "kind": "quiescence" if leaf == "quiescence" else "evaluation",
            "leaf": view.name(view.leaf),
            "moves": moves,
            "san": list(san),
            "score": float(worker.finfo[F_SCORE]),
            "reward": view.reward,
            "cached": cached,
            "depth": depth,
            "expanded": expanded,
            "rescored": view.status == SIM_RESCORED,
            "note": note,
        }
        if expanded:
            trace.update(cls.deciding_line(view, depth))
            line_note = trace.pop("line_note")
            trace["note"] = f"{note}. {line_note}" if line_note else note
        return trace

    @classmethod
    def deciding_line(cls, view: Any, depth: int) -> dict[str, Any]:
        """The line that decided the new value of a leaf whose children were just scored:
        its best child for the side to move there (the one whose value, negated, is the
        leaf's; the kernel noted it as the scoring went, :func:`note_best`), that child's
        move followed by the line its search left (``depth`` plies of alpha-beta, then
        quiescence: ``searched_plies`` says where the one ends; a line the table cut short
        may end before), the child's score and how it came. A child whose score came from the
        table, a finished game or a scoring before this step has its move alone."""
        worker, tree, leaf = view.worker, view.tree, view.leaf
        child = int(worker.info[T_SIM_BEST])
        how = int(worker.info[T_SIM_HOW])
        moves = [move_to_uci(int(m)) for m in worker.record[: int(worker.info[T_SIM_PLIES])]]
        if child == NONE:  # none scored now beat the best scored before
            child, how = int(best_evaluated(tree.arrays, leaf)), BEST_EARLIER
            moves = [move_to_uci(int(tree.move[child]))] if child != NONE else []
        if child == NONE:
            return {
                "best": None,
                "best_how": None,
                "searched_plies": 0,
                "line_score": None,
                "line_note": "",
            }
        board = view.leaf_board()
        san = list(view.sans.line(moves, board))
        moves = moves[: len(san)]
        name = view.name(child)
        searched = min(depth, len(moves) - 1)  # the reply's line: alpha-beta, then quiescence
        short = 0  # the alpha-beta plies a table's answer left out of the line
        if how in (BEST_SEARCHED, BEST_MATE) and searched == len(moves) - 1 < depth:
            for uci in moves:
                board.push_uci(uci)
            short = 0 if board.is_game_over() else depth - searched
        reply = name["san"] or name["move"]
        return {
            "best": name,
            "best_how": BEST_HOWS[how],
            "moves": moves,
            "san": san,
            "searched_plies": searched,
            "line_score": min(1.0, max(-1.0, float(tree.value[child]))),
            "line_note": deciding_note(
                how, reply, depth, len(moves) - 1, short, bool(tree.visits[child])
            ),
        }

    @classmethod
    def backup_trace(cls, view: Any) -> list[dict[str, Any]] | None:
        """UCT's averaging rows, each with the node's implicit minimax value before and
        after and its proof (a proof found now says so)."""
        from engine.search.trace import average_rows

        rows = average_rows(view)
        tree = view.tree
        for row in rows:
            node = row["node"]
            existed = node < view.used
            row["rule"] = "average + minimax"
            row["minimax_before"] = float(view.before_value[node]) if existed else None
            row["minimax_after"] = float(tree.value[node])
            proven = bool(tree.flags[node] & PROVEN)
            row["proof"] = (
                {1: PROVEN_WIN, -1: PROVEN_LOSS}.get(int(tree.outcome[node]), PROVEN_DRAW)
                if proven
                else NOT_PROVEN
            )
            value = float(tree.value[node])
            row["mate"] = mate_plies(value) if proven and is_mate_score(value) else None
        return rows

    # ------------------------------------------------------------ running
    @classmethod
    def make_worker(
        cls, root: np.ndarray, params: dict[str, Any], seed: int, thread: int, node_budget: int
    ) -> MCTSWorker:
        worker = MCTSWorker(cls, root, params, seed, thread, node_budget, ply_cap=MAX_PLY)
        worker.extra = MCTSScratch(params["tt_mb"])
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
