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

import chess
import numpy as np
from numba import njit

from engine.core.bits import popcount, table_slot
from engine.core.borrow import borrow
from engine.core.games import make_move
from engine.core.prefetch import prefetch
from engine.core.state import BISHOP, CHESS, GAME, HASH, KNIGHT, MAX_MOVES, QUEEN, ROOK, TURN
from engine.eval.evaluate import SQUASH_CP, WIN, game_value, is_mate_score, mate_plies
from engine.rules.convert import board_from_state, legal_move_array, move_to_uci
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
from engine.search.alphabeta_core import (
    ABORTED,
    INF,
    MAX_PLY,
    NULL_WINDOW,
    PRUNED,
    QCHECKS,
    QPRUNE,
    SearchContext,
)
from engine.search.codes import (
    BEST_BOUND,
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
    T_SIM_RANDOM,
    T_SIM_STATUS,
)
from engine.search.params import ParamSpec
from engine.search.parts.backup import backup_solver
from engine.search.parts.expand import expand_with_priors, look, mark_repetition
from engine.search.parts.implicit import best_evaluated, implicit_value
from engine.search.parts.leaf import LeafCache, capture_first_score, leaf_score, window_score
from engine.search.parts.path import HIST_MAX, begin, descend, guard, record_new
from engine.search.parts.prior import (
    age_order,
    history_share,
    move_gain,
    new_order_tables,
    normalise_priors,
    note_refutation,
    quiet,
)
from engine.search.parts.pv import PV_PROVEN_FIRST, pv_child
from engine.search.parts.select import (
    blended_q,
    centre_odds,
    centred,
    fpu_value,
    puct_score,
    select_puct,
)
from engine.search.parts.simulate import outcome_reward
from engine.search.parts.solver import prove
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

# kernel parameter slots
(K_C, K_ALPHA, K_FPU, K_TEMP, K_UNIFORM, K_QUIESCE) = range(6)
(K_SOLVER, K_TT, K_MIX, K_DEPTH, K_EVALUATE, K_DEEPEN) = range(6, 12)
K_CAPTURES, K_CUT, K_ROOT_DEPTH, K_ENDGAME, K_CENTRE, K_C_ROOT = 12, 13, 14, 15, 16, 17
K_ENDGAME_ROOT, K_RESCORE, K_RESCORE_VISITS, K_PRIOR_BOUND = 18, 19, 20, 21
K_KILLER, K_HISTORY = 22, 23
KERNEL_PARAMS = 24
#: A root with at most this many knights, bishops, rooks and queens (both sides) is an
#: endgame, where ``c_endgame`` replaces ``c_puct``.
ENDGAME_PIECES = 6
#: At most this many plies ``endgame_root`` adds to the root's flow: a fixed depth has no
#: iterative deepening to order its moves, and in a queen ending with two or three more
#: plies a single scoring of the root's children took longer than a 300 ms move.
ENDGAME_ROOT_PLIES = 2
#: How far above a draw (an evaluation in [-1, 1]; 0.05 is about 35 cp) a move not yet
#: proven must be valued for the final choice to prefer it to a proven draw.
DRAW_MARGIN = 0.05
#: In a full tree a leaf is re-scored one ply deeper at each visit, up to this many
#: plies beyond ``leaf_depth`` (deeper still would take longer than a move).
FULL_TREE_PLIES = 4
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
    scratch: tuple,
    temperature: float,
    uniform: bool,
    mix: float,
    solver: bool,
    order: tuple,
    kparams: np.ndarray,
) -> bool:
    """Create ``node``'s children with their priors; True if that proved ``node``
    (a child ends the game in a win for its mover: a mate in one)."""
    s, moves, child_state, child_moves, _hist, _record, _path, info, _finfo, _keys = scratch
    first_new = tree[META][USED]
    count = expand_with_priors(
        tree, node, s, moves, child_state, child_moves, temperature, uniform, mix,
        order, kparams[K_KILLER], kparams[K_HISTORY],
    )  # fmt: skip
    record_new(info, first_new, count)
    flags = tree[FLAGS]
    child = tree[FIRST_CHILD][node]
    while child != NONE:
        if flags[child] & TERMINAL:
            settle_terminal(tree, child, solver)
        child = tree[NEXT_SIBLING][child]
    return solver and prove(tree, node)


@njit(cache=True, nogil=True)
def search_depth(kparams: np.ndarray, ply: int, s: np.ndarray) -> int:
    """Plies of alpha-beta search before the quiescence search for a node ``ply`` plies
    below the root, in position ``s`` (the node's own, or its parent's when its
    siblings are scored together): ``leaf_depth``, or more near the root when
    ``root_depth`` lets the depth flow down the tree (``root_depth − ply``, Scorpio's
    hybrid) — the few nodes near the root, where a missed quiet tactic costs the game,
    are searched as an alpha-beta search of that depth would, the many deep ones stay
    cheap. ``endgame`` adds ``endgame − pieces`` plies when fewer pieces (knights,
    bishops, rooks, queens of both sides) remain: a king walk or a pawn race is decided
    many plies on, the branching factor is small and the shared transposition table
    makes such searches cheap, while the tree itself shares nothing between move orders.
    ``endgame_root`` adds up to :data:`ENDGAME_ROOT_PLIES` of those plies to the flow from
    the root instead, so only the searches near the root deepen."""
    endgame_root, endgame = np.int64(kparams[K_ENDGAME_ROOT]), np.int64(kparams[K_ENDGAME])
    left = np.int64(pieces(s)) if endgame_root > 0 or endgame > 0 else 0
    flow = np.int64(kparams[K_ROOT_DEPTH])
    if endgame_root > 0:
        flow += min(ENDGAME_ROOT_PLIES, max(0, int(endgame_root - left)))
    depth = max(np.int64(kparams[K_DEPTH]), flow - ply)
    if endgame > 0:
        depth += max(0, int(endgame - left))
    return depth


@njit(cache=True, nogil=True)
def pieces(s: np.ndarray) -> int:
    """Knights, bishops, rooks and queens of both sides: how far into the endgame ``s``
    is, for ``endgame`` and ``c_endgame``."""
    return popcount(s[KNIGHT] | s[BISHOP] | s[ROOK] | s[QUEEN])


