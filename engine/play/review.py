"""A played game ply by ply with what the engine thought: the data of a game review.

Each ply carries the search kept with it (see :mod:`engine.explain.summary`)
and ``eval``: the engine's score of the position *after* the ply, as White's
expected score in [0, 1] (1 a White win, ½ a draw, 0 a Black win). It comes
from a stored search, never from a new one:

1. an engine move: the Q of the move played, in the search that chose it;
2. otherwise, when the next ply was chosen by a stored search: the Q of that
   move in it (the engine's opinion of this very position as it answered);
3. otherwise the Q of the move played in the search kept with it (a human
   move made while the engine searched, when that search visited the move);
4. else ``None``: nothing the engine computed scores this position.
"""

from __future__ import annotations

from typing import Any

from engine.play.game import GameSession, PlayedMove


def review_plies(session: GameSession, first: int = 1) -> list[dict[str, Any]]:
    """Plies ``first``, ``first + 1``, … of ``session`` (1 is the first move), JSON-ready."""
    history = session.history
    out: list[dict[str, Any]] = []
    for index in range(max(0, first - 1), len(history)):
        m = history[index]
        following = history[index + 1] if index + 1 < len(history) else None
        out.append(review_ply(index + 1, m, ply_eval(m, following)))
    return out


def review_ply(ply: int, move: PlayedMove, score: float | None) -> dict[str, Any]:
    """One ply of a review, JSON-ready: the move, the search kept with it, and ``eval``."""
    return {
        "ply": ply,
        "uci": move.uci,
        "san": move.san,
        "by": move.by,
        "color": move.color,
        "fen": move.fen,
        "check": move.check,
        "search": move.search.to_dict() if move.search is not None else None,
        "eval": score,
    }


def ply_eval(move: PlayedMove, following: PlayedMove | None) -> float | None:
    """White's expected score after ``move`` by the engine's stored searches (module doc)."""
    if move.by == "engine" and move.search is not None:
        score = move.search.white_score(move.uci)
        if score is not None:
            return score
    after = following.search if following is not None else None
    if after is not None and following is not None and _same(after.fen, move.fen):
        score = after.white_score(following.uci)
        if score is not None:
            return score
    if move.search is not None:
        return move.search.white_score(move.uci)
    return None


def _same(a: str, b: str) -> bool:
    """Same placement and side to move (move counters aside)."""
    return a.split(" ", 2)[:2] == b.split(" ", 2)[:2]
