"""Durable games: SQLAlchemy tables, SQLite (WAL) by default, PostgreSQL by URL.

A game is a row in ``games`` (game type, start FEN, who plays, search
settings, result, timestamps, a hash of the creator's token) and one row per
ply in ``moves``. :meth:`SqlStore.save` makes the stored game equal to a
session in one transaction: it rewrites the game row, deletes the moves past
the longest prefix still valid (after an undo or a new start position) and
inserts the new ones. It returns only once the transaction has committed, so
the app acknowledges a move (its ``state`` frame) only after the move is on
disk; SQLite runs with ``synchronous=FULL`` so "committed" survives a power
cut too, not only a ``kill -9``.

The same code talks to SQLite and PostgreSQL: the tables use portable types
(``JSON``, timezone-aware datetimes stored as UTC) and nothing here is
dialect-specific except the SQLite pragmas set on connect.

Calls are blocking; :class:`SqlStore` runs them on its own small thread pool
(one thread for SQLite, whose writers serialise anyway) so the event loop
never waits on the disk. The token itself is never stored: only its SHA-256,
so a copied database file does not hand out the right to move.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.pool import StaticPool

from engine.errors import CanopyError
from engine.play import Player

log = logging.getLogger("canopy.store")
T = TypeVar("T")


class StorageError(CanopyError):
    """The database refused or could not be reached; the request changed nothing."""

    code = "storage_unavailable"


class ConflictError(StorageError):
    """The stored game changed under us: another server holds it too (misrouted replicas)."""

    code = "conflict"


def token_hash(token: str) -> str:
    """What the database keeps instead of a token (compare hashes in constant time)."""
    return hashlib.sha256(token.encode()).hexdigest()


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    """SQLite hands datetimes back naive: they were stored as UTC."""
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


# ---------------------------------------------------------------- tables


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(16))
    name: Mapped[str | None] = mapped_column(String(80), nullable=True)
    start_fen: Mapped[str] = mapped_column(String(128))
    human: Mapped[str] = mapped_column(String(8))
    engine: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[str | None] = mapped_column(String(8), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(64), nullable=True)
    ply: Mapped[int] = mapped_column(Integer, default=0)
    #: Bumped by every save; a save names the revision it started from, so two servers
    #: holding the same game (a misconfigured load balancer) cannot overwrite each other.
    rev: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_games_updated_at", "updated_at"),)


class MoveRow(Base):
    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0 = the first move
    uci: Mapped[str] = mapped_column(String(8))
    san: Mapped[str] = mapped_column(String(16))
    color: Mapped[str] = mapped_column(String(5))
    by: Mapped[str] = mapped_column(String(6))
    fen: Mapped[str] = mapped_column(String(128))
    check: Mapped[bool] = mapped_column(Boolean, default=False)
    note: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: What the engine thought when the move was made (``SearchSummary.to_dict()``): the
    #: search that chose an engine move, or the one running when a human moved; else NULL.
    search: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    played_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class StoredGame:
    """A game as the database has it: enough to rebuild the session and check tokens."""

    id: str
    token_hash: str
    name: str | None
    session: dict[str, Any]  # GameSession.to_dict() shape
    paused: bool
    rev: int
    created_at: dt.datetime
    updated_at: dt.datetime


#: Parts of a session kept in the ``engine`` column under ``_`` + their name, beside the
#: paused flag: a game of two named players, who plays it, a referee's result.
SESSION_EXTRAS = ("players", "played_by", "adjudication")

#: Plies of each game's opening the recent-games list shows.
OPENING_PLIES = 6

#: The recent-games list's result filter: its value → the rows it keeps.
RESULT_FILTERS = ("ongoing", "finished", "1-0", "0-1", "1/2-1/2")


@dataclass(frozen=True)
class GameSummary:
    """One line of the recent-games list (no token; the opening's moves alone)."""

    id: str
    name: str | None
    game: str
    human: str
    algorithm: str
    ply: int
    result: str | None
    reason: str | None
    created_at: dt.datetime
    updated_at: dt.datetime
    opening: tuple[str, ...] = ()  # the first OPENING_PLIES moves in SAN
    start_fen: str = ""  # where they start (the move numbers of a game set up from a FEN)
    #: A game of two named players (an arena's): White's and Black's, e.g. "Ada (uct c=0.7)".
    players: tuple[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "game": self.game,
            "human": self.human,
            "algorithm": self.algorithm,
            "ply": self.ply,
            "result": self.result,
            "reason": self.reason,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "opening": list(self.opening),
            **({"players": list(self.players)} if self.players else {}),
        }


# ---------------------------------------------------------------- the store


def _make_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, pool_size=4, max_overflow=4)
    database = parsed.database
    if database in (None, "", ":memory:"):  # tests and benchmarks: one shared connection
        engine = create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
    else:
        Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})

    @event.listens_for(engine, "connect")
    def _pragmas(conn: Any, _record: Any) -> None:
        cur = conn.cursor()
        if database not in (None, "", ":memory:"):
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")  # committed = on disk, even after a power cut
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=10000")
        cur.close()

    return engine


