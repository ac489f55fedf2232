"""Pydantic models of the arena's HTTP bodies (``POST /api/arenas``, a bot's join and edit).

They check the shape only (types, unknown fields, lengths a request may not exceed);
what a value means (a game's rules, a bot's name and parameters) is checked by
``engine.arena.rules`` so the CLI and the server refuse the same things with the
same words.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.schemas import GameName, PrintableName


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CreateArena(_Strict):
    """Body of ``POST /api/arenas``: exactly one of ``movetime_ms`` and ``iterations``."""

    game: GameName = "chess"
    #: The arena's title (the PGN's ``Event``; shown escaped, never as markup).
    name: PrintableName = Field(None, max_length=80)
    movetime_ms: int | None = None
    iterations: int | None = None
    algorithms: list[str] | None = Field(None, max_length=40)
    free: dict[str, list[str]] | None = None
    format: Literal["round-robin", "swiss"] = "round-robin"
    rounds: int = 1
    max_plies: int | None = None


class JoinBot(_Strict):
    """Body of ``POST /api/arenas/{id}/bots``; the name's rules are the engine's (1..40
    printable characters), checked there so the refusal says ``bad_name``."""

    name: str = Field(max_length=200)
    algorithm: str = Field(max_length=40)
    params: dict[str, Any] | None = None


class EditBot(_Strict):
    """Body of ``PATCH /api/arenas/{id}/bots/{bot_id}``: absent fields stay as they are."""

    name: str | None = Field(None, max_length=200)
    algorithm: str | None = Field(None, max_length=40)
    params: dict[str, Any] | None = None
