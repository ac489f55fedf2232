"""Refusals specific to playing a game (on top of :mod:`engine.errors`).

Each carries a ``code`` the app sends unchanged in its ``error`` frames, so a
client can react to the code and show the message.
"""

from __future__ import annotations

from engine.errors import CanopyError


class NotYourTurnError(CanopyError):
    """A human move while the engine is to move (or in engine-vs-engine mode)."""

    code = "not_your_turn"


class NothingToUndoError(CanopyError):
    """Undo with no move of the human's left to take back."""

    code = "nothing_to_undo"


class InvalidSettingError(CanopyError):
    """An engine setting (side, budget, threads) that is unknown or out of range."""

    code = "bad_params"


class PgnError(CanopyError):
    """A PGN (or FEN and moves) that cannot be read; ``line`` is where the problem is."""

    code = "bad_pgn"

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line


class TooManyPliesError(CanopyError):
    """A game longer than the analysis accepts."""

    code = "too_many_plies"
