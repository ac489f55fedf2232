"""Layout of the array state shared by both games, and of the int move.

A position is one ``uint64[STATE_SIZE]`` array so that copy-make is a 128-byte
copy and every kernel (perft, playout, search) takes the same argument for
either game. The game id lives in the state itself, which lets the generic
kernels in :mod:`engine.core.games` dispatch without Python objects.

Squares are numbered a1 = 0 … h8 = 63 as in python-chess.
"""

from __future__ import annotations

import numpy as np

# ---------------------------------------------------------------- state slots
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 0, 1, 2, 3, 4, 5  # piece-type bitboards
WHITE_BB, BLACK_BB = 6, 7  # occupancy by colour (index = 6 + colour)
TURN = 8  # side to move: 0 white, 1 black
CASTLING = 9  # bits: 1 white short, 2 white long, 4 black short, 8 black long
EP = 10  # en-passant target square, NO_SQUARE when none
HALFMOVE = 11  # plies since the last capture or pawn move
PLY = 12  # plies since the game's start: 2 * (fullmove - 1) + turn
HASH = 13  # Zobrist key of the position
GAME = 14  # CHESS or KNIGHT
# Which static evaluation a search runs: HAND_EVAL (0, every state's default),
# LEARNED_EVAL, SCALED_EVAL (the hand one, scaled in drawish chess endings) or NNUE_EVAL
# (the piece-square network, engine.eval.nnue). A search
# sets it on its root; copy-make copies the whole array, so every state below the root
# carries it and ``evaluate`` needs no other argument.
EVAL = 15
STATE_SIZE = 16

WHITE, BLACK = 0, 1
CHESS, KNIGHT_CHESS = 0, 1
HAND_EVAL, LEARNED_EVAL, SCALED_EVAL, NNUE_EVAL = 0, 1, 2, 3
NO_SQUARE = 64

# ---------------------------------------------------------------- int moves
# bits 0-5 from, 6-11 to, 12-14 promotion piece type (0 = none), then flags.
FLAG_CAPTURE = 1 << 15
FLAG_EP = 1 << 16
FLAG_CASTLE = 1 << 17
FLAG_DOUBLE = 1 << 18
NO_MOVE = -1

MAX_MOVES = 256  # upper bound on legal moves in either game (chess: 218)

# ---------------------------------------------------------------- game status
ONGOING = 0
CHECKMATE = 1
STALEMATE = 2
INSUFFICIENT = 3
FIFTY_MOVES = 4
REPETITION = 5
PLY_CAP = 6  # playout ply cap (chess) or the 200-ply rule (knight chess)
NO_KNIGHTS = 7
NO_MOVES = 8

STATUS_NAMES = {
    ONGOING: "ongoing",
    CHECKMATE: "checkmate",
    STALEMATE: "stalemate",
    INSUFFICIENT: "insufficient material",
    FIFTY_MOVES: "fifty-move rule",
    REPETITION: "threefold repetition",
    PLY_CAP: "ply limit",
    NO_KNIGHTS: "no knights left",
    NO_MOVES: "no legal move",
}

# Result of a finished game from White's point of view.
WHITE_WINS, DRAW, BLACK_WINS = 1, 0, -1


def new_state() -> np.ndarray:
    """An empty state array (no pieces, white to move, chess)."""
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    s[EP] = NO_SQUARE
    return s
