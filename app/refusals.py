"""The body of every refused API request, in both shapes: ``{"error": {"code",
"message"}}`` (as the analyses and arenas routes promise) and the same ``code`` and
``message`` at the top level (as the games API always answered). A route raises a
:class:`engine.errors.CanopyError`; the application's handler answers with this."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

#: HTTP status of each refusal (any other code: 400).
STATUS = {
    "not_found": 404,
    "forbidden": 403,
    "too_many_games": 503,
    "arena_closed": 409,
    "too_many_bots": 409,
    "too_few_bots": 409,
    "too_many_analyses": 503,
    "too_many_arenas": 503,
    "shutting_down": 503,
    "storage_unavailable": 503,
    "rate_limited": 429,
}


def refusal(
    code: str, message: str, *, status: int | None = None, line: int | None = None
) -> JSONResponse:
    """``line``: where a refused PGN went wrong. A full server or a rate limit says when
    to try again (``Retry-After``)."""
    error: dict[str, Any] = {"code": code, "message": message}
    if line is not None:
        error["line"] = line
    status = status or STATUS.get(code, 400)
    headers = {"Retry-After": "30"} if status in (429, 503) else None
    return JSONResponse(
        {"error": error, "code": code, "message": message}, status_code=status, headers=headers
    )
