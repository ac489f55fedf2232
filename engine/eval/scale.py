"""How much of a chess lead can be won: the scale of ``eval = scaled``.

Why a separate factor: the hand score is linear in its features (material, tables,
mobility …), and a linear score cannot say that a knight up with no pawns is a draw, that
a rook and knight rarely beat a rook, that bishops of opposite colours hold a pawn down,
or that a lead nobody converts before the fifty-move rule is worth nothing. An engine that
does not know this trades its last pawns for a "won" bare piece, or shuffles a won ending
into a fifty-move draw: in 480 games of the default against ``alphabeta``
(docs/results.md), 31 endings Canopy entered a pawn or more ahead were drawn — 11 by the
fifty-move rule, 7 by insufficient material.

The scale multiplies the score (in centipawns, before squashing) by a number in [0, 1],
read from the side the score favours (the *strong* side):

* **Material that cannot win** (after the drawish-endgame rules of classical engines):
  the strong side has no pawn and at most a minor piece more — a bare minor piece
  scores 0, a rook against at most a minor piece ``ROOK_VS_MINOR``, anything else (rook
  and minor against rook, queen against rook and minor …) ``PIECES_NO_PAWNS``; two knights
  against a bare king score 0. One pawn and no more pieces than a defender who has some
  (rook and pawn against rook, knight and pawn against bishop) ``ONE_PAWN``.
* **Bishops of opposite colours**, and no other piece: ``OPPOSITE_BISHOPS``.
* **The fifty-move clock**: ``(200 − h) / 200`` with ``h`` plies since the last capture or
  pawn move (at most 100), as in Stockfish; a lead shrinks as the clock runs, so the side
  ahead is drawn to the pawn moves and captures that reset it.

Knight chess has no such rules; its scale is 1. The factor is not part of Texel's fit
(:mod:`engine.tune.texel` fits the linear weights on features alone), and the learned
evaluations are not scaled.

It is a choice of the ``eval`` parameter (``scaled``), not the default: as the shared
evaluation on both sides it lowered ``mcts``'s score against ``alphabeta`` by 6.2 points
a game over 160 paired games (standard error 5.0; code 76924d3, docs/results.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import popcount
from engine.core.state import (
    BISHOP,
    CHESS,
    GAME,
    HALFMOVE,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    TURN,
    WHITE_BB,
)
from engine.core.tables import LIGHT_SQUARES

# Nominal piece values (centipawns) for the material rules; the fitted weights would shift
# them by a few points from fit to fit, and the rules are about which pieces, not how much.
MINOR_VALUE = 325
ROOK_VALUE = 500
QUEEN_VALUE = 975

ROOK_VS_MINOR = 0.0625
PIECES_NO_PAWNS = 0.22
ONE_PAWN = 0.5
OPPOSITE_BISHOPS = 0.5
FIFTY_PLIES = np.uint64(100)  # the clock's own type: no int/uint mixing in numba


@njit(cache=True, nogil=True)
def non_pawn_material(s: np.ndarray, own: np.uint64) -> int:
    """Knights, bishops, rooks and queens of one side, at the nominal values."""
    minors = popcount((s[KNIGHT] | s[BISHOP]) & own)
    return (
        minors * MINOR_VALUE
        + popcount(s[ROOK] & own) * ROOK_VALUE
        + popcount(s[QUEEN] & own) * QUEEN_VALUE
    )


@njit(cache=True, nogil=True)
def material_scale(s: np.ndarray, strong: int) -> float:
    """The share of a lead for colour ``strong`` that its material can convert (0 … 1)."""
    own = s[WHITE_BB + strong]
    other = s[WHITE_BB + 1 - strong]
    pawns = popcount(s[PAWN] & own)
    npm = non_pawn_material(s, own)
    npm_other = non_pawn_material(s, other)
    scale = 1.0
    if pawns == 0:
        if npm - npm_other <= MINOR_VALUE:
            if npm < ROOK_VALUE:
                return 0.0
            scale = ROOK_VS_MINOR if npm_other <= MINOR_VALUE else PIECES_NO_PAWNS
        elif (
            npm_other == 0
            and not (s[PAWN] & other)
            and npm == 2 * MINOR_VALUE
            and popcount(s[KNIGHT] & own) == 2
        ):
            return 0.0  # two knights cannot force mate on a bare king
    elif pawns == 1 and npm_other > 0 and npm <= npm_other:
        scale = ONE_PAWN
    bishops = s[BISHOP]
    if (
        not (s[KNIGHT] | s[ROOK] | s[QUEEN])
        and popcount(bishops & own) == 1
        and popcount(bishops & other) == 1
        and popcount(bishops & LIGHT_SQUARES) == 1
    ):
        scale = min(scale, OPPOSITE_BISHOPS)
    return scale


@njit(cache=True, nogil=True)
def chess_scale(s: np.ndarray, cp: float) -> float:
    """The factor for a score of ``cp`` centipawns for the side to move of ``s``."""
    if s[GAME] != CHESS or cp == 0.0:
        return 1.0
    mover = np.int64(s[TURN])
    strong = mover if cp > 0.0 else 1 - mover
    clock = float(min(s[HALFMOVE], FIFTY_PLIES))
    return material_scale(s, strong) * (200.0 - clock) / 200.0
