"""The server's bounds on a search request, checked in one place.

A game's settings (``POST /api/games``, a ``settings`` frame) and a race ask
for the same things — root-parallel threads, a think time, an iteration
budget — and must be refused with the same message naming the field and the
range the server allows (``CANOPY_MAX_THREADS`` and friends). The ranges
also go to the page (``/api/limits``), so they are computed here too, as is
the tree budget that bounds a search's memory.
"""

from __future__ import annotations

from typing import Any

from app.settings import Settings
from engine.errors import InvalidParameterError
from engine.play import EngineSettings


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


def describe_algorithms(game: str) -> list[dict[str, Any]]:
    """Each algorithm with its parameters and their ranges for ``game`` (GET /api/algorithms),
    with the capabilities its explainer adds (the names its views give its parts)."""
    from engine.explain.explainers import describe

    return describe(game)


def validate_params(algorithm: str, params: dict[str, Any], game: str) -> dict[str, Any]:
    """The algorithm's parameters checked against its registered ranges (defaults filled)."""
    from engine.search.registry import validate_params as validate

    return dict(validate(algorithm, params, game))


def tree_budget(settings: Settings) -> int:
    """Tree nodes per search thread: ``node_budget``, less if ``search_memory_mb`` says so.

    A tree holds at most its budget of nodes (it grows by doubling, capped at the
    budget), so ``threads × budget × bytes per node`` bounds a search's memory; the
    budget is sized for the largest thread count a client may ask for.
    """
    from engine.search.tree import BYTES_PER_NODE

    s = settings
    by_memory = s.search_memory_mb * 1024 * 1024 // (s.max_threads * BYTES_PER_NODE)
    return max(1_000, min(s.node_budget, by_memory))


def engine_settings(
    settings: Settings, game: str, fields: Any, *, base: EngineSettings | None = None
) -> EngineSettings:
    """Validated engine settings from request fields over ``base`` (or the defaults).

    ``fields`` is a ``CreateGame`` or ``SettingsFrame``: absent fields keep
    ``base``'s value; parameters merge into ``base``'s when the algorithm stays.
    """
    s = settings
    base = base or EngineSettings(movetime_ms=s.think_ms, iterations=s.iterations)
    algorithm = fields.algorithm or base.algorithm
    if fields.params is not None:
        params = (
            {**base.params, **fields.params} if algorithm == base.algorithm else dict(fields.params)
        )
    else:
        params = dict(base.params) if algorithm == base.algorithm else {}
    params = validate_params(algorithm, params, game)
    threads = fields.threads if fields.threads is not None else base.threads
    movetime = fields.movetime_ms if fields.movetime_ms is not None else base.movetime_ms
    iterations = fields.iterations if fields.iterations is not None else base.iterations
    check_threads(s, algorithm, threads)
    check_bound(s, "movetime_ms", movetime)
    check_bound(s, "iterations", iterations)
    hash_mb = params.get("hash_mb")
    if isinstance(hash_mb, int | float) and hash_mb * threads > s.search_memory_mb:
        raise InvalidParameterError(
            f"hash_mb × threads must stay within the server's {s.search_memory_mb} MB "
            f"per search, not {hash_mb} × {threads}"
        )
    return EngineSettings(
        algorithm=algorithm,
        params=params,
        threads=threads,
        budget=fields.budget or base.budget,
        movetime_ms=movetime,
        iterations=iterations,
        seed=fields.seed if fields.seed is not None else base.seed,
    )
