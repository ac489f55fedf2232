"""Server settings: every one has a working default and a ``CANOPY_`` environment variable.

For example ``CANOPY_MAX_SEARCHES=4`` or ``CANOPY_THINK_MS=500``. The limits
here are what the server enforces on every request, and ``GET /api/settings``
publishes them so the page can show the allowed ranges.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_CORES = os.cpu_count() or 1


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CANOPY_", extra="ignore")

    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535)] = 8000
    data_dir: Path = Path("./data")
    # SQLAlchemy URL: ``sqlite:///path`` or ``postgresql+psycopg://user:pw@host/db``;
    # default: SQLite ``canopy.db`` in ``data_dir`` (WAL mode). ``sqlite://``: in memory.
    database_url: str | None = None

    # Searches: at most ``max_searches`` run at once; the rest wait in a visible queue.
    max_searches: Annotated[int, Field(ge=1)] = _CORES
    # Niceness added to search threads so the server's event loop stays prompt under load.
    search_nice: Annotated[int, Field(ge=0, le=19)] = 5
    max_threads: Annotated[int, Field(ge=1)] = _CORES  # root-parallel threads per search
    node_budget: Annotated[int, Field(ge=1_000)] = 2_000_000  # tree nodes per game

    # The engine's budget per move (defaults), and the limits a client may ask for.
    think_ms: Annotated[int, Field(ge=1)] = 1000
    min_think_ms: Annotated[int, Field(ge=1)] = 10
    max_think_ms: Annotated[int, Field(ge=1)] = 600_000
    iterations: Annotated[int, Field(ge=1)] = 10_000
    max_iterations: Annotated[int, Field(ge=1)] = 50_000_000
    analysis_ms: Annotated[int, Field(ge=1)] = 600_000  # an analysis stops by itself after

    # Analysing a game played elsewhere (POST /api/analyses): at most ``max_analyses`` at
    # once (each takes a search slot one position at a time, so live games queue behind
    # one position's search at most), games of up to ``analysis_max_plies`` plies, and a
    # think time per position (default, and the most a request may ask for).
    max_analyses: Annotated[int, Field(ge=1)] = 2
    analysis_max_plies: Annotated[int, Field(ge=1, le=2000)] = 300
    analysis_movetime_ms: Annotated[int, Field(ge=1)] = 1000
    analysis_max_movetime_ms: Annotated[int, Field(ge=1)] = 10_000

    # The class arena (docs/teaching.md): games played at once on the search pool (0: the
    # pool's capacity less one, at least 1; an arena game takes a slot only while one more
    # stays free for live games), bots per arena and per client address, arenas open or
    # running at once, and a Dask scheduler (``tcp://host:8786`` or ``local``) that plays
    # the games instead of the pool.
    arena_concurrency: Annotated[int, Field(ge=0)] = 0
    arena_max_bots: Annotated[int, Field(ge=2)] = 32
    arena_bots_per_client: Annotated[int, Field(ge=1)] = 2
    max_arenas: Annotated[int, Field(ge=1)] = 8
    dask_scheduler: str | None = None

    # Streaming: stats frames per second per client, the frame limit (larger client
    # frames close the socket with 1009), and the tree nodes sent in each stats frame.
    stats_hz: Annotated[float, Field(ge=0.1, le=60)] = 10.0
    ws_max_frame: Annotated[int, Field(ge=1024)] = 65536
    tree_nodes: Annotated[int, Field(ge=0, le=500)] = 200  # 0: no tree unless subscribed

    # Games kept in memory (all of them are in the database): an unwatched, idle game is
    # unloaded after ``game_idle_s`` or, when ``max_games`` are loaded, oldest first, and
    # reloaded from the database when someone opens it again.
    max_games: Annotated[int, Field(ge=1)] = 1000
    game_idle_s: Annotated[float, Field(gt=0)] = 1800.0

    # Abuse limits (docs/deploy.md): messages per second per websocket (a token bucket with
    # ``ws_burst`` tokens; the excess is answered with a ``rate_limited`` error and dropped),
    # open websockets on the server, new games per minute per client address, memory of one
    # search (caps the tree nodes and alpha-beta's hash table), and how long a search goes
    # on when nobody watches its game.
    ws_rate: Annotated[float, Field(gt=0)] = 40.0
    ws_deflate: bool = True  # permessage-deflate: ~5x less traffic for CPU on the server
    ws_burst: Annotated[int, Field(ge=1)] = 80
    max_connections: Annotated[int, Field(ge=1)] = 1000
    http_max_body: Annotated[int, Field(ge=1024)] = 65536  # bytes of one HTTP request body
    games_per_minute: Annotated[int, Field(ge=1)] = 120
    search_memory_mb: Annotated[int, Field(ge=1)] = 512
    idle_search_s: Annotated[float, Field(gt=0)] = 60.0
    janitor_s: Annotated[float, Field(gt=0)] = 5.0  # how often the limits above are checked

    # Operations: log format (``auto``: readable lines when stderr is a terminal, JSON
    # lines otherwise; ``json``; ``text``) and level, a log file in ``data_dir`` (empty:
    # none; always JSON unless ``text``), and how long a shutdown waits for connections.
    log_format: Literal["auto", "json", "text"] = "auto"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_file: str = "canopy.log"
    shutdown_grace_s: Annotated[float, Field(ge=0)] = 3.0

    warmup: bool = True  # compile the numba kernels in the background at startup

    @property
    def db_url(self) -> str:
        """``database_url``, or the SQLite file ``canopy.db`` in ``data_dir``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'canopy.db').resolve()}"

    @property
    def arena_games_at_once(self) -> int:
        """``arena_concurrency``, or the pool's capacity less one (at least 1)."""
        return self.arena_concurrency or max(1, self.max_searches - 1)

    @model_validator(mode="after")
    def _ranges_are_consistent(self) -> Settings:
        if not self.min_think_ms <= self.think_ms <= self.max_think_ms:
            raise ValueError(
                f"think_ms={self.think_ms} must lie in min_think_ms..max_think_ms "
                f"({self.min_think_ms}..{self.max_think_ms})"
            )
        if not self.min_think_ms <= self.analysis_movetime_ms <= self.analysis_max_movetime_ms:
            raise ValueError(
                f"analysis_movetime_ms={self.analysis_movetime_ms} must lie in "
                f"min_think_ms..analysis_max_movetime_ms "
                f"({self.min_think_ms}..{self.analysis_max_movetime_ms})"
            )
        if self.iterations > self.max_iterations:
            raise ValueError(f"iterations={self.iterations} exceeds max_iterations")
        return self


@lru_cache
def get_settings() -> Settings:
    return Settings()
