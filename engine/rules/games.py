"""One ``Game`` interface, two implementations: chess and knight chess.

The python-chess board is the rules reference at every boundary (FEN, SAN,
PGN, legality for the UI); the numba core, reached through
:mod:`engine.rules.convert`, is the fast path inside the search.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import chess.pgn

from engine.core.state import CHESS, KNIGHT_CHESS
from engine.errors import InvalidFenError, UnknownGameError
from engine.rules.knight import KnightChessBoard

_STATUS_TEXT = {
    chess.STATUS_EMPTY: "the board is empty",
    chess.STATUS_NO_WHITE_KING: "White has no king",
    chess.STATUS_NO_BLACK_KING: "Black has no king",
    chess.STATUS_TOO_MANY_KINGS: "there are too many kings",
    chess.STATUS_TOO_MANY_WHITE_PAWNS: "White has more than 8 pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS: "Black has more than 8 pawns",
    chess.STATUS_PAWNS_ON_BACKRANK: "pawns stand on the first or last rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "White has more than 16 pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "Black has more than 16 pieces",
    chess.STATUS_BAD_CASTLING_RIGHTS: "the castling rights do not match the kings and rooks",
    chess.STATUS_INVALID_EP_SQUARE: "the en-passant square is impossible",
    chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
    chess.STATUS_TOO_MANY_CHECKERS: "the king is attacked by too many pieces",
    chess.STATUS_IMPOSSIBLE_CHECK: "the check is impossible",
}


@dataclass(frozen=True)
class Game:
    """A game Canopy can play: its names, its python-chess board and its core id."""

    name: str  # "chess" or "knight": the name used by the CLI, HTTP and websocket
    title: str  # for people and PGN headers
    uci_variant: str  # the UCI_Variant option value
    game_id: int  # CHESS or KNIGHT_CHESS in the numba state
    board_class: type[chess.Board]

    @property
    def start_fen(self) -> str:
        return str(self.board_class.starting_fen)

    def board(self, fen: str | None = None) -> chess.Board:
        """A validated board for ``fen`` (``None`` or ``"startpos"``: the start position).

        Raises :class:`InvalidFenError` naming what is wrong: bad syntax, or an
        impossible position (missing king, pawns on the back rank, ...).
        """
        if fen is None or fen.strip() == "startpos":
            return self.board_class()
        fen = " ".join(fen.split())
        if not fen:
            raise InvalidFenError("empty FEN")
        try:
            board = self.board_class(fen)
        except ValueError as exc:
            raise InvalidFenError(f"malformed FEN {fen!r}: {exc}") from None
        if self.game_id == KNIGHT_CHESS and board.occupied & ~board.knights:
            raise InvalidFenError(f"knight chess allows only knights: {fen!r}")
        status = board.status()
        if status != chess.STATUS_VALID:
            problems = [text for flag, text in _STATUS_TEXT.items() if status & flag]
            raise InvalidFenError(
                f"impossible position {fen!r}: " + "; ".join(problems or ["invalid"])
            )
        return board

    def pgn_game(self) -> chess.pgn.Game:
        game = chess.pgn.Game()
        if self.game_id == KNIGHT_CHESS:
            game.headers["Variant"] = self.title
        return game


CHESS_GAME = Game("chess", "Chess", "chess", CHESS, chess.Board)
KNIGHT_GAME = Game("knight", "Knight Chess", "knightchess", KNIGHT_CHESS, KnightChessBoard)
GAMES: dict[str, Game] = {g.name: g for g in (CHESS_GAME, KNIGHT_GAME)}
_ALIASES = {"knightchess": "knight", "knight-chess": "knight", "standard": "chess"}


def get_game(name: str) -> Game:
    """The game called ``name`` (``chess``, ``knight``; ``knightchess`` accepted too)."""
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in GAMES:
        raise UnknownGameError(f"unknown game {name!r}; expected one of: chess, knight")
    return GAMES[key]


def game_of(board: chess.Board) -> Game:
    return KNIGHT_GAME if isinstance(board, KnightChessBoard) else CHESS_GAME


def outcome(board: chess.Board) -> tuple[str | None, str | None]:
    """(result, reason) of a finished game, e.g. ("1-0", "checkmate"), else (None, None).

    Draws that python-chess leaves to a claim (fifty moves, threefold
    repetition) end the game here: an engine always claims them.
    """
    out = board.outcome(claim_draw=True)
    if out is None:
        return None, None
    if isinstance(board, KnightChessBoard):
        reason = board.end_reason() or "game over"
    else:
        reason = out.termination.name.lower().replace("_", " ")
    return out.result(), reason
