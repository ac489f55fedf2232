#!/usr/bin/env python3
"""The knight-chess experiments of docs/learning.md ("Knight chess: targets and tuples").

Three steps on one data set, each a pure function of its arguments (node budgets, seeds):

1. ``selfplay DIR --games N --nodes N --seed S``: generation 1's self-play of
   ``canopy train`` with the hand evaluation, into ``DIR/gen-001/games.npz``;
2. ``deep DIR --nodes N --every K``: every K-th principal-variation leaf searched again by
   ``alphabeta`` with the hand evaluation at N nodes (a deeper search than the games'),
   its score kept in ``DIR/deep.npz`` — the bootstrapped targets;
3. ``gate DIR VARIANT --nodes N --games G``: fit the N-tuple network to a target
   (``blend``: 0.7 · result + 0.3 · search; ``tdL``: TD(L), :func:`engine.learn.train.td_targets`;
   ``deepR``: R · result + (1 − R) · the deep search's score, on the re-searched leaves
   only) with a tuple set (``pst``, ``blocks``, ``pairs``), write ``DIR/VARIANT.npz``, and
   play a gating match of G games against the hand evaluation at N nodes a move.
   VARIANT is ``TARGET:TUPLES``, e.g. ``deep0.3:pst``.

Run one at a time at ``nice -n 10``; every line printed is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.eval.learned_weights import save_weights  # noqa: E402
from engine.learn.fitting import cross_entropy, fit  # noqa: E402
from engine.learn.ntuple import Model, tuple_squares  # noqa: E402
from engine.learn.players import Player, Searcher  # noqa: E402
from engine.learn.train import (  # noqa: E402
    HOLDOUT,
    Pool,
    TrainConfig,
    Trainer,
    _load_games,
    td_targets,
)


def selfplay(out: Path, games: int, nodes: int, seed: int) -> dict:
    trainer = Trainer(TrainConfig(games=games, nodes=nodes, seed=seed), out)
    out.mkdir(parents=True, exist_ok=True)
    pool = Pool(1)
    started = time.monotonic()
    try:
        records = trainer.self_play(1, pool)
    finally:
        pool.close()
    white = np.array([r.white for r in records])
    return {"games": games, "positions": int(sum(len(r.states) for r in records)),
            "white_wins": int((white == 1).sum()), "draws": int((white == 0.5).sum()),
            "black_wins": int((white == 0).sum()),
            "seconds": round(time.monotonic() - started)}  # fmt: skip


def deep(out: Path, nodes: int, every: int) -> dict:
    data = _load_games(out / "gen-001" / "games.npz")
    index = np.arange(0, len(data["states"]), every)
    scores = np.empty(len(index))
    player = Player(None, Searcher(budget=nodes))
    started = time.monotonic()
    try:
        for k, i in enumerate(index):
            player.new_game(data["states"][i], False)
            scores[k] = max(-1.0, min(1.0, player.go([])[1]))
    finally:
        player.close()
    np.savez(out / "deep.npz", index=index, scores=scores)
    return {"positions": len(index), "nodes": nodes, "seconds": round(time.monotonic() - started)}


def targets(out: Path, data: dict[str, np.ndarray], kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Each leaf's target for its side to move, and which leaves have one."""
    game_of = data["game"]
    turn = data["states"][:, 8].astype(np.int64)
    result = np.where(turn == 0, data["white"][game_of], 1.0 - data["white"][game_of])
    search = (data["scores"] + 1.0) / 2.0
    keep = np.ones(len(result), dtype=bool)
    if kind == "blend":
        return 0.7 * result + 0.3 * search, keep
    if kind.startswith("td"):
        return td_targets(search, turn, game_of, data["white"], float(kind[2:])), keep
    if kind.startswith("deep"):
        share = float(kind[4:])
        saved = np.load(out / "deep.npz")
        target = np.full(len(result), np.nan)
        rows = saved["index"]
        target[rows] = share * result[rows] + (1.0 - share) * (saved["scores"] + 1.0) / 2.0
        return target, ~np.isnan(target)
    raise SystemExit(f"unknown target {kind!r}: blend, tdL or deepR")


def gate(out: Path, variant: str, nodes: int, games: int, seed: int) -> dict:
    kind, tuples = variant.split(":")
    data = _load_games(out / "gen-001" / "games.npz")
    target, keep = targets(out, data, kind)
    states, target = data["states"][keep], target[keep]
    held = (data["game"][keep] % HOLDOUT) == HOLDOUT - 1
    model = Model(tuple_squares(tuples))
    prior = model.start()
    rows, held_rows = model.rows(states[~held]), model.rows(states[held])
    theta, _, _ = fit(model, rows, target[~held], prior, prior, 1e-5, 150)
    path = out / f"{variant.replace(':', '_')}.npz"
    save_weights(path, model.unpack(theta, f"scripts/knight_targets.py gate {variant}", {}))
    config = TrainConfig(games=2, gate_games=games, nodes=nodes, seed=seed, tuples=tuples)
    trainer = Trainer(config, out / "gating")
    trainer.out.mkdir(exist_ok=True)
    pool = Pool(1)
    try:
        wins, draws, losses = trainer.gate(1, path, pool)
    finally:
        pool.close()
    return {"variant": variant, "weights": str(path), "positions": len(target),
            "heldout_ce": round(cross_entropy(model, theta, held_rows, target[held]), 5),
            "heldout_ce_hand": round(cross_entropy(model, prior, held_rows, target[held]), 5),
            "nodes": nodes, "wins": wins, "draws": draws, "losses": losses,
            "score": (wins + draws / 2) / games}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("selfplay")
    p.add_argument("out", type=Path)
    p.add_argument("--games", type=int, default=1200)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--seed", type=int, default=11)
    p = sub.add_parser("deep")
    p.add_argument("out", type=Path)
    p.add_argument("--nodes", type=int, default=6000)
    p.add_argument("--every", type=int, default=6)
    p = sub.add_parser("gate")
    p.add_argument("out", type=Path)
    p.add_argument("variant")
    p.add_argument("--nodes", type=int, default=1500)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    if args.step == "selfplay":
        row = selfplay(args.out, args.games, args.nodes, args.seed)
    elif args.step == "deep":
        row = deep(args.out, args.nodes, args.every)
    else:
        row = gate(args.out, args.variant, args.nodes, args.games, args.seed)
    print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
