#!/usr/bin/env python3
"""Two settings played from the same openings, compared game by game.

Why: a 40-game match's score swings by ±15 points with the openings it drew, so two
settings compared by their totals need hundreds of games to tell a few points apart.
Played from the same openings (the same ``--seed``) with the same colours, each game of
the new setting has a twin in the old one, and the mean of the twins' differences cancels
what the openings themselves were worth. The standard error is that of the mean of those
differences; docs/results.md quotes ``+x points a game (SE y)`` from here (its "What was
tried" table reads the same functions through ``scripts/results_tables.py``).

``--new`` and ``--base`` take the same number of matches, paired in order (each pair one
seed: a match's games are paired by their ``Opening`` and ``FEN`` headers and the colour
the candidate played; openings may repeat across seeds, so seeds are not pooled before
pairing). A match is a record's id in ``docs/results/matches.csv`` (its games are those
tagged ``[Match "ID"]`` in the record's archive) or a PGN file; the candidate is the
player who is not ``--opponent`` (for a record, its opponent's name by default)::

    .venv/bin/python scripts/paired_games.py --new 199 200 --base 163 164
    .venv/bin/python scripts/paired_games.py --new new.pgn --base old.pgn --opponent alphabeta
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.match.stats import mean_and_error  # noqa: E402
from scripts.match_records import (  # noqa: E402
    RESULTS,
    Headers,
    archive_games,
    player_name,
    read_headers,
    read_records,
)

#: The candidate's points for a result, when it had White.
POINTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}

Key = tuple[str, str, bool]


def candidate_scores(games: Iterable[Headers], opponent: str, source: str) -> dict[Key, float]:
    """Each finished game's points for the candidate (the player who is not ``opponent``),
    keyed by (opening, FEN, candidate had White)."""
    out: dict[Key, float] = {}
    for headers in games:
        points = POINTS.get(headers.get("Result", "*"))
        if points is None:
            continue
        white = headers.get("White", "") != opponent
        if white == (headers.get("Black", "") != opponent):
            raise SystemExit(f"{source}: {opponent!r} is not exactly one of the players")
        key = (headers.get("Opening", ""), headers.get("FEN", ""), white)
        if key in out:
            raise SystemExit(f"{source}: two games from {key[0] or key[1]!r} with one colour")
        out[key] = points if white else 1.0 - points
    return out


@dataclass(frozen=True)
class Paired:
    """One pair of matches (or all of them): totals and the twins' differences."""

    label: str
    new_points: float
    new_games: int
    base_points: float
    base_games: int
    diffs: tuple[float, ...]

    @property
    def mean_and_error(self) -> tuple[float, float]:
        """The mean difference a game (new − base) and its standard error (0 for one pair)."""
        n = len(self.diffs)
        if n > 1:
            return mean_and_error(self.diffs)
        return (self.diffs[0] if n else 0.0), 0.0

    def line(self) -> str:
        mean, spread = self.mean_and_error
        return (
            f"{self.label}: new {percent(self.new_points, self.new_games)} "
            f"base {percent(self.base_points, self.base_games)}  "
            f"paired {len(self.diffs)}: {100 * mean:+.1f} points a game (SE {100 * spread:.1f})"
        )


def percent(points: float, games: int) -> str:
    return f"{100 * points / games:.1f} % ({games})" if games else "- (0)"


def pair(label: str, new: dict[Key, float], base: dict[Key, float]) -> Paired:
    diffs = tuple(new[key] - base[key] for key in new if key in base)
    return Paired(label, sum(new.values()), len(new), sum(base.values()), len(base), diffs)


def pooled(label: str, rows: list[Paired]) -> Paired:
    return Paired(
        label,
        sum(r.new_points for r in rows),
        sum(r.new_games for r in rows),
        sum(r.base_points for r in rows),
        sum(r.base_games for r in rows),
        tuple(d for r in rows for d in r.diffs),
    )


def scores(match: str, results: Path, opponent: str | None) -> dict[Key, float]:
    """A match named by a record id or a PGN path, scored for its candidate."""
    if match.isdigit():
        row = next((r for r in read_records(results / "matches.csv") if r["id"] == match), None)
        if row is None:
            raise SystemExit(f"no record {match} in {results / 'matches.csv'}")
        games = archive_games(results, [match])[match]
        return candidate_scores(games, opponent or player_name(row["opponent"]), f"match {match}")
    if opponent is None:
        raise SystemExit(f"{match}: a PGN file needs --opponent")
    return candidate_scores(read_headers(Path(match)), opponent, match)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new", nargs="+", required=True, help="record ids or PGN files")
    parser.add_argument("--base", nargs="+", required=True, help="record ids or PGN files")
    parser.add_argument("--opponent", help="the opponent's name in the PGNs")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    if len(args.new) != len(args.base):
        parser.error(f"{len(args.new)} --new matches against {len(args.base)} --base matches")
    rows = [
        pair(
            f"{new} / {base}",
            scores(new, args.results, args.opponent),
            scores(base, args.results, args.opponent),
        )
        for new, base in zip(args.new, args.base, strict=True)
    ]
    for row in rows:
        print(row.line())
    if len(rows) > 1:
        print(pooled("all", rows).line())


if __name__ == "__main__":
    main()
