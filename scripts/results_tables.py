#!/usr/bin/env python3
"""The tables of docs/results.md and its figure, regenerated from the match records.

    make results                         # the same as: .venv/bin/python scripts/results_tables.py
    canopy match --engine mcts --engine alphabeta --games 40 --movetime 300 --seed 79 \\
        --concurrency 1 --pgn /tmp/m.pgn --json > /tmp/m.json
    .venv/bin/python scripts/results_tables.py --add /tmp/m.json --group vs-alphabeta \\
        --note "the shipped search" --mnps 1.01

The records (``scripts/match_records.py``): ``docs/results/matches.csv``, one row per match,
and one gzipped PGN per group holding its games. ``--add`` appends a ``canopy match --json``
summary as the next row (its commit from git and its date today, unless given) and its games
to the group's archive, then rewrites the tables. Each table sits between
``<!-- results:NAME -->`` and ``<!-- /results:NAME -->`` in the markdown; the rest of the file
is left alone. ``--check`` writes nothing and fails if the markdown is not what the records
give.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.match.stats import MatchScore, ratings  # noqa: E402
from engine.match.stats import score_of as expected_score  # noqa: E402
from scripts.match_records import (  # noqa: E402
    FIELDS,
    GROUPS,
    RESULTS,
    Headers,
    Row,
    add_match,
    archive_games,
    player_name,
    read_records,
)
from scripts.paired_games import Key, Paired, candidate_scores, pair, pooled  # noqa: E402

ALGORITHMS = ("mcts", "alphabeta", "bfms", "uct-minimax", "uct")
STUDY_PLAYERS = ("uct", "uct-minimax", "bfms", "bfms-t2", "alphabeta")
GAME_TITLE = {"chess": "Chess", "knight": "Knight chess"}
Games = Callable[[list[str]], dict[str, list[Headers]]]


# --- a row's figures -----------------------------------------------------------------


def score_of(row: Row) -> MatchScore:
    return MatchScore(int(row["wins"]), int(row["draws"]), int(row["losses"]))


def pool(rows: Iterable[Row]) -> MatchScore:
    rows = list(rows)
    return MatchScore(*(sum(int(r[k]) for r in rows) for k in ("wins", "draws", "losses")))


def opponent_level(row: Row) -> int | None:
    """The Stockfish ``UCI_Elo`` a row's opponent played at, if it is such a rung."""
    found = re.search(r"UCI_Elo=(\d+)", row["opponent"])
    return int(found.group(1)) if found else None


def algorithm(row: Row) -> str:
    return row["engine"].split(":")[0]


def at_300(rows: list[Row], *groups: str) -> list[Row]:
    return [r for r in rows if r["group"] in groups and r["time_control"] == "300 ms/move"]


# --- figures as text -----------------------------------------------------------------


def signed(value: float, digits: int = 0) -> str:
    """A figure with its sign (a typographic minus), and no "-0" for an even score."""
    return f"{round(value, digits) + 0:+.{digits}f}".replace("-", "−")


def elo_text(score: MatchScore) -> str:
    """``+35 [−29, +101]``: the estimate and its 95 % interval (∞ where unbounded)."""
    low, high = score.elo_ci95()
    estimate = "—" if score.elo is None else signed(score.elo)
    lo = "−∞" if low is None else signed(low)
    hi = "+∞" if high is None else signed(high)
    return f"{estimate} [{lo}, {hi}]"


def result_text(score: MatchScore) -> str:
    return f"+{score.wins} ={score.draws} −{score.losses}"


def pct(score: MatchScore) -> str:
    return f"{100 * score.score:.1f} %"


def ids(rows: Iterable[Row]) -> str:
    return ", ".join(r["id"] for r in rows)


def commits(rows: Iterable[Row]) -> str:
    seen = dict.fromkeys(r["commit"] for r in rows)
    return ", ".join(f"`{c}`" for c in seen)


def code(text: str) -> str:
    return f"`{text}`"


def table(header: list[str], lines: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cells) + " |" for cells in lines]
    return "\n".join(out)


# --- the tables ----------------------------------------------------------------------