@njit(cache=True, nogil=True)
def visit_plies(kparams: np.ndarray, visits: int) -> int:
    """Plies ``rescore`` adds to the searches that score the children of a node with
    ``visits`` visits: one from ``rescore_visits`` on, one more at each
    :data:`RESCORE_GROWTH` times as many, ``rescore`` at most (0: off)."""
    most = np.int64(kparams[K_RESCORE])
    mark = np.int64(kparams[K_RESCORE_VISITS])
    plies = 0
    while plies < most and visits >= mark:
        plies += 1
        mark *= RESCORE_GROWTH
    return plies


@njit(cache=True, nogil=True)
def children_depth(tree: tuple, node: int, kparams: np.ndarray, s: np.ndarray) -> int:
    """Plies of alpha-beta search that score ``node``'s children now, in position ``s``:
    what :func:`search_depth` gives a node one ply below ``node``, plus the plies
    ``rescore`` has earned ``node`` with its visits (:func:`visit_plies`). The scoring
    itself (:func:`score_children`), the step view's report of it and the depth a child's
    own re-search counts on from all read it here, so the three cannot disagree."""
    ply = tree[DEPTH][node] + 1
    return search_depth(kparams, ply, s) + visit_plies(kparams, tree[VISITS][node])


@njit(cache=True, nogil=True)
def rescore_due(tree: tuple, node: int, kparams: np.ndarray) -> bool:
    """Whether ``node`` has just reached a visit count where :func:`visit_plies` grows and
    has an :func:`untried` child to score again (a child tried has a value its subtree
    backed up)."""
    if kparams[K_RESCORE] <= 0 or kparams[K_EVALUATE] == 0.0 or tree[FLAGS][node] & PROVEN:
        return False  # (a lazy expansion scores each child at its own first visit)
    visits = tree[VISITS][node]
    if visit_plies(kparams, visits) == visit_plies(kparams, visits - 1):
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
    siblings' values; +inf at the root or without an evaluated sibling). An alpha-beta
    search stops at a cut node there too: one refutation is enough."""
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
    scratch: tuple,
    ctx: tuple,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kparams: np.ndarray,
    order: tuple,
) -> int:
    """Create ``node``'s children and score them now (:func:`score_children`, in the
    order of their move-ordering priors): 1 if that proved ``node``, 0 if not, -1 if the
    stop flag cut a search short."""
    s, moves, child_state, child_moves, _hist, _record, _path, info, _finfo, _keys = scratch
    first_new = tree[META][USED]
    count = expand_with_priors(
        tree, node, s, moves, child_state, child_moves, kparams[K_TEMP], False, 0.0,
        order, kparams[K_KILLER], kparams[K_HISTORY],
    )  # fmt: skip
    record_new(info, first_new, count)
    children = child_list(tree, node, count)
    ranks = np.empty(count, dtype=np.float64)
    for i in range(count):
        ranks[i] = -tree[PRIOR][children[i]]
    return score_children(
        tree, node, length, scratch, ctx, cache_keys, cache_scores, kparams, children, ranks
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
    scratch: tuple,
    ctx: tuple,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kparams: np.ndarray,
) -> int:
    """A cut node whose refutation failed: score its other children (captures and the
    rest in the order of their move-ordering gains), as alpha-beta tries the next move
    when the first did not cut. Returns as :func:`expand_evaluating`."""
    s, _moves, child_state, _cm, _hist, _record, _path, _info, _finfo, _keys = scratch
    children = all_children(tree, node)
    count = children.shape[0]
    ranks = np.zeros(count, dtype=np.float64)
    for i in range(count):
        if not (tree[FLAGS][children[i]] & EVALUATED):
            child_state[:] = s
            make_move(child_state, tree[MOVE][children[i]])
            ranks[i] = -move_gain(s, child_state, tree[MOVE][children[i]])
    return score_children(
        tree, node, length, scratch, ctx, cache_keys, cache_scores, kparams, children, ranks
    )


@njit(cache=True, nogil=True)
def rescore_children(
    tree: tuple,
    node: int,
    length: int,
    scratch: tuple,
    ctx: tuple,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kparams: np.ndarray,
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
        tree, node, length, scratch, ctx, cache_keys, cache_scores, kparams, children, ranks
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
    tree: tuple, child: int, how: int, ctx: tuple, record: np.ndarray, info: np.ndarray
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
    if how in (BEST_SEARCHED, BEST_BOUND, BEST_MATE):
        plies = min(ctx[5][0], record.shape[0] - 1)
        record[1 : 1 + plies] = ctx[4][0, :plies]
    info[T_SIM_PLIES] = 1 + plies


@njit(cache=True, nogil=True)
def score_children(
    tree: tuple,
    node: int,
    length: int,
    scratch: tuple,
    ctx: tuple,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kparams: np.ndarray,
    children: np.ndarray,
    ranks: np.ndarray,
) -> int:
    """Score ``node``'s children not scored yet, lowest ``ranks`` first: 1 if that proved
    ``node``, 0 if not, -1 if the stop flag cut a search short (the children left
    unscored are scored when the search comes back, as after a cut).

    The children are searched as a principal-variation search does: the first exactly,
    each later one first with a null window at the best score so far — a move that
    cannot beat it keeps the bound that proved so (an optimistic value: the true one is
    no higher), one that can is searched again exactly. The node's minimax value is
    exact either way, at the cost of about one alpha-beta search of ``leaf_depth + 1``
    plies instead of a full search per child. With ``cut`` the scoring stops at the first
    reply that refutes the move into ``node`` (:func:`refutation_bound`) and the node is
    marked ``PARTIAL``. The priors are then a softmax of the children's scores (a child
    not scored yet: the uniform share alone), a child this scoring only bounded by its
    null window counted ``prior_bound`` centipawns lower: its bound says no more than
    "no better than the best so far", and taken as a score it ties with that best.

    The child whose score becomes the best is noted for the step trace
    (:func:`note_best`): at the end, the one whose score is the node's new value."""
    s, _moves, child_state, _cm, _hist, record, _path, info, _finfo, keys = scratch
    temperature, mix = kparams[K_TEMP], kparams[K_MIX]
    uniform, quiesce = kparams[K_UNIFORM] != 0.0, kparams[K_QUIESCE] != 0.0
    solver, use_cache = kparams[K_SOLVER] != 0.0, kparams[K_TT] != 0.0
    flags, value, prior = tree[FLAGS], tree[VALUE], tree[PRIOR]
    ply = tree[DEPTH][node] + 1
    depth = children_depth(tree, node, kparams, s)
    # The table holds scores of the base depth: a deeper search neither reads nor fills it.
    use_cache = use_cache and depth == np.int64(kparams[K_DEPTH])
    best = best_scored(tree, node)  # the best score so far, for the side choosing at node
    beta = refutation_bound(tree, node) if kparams[K_CUT] != 0.0 else INF
    flags[node] |= PARTIAL  # until every child is scored
    order = np.argsort(ranks, kind="mergesort")
    bounded = np.zeros(children.shape[0], dtype=np.bool_)  # failed its null window here
    ahead = np.empty_like(child_state)
    ready = NONE  # the child whose position ``ahead`` holds (its table slot prefetched)
    for i in range(order.shape[0]):
        if best >= beta:
            break  # refuted: the rest stay unscored until the refutation fails
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
            # Windows for the child's mover: a score of ours at or above ``beta``
            # refutes the move into ``node`` however much above it is (its mover's at or
            # below ``-beta``), so no search looks further down than that.
            searched = best == -INF
            low, high = -best - NULL_WINDOW, -best
            if not searched:  # can it beat the best so far? (its mover's score below -best)
                to_move = window_score(ctx, child_state, quiesce, depth, low, high, ply)
                searched = to_move < -best
            if searched:
                low, high = -beta, INF if best == -INF else -best
                to_move = window_score(ctx, child_state, quiesce, depth, low, high, ply)
            if ctx[11][ABORTED]:
                return -1
            if solver and searched_mate(child, to_move, low, high, tree):
                top = min(1.0, max(-1.0, value[child]))
                if top > best:
                    best = top
                    note_best(tree, child, BEST_MATE, ctx, record, info)
                continue
            exact = low < to_move < high
            how = BEST_SEARCHED if exact else BEST_BOUND
            bounded[order[i]] = not searched
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
    whole = True
    for child in children:
        if not (flags[child] & EVALUATED):
            whole = False
    if whole:
        flags[node] &= ~PARTIAL
    if not uniform:  # the prior: a softmax of the children's scores, in centipawns
        below = kparams[K_PRIOR_BOUND]
        for k in range(children.shape[0]):  # a child not scored yet: the uniform share alone
            child = children[k]
            if not (flags[child] & EVALUATED):
                prior[child] = -INF
                continue
            prior[child] = value_cp(min(1.0, max(-1.0, value[child])))
            if bounded[k]:
                prior[child] -= below
    normalise_priors(tree, node, temperature, uniform, mix)
    if solver and prove(tree, node):
        return 1
    implicit_value(tree, node)
    return 0


