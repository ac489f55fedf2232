"""The app's refusals that are not the engine's: a game that is not there, a full server,
a server on its way down. Each has the ``code`` clients see (``error`` frames, HTTP
bodies); ``app.main`` maps the codes to HTTP statuses."""

from __future__ import annotations

from engine.errors import CanopyError


class GameNotFoundError(CanopyError):
    code = "not_found"


class TooManyGamesError(CanopyError):
    code = "too_many_games"


class ShuttingDownError(CanopyError):
    code = "shutting_down"
