"""Server settings: every one has a working default and a ``CANOPY_`` environment variable.

For example ``CANOPY_MAX_SEARCHES=4`` or ``CANOPY_THINK_MS=500``. The limits
here are what the server enforces on every request, and ``GET /api/settings``
publishes them so the page can show the allowed ranges.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_CORES = os.cpu_count() or 1


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CANOPY_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    data_dir: Path = Path("./data")
    database_url: str | None = None  # default: SQLite in data_dir (used by the persistence layer)

    # Searches: at most ``max_searches`` run at once; the rest wait in a visible queue.
    max_searches: int = Field(_CORES, ge=1)
    max_threads: int = Field(_CORES, ge=1, description="root-parallel threads per search")
    node_budget: int = Field(2_000_000, ge=1_000, description="tree nodes per game")

    # The engine's budget per move, and the limits a client may ask for.
    think_ms: int = Field(1000, ge=1, description="default think time per engine move")
    min_think_ms: int = Field(10, ge=1)
    max_think_ms: int = Field(600_000, ge=1)
    iterations: int = Field(10_000, ge=1, description="default iteration budget per move")
    max_iterations: int = Field(50_000_000, ge=1)
    analysis_ms: int = Field(
        600_000, ge=1, description="an analysis search stops by itself after this long"
    )

    # Streaming.
    stats_hz: float = Field(10.0, gt=0, le=60, description="stats frames per second per client")
    ws_max_frame: int = Field(65536, ge=1024, description="bytes; larger frames close with 1009")
    tree_nodes: int = Field(200, ge=0, description="nodes of the tree sent in stats frames")

    # Games kept in memory.
    max_games: int = Field(1000, ge=1)
    game_idle_s: float = Field(6 * 3600, gt=0, description="unwatched games are dropped after")

    warmup: bool = Field(True, description="compile the numba kernels at startup")

    @model_validator(mode="after")
    def _ranges_are_consistent(self) -> Settings:
        if not self.min_think_ms <= self.think_ms <= self.max_think_ms:
            raise ValueError(
                f"think_ms={self.think_ms} must lie in min_think_ms..max_think_ms "
                f"({self.min_think_ms}..{self.max_think_ms})"
            )
        if self.iterations > self.max_iterations:
            raise ValueError(f"iterations={self.iterations} exceeds max_iterations")
        return self


@lru_cache
def get_settings() -> Settings:
    return Settings()
