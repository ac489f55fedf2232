"""A live game's copy of what the database holds, so a save writes only what changed.

Every change of a session is written (and committed) before it is
announced, so a move the client saw acknowledged survives a crash. The game
keeps the session as last saved: a save sends only the moves after the
common prefix, and a refused save can put the game back as it was.
"""

from __future__ import annotations

from typing import Any

from app.store import SqlStore
from engine.play import GameSession


class SavedGame:
    """The session, the paused flag and the row revision as the database last stored them."""

    def __init__(
        self, gid: str, db: SqlStore, session: GameSession, paused: bool, rev: int
    ) -> None:
        self.gid = gid
        self.db = db
        self.session = session.to_dict()
        self.paused = paused
        self.rev = rev

    async def save(self, session: GameSession, paused: bool) -> None:
        """Write ``session`` (the moves that changed) and ``paused``; durable on return.

        Raises ``ConflictError`` (another server saved the game since it was
        loaded) or ``StorageError`` (the database refused); then nothing was saved.
        """
        data: dict[str, Any] = session.to_dict()
        keep = 0
        if data["start_fen"] == self.session["start_fen"]:
            for old, new in zip(self.session["history"], data["history"], strict=False):
                if old["uci"] != new["uci"]:
                    break
                keep += 1
        db = self.db
        self.rev = await db.run(
            db.save, self.gid, data, keep, (session.result, session.reason), paused, self.rev
        )
        self.session = data
        self.paused = paused

    def restore(self) -> GameSession:
        """A fresh session as last saved (a save failed: back to what the database has)."""
        return GameSession.from_dict(self.session)