@njit(cache=True, nogil=True)
def note_scored(order: tuple, tree: tuple, node: int, expanded: bool, turn: int) -> None:
    """Feed the prior's killer and history tables the refutation an iteration found.
    ``expanded``: ``node``'s children were just scored, and the best of them (a move by
    ``turn``, the side to move at ``node``) refutes its position. Otherwise ``node`` was
    scored itself, and counts if that makes it the best reply in its parent's position
    (its mover is the other side)."""
    if expanded:
        best = best_evaluated(tree, node)
        if best != NONE:
            note_refutation(order, tree, best, turn)
        return
    parent = tree[PARENT][node]
    if parent != NONE and best_evaluated(tree, parent) == node:
        note_refutation(order, tree, node, 1 - turn)


@njit(cache=True, nogil=True)
def mcts_iteration(
    tree: tuple,
    root: np.ndarray,
    scratch: tuple,
    ctx: tuple,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kparams: np.ndarray,
    full: bool,
    rng: np.ndarray,
    order: tuple,
) -> bool:
    """One iteration; False when the stop flag cut the leaf's search (nothing backed up).

    ``full``: the tree is at its node budget, so a leaf that would be expanded is
    searched again one ply deeper instead (up to :data:`FULL_TREE_PLIES`) — the search
    goes on sharpening the leaves it has rather than stopping."""
    s, moves, t, _cm, _hist, record, path, info, finfo, keys = scratch
    c_puct, alpha, fpu = kparams[K_C], kparams[K_ALPHA], kparams[K_FPU]
    temperature, mix = kparams[K_TEMP], kparams[K_MIX]
    uniform, quiesce = kparams[K_UNIFORM] != 0.0, kparams[K_QUIESCE] != 0.0
    solver, use_cache = kparams[K_SOLVER] != 0.0, kparams[K_TT] != 0.0
    depth = np.int64(kparams[K_DEPTH])
    evaluate_all = kparams[K_EVALUATE] != 0.0
    deepen = np.int64(kparams[K_DEEPEN])
    expanded = False
    rescored = False  # (rescore) a node with children had its untried children scored again
    rescore = False
    # Scorings a node has had before its first visit: an evaluating expansion scores
    # every child when their parent is expanded, a lazy one scores a leaf at its first
    # visit. A node visited again is scored deeper while it has had no more than
    # ``deepen`` scorings, one ply deeper each time; then it is expanded.
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
        if (
            tree[FIRST_CHILD][node] == NONE
            and node != ROOT
            and (full or tree[VISITS][node] + scored_unvisited <= deepen)
        ):
            rescore = True
            break  # visited again before its expansion (or no room for it): search deeper
        if tree[FIRST_CHILD][node] == NONE:
            if tree[NUM_LEGAL][node] == UNKNOWN and look(
                tree, node, s, moves, keys, HIST_MAX + length - 1
            ):  # scored before its moves were known, and the game is over there
                settle_terminal(tree, node, solver)
                break
            if evaluate_all:
                done = expand_evaluating(
                    tree, node, length, scratch, ctx, cache_keys, cache_scores, kparams, order
                )
                if done < 0:
                    return False
                expanded = True
                break  # the node's children scored: its new minimax value is backed up
            if expand(tree, node, scratch, temperature, uniform, mix, solver, order, kparams):
                break  # proven by a child that ends the game
        elif rescore_due(tree, node, kparams):
            done = rescore_children(
                tree, node, length, scratch, ctx, cache_keys, cache_scores, kparams
            )
            if done < 0:
                return False
            expanded = rescored = True
            break  # its untried replies scored deeper: its new minimax value is backed up
        elif flags[node] & PARTIAL and not refuted(tree, node):
            done = resume_scoring(
                tree, node, length, scratch, ctx, cache_keys, cache_scores, kparams
            )
            if done < 0:
                return False
            expanded = True
            break  # its other replies scored: its new minimax value is backed up
        c = kparams[K_C_ROOT] if node == ROOT and kparams[K_C_ROOT] > 0.0 else c_puct
        child = select_puct(tree, node, c, alpha, fpu, solver, kparams[K_CENTRE])
        if child == NONE:
            break
        node = child
        length = descend(tree, node, s, path, length, keys)
    info[T_PATH_LEN] = length
    info[T_SIM_RANDOM] = 0
    # the depth of the leaf's search, or of its children's when it was expanded
    own = search_depth(kparams, tree[DEPTH][node], s)  # the leaf's own depth, no rescore
    if expanded:
        leaf_depth = children_depth(tree, node, kparams, s)
    elif rescore and evaluate_all:
        # Count on from the depth of the score it replaces: its parent scored it with the
        # parent's rescore plies already (the parent's visits only grow, so the re-search
        # is never shallower than that score, and each visit adds one).
        leaf_depth = children_depth(tree, tree[PARENT][node], kparams, s)
    else:
        leaf_depth = own
    info[T_SIM_DEPTH] = leaf_depth
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
    elif f & EVALUATED and not rescore:  # every child proven lost, the node not yet
        reward = tree[VALUE_SUM][node] / max(1, tree[VISITS][node])  # its mean stands
        score = 2.0 * reward - 1.0
        info[T_SIM_STATUS] = SIM_CACHED
    else:  # a new leaf, or (deepen) one visited again before its expansion, one ply deeper
        if leaf_depth != depth:  # (not expanded here: the leaf's own depth)
            use_cache = False  # the table holds scores of the base depth only
        if rescore:  # one ply deeper for each scoring it has had; a full tree's capped
            extra = leaf_depth - own + tree[VISITS][node] + scored_unvisited
            leaf_depth = own + (min(extra, max(FULL_TREE_PLIES, deepen)) if full else extra)
        info[T_SIM_DEPTH] = leaf_depth
        random_plies = 0 if rescore else np.int64(kparams[K_CAPTURES])
        played = 0
        if random_plies:  # a sample: the table neither answers nor keeps it
            to_move, played = capture_first_score(
                ctx, s, t, moves, record, rng, random_plies, quiesce, leaf_depth,
                tree[DEPTH][node],
            )  # fmt: skip
            cached = False
        else:  # a deeper score must not read the table's shallower one, nor be stored in it
            to_move, cached = leaf_score(
                ctx, s, quiesce, leaf_depth, cache_keys, cache_scores,
                use_cache and not rescore, tree[DEPTH][node],
            )  # fmt: skip
        if ctx[11][ABORTED]:
            return False
        score = -to_move  # for the side that moved into the leaf
        tree[EVAL][node] = score
        tree[VALUE][node] = score
        flags[node] |= EVALUATED
        reward = 0.5 * (1.0 + score)
        info[T_SIM_STATUS] = SIM_CACHED if cached else 0
        played = min(played, record.shape[0])
        plies = min(ctx[5][0], record.shape[0] - played)
        record[played : played + plies] = ctx[4][0, :plies]
        info[T_SIM_PLIES] = played + plies
        info[T_SIM_RANDOM] = played
    finfo[F_REWARD] = reward
    finfo[F_SCORE] = score
    if kparams[K_KILLER] != 0.0 or kparams[K_HISTORY] != 0.0:
        note_scored(order, tree, node, expanded, np.int64(s[TURN]))
    backup_solver(tree, path, length, reward, solver)
    return True


