"""Crossing the boundary: python-chess boards ⇄ array states, int moves ⇄ UCI.

Moves are small ints inside the numba core and UCI strings everywhere else.

It lives with the rules, not in the core: the rules (python-chess boards, the games'
names) know the core's game codes, and the core knows nothing of python-chess, so the
two packages depend one way only.
"""

from __future__ import annotations

import chess
import numpy as np

from engine.core.games import legal_moves
from engine.core.state import (
    BISHOP,
    BLACK_BB,
    CASTLING,
    EP,
    GAME,
    HALFMOVE,
    HASH,
    KING,
    KNIGHT,
    MAX_MOVES,
    NO_SQUARE,
    PAWN,
    PLY,
    QUEEN,
    ROOK,
    TURN,
    WHITE_BB,
    new_state,
)
from engine.core.zobrist import full_hash
from engine.errors import IllegalMoveError
from engine.rules.games import GAMES, Game, game_of, get_game

_CASTLE_BITS = ((chess.H1, 1), (chess.A1, 2), (chess.H8, 4), (chess.A8, 8))
_PROMO_LETTERS = " nbrq"  # indexed by the core's piece type (KNIGHT=1 … QUEEN=4)


def state_from_board(board: chess.Board) -> np.ndarray:
    """The core state of a python-chess board (chess or knight chess)."""
    s = new_state()
    s[PAWN], s[KNIGHT], s[BISHOP] = board.pawns, board.knights, board.bishops
    s[ROOK], s[QUEEN], s[KING] = board.rooks, board.queens, board.kings
    s[WHITE_BB], s[BLACK_BB] = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    s[TURN] = 0 if board.turn == chess.WHITE else 1
    rights = board.clean_castling_rights()
    s[CASTLING] = sum(bit for sq, bit in _CASTLE_BITS if rights & chess.BB_SQUARES[sq])
    s[EP] = NO_SQUARE if board.ep_square is None else board.ep_square
    s[HALFMOVE] = board.halfmove_clock
    s[PLY] = board.ply()
    s[GAME] = game_of(board).game_id
    s[HASH] = full_hash(s)
    return s


def state_from_fen(fen: str | None, game: Game | str = "chess") -> np.ndarray:
    """Validated state for ``fen`` (``None``/``"startpos"``: the start position)."""
    g = get_game(game) if isinstance(game, str) else game
    return state_from_board(g.board(fen))


def board_from_state(s: np.ndarray) -> chess.Board:
    """A python-chess board equal to ``s`` (history not included)."""
    game = next(g for g in GAMES.values() if g.game_id == int(s[GAME]))
    board = game.board_class.empty()
    types = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
    pieces = {}
    for index, piece_type in enumerate(types):
        for color, slot in ((chess.WHITE, WHITE_BB), (chess.BLACK, BLACK_BB)):
            for sq in chess.scan_forward(int(s[index]) & int(s[slot])):
                pieces[sq] = chess.Piece(piece_type, color)
    board.set_piece_map(pieces)
    board.turn = chess.WHITE if int(s[TURN]) == 0 else chess.BLACK
    board.castling_rights = 0
    for sq, bit in _CASTLE_BITS:
        if int(s[CASTLING]) & bit:
            board.castling_rights |= chess.BB_SQUARES[sq]
    board.ep_square = None if int(s[EP]) == NO_SQUARE else int(s[EP])
    board.halfmove_clock = int(s[HALFMOVE])
    board.fullmove_number = int(s[PLY]) // 2 + 1
    return board


def state_to_fen(s: np.ndarray) -> str:
    return board_from_state(s).fen()


def move_to_uci(m: int) -> str:
    """UCI text of an int move (castling as the king's two-square step, e.g. e1g1)."""
    m = int(m)
    promo = (m >> 12) & 7
    uci = chess.SQUARE_NAMES[m & 63] + chess.SQUARE_NAMES[(m >> 6) & 63]
    return uci + _PROMO_LETTERS[promo] if promo else uci


def legal_move_array(s: np.ndarray) -> np.ndarray:
    """The legal moves of ``s`` as an int32 array, in generation order."""
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    n = legal_moves(s, buf)
    return buf[:n].copy()


def uci_to_move(s: np.ndarray, uci: str) -> int:
    """The legal int move written ``uci`` in ``s``; raises :class:`IllegalMoveError`."""
    for m in legal_move_array(s):
        if move_to_uci(int(m)) == uci:
            return int(m)
    raise IllegalMoveError(f"illegal move {uci!r} in {state_to_fen(s)}")
