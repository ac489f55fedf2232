#!/usr/bin/env python3
"""Two settings played from the same openings, compared game by game.

Why: a 40-game match's score swings by ±15 points with the openings it drew, so two
settings compared by their totals need hundreds of games to tell a few points apart.
Played from the same openings (the same ``--seed``) with the same colours, each game of
the new setting has a twin in the old one, and the mean of the twins' differences cancels
what the openings themselves were worth. The standard error is that of the mean of those
differences; results.md quotes ``+x points a game (SE y)`` from here.

``--new`` and ``--base`` take the same number of PGN files, paired in order (each pair
one seed: a match's games are paired by their ``Opening`` and ``FEN`` headers and the
colour the candidate played; openings may repeat across seeds, so seeds are not pooled
before pairing). The candidate is the player whose name does not start with
``--opponent``.

    .venv/bin/python scripts/paired_games.py \\
        --new docs/results/300ms/dev-mcts-c-puct04-s4[1-4]-session44.pgn.gz \\
        --base docs/results/300ms/chess-mcts-vs-alphabeta-s4[1-4]-session41.pgn.gz
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.match.probe import read_pgn  # noqa: E402
from engine.match.stats import mean_and_error  # noqa: E402

#: The candidate's points for a result, when it had White.
POINTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}

Key = tuple[str, str, bool]


def candidate_scores(path: Path, opponent: str) -> dict[Key, float]:
    """Each finished game's points for the candidate, keyed by (opening, FEN, candidate
    had White)."""
    out: dict[Key, float] = {}
    for game in read_pgn(path):
        headers = game.headers
        points = POINTS.get(headers.get("Result", "*"))
        if points is None:
            continue
        white = not headers.get("White", "").startswith(opponent)
        key = (headers.get("Opening", ""), headers.get("FEN", ""), white)
        if key in out:
            raise SystemExit(f"{path}: two games from {key[0] or key[1]!r} with one colour")
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

    def line(self) -> str:
        n = len(self.diffs)
        mean, spread = mean_and_error(self.diffs) if n > 1 else (sum(self.diffs) / max(n, 1), 0.0)
        return (
            f"{self.label}: new {percent(self.new_points, self.new_games)} "
            f"base {percent(self.base_points, self.base_games)}  "
            f"paired {n}: {100 * mean:+.1f} points a game (SE {100 * spread:.1f})"
        )


def percent(points: float, games: int) -> str:
    return f"{100 * points / games:.1f} % ({games})" if games else "- (0)"


def pair(label: str, new: dict[Key, float], base: dict[Key, float]) -> Paired:
    diffs = tuple(new[key] - base[key] for key in new if key in base)
    return Paired(label, sum(new.values()), len(new), sum(base.values()), len(base), diffs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new", type=Path, nargs="+", required=True)
    parser.add_argument("--base", type=Path, nargs="+", required=True)
    parser.add_argument("--opponent", default="alphabeta", help="the opponent's name prefix")
    args = parser.parse_args()
    if len(args.new) != len(args.base):
        parser.error(f"{len(args.new)} --new files against {len(args.base)} --base files")
    rows = [
        pair(new.name, candidate_scores(new, args.opponent), candidate_scores(base, args.opponent))
        for new, base in zip(args.new, args.base, strict=True)
    ]
    for row in rows:
        print(row.line())
    if len(rows) > 1:
        total = Paired(
            "all",
            sum(r.new_points for r in rows),
            sum(r.new_games for r in rows),
            sum(r.base_points for r in rows),
            sum(r.base_games for r in rows),
            tuple(d for r in rows for d in r.diffs),
        )
        print(total.line())


if __name__ == "__main__":
    main()
