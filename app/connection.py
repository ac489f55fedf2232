"""One websocket as a game sees it: who is on the other end, and the frames waiting for it.

The route owns the socket itself (reading, writing, closing); the game only
ever puts frames in a connection's :class:`~app.streaming.Outbox`.
"""

from __future__ import annotations

from app.streaming import Outbox


class Connection:
    """One websocket: its role (``player`` or ``spectator``) and its outbox."""

    def __init__(self, role: str, outbox: Outbox) -> None:
        self.role = role
        self.outbox = outbox

    @property
    def is_player(self) -> bool:
        return self.role == "player"
