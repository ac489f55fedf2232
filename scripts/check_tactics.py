#!/usr/bin/env python3
"""Run the tactics suite at a time limit: how many of each kind a search finds.

The suite's check: ``mcts`` finds every winning capture and every mate in 1 and in 2 of
Canopy's own Stockfish-confirmed test positions at 1 s (docs/tactics.md). Each position is
searched from scratch for ``--movetime`` ms (or ``--iterations``); the script prints each
kind's found/total and every miss with the search's top moves, so a miss can be stepped
through. Timed, so run it on a quiet core (``nice -n 5`` at most), one search at a time::

    nice -n 5 .venv/bin/python scripts/check_tactics.py --algo mcts --movetime 1000
    nice -n 5 .venv/bin/python scripts/check_tactics.py --algo alphabeta --movetime 1000
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.explain.tactics import KINDS, Tactic, found, load_tactics, search_fresh  # noqa: E402
from engine.search.info import SearchInfo  # noqa: E402

SUITE = ROOT / "tests" / "data" / "tactics.epd"


def describe_miss(tactic: Tactic, info: SearchInfo) -> str:
    """The position, what was expected and played, and the search's top three moves."""
    top = "  ".join(
        f"{m.san} N={m.visits} Q={m.q:.3f} eval={m.eval:+.3f}"
        + (f" proof={m.proof}" if m.proof else "")
        for m in info.moves[:3]
    )
    played = next((m.san for m in info.moves if m.move == info.bestmove), info.bestmove)
    return (
        f"  {tactic.id}: expected {' '.join(sorted(tactic.bm))}, played {played} "
        f"({info.iterations} iterations)\n    {tactic.fen}\n    {top}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algo", default="mcts")
    ap.add_argument("--movetime", type=float, default=None, help="ms per position (1000)")
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--param", action="append", default=[], metavar="K=V")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--suite", default=str(SUITE))
    ap.add_argument("--kind", choices=KINDS, action="append", help="only these kinds")
    ap.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = ap.parse_args()
    movetime = args.movetime if args.movetime or args.iterations else 1000.0
    params = dict(item.split("=", 1) for item in args.param)
    tactics = [t for t in load_tactics(args.suite) if not args.kind or t.kind in args.kind]
    if tactics:  # compile (or load) the kernels first, so the first position gets its time
        search_fresh(tactics[0].fen, args.algo, params, movetime_ms=50, seed=args.seed)
    results: dict[str, dict[str, list[Any]]] = {}
    for tactic in tactics:
        info = search_fresh(
            tactic.fen, args.algo, params, iterations=args.iterations, movetime_ms=movetime,
            seed=args.seed,
        )  # fmt: skip
        row = results.setdefault(
            tactic.kind, {"found": [], "missed": [], "iterations": [], "ms": []}
        )
        row["found" if found(tactic, info) else "missed"].append(tactic.id)
        row["iterations"].append(info.iterations)
        row["ms"].append(round(info.elapsed_ms))
        if not found(tactic, info):
            print(describe_miss(tactic, info), flush=True)
    budget = f"{movetime:g} ms" if movetime else f"{args.iterations} iterations"
    settings = ",".join(f"{key}={value}" for key, value in params.items())
    print(f"{args.algo}{':' + settings if settings else ''} at {budget} a position")
    print("  (a search ends early once the root is proven; alphabeta counts nodes)")
    for kind in KINDS:
        if kind in results:
            row = results[kind]
            total = len(row["found"]) + len(row["missed"])
            spread = sorted(row["iterations"])
            print(
                f"  {kind:<8} {len(row['found'])}/{total}   longest search {max(row['ms'])} ms, "
                f"iterations min {spread[0]} median {spread[len(spread) // 2]} max {spread[-1]}"
                + (f"\n    missed: {' '.join(row['missed'])}" if row["missed"] else "")
            )
    if args.json:
        print(json.dumps({"algorithm": args.algo, "params": params, "results": results}))
    return 0 if all(not row["missed"] for row in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
