"""Playing a game: sides, move list, undo, FEN setup, result and PGN (pure Python).

The web app, the CLI and a UCI front end all drive games through
:class:`GameSession`; the search itself lives in :mod:`engine.search`.
"""

from __future__ import annotations

from engine.play.errors import InvalidSettingError, NothingToUndoError, NotYourTurnError
from engine.play.game import (
    HUMAN_CHOICES,
    Adjudication,
    EngineNote,
    EngineSettings,
    GameSession,
    PlayedMove,
    Player,
    color_name,
)

__all__ = [
    "HUMAN_CHOICES",
    "Adjudication",
    "EngineNote",
    "EngineSettings",
    "GameSession",
    "InvalidSettingError",
    "NotYourTurnError",
    "NothingToUndoError",
    "PlayedMove",
    "Player",
    "color_name",
]
