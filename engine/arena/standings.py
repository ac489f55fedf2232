"""The table of a tournament: points, tie-breaks, Elo, the crosstable and *what won*.

Ranking: points, then Sonneborn-Berger (the points of the opponents a bot beat, plus
half of those it drew: beating strong bots counts more), then the points the tied bots
scored against each other, then the name, so every rank is decided and the same
results always give the same table. A Swiss bye is a point and a game without an
opponent: it counts in ``points`` and ``games`` (and ``byes``), never in W/D/L, the
Elo or the crosstable.

Each bot's Elo is measured against the field (all its opponents taken as one), with
the 95 % interval of :mod:`engine.match.stats`; below ``MIN_ELO_GAMES`` games the
interval is wider than the table, so none is given.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from engine.arena.rules import ArenaError, ArenaRules, Bot, format_value
from engine.match.stats import MatchScore
from engine.search.registry import get_algorithm

RESULTS = ("1-0", "0-1", "1/2-1/2")
MIN_ELO_GAMES = 8


@dataclass(frozen=True)
class Result:
    """A finished game by bot ids (``black`` None: a bye for ``white``, scored 1-0)."""

    white: str
    black: str | None
    result: str

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise ArenaError(
                "bad_request", f"result must be one of {', '.join(RESULTS)}; got {self.result!r}"
            )

    @property
    def points(self) -> tuple[float, float]:
        """(White's points, Black's points)."""
        return {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0)}.get(self.result, (0.5, 0.5))


@dataclass(frozen=True)
class Standing:
    bot_id: str
    rank: int  # from 1; every rank decided (module doc)
    points: float
    games: int  # games played plus byes
    wins: int
    draws: int
    losses: int
    score: float  # points / games (0 with no games)
    elo: float | None  # vs the field; None under MIN_ELO_GAMES games or at 0 % / 100 %
    elo_ci95: tuple[float, float] | None  # None as elo, or when an end is unbounded
    sonneborn_berger: float = 0.0
    byes: int = 0


def points_by_bot(results: Iterable[Result]) -> dict[str, float]:
    """Each bot's points (byes included), by id."""
    points: dict[str, float] = defaultdict(float)
    for r in results:
        white, black = r.points
        points[r.white] += white
        if r.black is not None:
            points[r.black] += black
    return dict(points)


def _games(results: Iterable[Result]) -> Iterable[tuple[str, str, float]]:
    """Every played game twice, once from each side: (bot, opponent, bot's points)."""
    for r in results:
        if r.black is None:
            continue
        white, black = r.points
        yield r.white, r.black, white
        yield r.black, r.white, black


def standings(bots: list[Bot], results: list[Result]) -> list[Standing]:
    """The table of ``bots`` (results of bots no longer listed still count for their
    opponents), best first (module doc)."""
    ids = [b.id for b in bots]
    names = {b.id: b.name for b in bots}
    points = points_by_bot(results)
    wdl = {b: [0, 0, 0] for b in ids}
    sb = dict.fromkeys(ids, 0.0)
    byes = dict.fromkeys(ids, 0)
    for r in results:
        if r.black is None and r.white in byes:
            byes[r.white] += 1
    for bot, opponent, scored in _games(results):
        if bot in wdl:
            wdl[bot][{1.0: 0, 0.5: 1, 0.0: 2}[scored]] += 1
            sb[bot] += scored * points.get(opponent, 0.0)
    tied: dict[tuple[float, float], set[str]] = defaultdict(set)
    for b in ids:
        tied[(points.get(b, 0.0), sb[b])].add(b)
    mutual = dict.fromkeys(ids, 0.0)
    for bot, opponent, scored in _games(results):
        if bot in mutual and opponent in tied[(points.get(bot, 0.0), sb[bot])]:
            mutual[bot] += scored
    order = sorted(ids, key=lambda b: (-points.get(b, 0.0), -sb[b], -mutual[b], names[b], b))
    out = []
    for rank, b in enumerate(order, 1):
        wins, draws, losses = wdl[b]
        games = wins + draws + losses + byes[b]
        elo, ci = _elo(MatchScore(wins, draws, losses))
        out.append(
            Standing(
                bot_id=b, rank=rank, points=points.get(b, 0.0), games=games,
                wins=wins, draws=draws, losses=losses,
                score=round(points.get(b, 0.0) / games, 4) if games else 0.0,
                elo=elo, elo_ci95=ci, sonneborn_berger=sb[b], byes=byes[b],
            )
        )  # fmt: skip
    return out


