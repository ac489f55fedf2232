"""Knight chess as a python-chess variant board (rules: shared/specs/knight-chess.md).

Following the pattern of ``chess.variant``, the variant is a ``chess.Board``
subclass that overrides the end-of-game hooks, so FEN, SAN, UCI, PGN and
python-chess's own ``IllegalMoveError`` work unchanged. Without kings,
python-chess already generates exactly the knight jumps as legal moves.
"""

from __future__ import annotations

from typing import ClassVar

import chess
import chess.variant

PLY_LIMIT = 200


class KnightChessBoard(chess.Board):
    """Chess where both sides have sixteen knights and nothing else."""

    aliases: ClassVar[list[str]] = ["Knight Chess", "Knightchess", "Knight", "Knights"]
    uci_variant = "knightchess"
    xboard_variant = "knightchess"
    starting_fen = "nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1"

    tbw_suffix = None
    tbz_suffix = None
    tbw_magic = None
    tbz_magic = None
    pawnless_tbw_suffix = None
    pawnless_tbz_suffix = None
    pawnless_tbw_magic = None
    pawnless_tbz_magic = None
    connected_kings = False
    one_king = False
    captures_compulsory = False

    def __init__(self, fen: str | None = starting_fen, chess960: bool = False) -> None:
        super().__init__(fen, chess960=chess960)

    def reset(self) -> None:
        """Restore the knight-chess start position (python-chess would set up chess)."""
        self.set_fen(type(self).starting_fen)

    def reset_board(self) -> None:
        self.set_board_fen(type(self).starting_fen.split()[0])
        self.clear_stack()

    # ---------------------------------------------------------------- end of game
    def knight_count(self, color: chess.Color) -> int:
        return chess.popcount(self.occupied_co[color])

    def _has_any_move(self) -> bool:
        return any(self.generate_pseudo_legal_moves())

    def is_variant_end(self) -> bool:
        """Rules 1-3: a side without knights, the 200-ply limit, or no legal move."""
        if not self.occupied_co[chess.WHITE] or not self.occupied_co[chess.BLACK]:
            return True
        return self.ply() >= PLY_LIMIT or not self._has_any_move()

    def _material_winner(self) -> chess.Color | None:
        white, black = self.knight_count(chess.WHITE), self.knight_count(chess.BLACK)
        if white == black:
            return None
        return chess.WHITE if white > black else chess.BLACK

    def is_variant_win(self) -> bool:
        return self.is_variant_end() and self._material_winner() == self.turn

    def is_variant_loss(self) -> bool:
        return self.is_variant_end() and self._material_winner() == (not self.turn)

    def is_variant_draw(self) -> bool:
        return self.is_variant_end() and self._material_winner() is None

    def end_reason(self) -> str | None:
        """Which rule ended the game, in words, or None while it goes on."""
        if not self.occupied_co[chess.WHITE] or not self.occupied_co[chess.BLACK]:
            return "no knights left"
        if self.ply() >= PLY_LIMIT:
            return "200-ply limit"
        if not self._has_any_move():
            return "no legal move"
        return None

    # No check, no insufficient material, no 50-move or repetition rules.
    def is_check(self) -> bool:
        return False

    def is_insufficient_material(self) -> bool:
        return False

    def has_insufficient_material(self, color: chess.Color) -> bool:
        return False

    def is_seventyfive_moves(self) -> bool:
        return False

    def is_fifty_moves(self) -> bool:
        return False

    def can_claim_fifty_moves(self) -> bool:
        return False

    def is_fivefold_repetition(self) -> bool:
        return False

    def can_claim_threefold_repetition(self) -> bool:
        return False

    def is_repetition(self, count: int = 3) -> bool:
        return False

    # ---------------------------------------------------------------- notation
    def _algebraic_and_push(self, move: chess.Move, *, long: bool = False) -> str:
        """SAN without ``#``: python-chess marks any variant win or loss as mate, but
        knight chess has no check, so capturing the last knight is written ``Nxe3``."""
        return super()._algebraic_and_push(move, long=long).rstrip("#")

    # ---------------------------------------------------------------- validity
    def status(self) -> chess.Status:
        """Board status without the king-related flags, which do not apply here."""
        status = super().status()
        status &= ~chess.STATUS_NO_WHITE_KING
        status &= ~chess.STATUS_NO_BLACK_KING
        status &= ~chess.STATUS_TOO_MANY_KINGS
        status &= ~chess.STATUS_OPPOSITE_CHECK
        status &= ~chess.STATUS_TOO_MANY_CHECKERS
        status &= ~chess.STATUS_IMPOSSIBLE_CHECK
        return status


def register() -> None:
    """Make PGN readers find the variant by name (``[Variant "Knight Chess"]``)."""
    if KnightChessBoard not in chess.variant.VARIANTS:
        chess.variant.VARIANTS.append(KnightChessBoard)


register()