@njit(cache=True, nogil=True)
def complete_proof(
    tree: tuple,
    root: np.ndarray,
    scratch: tuple,
    ctx: tuple,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kparams: np.ndarray,
    stop: np.ndarray,
    order: tuple,
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
    s, moves, _t, _cm, _hist, _record, path, info, _finfo, keys = scratch
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
                expand_evaluating(
                    tree, node, length, scratch, ctx, cache_keys, cache_scores, kparams, order
                )
                < 0
                or first_child[node] == NONE
            ):
                return
        node = pv_child(tree, node, PV_PROVEN_FIRST, False)
        length = descend(tree, node, s, path, length, keys)


@njit(cache=True, nogil=True)
def refresh_reused(tree: tuple, root: np.ndarray, kparams: np.ndarray) -> int:
    """After a move, let the reused tree's nodes near the new root be scored again at the
    depth the root's flow (``root_depth``, ``endgame_root``) gives them now: each was
    scored two plies further from the root, by a shallower search (the new root's
    children by the quiescence search alone with ``root_depth = 3``, where a fresh tree
    scores them by 2-ply searches). A childless node on such a ply loses its score and
    its parent is marked ``PARTIAL``: the next visit to the parent scores them again
    (:func:`resume_scoring`, the new root's children at the first iteration). A node
    with children keeps the value its subtree backed up, a proof its proof. Returns the
    nodes cleared."""
    flags, first_child, next_sibling = tree[FLAGS], tree[FIRST_CHILD], tree[NEXT_SIBLING]
    base = np.int64(kparams[K_DEPTH])
    parents = np.empty(tree[META][USED], dtype=np.int64)  # one ply's nodes with children
    below = np.empty_like(parents)  # the next ply's
    parents[0] = ROOT
    count, cleared = 1, 0
    ply = 1
    while count > 0 and search_depth(kparams, ply, root) > base:
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
    scratch: tuple,
    ctx: tuple,
    cache_keys: np.ndarray,
    cache_scores: np.ndarray,
    kparams: np.ndarray,
    max_iters: int,
    stop: np.ndarray,
    full: bool,
    rng: np.ndarray,
    order: tuple,
) -> tuple[int, int]:
    """Up to ``max_iters`` iterations; stops early on the stop flag, a full tree (unless
    ``full`` says it is at its budget: then no node is added), or a root whose value is
    proven."""
    # Borrowed views (engine.core.borrow): nothing below counts references to them.
    tree, root, scratch, ctx = borrow(tree), borrow(root), borrow(scratch), borrow(ctx)
    cache_keys, cache_scores, kparams = borrow(cache_keys), borrow(cache_scores), borrow(kparams)
    stop, rng, order = borrow(stop), borrow(rng), borrow(order)
    # a root not yet expanded needs room even in a full tree
    room = 0 if full and tree[FIRST_CHILD][ROOT] != NONE else MAX_MOVES
    for it in range(max_iters):
        code = guard(tree, stop, room)
        if code != GO_ON:
            return it, code
        if tree[FLAGS][ROOT] & PROVEN:
            if kparams[K_SOLVER] != 0.0:
                complete_proof(
                    tree, root, scratch, ctx, cache_keys, cache_scores, kparams, stop, order
                )
            return it, SOLVED
        if not mcts_iteration(
            tree, root, scratch, ctx, cache_keys, cache_scores, kparams, full, rng, order
        ):
            return it, STOPPED
    return max_iters, DONE