def glance(rows: list[Row]) -> str:
    """Each algorithm at its defaults, pooled: against alphabeta in both games, and on
    Stockfish's UCI_Elo ladder."""
    chosen = at_300(rows, "vs-alphabeta", "ladder")
    lines = []
    for name in ALGORITHMS:
        mine = [r for r in chosen if algorithm(r) == name]
        cells = [code(name)]
        for game in ("chess", "knight"):
            versus = [r for r in mine if r["game"] == game and r["opponent"] == "alphabeta"]
            cells.append(pooled_cell(versus) if versus else "—")
        rungs = sorted({level for r in mine if (level := opponent_level(r)) is not None})
        rung_cells = [
            f"{level}: {pooled_cell([r for r in mine if opponent_level(r) == level])}"
            for level in rungs
        ]
        cells.append("; ".join(rung_cells) or "—")
        lines.append(cells)
    header = ["algorithm", "against `alphabeta`, chess", "knight chess", "Stockfish `UCI_Elo`"]
    return table(header, lines)


def pooled_cell(rows: list[Row]) -> str:
    score = pool(rows)
    return f"**{pct(score)}** of {score.games} ({elo_text(score)})"


def versus_alphabeta(rows: list[Row]) -> str:
    """Each algorithm at its defaults against alphabeta, its matches at one commit pooled."""
    chosen = [r for r in at_300(rows, "vs-alphabeta") if r["opponent"] == "alphabeta"]
    batches: dict[tuple[str, str, str], list[Row]] = {}
    for r in chosen:
        batches.setdefault((r["game"], r["engine"], r["commit"]), []).append(r)
    lines = []
    for (game, engine, commit), mine in batches.items():
        score = pool(mine)
        speeds = ", ".join(dict.fromkeys(r["alphabeta_mnps"] for r in mine if r["alphabeta_mnps"]))
        lines.append([
            mine[0]["date"], code(commit), game, code(engine), str(score.games),
            result_text(score), pct(score), elo_text(score), speeds or "—", mine[0]["note"],
            ids(mine),
        ])  # fmt: skip
    header = ["date", "commit", "game", "Canopy", "games", "+W =D −L", "score", "Elo (95 %)",
              "`alphabeta` M nodes/s", "note", "records"]  # fmt: skip
    return table(header, lines)


def ladder(rows: list[Row]) -> str:
    """Each algorithm's score at each UCI_Elo rung, pooled over its matches there."""
    chosen = [r for r in at_300(rows, "ladder") if opponent_level(r) is not None]
    keys = sorted(
        {(algorithm(r), opponent_level(r) or 0) for r in chosen},
        key=lambda k: (ALGORITHMS.index(k[0]) if k[0] in ALGORITHMS else len(ALGORITHMS), k[1]),
    )
    lines = []
    for name, level in keys:
        mine = [r for r in chosen if algorithm(r) == name and opponent_level(r) == level]
        score = pool(mine)
        lines.append([
            code(name), str(level), str(score.games), result_text(score), pct(score),
            elo_text(score), commits(mine), ids(mine),
        ])  # fmt: skip
    header = ["Canopy", "`UCI_Elo`", "games", "+W =D −L", "score", "Elo (95 %)", "commits",
              "records"]  # fmt: skip
    return table(header, lines)


def paper(rows: list[Row]) -> str:
    """Every bfms against alphabeta at 300 ms: the Best-First Minimax Search paper's pair."""
    chosen = [
        r
        for r in at_300(rows, "paper", "vs-alphabeta")
        if algorithm(r) == "bfms" and r["opponent"].startswith("alphabeta")
    ]
    lines = []
    for r in chosen:
        score = score_of(r)
        lines.append([
            r["game"], code(r["engine"]), code(r["opponent"]), r["games"], result_text(score),
            pct(score), elo_text(score), code(r["commit"]), r["id"],
        ])  # fmt: skip
    header = ["game", "`bfms`", "opponent", "games", "+W =D −L", "score", "Elo (95 %)",
              "commit", "record"]  # fmt: skip
    return table(header, lines)


