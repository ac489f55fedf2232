#!/usr/bin/env python3
"""The 300 ms tables of docs/results.md, from the match summaries in docs/results/300ms/.

    .venv/bin/python scripts/ladder_table.py --data docs/results/300ms --markdown docs/results.md

Each ``*.json`` there is what ``canopy match --json`` printed, plus three keys written when
the match was filed: ``section`` (which table it belongs to: ``alphabeta``, ``stockfish``,
``seed`` or ``mcts``), ``commit`` (the code the engines ran) and ``date``; the development
rows (``mcts``) also ``note`` (what changed) and ``order`` (their place in the story), and a
row whose engines are spelled otherwise today ``rerun`` (the ``--engine`` specs that play it
with today's code: session 45's ``eval = scaled`` rows ran when the scale was the default).
Each table is written between ``<!-- ladder300:SECTION:begin -->`` and
``<!-- ladder300:SECTION:end -->``, the commands that re-run its rows after it; the rest of
the file is left alone.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path
from typing import Any

from plot_results import elo_text, interval

SECTIONS = ("alphabeta", "stockfish", "seed", "mcts")
ORDER = ["mcts", "uct", "uct-minimax", "bfms", "alphabeta"]
HEADER = (
    "| Canopy | opponent | game | games | Canopy: +W =D −L | score | Elo (95 %) "
    "| ms a move (Canopy / opp.) | code |\n|---|---|---|---|---|---|---|---|---|"
)


def load(data_dir: Path) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(data_dir.glob("*.json")):
        data = json.loads(path.read_text())
        if data.get("section") in SECTIONS:
            data["file"] = path.name
            rows.append(data)
    return rows


def algorithm_rank(spec: str) -> int:
    name = spec.split(":")[0]
    return ORDER.index(name) if name in ORDER else len(ORDER)


def sort_key(data: dict[str, Any]) -> tuple[Any, ...]:
    spec, opponent = data["engines"][0]["spec"], data["engines"][1]["spec"]
    elo = re.search(r"UCI_Elo=(\d+)", opponent)
    return (data["game"], algorithm_rank(spec), spec, int(elo.group(1)) if elo else 0)


def row(data: dict[str, Any], notes: bool) -> str:
    canopy, opponent = data["engines"]
    result = f"+{data['wins']} ={data['draws']} −{data['losses']}"
    ms = f"{canopy['mean_ms']:.0f} / {opponent['mean_ms']:.0f}"
    return (
        f"| `{canopy['spec']}` | `{opponent['name']}` | {data['game']} | {data['games']} "
        f"| {result} | {100 * data['score']:.1f} % | {elo_text(data)} {interval(data)} "
        f"| {ms} | `{data.get('commit', '?')}` |" + (f" {data.get('note', '')} |" if notes else "")
    )


def command(data: dict[str, Any]) -> str:
    played = [e["spec"] for e in data["engines"]]
    specs = " ".join(f"--engine {shlex.quote(spec)}" for spec in data.get("rerun", played))
    return (
        f"canopy match --game {data['game']} {specs} --games {data['games']} "
        f"--movetime 300 --concurrency 1 --seed {data['seed']}"
    )


def section_text(rows: list[dict[str, Any]], notes: bool) -> str:
    """The table (with a "what changed" column when ``notes``) and the commands."""
    rows = sorted(rows, key=lambda r: (r.get("order", 0), *sort_key(r)))
    header = HEADER
    if notes:
        lines = header.split("\n")
        header = lines[0] + " what changed |\n" + lines[1] + "---|"
    table = "\n".join([header, *(row(r, notes) for r in rows)])
    commands = "\n".join(command(r) for r in rows)
    return f"{table}\n\n```\n{commands}\n```"


def replace_section(markdown: str, section: str, text: str) -> str:
    begin, end = f"<!-- ladder300:{section}:begin -->", f"<!-- ladder300:{section}:end -->"
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(markdown):
        raise SystemExit(f"{begin} … {end} not found in the markdown file")
    return pattern.sub(lambda _: f"{begin}\n{text}\n{end}", markdown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("docs/results/300ms"))
    parser.add_argument("--markdown", type=Path, default=Path("docs/results.md"))
    args = parser.parse_args()
    rows = load(args.data)
    markdown = args.markdown.read_text()
    for section in SECTIONS:
        chosen = [r for r in rows if r["section"] == section]
        if chosen:
            text = section_text(chosen, notes=section == "mcts")
            markdown = replace_section(markdown, section, text)
    args.markdown.write_text(markdown)


if __name__ == "__main__":
    main()