class MCTSScratch:
    """What an ``mcts`` worker keeps beside its tree: the quiescence searcher and the
    table of leaf scores."""

    def __init__(self, tt_mb: float) -> None:
        self.search = SearchContext(tt_bits=18)  # for leaf_depth > 0 (qsearch keeps none)
        self.cache = LeafCache(tt_mb)
        self.order = new_order_tables()  # the prior's history and killer tables

    @property
    def memory_bytes(self) -> int:
        return (
            self.search.memory_bytes + self.cache.memory_bytes + sum(a.nbytes for a in self.order)
        )


@dataclass(frozen=True)
class MCTSChildStats(ChildStats):
    """A child's numbers plus what its PUCT score needs: its prior, the value it is taken
    at while unevaluated (its parent's first-play urgency, fixed once the parent is
    evaluated), and whether it was evaluated without a visit (a game over at once)."""

    prior: float = 0.0
    urgency: float = 0.5
    evaluated_unvisited: bool = False
    odds: float = 1.0  # what its chooser's values are centred on (``centre``)

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
        age_order(self.extra.order, 1)
        if reused and self.params["refresh"] and self.params["expand"] == "evaluate":
            refresh_reused(self.tree.arrays, self.root, self.kparams)
        return reused

    def child_stats(self, node: int) -> ChildStats:
        stats = super().child_stats(node)
        t = self.tree
        proof, mate = NOT_PROVEN, None
        if t.flags[node] & PROVEN:
            proof = {1: PROVEN_WIN, -1: PROVEN_LOSS}.get(int(t.outcome[node]), PROVEN_DRAW)
            mate = mate_plies(stats.value) if is_mate_score(stats.value) else None
        parent = int(t.parent[node])
        urgency, odds = 0.5, 1.0
        if parent != NONE:
            odds = float(centre_odds(t.arrays, parent, self.params["centre"]))
            urgency = float(fpu_value(t.arrays, parent, self.params["fpu"], odds))
        return MCTSChildStats(
            **{**stats.__dict__, "proof": proof, "mate": mate},
            prior=float(t.prior[node]),
            urgency=urgency,
            odds=odds,
            evaluated_unvisited=bool(t.flags[node] & EVALUATED) and stats.visits == 0,
        )