def tried(rows: list[Row], games: Games) -> str:
    """One row a setting (and opponent): pooled, and paired game by game with the default
    it was played beside (the rows' ``base``)."""
    chosen = [r for r in rows if r["group"] == "tried"]
    clusters: dict[tuple[str, str], list[Row]] = {}
    for r in chosen:
        clusters.setdefault((r["setting"], player_name(r["opponent"])), []).append(r)
    by_id = {r["id"]: r for r in rows}
    played = games([i for r in chosen for i in (r["id"], r["base"]) if i])
    lines = []
    for (setting, opponent), mine in clusters.items():
        score = pool(mine)
        paired = [
            pair(r["id"], scores_of(r, played), scores_of(by_id[r["base"]], played))
            for r in mine
            if r["base"]
        ]
        lines.append([
            code(setting), code(opponent), mine[0]["date"], commits(mine), str(score.games),
            pct(score), elo_text(score), paired_cell(pooled("all", paired)) if paired else "—",
            ids(mine),
        ])  # fmt: skip
    header = ["setting", "against", "date", "commit", "games", "score", "Elo (95 %)",
              "paired with the setting beside it: points a game (SE, pairs; its score)",
              "records"]  # fmt: skip
    return table(header, lines)


def scores_of(row: Row, played: dict[str, list[Headers]]) -> dict[Key, float]:
    return candidate_scores(played[row["id"]], player_name(row["opponent"]), f"match {row['id']}")


def paired_cell(paired: Paired) -> str:
    mean, error = paired.mean_and_error
    base = 100 * paired.base_points / paired.base_games if paired.base_games else 0.0
    return f"{signed(100 * mean, 1)} (SE {100 * error:.1f}, {len(paired.diffs)}; {base:.1f} %)"


def study(rows: list[Row], game: str) -> str:
    """The 100 ms study: every pair of its five players, their fitted ratings, and the
    other matches (ladders, the reference controller, follow-ups)."""
    chosen = [r for r in rows if r["group"] == "study-100ms" and r["game"] == game]
    names = {r["id"]: (player_name(r["engine"]), player_name(r["opponent"])) for r in chosen}
    pairs = [
        r for r in chosen if not r["setting"] and all(n in STUDY_PLAYERS for n in names[r["id"]])
    ]
    out = []
    if pairs:
        lines = [
            [*map(code, names[r["id"]]), r["games"], result_text(score_of(r)), pct(score_of(r)),
             elo_text(score_of(r)), r["id"]]
            for r in pairs
        ]  # fmt: skip
        header = ["A", "B", "games", "A: +W =D −L", "A's score", "Elo (95 %)", "record"]
        out.append(table(header, lines))
        fitted = ratings(
            [(*names[r["id"]], int(r["wins"]), int(r["draws"]), int(r["losses"])) for r in pairs],
            anchor="alphabeta",
        )
        best_first = sorted(fitted.items(), key=lambda kv: -kv[1])
        out.append(
            "Ratings fitted to all the pairs (Bradley–Terry, one virtual draw a pairing, "
            "`alphabeta` = 0): " + ", ".join(f"`{n}` {signed(v)}" for n, v in best_first) + "."
        )
    others = sorted(
        (r for r in chosen if r not in pairs), key=lambda r: opponent_order(names[r["id"]][1])
    )
    if others:
        lines = [
            [*map(code, names[r["id"]]), r["time_control"], r["games"], result_text(score_of(r)),
             pct(score_of(r)), elo_text(score_of(r)), r["note"], r["id"]]
            for r in others
        ]  # fmt: skip
        header = ["Canopy", "opponent", "time", "games", "+W =D −L", "score", "Elo (95 %)",
                  "note", "record"]  # fmt: skip
        out.append(table(header, lines))
    return "\n\n".join(out) or "No matches yet."


def opponent_order(name: str) -> tuple[str, int]:
    """Ladder opponents by level (skill-20 before skill-5 before skill0), not as strings."""
    found = re.fullmatch(r"(.*?)(-?\d+)", name)
    return (found.group(1), int(found.group(2))) if found else (name, 0)


def tables(rows: list[Row], results: Path) -> dict[str, str]:
    def games(wanted: list[str]) -> dict[str, list[Headers]]:
        return archive_games(results, wanted)

    return {
        "glance": glance(rows),
        "vs-alphabeta": versus_alphabeta(rows),
        "ladder": ladder(rows),
        "paper": paper(rows),
        "tried": tried(rows, games),
        "study-chess": study(rows, "chess"),
        "study-knight": study(rows, "knight"),
    }


def render(markdown: str, texts: dict[str, str]) -> str:
    """``markdown`` with each named table replaced between its markers."""
    for name, text in texts.items():
        begin, end = f"<!-- results:{name} -->", f"<!-- /results:{name} -->"
        pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
        if not pattern.search(markdown):
            raise SystemExit(f"{begin} … {end} not found in the markdown file")
        markdown = pattern.sub(lambda _, t=text, b=begin, e=end: f"{b}\n{t}\n{e}", markdown)
    return markdown


