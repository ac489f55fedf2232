"""What the NNUE thinks a piece is worth on each square, read off the network itself.

The network (:mod:`engine.eval.nnue`) has no table of piece values to print: every piece
shifts both accumulators, and the hidden layer mixes them. So the map is defined by
**probing**: a reference position — both kings on their home squares, e1 and e8, White
to move, nothing else — and, for one piece type and owner at a time, the value of that
position with one more such piece on a square minus the reference's value. For the king
(there is always one of each) the own or the enemy king is *moved* to the square instead.

Values are centipawns for the side to move, White (the network's logit × 400 / ln 10,
the hand evaluation's squash); square 0 is a1. A square the probe cannot use is ``None``:
the kings' own squares, a pawn's first and last ranks, and for a king the squares next to
the other king.
"""

from __future__ import annotations

from collections.abc import Callable

import chess
import numpy as np

from engine.core.state import BLACK, BLACK_BB, KING, PAWN, WHITE, WHITE_BB
from engine.eval.learned_logits import nnue_logit_of
from engine.eval.nnue_weights import NNUEWeights
from engine.learn.heatmap import OWNERS
from engine.learn.ntuple import CP_TO_LOGIT
from engine.rules.convert import state_from_fen

PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")  # the state's order
#: The probes' reference: the two kings at home, White (the side to move, "own") to play.
REFERENCE_FEN = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
OWN_KING, ENEMY_KING = chess.E1, chess.E8

Maps = dict[str, dict[str, list[float | None]]]


def nnue_cp_of(w: NNUEWeights) -> Callable[[np.ndarray], float]:
    """The NNUE's value of a chess state in centipawns for its side to move, on ``w``."""
    logit = nnue_logit_of(w)
    return lambda s: logit(s) / CP_TO_LOGIT


def place(s: np.ndarray, colour: int, piece: int, sq: int) -> None:
    """Put a ``colour`` ``piece`` on the empty square ``sq`` of ``s`` (in place)."""
    bit = np.uint64(1) << np.uint64(sq)
    s[piece] |= bit
    s[WHITE_BB + colour] |= bit


def lift(s: np.ndarray, sq: int) -> None:
    """Take whatever stands on ``sq`` off ``s`` (in place). Castling and en-passant rights
    are left as they are: a static evaluation does not read them."""
    keep = ~(np.uint64(1) << np.uint64(sq))
    for slot in (*range(KING + 1), WHITE_BB, BLACK_BB):
        s[slot] &= keep


def _usable(piece: int, owner: int, sq: int) -> bool:
    if sq in (OWN_KING, ENEMY_KING):
        return piece == KING and sq == (OWN_KING if owner == 0 else ENEMY_KING)
    if piece == PAWN:
        return 1 <= chess.square_rank(sq) <= 6
    if piece == KING:
        other = ENEMY_KING if owner == 0 else OWN_KING
        return chess.square_distance(sq, other) > 1
    return True


def piece_square_maps(w: NNUEWeights) -> Maps:
    """``maps[piece][owner]``: 64 centipawn values (``None`` where unusable), as the
    module docstring defines them; ``owner`` ``own`` is White's, the side to move."""
    cp = nnue_cp_of(w)
    reference = state_from_fen(REFERENCE_FEN, "chess")
    base = cp(reference)
    out: Maps = {}
    for piece, name in enumerate(PIECES):
        out[name] = {}
        for owner, who in enumerate(OWNERS):
            colour = WHITE if owner == 0 else BLACK
            values: list[float | None] = []
            for sq in range(64):
                if not _usable(piece, owner, sq):
                    values.append(None)
                    continue
                s = reference.copy()
                if piece == KING:
                    lift(s, OWN_KING if owner == 0 else ENEMY_KING)
                place(s, colour, piece, sq)
                values.append(cp(s) - base)
            out[name][who] = values
    return out


def rounded(maps: Maps, digits: int = 1) -> Maps:
    """``maps`` with every value rounded, as the app sends them."""
    return {
        piece: {who: [None if v is None else round(v, digits) for v in vs]
                for who, vs in owners.items()}
        for piece, owners in maps.items()
    }  # fmt: skip