def _elo(score: MatchScore) -> tuple[float | None, tuple[float, float] | None]:
    if score.games < MIN_ELO_GAMES or score.elo is None:
        return None, None
    low, high = score.elo_ci95()
    ci = None if low is None or high is None else (round(low, 1), round(high, 1))
    return round(score.elo, 1), ci


def crosstable(bots: list[Bot], results: list[Result]) -> list[list[tuple[float, int] | None]]:
    """Rows and columns in standings order: (points of the row's bot against the
    column's, games between them); None on the diagonal."""
    order = [s.bot_id for s in standings(bots, results)]
    index = {b: i for i, b in enumerate(order)}
    cells: list[list[tuple[float, int] | None]] = [
        [None if i == j else (0.0, 0) for j in range(len(order))] for i in range(len(order))
    ]
    for bot, opponent, scored in _games(results):
        if bot in index and opponent in index:
            cell = cells[index[bot]][index[opponent]]
            assert cell is not None
            cells[index[bot]][index[opponent]] = (cell[0] + scored, cell[1] + 1)
    return cells


def crosstable_csv(bots: list[Bot], results: list[Result]) -> str:
    """The crosstable as CSV: ``rank,bot,algorithm,params,<bot names...>,points,games,score``;
    a cell is the row's points against the column (empty on the diagonal and for bots
    that have not met); ``params`` lists every parameter as ``name=value``."""
    table = standings(bots, results)
    cells = crosstable(bots, results)
    by_id = {b.id: b for b in bots}
    ordered = [by_id[s.bot_id] for s in table]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["rank", "bot", "algorithm", "params", *(b.name for b in ordered), "points", "games",
         "score"]
    )  # fmt: skip
    for s, bot, row in zip(table, ordered, cells, strict=True):
        params = " ".join(f"{k}={format_value(v)}" for k, v in bot.params.items())
        marks = ["" if c is None or c[1] == 0 else f"{c[0]:g}" for c in row]
        writer.writerow(
            [s.rank, bot.name, bot.algorithm, params, *marks, f"{s.points:g}", s.games,
             f"{s.score:.3f}"]
        )  # fmt: skip
    return out.getvalue()


@dataclass(frozen=True)
class WhatWon:
    """The parameter the class varied and each bot's value of it beside its score.

    ``kind``: ``number`` (plot score against value), ``choice`` (score by value),
    ``algorithm`` (the algorithm itself varied), ``none`` (every bot the same: no
    parameter, each value None).
    """

    parameter: str | None
    kind: str
    points: list[tuple[str, object, float]]  # (bot_id, value, score), standings order


def what_won(bots: list[Bot], standings: list[Standing], rules: ArenaRules) -> WhatWon:
    """The free parameter (or the algorithm, when several are allowed) with the most
    distinct values across the bots; the first in the algorithms' declaration order
    wins a tie."""
    by_id = {b.id: b for b in bots}
    ranked = [(by_id[s.bot_id], s.score) for s in standings if s.bot_id in by_id]
    candidates: dict[str, str] = {}
    if len(rules.algorithms) > 1:
        candidates["algorithm"] = "algorithm"
    for algorithm in rules.algorithms:
        for spec in get_algorithm(algorithm).params:
            if spec.name in rules.free.get(algorithm, ()) and spec.name not in candidates:
                candidates[spec.name] = "number" if spec.type in ("int", "float") else "choice"
    best: tuple[int, str, list[tuple[str, object, float]]] | None = None
    for name, kind in candidates.items():
        points: list[tuple[str, object, float]]
        if kind == "algorithm":
            points = [(b.id, b.algorithm, score) for b, score in ranked]
        else:
            points = [(b.id, b.params[name], score) for b, score in ranked if name in b.params]
        distinct = len({repr(value) for _, value, _ in points})
        if distinct > 1 and (best is None or distinct > best[0]):
            best = (distinct, name, points)
    if best is None:
        return WhatWon(None, "none", [(b.id, None, score) for b, score in ranked])
    return WhatWon(best[1], candidates[best[1]], best[2])
