#!/usr/bin/env python3
"""Turn the match JSONs from ``scripts/run_results.py`` into the plot and tables of results.md.

    .venv/bin/python scripts/plot_results.py --data docs/results/data \\
        --png docs/results/results.png --markdown docs/results.md

The tables are written between ``<!-- tables:begin -->`` and ``<!-- tables:end -->`` in the
markdown file (the rest of the file is left alone). Needs matplotlib (dev extra).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.match.stats import MatchScore, ratings, score_of  # noqa: E402

SETTINGS = ["uct", "uct-minimax", "bfms", "bfms-t2", "alphabeta"]
GAME_TITLE = {"chess": "Chess", "knight": "Knight chess"}


def load(data_dir: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted(data_dir.glob("*.json")):
        data = json.loads(path.read_text())
        data.setdefault("name", path.stem)
        out.append(data)
    return out


def engine_name(data: dict[str, Any], index: int) -> str:
    return str(data["engines"][index]["name"])


def signed(value: float) -> str:
    """Whole Elo with its sign (a typographic minus, as in "−∞"), and no "-0" for an even
    score."""
    return f"{round(value) + 0:+d}".replace("-", "−")


def fmt_elo(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else signed(value)


def interval(data: dict[str, Any]) -> str:
    low, high = data["elo_ci95"]
    return f"[{fmt_elo(low, '−∞')}, {fmt_elo(high, '+∞')}]"


def elo_text(data: dict[str, Any]) -> str:
    return "—" if data["elo"] is None else signed(data["elo"])


def width_text(data: dict[str, Any]) -> str:
    err = data.get("elo_error")
    return "unbounded" if err is None else f"±{err:.0f}"


def cell_elo(data: dict[str, Any], flip: bool) -> str:
    """A matrix cell's Elo line: the estimate and its ±, or the interval's finite bound
    when one side of it is infinite (a whitewash has no estimate)."""
    sign = -1 if flip else 1
    low, high = data["elo_ci95"]
    if data.get("elo_error") is None or data["elo"] is None:
        if low is None and high is not None:
            return f"≥ {signed(-high)}" if flip else f"≤ {signed(high)}"
        if high is None and low is not None:
            return f"≤ {signed(-low)}" if flip else f"≥ {signed(low)}"
        return "—"
    return f"{signed(sign * data['elo'])} (±{data['elo_error']:.0f})"


def pairs(results: list[dict[str, Any]], game: str) -> list[dict[str, Any]]:
    return [
        r
        for r in results
        if r["game"] == game and engine_name(r, 0) in SETTINGS and engine_name(r, 1) in SETTINGS
    ]


def pair_table(results: list[dict[str, Any]], game: str) -> list[str]:
    rows = [
        "| engine A | engine B | games | A: +W =D −L | A's score | Elo (A − B) | 95 % interval "
        "| ± | mean plies | A / B ms per move |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in pairs(results, game):
        a, b = r["engines"]
        rows.append(
            f"| {a['name']} | {b['name']} | {r['games']} | +{r['wins']} ={r['draws']} "
            f"−{r['losses']} | {100 * r['score']:.1f} % | {elo_text(r)} | {interval(r)} | "
            f"{width_text(r)} | {r['mean_plies']:.0f} | {a['mean_ms']:.0f} / {b['mean_ms']:.0f} |"
        )
    return rows


def rating_table(results: list[dict[str, Any]], game: str) -> list[str]:
    games = [
        (engine_name(r, 0), engine_name(r, 1), r["wins"], r["draws"], r["losses"])
        for r in pairs(results, game)
    ]
    if not games:
        return []
    anchor = "alphabeta" if any("alphabeta" in g[:2] for g in games) else games[0][0]
    fitted = ratings(games, anchor=anchor)
    rows = [f"| setting | rating (Elo, {anchor} = 0) |", "|---|---|"]
    for name, value in sorted(fitted.items(), key=lambda kv: -kv[1]):
        rows.append(f"| {name} | {signed(value)} |")
    return rows


def opponent_table(results: list[dict[str, Any]], game: str) -> list[str]:
    rows = [
        "| Canopy | opponent | games | Canopy: +W =D −L | score | Elo (Canopy − opp.) | "
        "95 % interval |",
        "|---|---|---|---|---|---|---|",
    ]
    found = False
    others = [r for r in results if r["game"] == game and r not in pairs(results, game)]
    for r in sorted(others, key=lambda r: opponent_order(engine_name(r, 1))):
        found = True
        a, b = r["engines"]
        rows.append(
            f"| {a['name']} | {b['name']} | {r['games']} | +{r['wins']} ={r['draws']} "
            f"−{r['losses']} | {100 * r['score']:.1f} % | {elo_text(r)} | {interval(r)} |"
        )
    return rows if found else []


def opponent_order(name: str) -> tuple[str, int]:
    """Ladder opponents by level (skill-20 before skill-5 before skill0), not as strings."""
    match = re.fullmatch(r"(.*?)(-?\d+)", name)
    return (match.group(1), int(match.group(2))) if match else (name, 0)


def ladder_level(name: str, kind: str = "skill") -> int | None:
    match = re.search(rf"{kind}(-?\d+)$", name)
    return int(match.group(1)) if match else None


def ladder(results: list[dict[str, Any]], game: str, kind: str) -> list[tuple[int, Any]]:
    """(level, result) of one ladder (``skill`` or ``elo``), lowest level first."""
    rows = [
        (level, r)
        for r in results
        if r["game"] == game and (level := ladder_level(engine_name(r, 1), kind)) is not None
    ]
    return sorted(rows, key=lambda row: row[0])


def draw_ladder(ax: Any, rows: list[tuple[int, Any]], **style: Any) -> None:
    xs = [lvl for lvl, _ in rows]
    ys = [r["score"] for _, r in rows]
    lo = [y - score_bounds(r)[0] for y, (_, r) in zip(ys, rows, strict=True)]
    hi = [score_bounds(r)[1] - y for y, (_, r) in zip(ys, rows, strict=True)]
    ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", capsize=4, **style)
    ax.set_xticks(xs)


def markdown(results: list[dict[str, Any]]) -> str:
    out: list[str] = []
    for game in ("chess", "knight"):
        out += [f"### {GAME_TITLE[game]}: every pair at 100 ms per move", ""]
        out += [*pair_table(results, game), ""]
        table = rating_table(results, game)
        if table:
            out += [
                f"Ratings that best fit all {GAME_TITLE[game].lower()} pairs (Bradley–Terry "
                "maximum likelihood, one virtual draw per pairing so a whitewash stays finite):",
                "",
                *table,
                "",
            ]
        table = opponent_table(results, game)
        if table:
            out += [
                f"### {GAME_TITLE[game]}: against other engines and settings",
                "",
                *table,
                "",
            ]
    return "\n".join(out)


def score_bounds(r: dict[str, Any]) -> tuple[float, float]:
    low, high = r["elo_ci95"]
    lo = 0.0 if low is None else score_of(low)
    hi = 1.0 if high is None else score_of(high)
    return lo, hi


def plot(results: list[dict[str, Any]], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 10.5))
    for ax, game in zip(axes[0], ("chess", "knight"), strict=True):
        names = [s for s in SETTINGS if any(s in (engine_name(r, 0), engine_name(r, 1))
                                            for r in pairs(results, game))]  # fmt: skip
        n = len(names)
        if not n:
            ax.set_axis_off()
            ax.text(0.5, 0.5, f"{GAME_TITLE[game]}: no pairs played yet", ha="center")
            continue
        grid = [[float("nan")] * n for _ in range(n)]
        labels = [[""] * n for _ in range(n)]
        for r in pairs(results, game):
            i, j = names.index(engine_name(r, 0)), names.index(engine_name(r, 1))
            s = MatchScore(r["wins"], r["draws"], r["losses"])
            grid[i][j], grid[j][i] = r["score"], 1 - r["score"]
            labels[i][j] = f"{100 * r['score']:.0f}%\n{cell_elo(r, False)}\nn={s.games}"
            labels[j][i] = f"{100 * (1 - r['score']):.0f}%\n{cell_elo(r, True)}\nn={s.games}"
        image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1)
        ax.set_xticks(range(n), names, rotation=30, ha="right")
        ax.set_yticks(range(n), names)
        for i in range(n):
            for j in range(n):
                if labels[i][j]:
                    ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=7.5)
        ax.set_title(f"{GAME_TITLE[game]}: score of row vs column, 100 ms/move")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)

    for ax, game, title in (
        (axes[1][0], "chess", "Chess: vs Stockfish 15.1, Skill Level (blue) and UCI_Elo (orange)"),
        (axes[1][1], "knight", "Knight chess: vs Fairy-Stockfish 11.1 at Skill Level L"),
    ):
        rows = ladder(results, game, "skill")
        if rows:
            draw_ladder(ax, rows, color="tab:blue", label="Skill Level")
            canopy = engine_name(rows[0][1], 0)
            ax.set_xlabel(f"opponent Skill Level (Canopy: {canopy}, 100 ms/move)")
        elo_rows = ladder(results, game, "elo")
        if elo_rows:
            top = ax.twiny()
            draw_ladder(top, elo_rows, color="tab:orange", label="UCI_Elo")
            top.set_xlabel("opponent UCI_LimitStrength with UCI_Elo")
            ax.figure.legend(
                handles=[*ax.get_lines()[:1], *top.get_lines()[:1]],
                labels=["Skill Level", "UCI_Elo"],
                loc="lower left",
                bbox_to_anchor=(0.06, 0.08),
            )
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel("Canopy's score (95 % interval)")
        ax.set_title(title)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT / "docs" / "results" / "data"))
    ap.add_argument("--png", default=str(ROOT / "docs" / "results" / "results.png"))
    ap.add_argument("--markdown", default=None, help="file with tables:begin/end markers")
    args = ap.parse_args()
    results = load(Path(args.data))
    plot(results, Path(args.png))
    text = markdown(results)
    if args.markdown:
        path = Path(args.markdown)
        doc = path.read_text()
        begin, end = "<!-- tables:begin -->", "<!-- tables:end -->"
        head, _, rest = doc.partition(begin)
        _, _, tail = rest.partition(end)
        path.write_text(f"{head}{begin}\n{text}\n{end}{tail}")
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
