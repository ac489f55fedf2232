"""``canopy train``: the learned evaluation's self-play training (engine.learn.train)."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from canopy.arguments import emit_json, nonnegative_int, positive_int
from canopy.progress import Bar


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def cmd_train(args: argparse.Namespace) -> int:
    from engine.learn.chessnet import DEFAULT_HIDDEN
    from engine.learn.ntuple import DEFAULT_TUPLES
    from engine.learn.train import TrainConfig, Trainer, TrainError, command_line

    if args.model == "nnue":
        from canopy.nnue_cli import cmd_train_nnue

        return cmd_train_nnue(args)
    for flag, value in (("--epochs", args.epochs), ("--gate-movetime", args.gate_movetime),
                        ("--window", args.window), ("--distill", args.distill)):  # fmt: skip
        if value is not None:
            raise TrainError(f"{flag} is for --model nnue")
    args.games = 200 if args.games is None else args.games
    args.nodes = 1500 if args.nodes is None else args.nodes
    args.lam = 0.7 if args.lam is None else args.lam
    args.gate_games = 40 if args.gate_games is None else args.gate_games
    other = "--tuples" if args.tuples is not None else "--fit-contact" if args.fit_contact else ""
    if args.game == "chess" and other:
        raise TrainError(f"{other} is for knight chess's N-tuple network; chess takes --hidden")
    if args.game == "knight" and args.hidden is not None:
        raise TrainError("--hidden is for the chess network; knight chess takes --tuples")
    config = TrainConfig(
        game=args.game, games=args.games, generations=args.generations, seed=args.seed,
        nodes=args.nodes, gate_games=args.gate_games, tuples=args.tuples or DEFAULT_TUPLES,
        hidden=args.hidden or DEFAULT_HIDDEN, fit_linear=args.fit_linear,
        fit_contact=args.fit_contact, target=args.target, lam=args.lam,
        gate_algo=args.gate_algo, gate_budget=args.gate_budget,
    )  # fmt: skip
    out = Path(args.out or f"train-{args.game}")
    init = Path(args.init) if args.init else None
    command = command_line(config, out, args.threads, init, args.scheduler)
    trainer = Trainer(
        config, out, args.threads, init, command, Bar(sys.stderr),
        scheduler=args.scheduler, scheduler_timeout=args.scheduler_timeout,
    )  # fmt: skip
    summary = trainer.run()
    for g in summary["history"]:
        verdict = "accepted" if g["accepted"] else "rejected"
        print(
            f"gen {g['number']}: {g['positions']} positions, vs {g['opponent']} "
            f"+{g['gate_wins']} ={g['gate_draws']} -{g['gate_losses']} "
            f"({100 * g['score']:.1f} %) {verdict}, {g['seconds']:.0f} s"
        )
    if summary["scheduler"]:
        print(f"games played on the Dask cluster {summary['scheduler']} "
              f"({summary['workers']} worker threads)")  # fmt: skip
    print(f"best: {summary['best']} ({summary['weights'] or 'the hand evaluation'}); "
          f"{summary['seconds']:.0f} s in all")  # fmt: skip
    if args.json:
        emit_json(summary)
    return 0


def add_train_command(command: Callable[[str, Any, str], argparse.ArgumentParser]) -> None:
    from engine.eval.learned_weights import MAX_HIDDEN
    from engine.learn.chessnet import DEFAULT_HIDDEN
    from engine.learn.ntuple import DEFAULT_TUPLES, TUPLE_SETS
    from engine.learn.train import TARGETS
    from engine.search.registry import ALGORITHMS

    p = command(
        "train",
        cmd_train,
        "train the game's learned evaluation by self-play: self-play, fit, gating match",
    )
    p.add_argument(
        "--model", choices=("learned", "nnue"), default="learned",
        help="learned: the game's learned evaluation (eval=learned); nnue: chess's network "
        "over the pieces on their squares (eval=nnue; docs/learning.md)",
    )  # fmt: skip
    p.add_argument("--games", type=positive_int, default=None,
                   help="self-play games a generation (default 200; nnue 12800)")  # fmt: skip
    p.add_argument("--generations", type=positive_int, default=5)
    p.add_argument("--seed", type=nonnegative_int, default=1)
    p.add_argument("--out", default=None, metavar="DIR",
                   help="output directory (default train-GAME); a run resumes from it")  # fmt: skip
    p.add_argument(
        "--threads", type=positive_int, default=1,
        help="processes playing games (with --scheduler local: its Dask workers)",
    )  # fmt: skip
    p.add_argument(
        "--scheduler", default=None, metavar="ADDRESS",
        help="play the games on a Dask cluster (tcp://HOST:8786), or 'local' for a "
        "LocalCluster of --threads workers; needs pip install 'canopy[cluster]'",
    )  # fmt: skip
    p.add_argument("--scheduler-timeout", type=_positive_seconds, default=10.0, metavar="S",
                   help="seconds to reach the scheduler and find a worker")  # fmt: skip
    p.add_argument("--nodes", type=positive_int, default=None,
                   help="alphabeta nodes a move (default 1500; nnue 5000)")  # fmt: skip
    p.add_argument("--epochs", type=positive_int, default=None,
                   help="nnue: passes over the positions (default 12)")  # fmt: skip
    p.add_argument(
        "--window", type=positive_int, default=None,
        help="nnue: generations of positions a network learns from (default 2)",
    )  # fmt: skip
    p.add_argument(
        "--distill", type=nonnegative_int, default=None, metavar="N",
        help="nnue: generation 1 starts from the hand evaluation distilled into the network "
        "on N positions (default 6000000; 0: from scratch)",
    )  # fmt: skip
    p.add_argument(
        "--gate-movetime", type=positive_int, default=None, metavar="MS",
        help="nnue: the gating match's time a move (default 100 ms)",
    )  # fmt: skip
    p.add_argument("--gate-games", type=positive_int, default=None,
                   help="gating games a generation (even)")  # fmt: skip
    p.add_argument(
        "--gate-algo", choices=tuple(ALGORITHMS), default=None,
        help="play the gating matches with this algorithm, the one the weights are for "
        "(default: self-play's alpha-beta player)",
    )  # fmt: skip
    p.add_argument(
        "--gate-budget", type=nonnegative_int, default=0, metavar="N",
        help="gating: --gate-algo's iterations a move, else alpha-beta nodes (0: --nodes)",
    )  # fmt: skip
    p.add_argument(
        "--target", choices=TARGETS, default="blend",
        help="what each position is fitted to: blend (LAM x result + the rest search score), "
        "td (the TD(LAM) return over the searches that followed) or quiescence (the leaves "
        "and some of their children, LAM x result + the rest a 1-ply quiescence score: for "
        "searches whose leaves are not settled, uct-minimax and bfms leaf=static)",
    )  # fmt: skip
    p.add_argument("--lam", type=float, default=None, metavar="LAM",
                   help="blend and nnue: the result's share; td: lambda (0..1, default 0.7; "
                   "nnue 0.3)")  # fmt: skip
    p.add_argument(
        "--tuples",
        choices=sorted(TUPLE_SETS),
        default=None,
        help=f"knight chess: the N-tuple network's tuples (default {DEFAULT_TUPLES})",
    )
    p.add_argument(
        "--hidden", type=positive_int, default=None, metavar="H",
        help=f"chess: hidden units of the network, 1..{MAX_HIDDEN} (default {DEFAULT_HIDDEN})",
    )  # fmt: skip
    p.add_argument(
        "--fit-linear", action="store_true",
        help="refit the hand features' weights too (measured: predicts better, plays worse)",
    )  # fmt: skip
    p.add_argument(
        "--fit-contact", action="store_true",
        help="knight chess: learn the attackers x defenders table too (measured: predicts "
        "better, plays worse)",
    )  # fmt: skip
    p.add_argument(
        "--init", default=None, metavar="FILE",
        help="start from these learned weights instead of the hand evaluation",
    )  # fmt: skip
