"""Shared test fixtures: where ../shared lives, and skipping cleanly when it does not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CANOPY_SHARED", REPO.parent / "shared"))


def shared_file(relative: str) -> Path:
    """Path of a file under ../shared, or skip the test when it is not there."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} not found (tests read shared data from ../shared)")
    return path


def read_epd(relative: str) -> list[tuple[str, dict[int, int]]]:
    """Perft EPD lines: ``FEN ;D1 n ;D2 n ...`` → [(fen, {depth: nodes})]."""
    rows = []
    for line in shared_file(relative).read_text().splitlines():
        if not line.strip():
            continue
        fen, *fields = line.split(";")
        counts = {int(f.split()[0][1:]): int(f.split()[1]) for f in fields if f.strip()}
        rows.append((fen.strip(), counts))
    return rows
