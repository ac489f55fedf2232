"""The suite never writes into a user's data: every store it opens is its own.

``tests/conftest.py`` points ``CANOPY_DATA_DIR`` at a directory of the run's own
before any test runs and fails the run if ``./data`` changed meanwhile; these
tests pin the first half, so a setting read some other way (a new default, a
``Settings()`` built before the environment was set) shows up as a failure
here rather than as stray games in a teacher's /games list.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.settings import Settings
from tests.conftest import USER_DATA


def test_settings_without_arguments_store_games_outside_the_users_data() -> None:
    settings = Settings()
    data = settings.data_dir.resolve()
    assert data != USER_DATA.resolve()
    assert USER_DATA.resolve() not in data.parents
    assert settings.database_url is None  # no user's PostgreSQL either
    assert settings.db_url == f"sqlite:///{data / 'canopy.db'}"


def test_a_server_started_by_a_test_inherits_the_runs_data_directory() -> None:
    inherited = Path(os.environ["CANOPY_DATA_DIR"]).resolve()
    assert inherited != USER_DATA.resolve() and "canopy-tests-" in str(inherited)
    assert "CANOPY_DATABASE_URL" not in os.environ