class SqlStore:
    """The database of games. Blocking methods plus :meth:`run` to call them off the loop."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = _make_engine(url)
        self.backend = self.engine.dialect.name
        workers = 1 if self.backend == "sqlite" else 4
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="canopy-db")
        # Health probes get their own thread: queued behind writes (or behind the
        # search controllers in the event loop's default executor) a healthy
        # database would look slow exactly when the server is busiest.
        self._probe = ThreadPoolExecutor(max_workers=1, thread_name_prefix="canopy-db-probe")
        Base.metadata.create_all(self.engine)
        self._migrate()

    def _migrate(self) -> None:
        """Columns added since the first release (``create_all`` adds tables, not columns)."""
        columns = {c["name"] for c in inspect(self.engine).get_columns("games")}
        if "rev" not in columns:
            with self.engine.begin() as conn:
                conn.exec_driver_sql("ALTER TABLE games ADD COLUMN rev INTEGER NOT NULL DEFAULT 0")
        move_columns = {c["name"] for c in inspect(self.engine).get_columns("moves")}
        if "search" not in move_columns:  # the review: moves stored before it have none (NULL)
            json_type = JSON().compile(dialect=self.engine.dialect)
            with self.engine.begin() as conn:
                conn.exec_driver_sql(f"ALTER TABLE moves ADD COLUMN search {json_type}")

    def describe(self) -> str:
        """The URL without its password (for logs and /api/health)."""
        return make_url(self.url).render_as_string(hide_password=True)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Call a blocking method on the store's threads; database errors become StorageError."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool, lambda: fn(*args))
        except SQLAlchemyError as exc:
            log.error("database error: %s", exc.__class__.__name__, exc_info=exc)
            raise StorageError("the game store is unavailable; nothing was changed") from exc

    async def probe(self, timeout: float = 2.0) -> float:
        """:meth:`ping` on the probe thread, in milliseconds; raises when down or slow."""
        loop = asyncio.get_running_loop()
        return await asyncio.wait_for(loop.run_in_executor(self._probe, self.ping), timeout)

    # ------------------------------------------------------------ writes
    def create(
        self,
        gid: str,
        token_digest: str,
        name: str | None,
        session: Mapping[str, Any],
        outcome: tuple[str | None, str | None] = (None, None),
        also: Callable[[Any], None] | None = None,
    ) -> None:
        """Insert the game and its moves; ``also(conn)`` writes more in the same transaction
        (an analysis's own row: both are stored or neither)."""
        now = utcnow()
        with self.engine.begin() as conn:
            conn.execute(
                insert(GameRow).values(
                    id=gid,
                    token_hash=token_digest,
                    name=name,
                    created_at=_created(session, now),
                    updated_at=now,
                    **_game_fields(session, outcome),
                )
            )
            _insert_moves(conn, gid, session["history"], 0, now)
            if also is not None:
                also(conn)

    def save(
        self,
        gid: str,
        session: Mapping[str, Any],
        keep: int,
        outcome: tuple[str | None, str | None] = (None, None),
        paused: bool = False,
        rev: int | None = None,
    ) -> int:
        """Make the stored game equal ``session``; its first ``keep`` stored moves still are.

        ``outcome`` is the session's (result, reason), kept on the row for the games list.
        With ``rev`` (the revision this server loaded or last saved), the save happens
        only if nobody else saved in between (else :class:`ConflictError`). Returns the
        new revision.
        """
        now = utcnow()
        history: Sequence[Mapping[str, Any]] = session["history"]
        with self.engine.begin() as conn:
            fields = _game_fields(session, outcome)
            fields["engine"] = {**fields["engine"], "_paused": bool(paused)}
            where = [GameRow.id == gid]
            if rev is not None:
                where.append(GameRow.rev == rev)
            done = conn.execute(
                update(GameRow)
                .where(*where)
                .values(updated_at=now, rev=GameRow.rev + 1, **fields)
                .returning(GameRow.rev)
            )
            new_rev = done.scalar()
            if new_rev is None:
                if rev is not None and self._exists(conn, gid):
                    raise ConflictError(f"game {gid} was changed by another server; open it again")
                raise StorageError(f"game {gid} is not in the store")
            conn.execute(delete(MoveRow).where(MoveRow.game_id == gid, MoveRow.ply >= keep))
            _insert_moves(conn, gid, history[keep:], keep, now)
        return int(new_rev)

    @staticmethod
    def _exists(conn: Any, gid: str) -> bool:
        return conn.execute(select(GameRow.id).where(GameRow.id == gid)).first() is not None

    # ------------------------------------------------------------ reads
    def load(self, gid: str) -> StoredGame | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(GameRow).where(GameRow.id == gid)).mappings().first()
            if row is None:
                return None
            moves = (
                conn.execute(select(MoveRow).where(MoveRow.game_id == gid).order_by(MoveRow.ply))
                .mappings()
                .all()
            )
        engine = dict(row["engine"] or {})
        paused = bool(engine.pop("_paused", False))
        extras = {k: engine.pop(f"_{k}") for k in SESSION_EXTRAS if f"_{k}" in engine}
        created = _utc(row["created_at"])
        assert created is not None
        session = {
            **extras,
            "game": row["game"],
            "start_fen": row["start_fen"],
            "human": row["human"],
            "engine": engine,
            "created": created.isoformat(),
            "history": [
                {
                    "uci": m["uci"],
                    "san": m["san"],
                    "color": m["color"],
                    "by": m["by"],
                    "fen": m["fen"],
                    "check": bool(m["check"]),
                    **({"note": m["note"]} if m["note"] else {}),
                    **({"search": m["search"]} if m["search"] else {}),
                }
                for m in moves
            ],
        }
        return StoredGame(
            id=row["id"],
            token_hash=row["token_hash"],
            name=row["name"],
            session=session,
            paused=paused,
            rev=int(row["rev"] or 0),
            created_at=created,
            updated_at=_utc(row["updated_at"]) or created,
        )

    def recent(
        self, limit: int = 50, *, game: str | None = None, result: str | None = None
    ) -> list[GameSummary]:
        """The games played last, newest first, each with its opening; ``game`` keeps one
        kind (``chess``, ``knight``), ``result`` one of :data:`RESULT_FILTERS`."""
        query = select(GameRow)
        if game is not None:
            query = query.where(GameRow.game == game)
        if result == "ongoing":
            query = query.where(GameRow.result.is_(None))
        elif result == "finished":
            query = query.where(GameRow.result.is_not(None))
        elif result is not None:
            query = query.where(GameRow.result == result)
        with self.engine.connect() as conn:
            rows = (
                conn.execute(query.order_by(GameRow.updated_at.desc(), GameRow.id).limit(limit))
                .mappings()
                .all()
            )
            openings: dict[str, list[str]] = {}
            if rows:
                moves = conn.execute(
                    select(MoveRow.game_id, MoveRow.san)
                    .where(MoveRow.game_id.in_([r["id"] for r in rows]))
                    .where(MoveRow.ply < OPENING_PLIES)
                    .order_by(MoveRow.game_id, MoveRow.ply)
                )
                for gid, san in moves:
                    openings.setdefault(gid, []).append(san)
        out = []
        for r in rows:
            created = _utc(r["created_at"])
            assert created is not None
            out.append(
                GameSummary(
                    id=r["id"],
                    name=r["name"],
                    game=r["game"],
                    human=r["human"],
                    algorithm=str((r["engine"] or {}).get("algorithm", "")),
                    ply=int(r["ply"]),
                    result=r["result"],
                    reason=r["reason"],
                    created_at=created,
                    updated_at=_utc(r["updated_at"]) or created,
                    opening=tuple(openings.get(r["id"], ())),
                    start_fen=r["start_fen"],
                    players=_player_names((r["engine"] or {}).get("_players")),
                )
            )
        return out

    def count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(GameRow)).scalar_one())

    def ping(self) -> float:
        """Round trip of ``SELECT 1`` in milliseconds (raises when the database is down)."""
        t0 = time.perf_counter()
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return (time.perf_counter() - t0) * 1000.0

    def close(self) -> None:
        """Finish pending work, fold the WAL into the database file, release connections."""
        self._pool.shutdown(wait=True)
        self._probe.shutdown(wait=False, cancel_futures=True)
        if self.backend == "sqlite":
            try:
                with self.engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            except SQLAlchemyError:  # pragma: no cover - the data is safe in the WAL anyway
                log.warning("WAL checkpoint at shutdown failed")
        self.engine.dispose()


