"""The arena on a real PostgreSQL server: a tournament interrupted by a restart completes
there as on SQLite (the throwaway cluster of ``test_postgres``; skips without PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from tests.reliability.test_arena_restart import arena_settings, restart_mid_tournament
from tests.reliability.test_postgres import pg_url  # noqa: F401 - the PostgreSQL fixture


def test_a_tournament_survives_a_restart_on_postgresql(
    pg_url: str,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    restart_mid_tournament(arena_settings(tmp_path, pg_url))
