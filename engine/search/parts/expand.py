"""Expansion: look at a node's position, add one child (UCT) or all of them (bfms, uct-minimax,
mcts with priors).

Every created child gets ``eval``: the static evaluation of its position for
the side that moved into it. ``expand_all`` with ``evaluate_children`` also
looks one ply further so that finished games are known at once, and sets
``value`` to the child's eval or to its game-theoretic score (a win for the
mover at depth d is ``WIN - 10 * d``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import rng_below
from engine.core.games import in_check, legal_moves, make_move, result, status
from engine.core.state import HASH, ONGOING, TURN
from engine.eval.evaluate import evaluate, game_value
from engine.search.parts.alphabeta import ABORTED, SearchArrays, qsearch
from engine.search.parts.alphabeta import INF as QINF
from engine.search.parts.path import HIST_MAX, repeated
from engine.search.parts.prior import move_gain, normalise_priors
from engine.search.tree import (
    DEPTH,
    DEPTH_SUM,
    EVAL,
    EVALUATED,
    FIRST_CHILD,
    FLAGS,
    META,
    MOVE,
    NEXT_SIBLING,
    NONE,
    NUM_CHILDREN,
    NUM_LEGAL,
    OUTCOME,
    PRIOR,
    TERMINAL,
    USED,
    VALUE,
    add_child,
)


@njit(cache=True, nogil=True)
def mark_position(tree: tuple, node: int, s: np.ndarray, n: int, code: int) -> bool:
    """Record the legal-move count and, if the game is over, the outcome; True if terminal."""
    tree[NUM_LEGAL][node] = n
    if code == ONGOING:
        return False
    r = result(s, code)  # for White
    mover_is_white = s[TURN] == 1  # the side that moved into the node is not to move
    tree[FLAGS][node] |= TERMINAL
    tree[OUTCOME][node] = r if mover_is_white else -r
    return True


@njit(cache=True, nogil=True)
def mark_repetition(tree: tuple, node: int, s: np.ndarray, keys: np.ndarray, index: int) -> bool:
    """A position repeated on its path (``keys``/``index`` place it there) is a draw:
    mark ``node`` so, and say True. Needs no move generation."""
    if index > HIST_MAX and repeated(keys, index, s):  # (the root is where the game stands)
        tree[NUM_LEGAL][node] = 0
        tree[FLAGS][node] |= TERMINAL
        tree[OUTCOME][node] = 0
        return True
    return False


@njit(cache=True, nogil=True)
def look(
    tree: tuple, node: int, s: np.ndarray, moves: np.ndarray, keys: np.ndarray, index: int
) -> bool:
    """Generate ``s``'s moves into ``moves``, record them on ``node``; True if terminal.

    ``keys``/``index`` place the node on its path, so a repeated position is a draw.
    """
    if mark_repetition(tree, node, s, keys, index):
        return True
    n = legal_moves(s, moves)
    return mark_position(tree, node, s, n, status(s, n))


@njit(cache=True, nogil=True)
def expand_one(
    tree: tuple,
    node: int,
    s: np.ndarray,
    moves: np.ndarray,
    rng: np.ndarray,
    keys: np.ndarray,
    length: int,
) -> int:
    """Add one child for a random untried move of ``node``; play it on ``s``; return the child.

    The child will stand at path position ``length``: its key goes there in ``keys``.
    """
    n = legal_moves(s, moves)
    child = tree[FIRST_CHILD][node]
    while child != NONE:  # strike the moves already tried
        m = tree[MOVE][child]
        for i in range(n):
            if moves[i] == m:
                n -= 1
                moves[i] = moves[n]
                break
        child = tree[NEXT_SIBLING][child]
    m = moves[rng_below(rng, n)]
    child = add_child(tree, node, m)
    make_move(s, m)
    keys[HIST_MAX + length] = s[HASH]
    tree[EVAL][child] = -evaluate(s)
    return child


@njit(cache=True, nogil=True)
def expand_all(
    tree: tuple,
    node: int,
    s: np.ndarray,
    moves: np.ndarray,
    child_state: np.ndarray,
    child_moves: np.ndarray,
    evaluate_children: bool,
    keys: np.ndarray,
    index: int,
) -> int:
    """Create every child of ``node`` (whose moves must not be generated yet); return the count.

    Returns 0 and marks the node terminal if its game is over. ``node`` stands at
    ``keys[index]``, so a child repeating a position on the path is a draw.
    """
    n = legal_moves(s, moves)
    if mark_position(tree, node, s, n, status(s, n)):
        return 0
    depth = tree[DEPTH][node] + 1
    for i in range(n):
        child = add_child(tree, node, moves[i])
        child_state[:] = s
        make_move(child_state, moves[i])
        static = -evaluate(child_state)
        tree[EVAL][child] = static
        if evaluate_children:
            tree[FLAGS][child] |= EVALUATED
            if look(tree, child, child_state, child_moves, keys, index + 1):
                tree[VALUE][child] = game_value(tree[OUTCOME][child], depth)
            else:
                tree[VALUE][child] = static
    return n


@njit(cache=True, nogil=True)
def expand_with_priors(
    tree: tuple,
    node: int,
    s: np.ndarray,
    moves: np.ndarray,
    child_state: np.ndarray,
    child_moves: np.ndarray,
    temperature: float,
    uniform: bool,
    mix: float,
) -> int:
    """Create every child of ``node`` (a position already looked at, not over) with its
    prior (:mod:`engine.search.parts.prior`); return the count.

    Children are not evaluated here — each is scored when first selected — but a
    child that ends the game at once is recognised now, cheaply, so a mate in one is
    proven on the spot: the rules that need no move generation (insufficient
    material, the fifty-move and 200-ply rules, a side without knights) for every
    child, and checkmate or stalemate for the children that give check. Such a child
    is marked ``TERMINAL`` with its ``outcome``; the caller proves it.
    """
    n = legal_moves(s, moves)
    for i in range(n):
        m = moves[i]
        child = add_child(tree, node, m)
        child_state[:] = s
        make_move(child_state, m)
        tree[PRIOR][child] = move_gain(s, child_state, m)
        code = status(child_state, 1)  # the rules that hold whatever the moves
        if code == ONGOING and in_check(child_state):
            k = legal_moves(child_state, child_moves)
            if k == 0:
                code = status(child_state, 0)
        if code != ONGOING:
            mark_position(tree, child, child_state, 0, code)
    normalise_priors(tree, node, temperature, uniform, mix)
    return n


@njit(cache=True, nogil=True)
def expand_all_quiescence(
    tree: tuple,
    node: int,
    s: np.ndarray,
    moves: np.ndarray,
    child_state: np.ndarray,
    child_moves: np.ndarray,
    keys: np.ndarray,
    index: int,
    ctx: SearchArrays,
) -> int:
    """:func:`expand_all` with ``evaluate_children``, each child's ``value`` being its
    quiescence score (:func:`engine.search.parts.alphabeta.qsearch`, clamped to [-1, 1];
    ``eval`` keeps the static evaluation). Returns -1, with every child it made removed
    again, when the controller's stop cut a quiescence search short."""
    n = legal_moves(s, moves)
    if mark_position(tree, node, s, n, status(s, n)):
        return 0
    meta = tree[META]
    first_new = meta[USED]
    depth = tree[DEPTH][node] + 1
    for i in range(n):
        child = add_child(tree, node, moves[i])
        child_state[:] = s
        make_move(child_state, moves[i])
        tree[EVAL][child] = -evaluate(child_state)
        tree[FLAGS][child] |= EVALUATED
        if look(tree, child, child_state, child_moves, keys, index + 1):
            tree[VALUE][child] = game_value(tree[OUTCOME][child], depth)
            continue
        ctx.states[0] = child_state
        score = qsearch(ctx, 0, -QINF, QINF, depth, 0)
        if ctx.stats[ABORTED]:
            meta[USED] = first_new  # the children made so far go again
            meta[DEPTH_SUM] -= depth * (i + 1)
            tree[FIRST_CHILD][node] = NONE
            tree[NUM_CHILDREN][node] = 0
            return -1
        tree[VALUE][child] = -min(1.0, max(-1.0, score))
    return n