#: How the best child's score came, as the step trace words ``BEST_*``.
BEST_HOWS = {
    BEST_EARLIER: "earlier",
    BEST_SEARCHED: "searched",
    BEST_BOUND: "bound",
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
        BEST_BOUND: f"The best reply, {reply}, refutes the move into the leaf: its search only "
        "bounded its score (alpha-beta's cut), so it has no exact line",
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


def node_positions(worker: Worker, node: int) -> tuple[np.ndarray, np.ndarray | None]:
    """``node``'s position and its parent's (None at the root), replayed from the
    worker's root by the engine's own move function: the tree keeps no position and no
    Zobrist key per node, and one node's path is a few moves (the card asks for one)."""
    tree = worker.tree
    s = worker.root.copy()
    parent: np.ndarray | None = None
    for n in tree.path(node):
        parent = s.copy()
        make_move(s, int(tree.move[n]))
    return s, parent


def rescored_leaf(own: int, extra: int, scorings: int, deepen: int, full: bool) -> int:
    """The depth of a childless leaf's re-search on a visit (:func:`mcts_iteration`:
    ``deepen``, or a full tree), ``extra`` plies beyond ``own`` before the cap, the leaf
    having had ``scorings`` scorings before it (what the kernel compares with ``deepen``):
    past ``deepen``'s share only a full tree re-searches a leaf, and it caps the plies at
    :data:`FULL_TREE_PLIES` (or ``deepen``); within it, ``full`` (the tree now) decides."""
    if scorings > deepen or full:
        return own + min(extra, max(FULL_TREE_PLIES, deepen))
    return own + extra


def own_depths(
    worker: Worker, node: int, s: np.ndarray, parent_s: np.ndarray | None
) -> tuple[int, int]:
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
    deepen = int(params["deepen"])
    ply = int(tree.depth[node])
    own = int(search_depth(kp, ply, s))  # a leaf scored on its own (the kernel's ``own``)
    if parent_s is None:  # the root: a leaf at the first iteration, never re-scored
        return own, own
    if params["expand"] != "evaluate":  # scored at its first visit, then once per visit
        if has_kids:  # re-scored at visits 1 … deepen, then expanded
            return own + deepen, own + deepen
        scorings = max(0, visits - 1)  # before its latest visit: one a visit since the first
        depth = rescored_leaf(own, scorings, scorings, deepen, worker.full) if scorings else own
        return depth, depth
    parent = int(tree.parent[node])
    earned = int(visit_plies(kp, max(0, int(tree.visits[parent]) - 1)))
    low, high = 0, earned  # rescore plies of the parent's scoring of it
    if untried(tree.arrays, node) and not tree.flags[parent] & PROVEN:
        low = high  # scored again at each rescore step of its parent
    if not visits or (has_kids and not deepen):  # its parent's scoring of it stands
        base = int(search_depth(kp, ply, parent_s))  # (score_children: the parent's position)
        return base + low, base + high
    # Searched again at each visit before its expansion (deepen; a full tree: at every
    # visit), counting on from the depth of its parent's scoring of it (the rescore plies
    # the parent had then) plus one ply a scoring; one with children at its last
    # visit before expansion, its ``deepen``-th. That visit came at the parent's walk
    # ``visits + 1`` or later (expanded at its second, the parent is walked through at
    # each of the node's visits): the parent had those rescore plies at least.
    visits = deepen if has_kids else visits
    low = min(high, max(low, int(visit_plies(kp, visits + 1))))
    return (
        rescored_leaf(own, low + visits, visits, deepen, worker.full and not has_kids),
        rescored_leaf(own, high + visits, visits, deepen, worker.full and not has_kids),
    )


def node_scoring(worker: MCTSWorker, node: int) -> dict[str, Any]:
    """The node card's account of how ``node`` and its children were scored (see
    :meth:`MCTS.node_scoring`)."""
    tree, kp, params = worker.tree, worker.kparams, worker.params
    flags = int(tree.flags[node])
    s, parent_s = node_positions(worker, node)
    evaluate = params["expand"] == "evaluate"
    scored = bool(flags & EVALUATED)
    terminal = bool(flags & TERMINAL)
    depths = own_depths(worker, node, s, parent_s) if scored and not terminal else None
    # A leaf scored on its own at its first visit starts with capture_plies random plies
    # (a sample); a parent's scoring of its children and every re-search have none.
    first_alone = parent_s is None or (
        not evaluate and int(tree.visits[node]) <= 1 and depths is not None
    )
    random_plies = int(params["capture_plies"]) if scored and first_alone else 0
    kids = tree.children(node)
    children_depth = rescore_plies = None
    if kids and evaluate:  # what its latest walk scored untried children at
        rescore_plies = int(visit_plies(kp, max(0, int(tree.visits[node]) - 1)))
        children_depth = int(search_depth(kp, int(tree.depth[node]) + 1, s)) + rescore_plies
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
        "random_plies": random_plies,
        "expand": params["expand"],
        "children": len(kids),
        "children_scored": sum(1 for k in kids if tree.flags[k] & EVALUATED),
        "partial": bool(flags & PARTIAL),
        "children_depth": children_depth,
        "rescore_plies": rescore_plies,
        "key": f"{int(key):016x}",
        "tt": bool(params["tt"]),
        "table_depth": int(kp[K_DEPTH]),
        "in_table": in_table,
        # the table keeps the score for the side to move in the position: negated here
        "table_score": -float(cache.scores[slot]) if in_table else None,
        **order_tables_here(worker, node, s),
    }


#: How many of the history table's moves the node card names.
HISTORY_SHOWN = 3


