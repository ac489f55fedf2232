"""The match records behind docs/results.md: one CSV row per match, one PGN archive per group.

``docs/results/matches.csv`` holds a row per ``canopy match`` (``COLUMNS``; docs/results.md,
"The records", says what each column holds), and ``docs/results/GROUP.pgn.gz`` every game
of the group's matches, each tagged ``[Match "ID"]`` after its ``Result``. An archive grows
by gzip members appended to it and reads as one file (``zcat``, :func:`read_headers`).
``scripts/results_tables.py`` writes the tables from them and adds a match
(:func:`add_match`); ``scripts/paired_games.py`` pairs two matches' games;
``scripts/make_tactics.py`` reads the 100 ms study's games.
"""

from __future__ import annotations

import csv
import gzip
import json
import re
import subprocess
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
COLUMNS = (
    "id", "date", "commit", "game", "group", "engine", "opponent", "time_control", "games",
    "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high", "seed", "openings",
    "engine_ms", "opponent_ms", "alphabeta_mnps", "setting", "base", "pgn", "note",
)  # fmt: skip
#: What each group holds: docs/results.md, "The records".
GROUPS = ("vs-alphabeta", "ladder", "paper", "tried", "history", "study-100ms", "learning")
#: What ``add_match`` takes from the command line beside the summary.
FIELDS = ("group", "note", "setting", "base", "commit", "date", "mnps")
Row = dict[str, str]
Headers = dict[str, str]


def read_records(path: Path) -> list[Row]:
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        if tuple(row) != COLUMNS:
            raise SystemExit(f"{path}: record {row.get('id')} has columns {tuple(row)}")
    return rows


def write_records(path: Path, rows: list[Row]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def player_name(spec: str) -> str:
    """The name ``canopy match`` gives a SPEC in its PGN: its ``name=`` key, else the SPEC."""
    found = re.search(r"(?:^|[:,])name=([^,]+)", spec)
    return found.group(1) if found else spec


def open_pgn(path: Path) -> IO[str]:
    return gzip.open(path, "rt") if path.name.endswith(".gz") else open(path)


def read_headers(path: Path) -> Iterator[Headers]:
    """Every game's headers in a ``.pgn`` or ``.pgn.gz`` file."""
    with open_pgn(path) as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            yield dict(headers)


def archive_games(results: Path, ids: Iterable[str]) -> dict[str, list[Headers]]:
    """The games' headers of each record in ``ids``, from the archives their rows name."""
    wanted = set(ids)
    rows = [r for r in read_records(results / "matches.csv") if r["id"] in wanted]
    out: dict[str, list[Headers]] = {r["id"]: [] for r in rows}
    for archive in sorted({r["pgn"] for r in rows if r["pgn"]}):
        for headers in read_headers(results / archive):
            if headers.get("Match") in out:
                out[headers["Match"]].append(headers)
    return out


def tag_games(text: str, match_id: int) -> list[str]:
    """The games of a PGN text, each tagged ``[Match "ID"]`` after its ``Result``."""
    games = []
    for part in re.split(r"(?m)^(?=\[Event )", text):
        if not part.strip():
            continue
        tagged, found = re.subn(
            r'(?m)^(\[Result "[^"]*"\]\n)', rf'\1[Match "{match_id}"]\n', part, count=1
        )
        if not found:
            raise SystemExit(f"a game without a Result header: {part[:120]!r}")
        games.append(tagged.rstrip() + "\n")
    return games


def append_games(archive: Path, games: list[str]) -> None:
    """Add ``games`` to an archive as one more gzip member (no timestamp, so the bytes
    depend on the games alone)."""
    with (
        open(archive, "ab") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as member,
    ):
        member.write(("\n" + "\n".join(games)).encode())


def source_commit() -> str:
    """The checkout's commit (``+dirty`` with uncommitted changes): the code a match ran."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD")
    if not head:
        return "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def match_summary(path: Path) -> dict[str, Any]:
    """The ``canopy match --json`` object in ``path``: its last line that is one (the
    command prints its text first), or the whole file."""
    lines = [line for line in path.read_text().splitlines() if line.startswith("{")]
    data = json.loads(lines[-1] if lines else path.read_text())
    if not isinstance(data, dict) or "engines" not in data:
        raise SystemExit(f"{path}: not a canopy match --json summary")
    return data


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def record(data: dict[str, Any], match_id: int, fields: dict[str, str]) -> Row:
    """The records row of a match summary; ``fields`` gives its group, note and the rest
    (an empty commit or date: the checkout's, today)."""
    first, second = data["engines"]
    low, high = data["elo_ci95"]
    return {
        "id": str(match_id),
        "date": fields.get("date") or datetime.now(UTC).date().isoformat(),
        "commit": fields.get("commit") or source_commit(),
        "game": data["game"],
        "group": fields["group"],
        "engine": first["spec"],
        "opponent": second["spec"],
        "time_control": data["time_control"],
        "games": str(data["games"]),
        "wins": str(data["wins"]),
        "draws": str(data["draws"]),
        "losses": str(data["losses"]),
        "score": f"{data['score']:.4f}",
        "elo": _number(data["elo"]),
        "elo_low": _number(low),
        "elo_high": _number(high),
        "seed": str(data.get("seed", "")),
        "openings": str(data.get("openings", "")),
        "engine_ms": f"{first['mean_ms']:.0f}",
        "opponent_ms": f"{second['mean_ms']:.0f}",
        "alphabeta_mnps": fields.get("mnps", ""),
        "setting": fields.get("setting", ""),
        "base": fields.get("base", ""),
        "pgn": fields.get("pgn", ""),
        "note": fields.get("note", ""),
    }


def add_match(results: Path, summary: Path, pgn: Path | None, fields: dict[str, str]) -> Row:
    """Append the match in ``summary`` to the records as the next id, and its games (from
    ``pgn``, else the file its summary names if it is there) to its group's archive."""
    if fields.get("group") not in GROUPS:
        raise SystemExit(f"the group must be one of {', '.join(GROUPS)}")
    records = results / "matches.csv"
    rows = read_records(records)
    data = match_summary(summary)
    if pgn is None and data.get("pgn") and Path(data["pgn"]).exists():
        pgn = Path(data["pgn"])
    match_id = max((int(r["id"]) for r in rows), default=0) + 1
    games: list[str] = []
    if pgn is not None:
        with open_pgn(pgn) as handle:
            games = tag_games(handle.read(), match_id)
        if len(games) != data["games"]:
            raise SystemExit(f"{pgn}: {len(games)} games, the summary says {data['games']}")
        fields = {**fields, "pgn": f"{fields['group']}.pgn.gz"}
    row = record(data, match_id, fields)
    if games:
        append_games(results / row["pgn"], games)
    write_records(records, [*rows, row])
    return row