# --- the figure ----------------------------------------------------------------------


def score_bounds(score: MatchScore) -> tuple[float, float]:
    low, high = score.elo_ci95()
    lower = 0.0 if low is None else expected_score(low)
    upper = 1.0 if high is None else expected_score(high)
    return lower, upper


def figure(rows: list[Row], png: Path) -> None:
    """Score against Stockfish's UCI_Elo rungs (left) and against alphabeta (right), each
    algorithm pooled over its records, with 95 % intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    rungs = [r for r in at_300(rows, "ladder") if opponent_level(r) is not None]
    for name in ALGORITHMS:
        mine = [r for r in rungs if algorithm(r) == name]
        levels = sorted({opponent_level(r) or 0 for r in mine})
        if levels:
            points = [pool(r for r in mine if opponent_level(r) == lvl) for lvl in levels]
            left.errorbar(levels, *error_bars(points), fmt="o-", capsize=4, label=name)
    left.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    left.set(xlabel="Stockfish 15.1 UCI_Elo", ylabel="Canopy's score (95 % interval)",
             ylim=(-0.02, 1.02), title="Chess, 300 ms a move: the UCI_Elo ladder")  # fmt: skip
    left.legend()
    versus = [r for r in at_300(rows, "vs-alphabeta") if r["opponent"] == "alphabeta"]
    names = [n for n in ALGORITHMS if n != "alphabeta"]
    for offset, game in ((-0.2, "chess"), (0.2, "knight")):
        mine = [(i, [r for r in versus if algorithm(r) == n and r["game"] == game])
                for i, n in enumerate(names)]  # fmt: skip
        placed = [(i, pool(found)) for i, found in mine if found]
        ys, errors = error_bars([score for _, score in placed])
        xs = [i + offset for i, _ in placed]
        right.bar(xs, ys, width=0.38, yerr=errors, capsize=4, label=GAME_TITLE[game])
    right.set_xticks(range(len(names)), names)
    right.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    right.set(ylabel="score against alphabeta (95 % interval)", ylim=(0, 1.02),
              title="Against alphabeta (the same evaluation), 300 ms a move")  # fmt: skip
    right.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=100, metadata={"Software": None})
    plt.close(fig)


def error_bars(points: list[MatchScore]) -> tuple[list[float], list[list[float]]]:
    """Scores and their distances to the 95 % interval's ends, as matplotlib takes them."""
    ys = [p.score for p in points]
    bounds = [score_bounds(p) for p in points]
    below = [y - low for y, (low, _) in zip(ys, bounds, strict=True)]
    above = [high - y for y, (_, high) in zip(ys, bounds, strict=True)]
    return ys, [below, above]


# --- the command ---------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="records and archives")
    parser.add_argument("--markdown", type=Path, default=ROOT / "docs" / "results.md")
    parser.add_argument("--figure", type=Path, help="default: strength.png in --results")
    parser.add_argument("--no-figure", action="store_true", help="leave the figure alone")
    parser.add_argument("--check", action="store_true", help="fail if the tables are stale")
    parser.add_argument("--add", type=Path, metavar="MATCH.json", help="a canopy match --json")
    parser.add_argument("--pgn", type=Path, help="the added match's games (default: its pgn)")
    parser.add_argument("--group", choices=GROUPS, help="the added match's group")
    for name in FIELDS[1:]:
        parser.add_argument(f"--{name}", default="", help=f"the added match's {name}")
    args = parser.parse_args(argv)
    if args.add:
        if not args.group:
            parser.error("--add needs --group")
        row = add_match(args.results, args.add, args.pgn, {k: getattr(args, k) for k in FIELDS})
        print(f"record {row['id']}: {row['engine']} against {row['opponent']}, "
              f"{pct(score_of(row))} of {row['games']}")  # fmt: skip
    rows = read_records(args.results / "matches.csv")
    before = args.markdown.read_text()
    after = render(before, tables(rows, args.results))
    if args.check:
        if after != before:
            print(f"{args.markdown}: the tables are not the records' (run make results)")
            return 1
        return 0
    args.markdown.write_text(after)
    if not args.no_figure:
        figure(rows, args.figure or args.results / "strength.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
