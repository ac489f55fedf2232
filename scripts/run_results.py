#!/usr/bin/env python3
"""Run the matches behind ``docs/results.md`` (resumable; each match is one ``canopy match``).

    .venv/bin/python scripts/run_results.py --group seed        # bfms vs alphabeta, both games
    .venv/bin/python scripts/run_results.py --group chess-pairs
    .venv/bin/python scripts/run_results.py --group stockfish --strongest alphabeta
    .venv/bin/python scripts/run_results.py --group stockfish-elo --strongest alphabeta
    .venv/bin/python scripts/run_results.py --group knight-pairs
    .venv/bin/python scripts/run_results.py --group knight-reference --strongest alphabeta
    .venv/bin/python scripts/run_results.py --group fairy --strongest alphabeta

Every match is printed as the exact ``canopy match`` command it runs; its
``--json`` line goes to ``OUT/data/NAME.json``, its text to ``OUT/raw/NAME.txt``
and its games to ``OUT/pgn/NAME.pgn``. A match whose JSON exists is skipped,
so an interrupted run resumes where it stopped. The ladders (Stockfish,
Fairy-Stockfish) go up one level at a time and stop after two levels in a row
where Canopy scores below 50 %.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED_INI = "../shared/tools/fairy-stockfish-knightchess.ini"
STOCKFISH = "/usr/games/stockfish"
FAIRY = "/usr/games/fairy-stockfish"
MOVETIME = 100  # ms per move for every match
SETTINGS = {  # name → SPEC
    "uct": "uct",
    "uct-minimax": "uct-minimax",
    "bfms": "bfms",
    "alphabeta": "alphabeta",
    "bfms-t2": "bfms:threads=2,name=bfms-t2",
}
# The reference controller of the knight-chess course: UCT, capture-first playouts,
# 2 threads × 10,000 iterations (our iterations count all threads together).
REFERENCE = "uct:policy=capture_first,threads=2,iterations=20000,name=reference"
PAIR_GAMES, PAIR_CI, PAIR_MIN = 100, 100.0, 40
# A whitewash never reaches ±100 (it has no bound on one side) and a near-whitewash only after
# hundreds of games (a 95 % score is ±250 wide at n = 100): lopsided pairs stop once the whole
# interval is beyond ±400 Elo, where more games cannot change the verdict (--decided 0: never).
PAIR_DECIDED = 400.0
LADDER_GAMES = 40


def spec_of(name: str) -> str:
    return SETTINGS.get(name, name)


OPTIONS: dict[str, int | None] = {
    "concurrency": None,
    "min_games": None,
    "max_games": None,
    "decided": None,
}


def command(
    name: str, game: str, a: str, b: str, games: int, out: Path, ci: float | None
) -> list[str]:
    cmd = [
        "canopy", "match", "--game", game, "--engine", a, "--engine", b,
        "--games", str(games), "--movetime", str(MOVETIME),
        "--pgn", str(out / "pgn" / f"{name}.pgn"), "--json",
    ]  # fmt: skip
    if ci is not None:  # the variance estimate needs a few dozen games to be trusted
        decided = PAIR_DECIDED if OPTIONS["decided"] is None else OPTIONS["decided"]
        stops = ["--ci-target", f"{ci:g}", "--min-games", str(OPTIONS["min_games"] or PAIR_MIN)]
        cmd[8:8] = stops + (["--decided", f"{decided:g}"] if decided else [])
    if OPTIONS["concurrency"]:
        cmd[-1:-1] = ["--concurrency", str(OPTIONS["concurrency"])]
    return cmd


def source_commit() -> str:
    """The commit the engines ran from (``+dirty`` with uncommitted changes), so each result
    names the code that produced it; ``unknown`` outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
    except OSError:
        return "unknown"
    if head.returncode != 0:
        return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def run(
    name: str, game: str, a: str, b: str, games: int, out: Path, ci: float | None = None
) -> dict[str, Any]:
    data_file = out / "data" / f"{name}.json"
    if data_file.exists():
        print(f"== {name}: done already", flush=True)
        return dict(json.loads(data_file.read_text()))
    cmd = command(name, game, a, b, games, out, ci)
    print(f"== {name}: {shlex.join(cmd)}", flush=True)
    for sub in ("data", "raw", "pgn"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    proc = subprocess.run(
        [sys.executable, "-m", "canopy", *cmd[1:]],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    (out / "raw" / f"{name}.txt").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        print(f"!! {name} failed: {proc.stderr.strip().splitlines()[-1:]}", flush=True)
        return {}
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    data["name"], data["command"] = name, shlex.join(cmd)
    data["commit"], data["load_average"] = source_commit(), [round(x, 2) for x in load_before]
    data["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    data["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    data_file.write_text(json.dumps(data, indent=1) + "\n")
    result = f"{data['wins']}-{data['losses']}-{data['draws']} score {data['score']:.3f}"
    print(f"   {name}: {result} elo {data['elo']} ci {data['elo_ci95']}", flush=True)
    return data


def pairs(
    game: str, out: Path, only_seed: bool = False, only: list[set[str]] | None = None
) -> None:
    names = list(SETTINGS)
    for a, b in itertools.combinations(names, 2):
        if a == "alphabeta" and b == "bfms-t2":
            a, b = b, a
        seed = {a, b} == {"bfms", "alphabeta"}
        if only_seed and not seed:
            continue
        if only and {a, b} not in only:
            continue
        games = OPTIONS["max_games"] or PAIR_GAMES
        run(f"{game}-{a}-vs-{b}", game, spec_of(a), spec_of(b), games, out, PAIR_CI)


def ladder(
    game: str, strongest: str, out: Path, levels: list[int], opponent: str, elo: bool = False
) -> None:
    """Up the levels until Canopy scores below 50 % twice in a row."""
    below = 0
    for level in levels:
        if elo:  # Stockfish's own Elo calibration (UCI_LimitStrength), 1350 at the lowest
            engine = (
                f"uci:{STOCKFISH}:UCI_LimitStrength=true,UCI_Elo={level},name=stockfish-elo{level}"
            )
            name = f"chess-{strongest}-vs-stockfish-elo{level}"
        elif game == "chess":
            engine = f"uci:{STOCKFISH}:Skill Level={level},name=stockfish-skill{level}"
            name = f"chess-{strongest}-vs-stockfish-skill{level}"
        else:
            engine = (
                f"uci:{FAIRY}:VariantPath={SHARED_INI},Skill Level={level},"
                f"name=fairy-stockfish-skill{level}"
            )
            name = f"knight-{strongest}-vs-fairy-stockfish-skill{level}"
        data = run(name, game, spec_of(strongest), engine, LADDER_GAMES, out)
        if not data:
            return
        below = below + 1 if data["score"] < 0.5 else 0
        if below >= 2:
            return


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--group",
        required=True,
        choices=[
            "seed",
            "chess-pairs",
            "knight-pairs",
            "stockfish",
            "stockfish-elo",
            "fairy",
            "knight-reference",
        ],
    )
    ap.add_argument("--strongest", default="alphabeta", help="setting name or SPEC")
    ap.add_argument("--out", default=str(ROOT / "docs" / "results"))
    ap.add_argument(
        "--levels",
        default=None,
        help="ladder levels, e.g. 0,1,2,3 (negative first: --levels=-20,-15)",
    )
    ap.add_argument("--concurrency", type=int, default=None, help="games in parallel")
    ap.add_argument("--min-games", type=int, default=None, help=f"pairs (default {PAIR_MIN})")
    ap.add_argument(
        "--max-games", type=int, default=None, help=f"pairs: at most (default {PAIR_GAMES})"
    )
    ap.add_argument(
        "--decided",
        type=int,
        default=None,
        help=f"pairs: stop once the interval is beyond ±ELO (default {PAIR_DECIDED:g}; 0: never)",
    )
    ap.add_argument(
        "--pair", action="append", default=None, help="pair groups: only A,B (repeatable)"
    )
    args = ap.parse_args()
    out = Path(args.out)
    OPTIONS.update(
        concurrency=args.concurrency,
        min_games=args.min_games,
        max_games=args.max_games,
        decided=args.decided,
    )
    if args.group == "seed":
        pairs("chess", out, only_seed=True)
        pairs("knight", out, only_seed=True)
    elif args.group in ("chess-pairs", "knight-pairs"):
        only = [set(p.split(",")) for p in args.pair] if args.pair else None
        pairs(args.group.split("-")[0], out, only=only)
    elif args.group == "stockfish":
        levels = [int(v) for v in (args.levels or ",".join(map(str, range(21)))).split(",")]
        ladder("chess", args.strongest, out, levels, STOCKFISH)
    elif args.group == "stockfish-elo":
        default = ",".join(map(str, range(1350, 2851, 100)))  # Stockfish 15.1's UCI_Elo range
        levels = [int(v) for v in (args.levels or default).split(",")]
        ladder("chess", args.strongest, out, levels, STOCKFISH, elo=True)
    elif args.group == "fairy":
        levels = [int(v) for v in (args.levels or ",".join(map(str, range(-20, 21, 5)))).split(",")]
        ladder("knight", args.strongest, out, levels, FAIRY)
    else:
        name = f"knight-{args.strongest}-vs-reference"
        run(name, "knight", spec_of(args.strongest), REFERENCE, LADDER_GAMES, out, PAIR_CI)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