def order_tables_here(worker: MCTSWorker, node: int, s: np.ndarray) -> dict[str, Any]:
    """What the prior's killer and history tables say *now* about the moves in ``node``'s
    position ``s``: its legal quiet moves that are killers at its children's depth, and
    the ones the side to move has most often found best, with their history share (the
    fraction of ``prior_history`` they get). Empty lists when a term is off or has learned
    nothing here; a move expanded earlier got the bonus the tables gave it then."""
    params = worker.params
    killer_cp, history_cp = float(params["prior_killer"]), float(params["prior_history"])
    tables: dict[str, Any] = {"killer_cp": killer_cp, "history_cp": history_cp}
    if not killer_cp and not history_cp:  # off: the tables stay empty, nothing to name
        return {**tables, "killers": [], "history": []}
    order = worker.extra.order
    board = board_from_state(s)
    quiet_moves = {
        int(m): board.san(chess.Move.from_uci(move_to_uci(int(m))))
        for m in legal_move_array(s)
        if quiet(int(m))
    }
    depth = int(worker.tree.depth[node]) + 1
    killers = order[1]
    found = [int(m) for m in killers[depth]] if killer_cp and depth < len(killers) else []
    side = int(s[TURN])
    shares = (
        [(history_share(order, side, m), san) for m, san in quiet_moves.items()]
        if history_cp  # a count with no bonus names nothing
        else []
    )
    ranked = sorted((x for x in shares if x[0] > 0), reverse=True)[:HISTORY_SHOWN]
    return {
        **tables,
        "killers": [quiet_moves[m] for m in found if m in quiet_moves],
        "history": [{"san": san, "share": share} for share, san in ranked],
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
            "exploration weight c in Q + c·P·sqrt(N) / (1 + n)", min=0.0, max=10.0,
            game_defaults={"chess": 0.25},  # results.md: pooled 34 % (200 games), c = 1 30 % (170)
        ),
        ParamSpec(
            "c_endgame", "float", 0.0,
            f"chess: c_puct once at most {ENDGAME_PIECES} knights, bishops, rooks and queens "
            "are left (0: c_puct there too); a broader search of the ending than of the "
            "middlegame", min=0.0, max=10.0,
            # results.md, session 49: off (0) scored +12.5 points a game against alphabeta
            # over 1 (120 paired openings, SE 4.4); session 24 had adopted 1 with an engine
            # before c_root, alpha = 1, rescore and refresh (32.5 % against 26.9 %, 80 paired)
        ),
        ParamSpec(
            "c_root", "float", 0.0,
            "exploration weight at the root alone (0: c_puct there too): the root's moves "
            "are the ones played, so each candidate's value is checked more evenly while "
            "the lines below stay narrow", min=0.0, max=10.0,
            game_defaults={"chess": 1.0},  # results.md, session 41: +10.3 points a game
            # against alphabeta (160 paired, SE 4.5); on Stockfish's ladder -1.7 over 120
            # (SE 6.0), though -27.5 against 1750, where session 32 had lost too
        ),
        ParamSpec(
            "alpha", "float", 0.3,
            "weight α of the implicit minimax value in (1 − α)·Q + α·minimax (0: off)",
            min=0.0, max=1.0,
            game_defaults={"chess": 1.0},  # with every child scored, minimax leads
            # (against alphabeta, 160 paired: 0.8 -3.4 points a game, session 46; 0.9 -7.5,
            # session 47; results.md)
        ),
        ParamSpec(
            "centre", "float", 0.0,
            "how far selection reads values relative to the root's own value (1: the root's "
            "value reads as ½, so a won position's moves keep their differences; 0: off)",
            min=0.0, max=1.0,
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
            # results.md, session 55: 200 scored -0.8 points a game against UCI_Elo 2000
            # (120 paired openings, SE 4.4); session 58: 60 scored -2.5 (SE 4.3); neither
            # adopted
        ),
        ParamSpec(
            "prior_mix", "float", 0.1,
            "share of the uniform prior mixed in, so every move is tried in time",
            min=0.0, max=1.0,
        ),
        ParamSpec(
            "prior_killer", "float", 0.0,
            "centipawns added to a quiet move's prior gain when it is a killer at its "
            "depth: one of the last two quiet moves found best in a position that deep "
            "in the tree (0: off)",
            min=0.0, max=1000.0,
        ),
        ParamSpec(
            "prior_history", "float", 0.0,
            "centipawns at most added to a quiet move's prior gain by its history: how "
            "often it was found best anywhere in the tree, against the side's most "
            "often best move (0: off)",
            min=0.0, max=1000.0,
        ),
        ParamSpec(
            "prior_bound", "float", 0.0,
            "expand=evaluate: centipawns taken off the prior's score of a child whose "
            "null window only bounded it (no better than the best sibling so far), so "
            "the prior no longer ties it with that best",
            min=0.0, max=1000.0,
            # results.md, session 60: 150 gained 3.4 cp a move on the control set (SE 1.4)
            # and scored -6.2 points a game against UCI_Elo 2000 (120 paired, SE 4.6)
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
            "leaf_depth", "int", 0,
            "plies of alpha-beta search before the leaf's quiescence search (0: the "
            "quiescence search alone)", min=0, max=4,
        ),
        ParamSpec(
            "root_depth", "int", 0,
            "plies of search that flow down from the root: a node p plies below it is "
            "scored by an alpha-beta search of max(leaf_depth, root_depth − p) plies before "
            "its quiescence search (0: leaf_depth everywhere)", min=0, max=6,
            game_defaults={"chess": 3},  # results.md, sessions 33-34: +2.5 points a game over
            # 2 (240 paired games against alphabeta, SE 3.5); 4 scored 10 points less (80)
        ),
        ParamSpec(
            "endgame", "int", 0,
            "endgames searched deeper: with k knights, bishops, rooks and queens left, "
            "max(0, endgame − k) plies of alpha-beta are added to every leaf's search "
            "(0: off)", min=0, max=12,
        ),
        ParamSpec(
            "endgame_root", "int", 0,
            "endgames searched deeper near the root: with k knights, bishops, rooks and "
            "queens left, min(2, endgame_root − k) plies (none below 0) are added to "
            "root_depth, so they flow down the tree from the root as it does (0: off)",
            min=0, max=12,
        ),
        ParamSpec(
            "refresh", "bool", False,
            "expand=evaluate: after a move, the kept tree's leaves near the new root are "
            "scored again at the depth root_depth gives them there (they were scored two "
            "plies further down, by shallower searches)",
            game_defaults={"chess": True},  # results.md, sessions 36-37: +5.6 points a game
            # over the default before it on 160 paired games from fresh openings (SE 3.6)
        ),
        ParamSpec(
            "rescore", "int", 0,
            "plies at most added to the searches that score a node's untried children as "
            "the node gathers visits: at rescore_visits visits (and at 4, 16 … times as "
            "many) they are scored again one ply deeper (0: off)", min=0, max=3,
            game_defaults={"chess": 2},  # results.md, sessions 38-39: +3.3 points a game
            # against alphabeta (240 paired, SE 3.5), +0.8 on Stockfish's ladder (120)
        ),
        ParamSpec(
            "rescore_visits", "int", 32,  # the setting measured (results.md, session 38)
            "visits at which rescore first scores a node's untried children again",
            min=2, max=1_000_000,
        ),
        ParamSpec(
            "deepen", "int", 0,
            "visits a leaf may get before it is expanded, each scoring it again with an "
            "alpha-beta search one ply deeper (0: expanded on its second visit)",
            min=0, max=6,
        ),
        ParamSpec(
            "capture_plies", "int", 0,
            "plies played at random before a leaf's quiescence search, captures first "
            "(the reference playout policy); the score is then a sample. Applies to a "
            "leaf scored on its own (expand=lazy); 0: none",
            min=0, max=8,
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
            game_defaults={"chess": True},  # results.md: session 29
        ),
        ParamSpec(
            "prune", "bool", False,
            "chess: the alpha-beta searches that score the tree's nodes extend checks and "
            "prune as engines do — principal-variation search, null-move pruning, late-move "
            "reductions (off: the alphabeta baseline's plain search)",
        ),
        ParamSpec(
            "cut", "bool", False,
            "expand=evaluate: stop scoring a node's children once one refutes the move "
            "into it (shows it no better than a sibling), as alpha-beta does at a cut "
            "node; the rest are scored when the search comes back for them",
        ),
        ParamSpec(
            "final", "choice", "visits",
            "final move: most visits, or (value) the highest minimax value among the moves "
            "visited at least a third as often as the most visited",
            choices=("visits", "value"),
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
    formula = "(1 − α)·Q + α·minimax + c·P·sqrt(N_parent) / (1 + N)  (unevaluated: urgency)"
    exploit_label = "(1−α)·Q+α·mm"
    score_label = "PUCT"
    selection_params = ("c_puct", "alpha", "fpu")
    simulation = "quiescence"
    backup_rule = "average"
    race_partner = "uct"  # the textbook algorithm against the one built for strength

    @classmethod
    def kernel_params(cls, params: dict[str, Any]) -> np.ndarray:
        kp = np.zeros(KERNEL_PARAMS, dtype=np.float64)
        kp[K_C], kp[K_ALPHA], kp[K_FPU] = params["c_puct"], params["alpha"], params["fpu"]
        kp[K_TEMP], kp[K_MIX] = params["prior_temp"], params["prior_mix"]
        kp[K_UNIFORM] = params["prior"] == "none"
        kp[K_QUIESCE] = params["leaf"] == "quiescence"
        kp[K_SOLVER] = params["solver"]
        kp[K_TT] = params["tt"]
        kp[K_DEPTH] = params["leaf_depth"]
        kp[K_EVALUATE] = params["expand"] == "evaluate"
        kp[K_DEEPEN] = params["deepen"]
        kp[K_CAPTURES] = params["capture_plies"]
        kp[K_CUT] = params["cut"]
        kp[K_ROOT_DEPTH] = params["root_depth"]
        kp[K_ENDGAME] = params["endgame"]
        kp[K_CENTRE] = params["centre"]
        kp[K_C_ROOT] = params["c_root"]
        kp[K_ENDGAME_ROOT] = params["endgame_root"]
        kp[K_RESCORE], kp[K_RESCORE_VISITS] = params["rescore"], params["rescore_visits"]
        kp[K_PRIOR_BOUND] = params["prior_bound"]
        kp[K_KILLER], kp[K_HISTORY] = params["prior_killer"], params["prior_history"]
        return kp

    @classmethod
    def search_params(cls, params: dict[str, Any], root: np.ndarray) -> dict[str, Any]:
        """``c_puct`` becomes ``c_endgame`` when the root is an endgame, counted by its
        pieces (the phase rarely changes within one search, and most selections are made
        near the root); ``c_endgame = 0`` leaves ``c_puct`` there too."""
        if params["c_endgame"] <= 0.0 or root[GAME] != CHESS or pieces(root) > ENDGAME_PIECES:
            return params
        return {**params, "c_puct": params["c_endgame"]}

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
            blend = blended_q(child.value_sum, child.visits, child.value, params["alpha"])
            exploit = float(centred(blend, child.odds))
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
        game that repeated the position (session 23's games).

        With ``final=value`` an unproven most-visited move gives way to the unproven
        move of highest minimax value among those visited at least a third as often:
        a move whose value rose late in the search has not caught up in visits yet, and
        the minimax value is what the tree has proved about it."""
        if not moves:
            return moves
        top = moves[0]
        if top.proof == PROVEN_DRAW:
            for i, m in enumerate(moves[1:], start=1):
                if m.proof == NOT_PROVEN and m.eval > DRAW_MARGIN and 2 * m.visits >= top.visits:
                    return [m, *moves[:i], *moves[i + 1 :]]
            return moves
        if params.get("final") != "value" or top.proof != NOT_PROVEN:
            return moves
        near = [
            i for i, m in enumerate(moves) if m.proof == NOT_PROVEN and 3 * m.visits >= top.visits
        ]
        best = max(near, key=lambda i: moves[i].eval)
        if moves[best].eval <= top.eval:
            return moves
        return [moves[best], *moves[:best], *moves[best + 1 :]]

    # ------------------------------------------------------------ step trace
    @classmethod
    def expansion_note(cls, new_count: int, params: dict[str, Any]) -> str:
        """Names the killer and history bonus in the priors when they are on."""
        tables = []
        if params["prior_killer"]:
            tables.append(f"+{params['prior_killer']:g} cp for a killer at this depth")
        if params["prior_history"]:
            tables.append(f"up to +{params['prior_history']:g} cp by history")
        extra = f" (quiet moves: {', '.join(tables)})" if tables else ""
        return (
            f"all {new_count} children created with their priors{extra}; the one with the "
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
        random = int(worker.info[T_SIM_RANDOM])
        depth_text = ply_count(depth)
        searched = f"an alpha-beta search of {depth_text}, then " if depth else ""
        if random:
            searched = (
                f"{ply_count(random)} at random, captures first "
                f"({' '.join(san[:random])}), then " + searched
            )
        if view.status == SIM_RESCORED:
            kids = tree.children(view.leaf)
            fresh = sum(1 for k in kids if untried(tree.arrays, k))  # the ones scored again
            visits = int(view.before_visits[view.leaf])
            note = (
                f"the search came back to this node for the {ordinal(visits + 1)} time, so "
                f"its {fresh} untried {'move was' if fresh == 1 else 'moves were'} "
                f"scored again by alpha-beta searches of {depth_text} and quiescence, "
                "deeper than their first scoring (rescore: one ply more at "
                f"{view.params['rescore_visits']} visits, and at each {RESCORE_GROWTH} times "
                "as many); the reward is the node's new minimax value"
            )
        elif view.status == SIM_EXPANDED:
            leaf_node = view.leaf
            kids = tree.children(leaf_node)
            scored = sum(1 for k in kids if tree.flags[k] & EVALUATED)
            if not view.created:
                note = (
                    "scoring resumed: the reply that refuted the move into this node no "
                    f"longer does, so its other replies were scored ({scored} of {len(kids)} "
                    "now); the reward is its new minimax value"
                )
            elif scored < len(kids):
                note = (
                    f"the leaf was expanded and its children scored in order until one "
                    f"refuted the move into it ({scored} of {len(kids)}: alpha-beta's cut); "
                    "the reward is its minimax value"
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
            "random_plies": random,
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
        move followed by the line its search left (``depth`` plies of alpha-beta, checks
        extended with ``prune``, then quiescence: ``searched_plies`` says where the one
        ends), the child's score and how it came. A child whose score came from the
        table, a finished game or a scoring before this step has its move alone."""
        from engine.search.trace import searched_plies

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
        extends = bool(view.params["prune"]) and int(worker.root[GAME]) == CHESS
        searched = searched_plies(board, moves[:1], moves[1:], depth, extends)
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
        search.stats[PRUNED] = w.params["prune"]
        w.kparams[K_C] = cls.search_params(w.params, w.root)["c_puct"]
        return mcts_run(
            w.tree.arrays, w.root, w.scratch(trace), search.arrays,
            cache.keys, cache.scores, w.kparams, max_iters, stop, w.full, w.rng, w.extra.order,
        )  # fmt: skip
