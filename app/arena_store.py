"""Durable arenas: three tables beside the games, on the game store's database.

``arenas`` holds a tournament's rules and state, ``arena_bots`` the students'
entries and ``arena_games`` its pairings, each with the id of the stored game
(``app.store``) that plays it: the id is chosen when the pairing is made, the
game is stored when it starts, so a link to a pending game is already right.
Tokens are kept as hashes, as the games' are. Calls are blocking: the service
runs them on the store's threads (``db.run``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.store import Base, GameRow, SqlStore, utcnow

STATES = ("open", "running", "paused", "finished")
#: States that hold a place among ``max_arenas``.
ACTIVE = ("open", "running", "paused")


class ArenaRow(Base):
    __tablename__ = "arenas"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(16))
    #: ``ArenaRules`` fields but the game: movetime_ms, iterations, algorithms, free, ...
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(10))
    seed: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_arenas_state", "state"),)


class ArenaBotRow(Base):
    __tablename__ = "arena_bots"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    arena_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("arenas.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(80))
    algorithm: Mapped[str] = mapped_column(String(40))
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: The address it joined from (``CANOPY_ARENA_BOTS_PER_CLIENT``).
    client: Mapped[str] = mapped_column(String(64))
    #: Removed after the start: its played games stay in the table, so the bot does too.
    removed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class ArenaGameRow(Base):
    __tablename__ = "arena_games"

    #: The stored game's id (``games.id`` once the game started).
    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    arena_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("arenas.id", ondelete="CASCADE"), index=True
    )
    seq: Mapped[int] = mapped_column(Integer)  # the order games are played in
    round: Mapped[int] = mapped_column(Integer)
    opening: Mapped[int] = mapped_column(Integer)
    white: Mapped[str] = mapped_column(String(32))
    black: Mapped[str | None] = mapped_column(String(32), nullable=True)  # None: a bye
    status: Mapped[str] = mapped_column(String(8))  # pending | playing | done
    result: Mapped[str | None] = mapped_column(String(8), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(64), nullable=True)


@dataclass(frozen=True)
class BotRecord:
    id: str
    name: str
    algorithm: str
    params: dict[str, Any]
    token_hash: str
    client: str
    removed: bool


@dataclass(frozen=True)
class GameRecord:
    game_id: str
    seq: int
    round: int
    opening: int
    white: str
    black: str | None
    status: str
    result: str | None
    reason: str | None


@dataclass(frozen=True)
class ArenaRecord:
    """An arena as stored, with its bots (joining order) and games (playing order)."""

    id: str
    token_hash: str
    name: str
    game: str
    rules: dict[str, Any]
    state: str
    seed: int
    created_at: dt.datetime
    bots: list[BotRecord] = field(default_factory=list)
    games: list[GameRecord] = field(default_factory=list)


def _utc(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


class ArenaStore:
    """The arena tables, on the game store's database and threads (``db.run``)."""

    def __init__(self, db: SqlStore) -> None:
        self.db = db
        tables = [ArenaRow.__table__, ArenaBotRow.__table__, ArenaGameRow.__table__]
        Base.metadata.create_all(db.engine, tables=tables)  # type: ignore[arg-type]

    # ------------------------------------------------------------ arenas
    def create(
        self, aid: str, digest: str, name: str, game: str, rules: dict[str, Any], seed: int
    ) -> None:
        now = utcnow()
        with self.db.engine.begin() as conn:
            conn.execute(
                insert(ArenaRow).values(
                    id=aid,
                    token_hash=digest,
                    name=name,
                    game=game,
                    rules=rules,
                    state="open",
                    seed=seed,
                    created_at=now,
                    updated_at=now,
                )
            )

    def count_active(self) -> int:
        with self.db.engine.connect() as conn:
            query = select(func.count()).select_from(ArenaRow).where(ArenaRow.state.in_(ACTIVE))
            return int(conn.execute(query).scalar_one())

    def with_state(self, state: str) -> list[str]:
        with self.db.engine.connect() as conn:
            rows = conn.execute(
                select(ArenaRow.id).where(ArenaRow.state == state).order_by(ArenaRow.created_at)
            ).all()
        return [r[0] for r in rows]

    def set_state(self, aid: str, state: str) -> None:
        with self.db.engine.begin() as conn:
            conn.execute(
                update(ArenaRow).where(ArenaRow.id == aid).values(state=state, updated_at=utcnow())
            )

    def load(self, aid: str) -> ArenaRecord | None:
        with self.db.engine.connect() as conn:
            row = conn.execute(select(ArenaRow).where(ArenaRow.id == aid)).mappings().first()
            if row is None:
                return None
            bots = conn.execute(
                select(ArenaBotRow)
                .where(ArenaBotRow.arena_id == aid)
                .order_by(ArenaBotRow.created_at, ArenaBotRow.id)
            ).mappings()
            games = conn.execute(
                select(ArenaGameRow).where(ArenaGameRow.arena_id == aid).order_by(ArenaGameRow.seq)
            ).mappings()
            return ArenaRecord(
                id=row["id"],
                token_hash=row["token_hash"],
                name=row["name"],
                game=row["game"],
                rules=dict(row["rules"]),
                state=row["state"],
                seed=int(row["seed"]),
                created_at=_utc(row["created_at"]),
                bots=[
                    BotRecord(
                        id=b["id"],
                        name=b["name"],
                        algorithm=b["algorithm"],
                        params=dict(b["params"] or {}),
                        token_hash=b["token_hash"],
                        client=b["client"],
                        removed=bool(b["removed"]),
                    )
                    for b in bots
                ],
                games=[
                    GameRecord(
                        game_id=g["game_id"],
                        seq=int(g["seq"]),
                        round=int(g["round"]),
                        opening=int(g["opening"]),
                        white=g["white"],
                        black=g["black"],
                        status=g["status"],
                        result=g["result"],
                        reason=g["reason"],
                    )
                    for g in games
                ],
            )

    # ------------------------------------------------------------ bots
    def add_bot(
        self,
        aid: str,
        bid: str,
        digest: str,
        name: str,
        algorithm: str,
        params: dict[str, Any],
        client: str,
    ) -> None:
        with self.db.engine.begin() as conn:
            conn.execute(
                insert(ArenaBotRow).values(
                    id=bid,
                    arena_id=aid,
                    token_hash=digest,
                    name=name,
                    algorithm=algorithm,
                    params=params,
                    client=client,
                    removed=False,
                    created_at=utcnow(),
                )
            )

    def update_bot(self, bid: str, name: str, algorithm: str, params: dict[str, Any]) -> None:
        with self.db.engine.begin() as conn:
            conn.execute(
                update(ArenaBotRow)
                .where(ArenaBotRow.id == bid)
                .values(name=name, algorithm=algorithm, params=params)
            )

    def remove_bot(self, aid: str, bid: str, keep: bool) -> None:
        """Delete the bot (``keep``: mark it removed, its played games stay) and the games
        it has not finished."""
        with self.db.engine.begin() as conn:
            conn.execute(
                delete(ArenaGameRow).where(
                    ArenaGameRow.arena_id == aid,
                    ArenaGameRow.status != "done",
                    (ArenaGameRow.white == bid) | (ArenaGameRow.black == bid),
                )
            )
            if keep:
                conn.execute(update(ArenaBotRow).where(ArenaBotRow.id == bid).values(removed=True))
            else:
                conn.execute(delete(ArenaBotRow).where(ArenaBotRow.id == bid))

    # ------------------------------------------------------------ games
    def add_games(self, aid: str, games: Iterable[GameRecord]) -> None:
        rows = [
            {
                "game_id": g.game_id,
                "arena_id": aid,
                "seq": g.seq,
                "round": g.round,
                "opening": g.opening,
                "white": g.white,
                "black": g.black,
                "status": g.status,
                "result": g.result,
                "reason": g.reason,
            }
            for g in games
        ]
        if rows:
            with self.db.engine.begin() as conn:
                conn.execute(insert(ArenaGameRow), rows)

    def set_game(
        self, gid: str, status: str, result: str | None = None, reason: str | None = None
    ) -> None:
        with self.db.engine.begin() as conn:
            conn.execute(
                update(ArenaGameRow)
                .where(ArenaGameRow.game_id == gid)
                .values(status=status, result=result, reason=reason)
            )

    def discard_game(self, gid: str) -> None:
        """A game stopped before its end: the stored game goes, its pairing waits again."""
        with self.db.engine.begin() as conn:
            conn.execute(delete(GameRow).where(GameRow.id == gid))
            conn.execute(
                update(ArenaGameRow)
                .where(ArenaGameRow.game_id == gid)
                .values(status="pending", result=None, reason=None)
            )

    def discard_playing(self, aid: str) -> list[str]:
        """At startup: the games a stop interrupted are discarded (they replay from the
        start). Returns their ids."""
        with self.db.engine.connect() as conn:
            ids = [
                r[0]
                for r in conn.execute(
                    select(ArenaGameRow.game_id).where(
                        ArenaGameRow.arena_id == aid, ArenaGameRow.status == "playing"
                    )
                ).all()
            ]
        for gid in ids:
            self.discard_game(gid)
        return ids
