"""What the NNUE adds over the hand evaluation in one chess position, piece by piece.

Both evaluations score the position in centipawns for its side to move; their difference
is what the network sees that the hand-made features do not (or the other way round). To
show *where*, each piece gets a contribution under each evaluation: the position's value
with the piece minus its value with that piece lifted off the board (everything else,
the side to move included, unchanged). Kings get none: no position is without one, and
the hand evaluation's king-safety terms need it on the board.

The hand value is :func:`engine.eval.evaluate.centipawns` (what ``eval=hand`` squashes);
the NNUE's is the network passed in (:func:`engine.learn.nnue_heatmap.nnue_cp_of`), so any
weights file can be shown and tested without a recompile.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from engine.core.state import BLACK_BB, EVAL, HAND_EVAL, KING, TURN
from engine.eval.evaluate import centipawns, squash
from engine.eval.nnue_weights import NNUEWeights
from engine.learn.nnue_heatmap import lift, nnue_cp_of
from engine.rules.convert import state_from_fen, state_to_fen

_LETTERS = "pnbrqk"


@dataclass(frozen=True)
class Contribution:
    """One piece's worth, in centipawns for the side to move, under each evaluation
    (``None``: a king, or no network)."""

    square: str  # "e4"
    piece: str  # its FEN letter: "N" a White knight, "n" a Black one
    hand: float | None
    nnue: float | None


@dataclass(frozen=True)
class WhatItAdds:
    """A position's two values for its side to move, and each piece's contribution."""

    fen: str
    turn: str  # "white" or "black": whose point of view every number takes
    hand_cp: float
    nnue_cp: float | None
    pieces: tuple[Contribution, ...]  # a8 … h1, the board as printed

    @property
    def hand_eval(self) -> float:
        """The hand value on the searches' [-1, 1] scale."""
        return float(squash(self.hand_cp))

    @property
    def nnue_eval(self) -> float | None:
        return None if self.nnue_cp is None else float(squash(self.nnue_cp))

    @property
    def difference_cp(self) -> float | None:
        """NNUE minus hand: what the network adds."""
        return None if self.nnue_cp is None else self.nnue_cp - self.hand_cp


def what_it_adds(fen: str, nnue: NNUEWeights | None) -> WhatItAdds:
    """Both values of the chess position ``fen`` and every piece's contribution to each
    (see the module docstring); :class:`~engine.errors.InvalidFenError` for a bad FEN."""
    root = state_from_fen(fen, "chess")
    root[EVAL] = HAND_EVAL
    net = nnue_cp_of(nnue) if nnue is not None else None
    hand_all = float(centipawns(root))
    nnue_all = net(root) if net is not None else None
    pieces = []
    for rank in range(7, -1, -1):
        for file in range(8):
            sq = chess.square(file, rank)
            bit = 1 << sq
            kind = next((k for k in range(KING + 1) if int(root[k]) & bit), None)
            if kind is None:
                continue
            letter = _LETTERS[kind] if int(root[BLACK_BB]) & bit else _LETTERS[kind].upper()
            hand = nnue_value = None
            if kind != KING:
                without = root.copy()
                lift(without, sq)
                hand = hand_all - float(centipawns(without))
                if net is not None and nnue_all is not None:
                    nnue_value = nnue_all - net(without)
            pieces.append(Contribution(chess.square_name(sq), letter, hand, nnue_value))
    turn = "white" if int(root[TURN]) == 0 else "black"
    return WhatItAdds(state_to_fen(root), turn, hand_all, nnue_all, tuple(pieces))