def _created(session: Mapping[str, Any], default: dt.datetime) -> dt.datetime:
    try:
        return _utc(dt.datetime.fromisoformat(session["created"])) or default
    except (KeyError, TypeError, ValueError):
        return default


def _game_fields(
    session: Mapping[str, Any], outcome: tuple[str | None, str | None]
) -> dict[str, Any]:
    result, reason = outcome
    engine = dict(session["engine"])
    engine.update({f"_{k}": session[k] for k in SESSION_EXTRAS if session.get(k)})
    return {
        "game": session["game"],
        "start_fen": session["start_fen"],
        "human": session["human"],
        "engine": engine,
        "result": result,
        "reason": reason,
        "ply": len(session["history"]),
    }


def _player_names(players: Any) -> tuple[str, str] | None:
    """White's and Black's "name (settings)" from a stored game's players, if it has two."""
    if not isinstance(players, dict) or not {"white", "black"} <= set(players):
        return None
    white, black = (Player.from_dict(players[side]) for side in ("white", "black"))
    return white.describe(), black.describe()


def _insert_moves(
    conn: Any, gid: str, moves: Sequence[Mapping[str, Any]], first: int, now: dt.datetime
) -> None:
    if not moves:
        return
    conn.execute(
        insert(MoveRow),
        [
            {
                "game_id": gid,
                "ply": first + i,
                "uci": m["uci"],
                "san": m["san"],
                "color": m["color"],
                "by": m["by"],
                "fen": m["fen"],
                "check": bool(m.get("check", False)),
                "note": m.get("note"),
                "search": m.get("search"),
                "played_at": now,
            }
            for i, m in enumerate(moves)
        ],
    )
