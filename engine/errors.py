"""Specific errors the engine raises; the app turns each into a 4xx or an ``error`` frame.

All derive from ``ValueError`` (as python-chess's own errors do), and each
carries a short machine-readable ``code`` next to its human message.
"""

from __future__ import annotations

import chess


class CanopyError(ValueError):
    """Base class: something the caller asked for cannot be done."""

    code = "invalid"


class InvalidFenError(CanopyError):
    """A FEN that does not parse or describes an impossible position."""

    code = "invalid_fen"


class UnknownGameError(CanopyError):
    code = "unknown_game"


class UnknownAlgorithmError(CanopyError):
    code = "unknown_algorithm"


class InvalidParameterError(CanopyError):
    """A search parameter that is unknown, ill-typed or out of its range."""

    code = "bad_params"


class IllegalMoveError(chess.IllegalMoveError, CanopyError):
    """A move that is not legal in the position (python-chess's error, with our code)."""

    code = "illegal_move"


class GameOverError(CanopyError):
    code = "game_over"
