"""The server's bounds on a search request, checked in one place.

A game's settings (``POST /api/games``, a ``settings`` frame) and a race ask
for the same things — root-parallel threads, a think time, an iteration
budget — and must be refused with the same message naming the field and the
range the server allows (``CANOPY_MAX_THREADS`` and friends). The ranges
also go to the page (``/api/limits``), so they are computed here too.
"""

from __future__ import annotations

from typing import Any

from app.settings import Settings
from engine.errors import InvalidParameterError


def bounds(settings: Settings) -> dict[str, tuple[int, int]]:
    """Each bounded request field → its (lowest, highest) allowed value."""
    return {
        "threads": (1, settings.max_threads),
        "movetime_ms": (settings.min_think_ms, settings.max_think_ms),
        "iterations": (1, settings.max_iterations),
    }


def check_bound(settings: Settings, name: str, value: int, *, field: str | None = None) -> None:
    """Refuse ``value`` outside the server's range for ``name``; ``field`` names it in the
    message when the request nests it (``a.threads`` in a race)."""
    lo, hi = bounds(settings)[name]
    if not lo <= value <= hi:
        raise InvalidParameterError(f"{field or name} must lie in {lo}..{hi}, not {value}")


def check_threads(
    settings: Settings, algorithm: str, threads: int, *, field: str = "threads"
) -> int:
    """Threads within the server's range *and* ones the algorithm can use (alphabeta: 1)."""
    from engine.search.registry import validate_threads

    check_bound(settings, "threads", threads, field=field)
    return int(validate_threads(algorithm, threads))


def validate_params(algorithm: str, params: dict[str, Any], game: str) -> dict[str, Any]:
    """The algorithm's parameters checked against its registered ranges (defaults filled)."""
    from engine.search.registry import validate_params as validate

    return dict(validate(algorithm, params, game))
