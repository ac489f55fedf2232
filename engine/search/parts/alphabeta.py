"""Negamax alpha-beta in numba: transposition table, killer moves, MVV-LVA, quiescence.

Used by the ``alphabeta`` baseline (iterative deepening from Python, one
:func:`search_root` call per depth), as the depth-3 leaf evaluation of ``uct-minimax``
(:func:`minimax_value`), for ``bfms``'s quiescence leaves (:mod:`engine.search.parts.expand`)
and for ``mcts``'s node searches (:mod:`engine.search.parts.leaf`).

Scores are for the side to move at the node: static evaluations in [-1, 1]
(:mod:`engine.eval.evaluate`), a win found by search ``WIN - 10 * ply``
(ply counted from the search root plus ``ply_offset``), a loss its negative,
draws 0. A position repeated on the current line, or earlier in the game
since the last irreversible move, scores as a draw.

The recursive kernels carry explicit signatures: numba's on-disk cache
mis-loads lazily typed recursive functions, so every argument type is fixed
here and callers must pass exactly these array kinds (:class:`SearchContext`
builds them, as one :class:`SearchArrays` whose fields the kernels read by name).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from engine.core.bits import table_slot
from engine.core.borrow import borrow
from engine.core.chess_core import piece_at
from engine.core.games import (
    exchange_balance,
    has_legal_move,
    in_check,
    legal_moves,
    make_move,
    may_give_check,
    result,
    status,
)
from engine.core.state import (
    CHESS,
    EVAL,
    FLAG_CAPTURE,
    GAME,
    HALFMOVE,
    HAND_EVAL,
    HASH,
    MAX_MOVES,
    NNUE_EVAL,
    ONGOING,
    PLY,
    STATE_SIZE,
    TURN,
)
from engine.eval.evaluate import (
    FEATURE_SCRATCH,
    PLY_PENALTY,
    WIN,
    evaluate_into,
    game_value,
)
from engine.eval.nnue import new_rows, nnue_at

MAX_PLY = 96
MAX_QDEPTH = 12
INF = 1.0e9
NULL_WINDOW = 1.0e-7

# stats slots (QCHECKS: the first plies of a quiescence search that also try quiet checks;
# QPRUNE: whether it skips captures and quiet checks that lose the exchange)
NODES, ABORTED, NODE_LIMIT, SELDEPTH, HIST_LEN, QCHECKS, QPRUNE = 0, 1, 2, 3, 4, 5, 6
STATS_SIZE = 7
# transposition-table bound flags
EXACT, LOWER, UPPER = 0, 1, 2


class SearchArrays(NamedTuple):
    """A searcher's arrays as the kernels take them (``ctx``): a named tuple, which numba
    compiles as a plain tuple, so ``ctx.pv_len`` costs what a slot number did."""

    states: np.ndarray  # uint64[ply, STATE_SIZE]: the position at each ply of the line
    moves: np.ndarray  # int32[ply, MAX_MOVES]: each ply's legal moves
    order: np.ndarray  # int32[ply, MAX_MOVES]: their ordering scores
    killers: np.ndarray  # int32[ply, 2]: the killer moves of each ply
    pv: np.ndarray  # int32[ply, ply]: the triangular principal-variation table
    pv_len: np.ndarray  # int64[ply]: the length of each ply's line in ``pv``
    tt_key: np.ndarray  # uint64[slot]: the transposition table's keys
    tt_move: np.ndarray  # int32[slot]: its best moves
    tt_score: np.ndarray  # float64[slot]: its scores (a mate relative to the node)
    tt_depth: np.ndarray  # int16[slot]: its depths
    tt_flag: np.ndarray  # int8[slot]: its bounds (EXACT, LOWER, UPPER)
    stats: np.ndarray  # int64[STATS_SIZE]: counters and switches (NODES … QPRUNE)
    stop: np.ndarray  # uint8[1]: the stop flag, set by another thread
    history: np.ndarray  # uint64: keys of the game's earlier positions (for repetition)
    features: np.ndarray  # float64: the evaluation's feature scratch (evaluate_into)
    eval_keys: np.ndarray  # uint64[slot]: the evaluation cache's keys (evaluate_cached)
    eval_scores: np.ndarray  # float64[slot]: its scores
    acc: np.ndarray  # int32[ply, 2, width]: the NNUE's accumulators along the line
    acc_boards: np.ndarray  # uint64[ply, 8]: the position each accumulator row holds


CONTEXT = types.NamedTuple(
    (
        types.uint64[:, ::1],  # states
        types.int32[:, ::1],  # moves
        types.int32[:, ::1],  # order
        types.int32[:, ::1],  # killers
        types.int32[:, ::1],  # pv
        types.int64[::1],  # pv_len
        types.uint64[::1],  # tt_key
        types.int32[::1],  # tt_move
        types.float64[::1],  # tt_score
        types.int16[::1],  # tt_depth
        types.int8[::1],  # tt_flag
        types.int64[::1],  # stats
        types.uint8[::1],  # stop
        types.uint64[::1],  # history
        types.float64[::1],  # features
        types.uint64[::1],  # eval_keys
        types.float64[::1],  # eval_scores
        types.int32[:, :, ::1],  # acc
        types.uint64[:, ::1],  # acc_boards
    ),
    SearchArrays,
)

#: Entries of a context's evaluation cache (:func:`evaluate_cached`): 256 KiB of keys and
#: scores (2^16 measured no faster; 2^18 slower, the page faults of a fresh table).
EVAL_CACHE_BITS = 14
#: Set in a knight-chess position's cache key: the two games score one placement apart.
KNIGHT_SALT = np.uint64(0x9E3779B97F4A7C15)
#: Times the ply, in a knight-chess key: its evaluation's phase runs down with the ply
#: count to the 200-ply rule, which the Zobrist key leaves out (an odd constant, so every
#: ply below 2^64 gives another multiple).
KNIGHT_PLY_MIX = np.uint64(0xC2B2AE3D27D4EB4F)
#: Set in an NNUE score's cache key: a context's cache outlives a change of evaluation.
NNUE_SALT = np.uint64(0x5851F42D4C957F2D)


class SearchContext:
    """Scratch space and transposition table for one alpha-beta searcher (one per thread)."""

    def __init__(self, tt_bits: int = 16) -> None:
        rows = MAX_PLY + 2
        tt = 1 << tt_bits
        self.states = np.zeros((rows, STATE_SIZE), dtype=np.uint64)
        self.moves = np.zeros((rows, MAX_MOVES), dtype=np.int32)
        self.order = np.zeros((rows, MAX_MOVES), dtype=np.int32)
        self.killers = np.full((rows, 2), -1, dtype=np.int32)
        self.pv = np.zeros((rows, rows), dtype=np.int32)
        self.pv_len = np.zeros(rows, dtype=np.int64)
        self.tt_key = np.zeros(tt, dtype=np.uint64)
        self.tt_move = np.full(tt, -1, dtype=np.int32)
        self.tt_score = np.zeros(tt, dtype=np.float64)
        self.tt_depth = np.full(tt, -1, dtype=np.int16)
        self.tt_flag = np.zeros(tt, dtype=np.int8)
        self.stats = np.zeros(STATS_SIZE, dtype=np.int64)
        self.stop = np.zeros(1, dtype=np.uint8)
        self.history = np.zeros(1024, dtype=np.uint64)
        self.features = np.zeros(FEATURE_SCRATCH, dtype=np.float64)
        self.eval_keys = np.zeros(1 << EVAL_CACHE_BITS, dtype=np.uint64)
        self.eval_scores = np.zeros(1 << EVAL_CACHE_BITS, dtype=np.float64)
        self.acc, self.acc_boards = new_rows(rows)

    @property
    def arrays(self) -> SearchArrays:
        """The arrays as the kernels take them (built anew: ``stop`` is replaced by each
        search's own flag)."""
        return SearchArrays(
            states=self.states, moves=self.moves, order=self.order, killers=self.killers,
            pv=self.pv, pv_len=self.pv_len, tt_key=self.tt_key, tt_move=self.tt_move,
            tt_score=self.tt_score, tt_depth=self.tt_depth, tt_flag=self.tt_flag,
            stats=self.stats, stop=self.stop, history=self.history, features=self.features,
            eval_keys=self.eval_keys, eval_scores=self.eval_scores, acc=self.acc,
            acc_boards=self.acc_boards,
        )  # fmt: skip

    @property
    def memory_bytes(self) -> int:
        return sum(a.nbytes for a in self.arrays)

    def set_history(self, keys: list[int]) -> None:
        """Zobrist keys of the positions before the root, oldest first."""
        keys = keys[-len(self.history) :]
        self.history[: len(keys)] = np.array(keys, dtype=np.uint64)
        self.stats[HIST_LEN] = len(keys)

    def reset_counters(self, node_limit: int = 0) -> None:
        self.stats[NODES] = 0
        self.stats[ABORTED] = 0
        self.stats[SELDEPTH] = 0
        self.stats[NODE_LIMIT] = node_limit


# ---------------------------------------------------------------- helpers


@njit(cache=True, nogil=True)
def terminal_score(s: np.ndarray, code: int, ply: int) -> float:
    """Score of a finished game for the side to move at ``s``."""
    r = result(s, code)
    return game_value(-r if s[TURN] == 1 else r, ply)


@njit(cache=True, nogil=True)
def to_tt(score: float, ply: int) -> float:
    """A score as the table keeps it: a mate as its distance from the position itself.
    ``ply`` is the node's ply as the score counts it — from the tree's root, with the
    search's ``ply_offset`` — so searches started at different depths of an ``mcts`` or
    ``uct-minimax`` tree, which share one table, read each other's mates right."""
    if score > WIN / 2:
        return score + PLY_PENALTY * ply
    if score < -WIN / 2:
        return score - PLY_PENALTY * ply
    return score


@njit(cache=True, nogil=True)
def from_tt(score: float, ply: int) -> float:
    """:func:`to_tt` undone at a node ``ply`` plies (with the offset) from the root."""
    if score > WIN / 2:
        return score - PLY_PENALTY * ply
    if score < -WIN / 2:
        return score + PLY_PENALTY * ply
    return score


@njit(cache=True, nogil=True)
def _victim_rank(s: np.ndarray, m: int) -> int:
    if s[GAME] != CHESS:
        return 1
    pt = piece_at(s, (m >> 6) & 63)
    return 0 if pt < 0 else pt  # en passant: the target square is empty, a pawn


@njit(cache=True, nogil=True)
def score_moves(
    s: np.ndarray, moves: np.ndarray, order: np.ndarray, n: int, hash_move: int, killers: np.ndarray
) -> None:
    """Ordering keys: hash move, captures by MVV-LVA, promotions, killers, the rest."""
    for i in range(n):
        m = moves[i]
        if m == hash_move:
            order[i] = 1_000_000
        elif m & FLAG_CAPTURE:
            attacker = 1 if s[GAME] != CHESS else piece_at(s, m & 63)
            order[i] = 100_000 + 10 * _victim_rank(s, m) - attacker
        elif (m >> 12) & 7:
            order[i] = 90_000 + ((m >> 12) & 7)
        elif m == killers[0]:
            order[i] = 80_000
        elif m == killers[1]:
            order[i] = 79_000
        else:
            order[i] = 0


@njit(cache=True, nogil=True, inline="always")
def pick_next(moves: np.ndarray, order: np.ndarray, i: int, n: int) -> int:
    """Selection sort step: move the best remaining move to position i and return it.
    Inlined into its callers: it runs once per move searched, and a separate call would
    count two array references in and out each time (see :mod:`engine.core.games`)."""
    best = i
    for j in range(i + 1, n):
        # An unsigned index: numba adds no negative-index fix-up to a read with one, which
        # was about half of this scan's instructions (j is never negative here).
        if order[np.uint64(j)] > order[np.uint64(best)]:
            best = j
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        order[i], order[best] = order[best], order[i]
    return moves[i]


@njit(cache=True, nogil=True, inline="always")
def evaluate_cached(ctx: SearchArrays, ply: int) -> float:
    """:func:`evaluate_into` of ``ctx.states[ply]``, looked up first in the context's
    evaluation cache; the NNUE's accumulators updated incrementally along the line.

    The searches evaluate the same positions again and again: a child first tried with
    a null window and then searched exactly, a quiescence search behind
    :func:`engine.search.parts.leaf.window_score`'s own first-node test, each
    iteration of iterative deepening, ``rescore`` and ``refresh`` scoring a child
    deeper. The chess hand evaluation and the NNUE depend on nothing but what the Zobrist
    key names (the pieces, the side to move; castling and en passant too), so a
    remembered score is the score: the search is the same, only cheaper. Knight chess's
    also reads the ply (its phase), so its key mixes the ply in; a salt keeps the two
    games apart, another the NNUE's scores from the hand evaluation's. The scaled and
    learned evaluations are computed every time (the scaled one also reads the
    fifty-move clock). The key is compared whole, so only a 64-bit key collision could
    return another position's score."""
    s = ctx.states[ply]
    kind = s[EVAL]
    if kind != HAND_EVAL and kind != NNUE_EVAL:
        return evaluate_into(s, ctx.features)
    keys, scores = ctx.eval_keys, ctx.eval_scores
    key = s[HASH]
    if s[GAME] != CHESS:
        key ^= KNIGHT_SALT ^ (s[PLY] * KNIGHT_PLY_MIX)
    if kind == NNUE_EVAL:
        key ^= NNUE_SALT
    slot = table_slot(keys, key)
    if keys[slot] == key:
        return scores[slot]
    if kind == NNUE_EVAL:
        score = nnue_at(ctx.states, ply, ctx.acc, ctx.acc_boards)
    else:
        score = evaluate_into(s, ctx.features)
    keys[slot] = key
    scores[slot] = score
    return score


@njit(cache=True, nogil=True)
def _repeated(states: np.ndarray, ply: int, history: np.ndarray, hist_len: int) -> bool:
    """The position at ``ply`` occurred before on this line or in the game (reversibly)."""
    s = states[ply]
    key = s[HASH]
    back = np.int64(s[HALFMOVE])
    k = ply - 2
    steps = 2
    while k >= 0 and steps <= back:
        if states[k, HASH] == key:
            return True
        k -= 2
        steps += 2
    # continue into the game's history before the root
    h = hist_len - (steps - ply)
    while h >= 0 and steps <= back:
        if history[h] == key:
            return True
        h -= 2
        steps += 2
    return False


@njit(cache=True, nogil=True)
def extend_pv(pv: np.ndarray, pv_len: np.ndarray, ply: int, m: int) -> None:
    """The line at ``ply`` becomes ``m`` followed by the line found one ply deeper."""
    pv[ply, 0] = m
    length = pv_len[ply + 1]
    pv[ply, 1 : length + 1] = pv[ply + 1, :length]
    pv_len[ply] = length + 1


@njit(cache=True, nogil=True)
def _enter(ctx: SearchArrays, ply: int) -> bool:
    """Bookkeeping on entering a node: clear its PV, count it, track the selective depth.
    True when the search must unwind (stopped, or out of nodes)."""
    pv_len, stats = ctx.pv_len, ctx.stats
    pv_len[ply] = 0
    if _poll(stats, ctx.stop):
        return True
    if ply > stats[SELDEPTH]:
        stats[SELDEPTH] = ply
    return False


@njit(cache=True, nogil=True)
def _poll(stats: np.ndarray, stop: np.ndarray) -> bool:
    """Count a node; stop at the node limit to the node (a UCI ``go nodes`` is exact), and
    look at the stop flag, which another thread writes, every 1024 nodes."""
    stats[NODES] += 1
    if (stats[NODE_LIMIT] > 0 and stats[NODES] >= stats[NODE_LIMIT]) or (
        (stats[NODES] & 1023) == 0 and stop[0] != 0
    ):
        stats[ABORTED] = 1
    return stats[ABORTED] != 0


# ---------------------------------------------------------------- quiescence


@njit(
    types.float64(CONTEXT, types.int64, types.float64, types.float64, types.int64, types.int64),
    cache=True,
    nogil=True,
)
def qsearch(
    ctx: SearchArrays, ply: int, alpha: float, beta: float, ply_offset: int, qdepth: int
) -> float:
    """Captures (and promotions) only, with stand-pat, until the position is quiet.

    A side in check may not stand pat (doing nothing is not a legal option when the king
    is attacked): it tries every evasion, so a mate or a piece lost to a check beyond the
    horizon is seen instead of the static evaluation of a position that cannot stand.
    In its first ``stats[QCHECKS]`` plies (0 for ``alphabeta``) it also tries the quiet
    moves that give check, which finds mates that start with a quiet check. With
    ``stats[QPRUNE]`` (0 for ``alphabeta``) a side not in check skips the captures and
    quiet checks that lose the exchange by a one-exchange estimate
    (:func:`engine.core.games.exchange_balance`): a queen taking a defended pawn is
    answered by the recapture, and searching it costs nodes that change nothing but
    the rare overloaded defender.
    """
    states, moves, order, killers = ctx.states, ctx.moves, ctx.order, ctx.killers
    pv, pv_len, stats = ctx.pv, ctx.pv_len, ctx.stats
    if _enter(ctx, ply):
        return 0.0
    s = states[ply]
    checked = qdepth < MAX_QDEPTH and ply < MAX_PLY and in_check(s)
    stand = 0.0
    if not checked:
        stand = evaluate_cached(ctx, ply)
        if stand >= beta or qdepth >= MAX_QDEPTH or ply >= MAX_PLY:
            # Standing pat needs no move list, only whether there is a move: the status
            # asks no more of the count (none: stalemate or mate, not a standing score).
            code = status(s, 1 if has_legal_move(s, moves[ply]) else 0)
            return stand if code == ONGOING else terminal_score(s, code, ply + ply_offset)
    n = legal_moves(s, moves[ply])
    code = status(s, n)
    if code != ONGOING:
        return terminal_score(s, code, ply + ply_offset)
    if not checked and stand > alpha:
        alpha = stand
    score_moves(s, moves[ply], order[ply], n, -1, killers[ply])
    child = states[ply + 1]
    best = -INF  # in check: fail-soft, so only losing evasions say how bad they are
    quiet_checks = qdepth < stats[QCHECKS]
    prune = not checked and stats[QPRUNE] != 0
    for i in range(n):
        m = pick_next(moves[ply], order[ply], i, n)
        quiet = not checked and order[ply, i] < 90_000
        if quiet and not quiet_checks:
            break  # only quiet moves remain
        if quiet and not may_give_check(s, m):
            continue  # certainly no check: not worth a make and a test
        if prune and exchange_balance(s, m) < 0:
            continue  # loses the exchange
        child[:] = s
        make_move(child, m)
        if quiet and not in_check(child):
            continue
        score = -qsearch(ctx, ply + 1, -beta, -alpha, ply_offset, qdepth + 1)
        if stats[ABORTED]:
            return 0.0
        if score > best:
            best = score
        if score > alpha:
            alpha = score
            extend_pv(pv, pv_len, ply, m)
            if alpha >= beta:
                break
    return best if checked else alpha


# ---------------------------------------------------------------- negamax


@njit(
    types.float64(
        CONTEXT, types.int64, types.int64, types.float64, types.float64, types.boolean, types.int64
    ),
    cache=True,
    nogil=True,
)
def negamax(
    ctx: SearchArrays,
    ply: int,
    depth: int,
    alpha: float,
    beta: float,
    quiesce: bool,
    ply_offset: int,
) -> float:
    """Fail-soft alpha-beta to ``depth`` plies below ``states[ply]``."""
    states, moves, order, killers = ctx.states, ctx.moves, ctx.order, ctx.killers
    pv, pv_len, stats, history = ctx.pv, ctx.pv_len, ctx.stats, ctx.history
    tt_key, tt_move, tt_score = ctx.tt_key, ctx.tt_move, ctx.tt_score
    tt_depth, tt_flag = ctx.tt_depth, ctx.tt_flag
    if _enter(ctx, ply):
        return 0.0
    s = states[ply]
    if ply > 0 and s[GAME] == CHESS and _repeated(states, ply, history, stats[HIST_LEN]):
        return 0.0
    n = legal_moves(s, moves[ply])
    code = status(s, n)
    if code != ONGOING:
        return terminal_score(s, code, ply + ply_offset)
    if depth <= 0 or ply >= MAX_PLY:
        if quiesce:
            return qsearch(ctx, ply, alpha, beta, ply_offset, 0)
        return evaluate_cached(ctx, ply)

    key = s[HASH]
    slot = table_slot(tt_key, key)
    hash_move = -1
    if tt_key[slot] == key:
        hash_move = tt_move[slot]
        if ply > 0 and tt_depth[slot] >= depth:
            cached = from_tt(tt_score[slot], ply + ply_offset)
            flag = tt_flag[slot]
            if (
                flag == EXACT
                or (flag == LOWER and cached >= beta)
                or (flag == UPPER and cached <= alpha)
            ):
                return cached

    child = states[ply + 1]
    score_moves(s, moves[ply], order[ply], n, hash_move, killers[ply])
    alpha0 = alpha
    best = -INF
    best_move = -1
    for i in range(n):
        m = pick_next(moves[ply], order[ply], i, n)
        child[:] = s
        make_move(child, m)
        score = -negamax(ctx, ply + 1, depth - 1, -beta, -alpha, quiesce, ply_offset)
        if stats[ABORTED]:
            return 0.0
        if score > best:
            best = score
            best_move = m
            if score > alpha:
                alpha = score
                extend_pv(pv, pv_len, ply, m)
                if alpha >= beta:
                    if not (m & FLAG_CAPTURE) and killers[ply, 0] != m:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = m
                    break
    flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
    tt_key[slot] = key
    tt_move[slot] = best_move
    tt_score[slot] = to_tt(best, ply + ply_offset)
    tt_depth[slot] = depth
    tt_flag[slot] = flag
    return best


# ---------------------------------------------------------------- entry points


@njit(cache=True, nogil=True)
def minimax_value(
    ctx: SearchArrays, s: np.ndarray, depth: int, quiesce: bool, ply_offset: int
) -> float:
    """Alpha-beta value of ``s`` for its side to move (uct-minimax's leaf evaluation)."""
    ctx.states[0] = s
    return negamax(ctx, 0, depth, -INF, INF, quiesce, ply_offset)


@njit(cache=True, nogil=True)
def search_root(
    ctx: SearchArrays,
    depth: int,
    quiesce: bool,
    root_moves: np.ndarray,
    scores: np.ndarray,
    bounds: np.ndarray,
    nodes: np.ndarray,
    root_pv: np.ndarray,
    root_pv_len: np.ndarray,
) -> int:
    """One iteration of deepening at the root (``ctx`` states[0]); return the best index or -1.

    Root moves are searched in the given order (best of the previous
    iteration first): the first with a full window, the rest with a null
    window and a re-search on fail-high (PVS). A move that fails low gets an
    upper bound, flagged ``UPPER`` in ``bounds``. Returns -1 if aborted. ``ctx`` is
    borrowed (:mod:`engine.core.borrow`): the search below counts no references.
    """
    ctx = borrow(ctx)
    states, pv, pv_len, stats = ctx.states, ctx.pv, ctx.pv_len, ctx.stats
    alpha = -INF
    best = -1
    for i in range(root_moves.shape[0]):
        m = root_moves[i]
        states[1] = states[0]
        make_move(states[1], m)
        before = stats[NODES]
        if best < 0:
            score = -negamax(ctx, 1, depth - 1, -INF, -alpha, quiesce, 0)
        else:
            score = -negamax(ctx, 1, depth - 1, -alpha - NULL_WINDOW, -alpha, quiesce, 0)
            if score > alpha and not stats[ABORTED]:
                score = -negamax(ctx, 1, depth - 1, -INF, -alpha, quiesce, 0)
        if stats[ABORTED]:
            return -1
        nodes[i] += stats[NODES] - before
        scores[i] = score
        root_pv[i, 0] = m
        length = min(pv_len[1], root_pv.shape[1] - 1)
        root_pv[i, 1 : length + 1] = pv[1, :length]
        root_pv_len[i] = length + 1
        if score > alpha:
            alpha = score
            best = i
            bounds[i] = EXACT
        else:
            bounds[i] = UPPER
    return best
