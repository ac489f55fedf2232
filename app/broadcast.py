"""What a game's watchers are sent: the ``state`` frame (shaped, cached, trimmed to the
frame limit) and replies every watcher sees.

Under load the search queue moves many times a second and every move of it
re-sends each queued game's state, so the part only the session decides is
cached (:class:`SessionPart`) and each role's frame is encoded once per
broadcast.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from app.connection import Connection
from app.streaming import dumps
from engine.play import GameSession

#: In a long game's state frame, the last this many moves keep their board FEN.
RECENT_FENS = 16


class SessionPart:
    """The part of a game's state frame that only the session decides, cached.

    Recomputing legal moves and FENs (python-chess, ~1 ms a game) for frames
    where only the queue position changed kept the event loop busy. Any change
    of the session changes the key (a new session object, ply, start position,
    last move, who plays, or the engine settings, which are replaced, never
    mutated), as does the game's ``version``.
    """

    def __init__(self) -> None:
        self._key: tuple[Any, ...] | None = None
        self._part: dict[str, Any] | None = None

    def get(self, gid: str, session: GameSession, version: int) -> dict[str, Any]:
        s = session
        last = s.history[-1].fen if s.history else None
        key = (id(s), version, s.ply, s.start_fen, last, s.human, id(s.engine))
        if self._key == key and self._part is not None:
            return self._part
        history = []
        for m in s.history:
            entry: dict[str, Any] = {
                "uci": m.uci,
                "san": m.san,
                "color": m.color,
                "by": m.by,
                "fen": m.fen.split(" ", 1)[0],
                "check": m.check,
            }
            if m.note is not None:
                entry["n"] = m.note.visits
                entry["q"] = round(m.note.q, 4)
            history.append(entry)
        part = {
            "type": "state",
            "id": gid,
            "game": s.game.name,
            "title": s.game.title,
            "fen": s.fen,
            "start_fen": s.start_fen,
            "moves": s.moves,
            "history": history,
            "history_start": 0,  # plies left out of ``history`` (only in very long games)
            "legal": s.legal_moves(),
            "turn": s.turn,
            "check": s.check,
            "ply": s.ply,
            "result": s.result,
            "reason": s.reason,
            "human": s.human,
            "settings": s.engine.to_dict(),
            # Named players with their own settings (an arena's bots; null: the game's
            # engine plays), and what moves the game in their place (``"arena"``, else null).
            "players": {side: p.to_dict() for side, p in s.players.items()} or None,
            "played_by": s.played_by,
            "last_move": s.history[-1].uci if s.history else None,
        }
        self._key, self._part = key, part
        return part


def encode_state(payload: dict[str, Any], max_frame: int) -> str:
    """A state frame as JSON text under ``max_frame`` bytes (less a margin).

    A very long game first drops the per-move board FENs, oldest first; then
    the oldest history entries themselves (``history_start`` says how many;
    ``moves`` stays complete). Clients browsing that far back ask
    GET /api/games/{id}/positions, which has no size limit.
    """
    text = dumps(payload)
    limit = max_frame - 256
    if len(text.encode()) > limit:  # trimmed below: leave the cached entries whole
        payload["history"] = [dict(entry) for entry in payload["history"]]
    history = payload["history"]
    keep = len(history) - RECENT_FENS  # the latest positions keep their FENs
    index = 0
    while len(text.encode()) > limit and index < keep:
        step = max(1, len(history) // 8)
        for entry in history[index : min(index + step, keep)]:
            entry["fen"] = None
        index += step
        text = dumps(payload)
    while len(text.encode()) > limit and payload["history"]:
        drop = max(1, len(payload["history"]) // 8)
        payload["history"] = payload["history"][drop:]
        payload["history_start"] += drop
        text = dumps(payload)
    return text


def send_state(connections: Iterable[Connection], encode: Callable[[str], str]) -> None:
    """Each watcher gets the state frame for its role (encoded once per role)."""
    encoded: dict[str, str] = {}
    for conn in list(connections):
        if conn.role not in encoded:
            encoded[conn.role] = encode(conn.role)
        conn.outbox.put_state(encoded[conn.role])


def send_reply(connections: Iterable[Connection], payload: dict[str, Any]) -> None:
    """Every watcher gets ``payload`` (an error, a step) in its reply queue."""
    text = dumps(payload)
    for conn in list(connections):
        conn.outbox.put_reply(text)
