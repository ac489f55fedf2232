"""The hand-made piece-square tables: the starting point (and the prior) of their fit.

The tables the evaluation reads are stored in the weights file
(:mod:`engine.eval.weights`), fitted by :mod:`engine.tune.texel_tables`; a
file written before the tables were fitted holds none and gets these.
"""

from __future__ import annotations

import numpy as np

from engine.core.state import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK
from engine.core.tables import CENTRALITY


def hand_piece_square_tables() -> tuple[np.ndarray, np.ndarray]:
    """Hand-made piece-square tables (White's view, a1 = 0), middlegame and endgame.

    Material is a feature of its own; these only say where a piece stands well.
    """
    mg = np.zeros((6, 64), dtype=np.int64)
    eg = np.zeros((6, 64), dtype=np.int64)
    pawn_mg_rank = [0, 0, 4, 8, 16, 28, 48, 0]
    pawn_eg_rank = [0, 0, 8, 16, 30, 50, 80, 0]
    king_mg_rank1 = [20, 30, 10, -5, 0, 10, 30, 20]
    for sq in range(64):
        f, r = sq % 8, sq // 8
        centre = int(CENTRALITY[sq])  # 0 rim … 3 centre
        central_file = 1 if f in (3, 4) else 0
        mg[PAWN, sq] = pawn_mg_rank[r] + (12 if central_file and r in (3, 4) else 0)
        eg[PAWN, sq] = pawn_eg_rank[r]
        mg[KNIGHT, sq] = 12 * centre - 20
        eg[KNIGHT, sq] = 8 * centre - 14
        mg[BISHOP, sq] = 5 * centre - 8 + (6 if f == r or f + r == 7 else 0)
        eg[BISHOP, sq] = 4 * centre - 6
        mg[ROOK, sq] = (18 if r == 6 else 0) + (6 if f in (3, 4) else 0) - (4 if f in (0, 7) else 0)
        eg[ROOK, sq] = 6 if r == 6 else 0
        mg[QUEEN, sq] = 3 * centre - 5 - (8 if r >= 4 and r <= 5 and centre < 2 else 0)
        eg[QUEEN, sq] = 6 * centre - 9
        mg[KING, sq] = (
            king_mg_rank1[f] if r == 0 else (8 if r == 1 and f in (0, 1, 6, 7) else 0) - 12 * r
        )
        eg[KING, sq] = 12 * centre - 18
    return mg, eg
