"""``canopy train --model nnue``: the NNUE's generations (engine.learn.nnue_run)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from canopy.arguments import emit_json
from canopy.progress import Bar


def _command(args: argparse.Namespace, config: Any, out: Path) -> str:
    parts = ["canopy", "train", "--game", "chess", "--model", "nnue",
             "--games", str(config.games), "--generations", str(args.generations),
             "--seed", str(config.seed), "--nodes", str(config.nodes),
             "--hidden", str(config.hidden), "--epochs", str(config.epochs),
             "--lam", str(config.lam), "--window", str(config.window),
             "--gate-games", str(config.gate_games),
             "--gate-movetime", str(config.gate_movetime), "--distill", str(config.distill),
             "--out", str(out), "--threads", str(args.threads)]  # fmt: skip
    if args.scheduler:
        parts += ["--scheduler", args.scheduler]
    return shlex.join(parts)


def cmd_train_nnue(args: argparse.Namespace) -> int:
    from engine.learn.nnue_run import Run, RunConfig, RunError

    if args.game != "chess":
        raise RunError("the NNUE is chess's network; use --game chess")
    for flag, value in (("--tuples", args.tuples), ("--init", args.init),
                        ("--gate-algo", args.gate_algo)):  # fmt: skip
        if value:
            raise RunError(f"{flag} is not an NNUE setting")
    defaults = RunConfig()
    config = RunConfig(
        seed=args.seed,
        games=args.games or defaults.games,
        nodes=args.nodes or defaults.nodes,
        hidden=args.hidden or defaults.hidden,
        epochs=args.epochs or defaults.epochs,
        lam=defaults.lam if args.lam is None else args.lam,
        window=args.window or defaults.window,
        gate_games=args.gate_games or defaults.gate_games,
        gate_movetime=args.gate_movetime or defaults.gate_movetime,
        distill=defaults.distill if args.distill is None else args.distill,
    )
    out = Path(args.out or "train-nnue")
    command = _command(args, config, out)

    def pool() -> Any:
        if args.scheduler:
            from engine.learn.cluster import ClusterPool

            return ClusterPool.connect(args.scheduler, args.threads, args.scheduler_timeout)
        from engine.learn.train import Pool

        return Pool(args.threads)

    summary = Run(out, config, pool, args.threads, command, Bar(sys.stderr)).run(args.generations)
    for g in summary["generations"]:
        gate = g["gate"]
        low, high = gate["elo_ci95"]
        verdict = "accepted" if g["accepted"] else "rejected"
        held = f"{g['held_loss'][-1]:.5f}" if g["held_loss"] and g["held_loss"][-1] else "n/a"
        opponent = Path(g["opponent"]).parent.name or "hand"
        print(
            f"gen {g['number']}: {g['positions']} positions, held-out loss {held}; vs {opponent} "
            f"+{gate['wins']} ={gate['draws']} -{gate['losses']} ({100 * gate['score']:.1f} %, "
            f"Elo [{low:+.0f}, {high:+.0f}]) {verdict}"
        )
    print(f"best: {summary['best'] or 'the hand evaluation'}; {summary['seconds']:.0f} s in all")
    if args.json:
        emit_json(summary)
    return 0
