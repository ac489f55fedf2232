"""Durable analyses: one row per analysis beside its game, progress written per position.

An analysis *is* a game (``app.store``): its moves are the PGN's, played by
"players" on both sides, so ``/games/{id}``, its PGN, the games list and the
share link work as for any game. The search of each position goes with the
move made there (``moves.search``, as for a player's move the engine
searched), the search of the final position in this row (``final_search``),
and ``done`` counts the positions searched, written in the same transaction
as the search, so a restart resumes at the first position not done.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, insert, select, update
from sqlalchemy.orm import Mapped, mapped_column

from app.store import Base, GameRow, MoveRow, SqlStore, StoredGame, utcnow

#: Statuses of an analysis (``queued``: waiting for a search slot, or for the server).
STATUSES = ("queued", "running", "done", "failed")
UNFINISHED = ("queued", "running")


class AnalysisRow(Base):
    __tablename__ = "analyses"

    id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(8))
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer)
    algorithm: Mapped[str] = mapped_column(String(40))
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    movetime_ms: Mapped[int] = mapped_column(Integer)
    #: The PGN's tag pairs (user input) and what the reader chose (several games: the first).
    headers: Mapped[dict[str, Any]] = mapped_column(JSON)
    notes: Mapped[list[str]] = mapped_column(JSON)
    final_search: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: The checks of plies that looked like marks (``engine.play.analysis.Check``), by ply.
    checks: Mapped[dict[str, Any]] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(String(300), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True)
class AnalysisRecord:
    """An analysis row as stored (the game it belongs to is loaded apart)."""

    id: str
    status: str
    done: int
    total: int
    algorithm: str
    params: dict[str, Any]
    movetime_ms: int
    headers: dict[str, str]
    notes: list[str]
    final_search: dict[str, Any] | None
    checks: dict[str, Any]
    error: str | None
    created_at: dt.datetime
    updated_at: dt.datetime


def _utc(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _record(row: Any) -> AnalysisRecord:
    return AnalysisRecord(
        id=row["id"],
        status=row["status"],
        done=int(row["done"] or 0),
        total=int(row["total"]),
        algorithm=row["algorithm"],
        params=dict(row["params"] or {}),
        movetime_ms=int(row["movetime_ms"]),
        headers=dict(row["headers"] or {}),
        notes=list(row["notes"] or []),
        final_search=row["final_search"],
        checks=dict(row["checks"] or {}),
        error=row["error"],
        created_at=_utc(row["created_at"]),
        updated_at=_utc(row["updated_at"]),
    )


class AnalysisStore:
    """The ``analyses`` table, on the game store's database and threads (``db.run``)."""

    def __init__(self, db: SqlStore) -> None:
        self.db = db
        Base.metadata.create_all(db.engine, tables=[AnalysisRow.__table__])  # type: ignore[list-item]

    def create(
        self,
        aid: str,
        token_digest: str,
        name: str | None,
        session: dict[str, Any],
        fields: dict[str, Any],
    ) -> None:
        """The game and its analysis row, in one transaction."""
        now = utcnow()

        def row(conn: Any) -> None:
            conn.execute(
                insert(AnalysisRow).values(
                    id=aid,
                    done=0,
                    created_at=now,
                    updated_at=now,
                    final_search=None,
                    checks={},
                    **fields,
                )
            )

        self.db.create(aid, token_digest, name, session, also=row)

    def save_position(
        self,
        aid: str,
        index: int,
        plies: int,
        search: dict[str, Any] | None,
        check: dict[str, Any] | None,
        status: str,
    ) -> None:
        """The search of position ``index`` (None: the game was over there), the check of
        the ply that led there (if any) and ``done``, in one transaction."""
        with self.db.engine.begin() as conn:
            extra: dict[str, Any] = {}
            if index < plies:
                conn.execute(
                    update(MoveRow)
                    .where(MoveRow.game_id == aid, MoveRow.ply == index)
                    .values(search=search)
                )
            else:
                extra["final_search"] = search
            if check is not None:
                held = conn.execute(
                    select(AnalysisRow.checks).where(AnalysisRow.id == aid)
                ).scalar_one()
                extra["checks"] = {**(held or {}), str(index): check}
            conn.execute(
                update(AnalysisRow)
                .where(AnalysisRow.id == aid)
                .values(done=index + 1, status=status, updated_at=utcnow(), **extra)
            )

    def set_status(self, aid: str, status: str, error: str | None = None) -> None:
        with self.db.engine.begin() as conn:
            conn.execute(
                update(AnalysisRow)
                .where(AnalysisRow.id == aid)
                .values(status=status, error=error, updated_at=utcnow())
            )

    def load(self, aid: str) -> tuple[AnalysisRecord, StoredGame] | None:
        with self.db.engine.connect() as conn:
            row = conn.execute(select(AnalysisRow).where(AnalysisRow.id == aid)).mappings().first()
        if row is None:
            return None
        game = self.db.load(aid)
        if game is None:  # pragma: no cover - the foreign key keeps them together
            return None
        return _record(row), game

    def exists(self, aid: str) -> bool:
        with self.db.engine.connect() as conn:
            found = conn.execute(select(AnalysisRow.id).where(AnalysisRow.id == aid)).first()
        return found is not None

    def unfinished(self) -> list[str]:
        """Analyses a restart interrupted (oldest first): they go on where they stopped."""
        with self.db.engine.connect() as conn:
            rows = conn.execute(
                select(AnalysisRow.id)
                .where(AnalysisRow.status.in_(UNFINISHED))
                .order_by(AnalysisRow.created_at, AnalysisRow.id)
            ).all()
        return [r[0] for r in rows]

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest analyses, with their game's name, type and length (no moves)."""
        with self.db.engine.connect() as conn:
            rows = (
                conn.execute(
                    select(AnalysisRow, GameRow.name, GameRow.game, GameRow.ply)
                    .join(GameRow, GameRow.id == AnalysisRow.id)
                    .order_by(AnalysisRow.created_at.desc(), AnalysisRow.id)
                    .limit(limit)
                )
                .mappings()
                .all()
            )
        out = []
        for r in rows:
            rec = _record(r)
            h = rec.headers
            out.append(
                {
                    "id": rec.id,
                    "name": r["name"],
                    "game": r["game"],
                    "plies": int(r["ply"]),
                    "status": rec.status,
                    "done": rec.done,
                    "total": rec.total,
                    "white": h.get("White"),
                    "black": h.get("Black"),
                    "event": h.get("Event"),
                    "date": h.get("Date"),
                    "result": h.get("Result"),
                    "algorithm": rec.algorithm,
                    "movetime_ms": rec.movetime_ms,
                    "created_at": rec.created_at.isoformat(),
                    "url": f"/games/{rec.id}",
                }
            )
        return out
