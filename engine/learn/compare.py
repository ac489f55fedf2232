"""Which network? Fit each candidate model to the same self-play games and compare.

Knight chess: the linear layer alone (the hand features refitted, no tuples) and every
tuple set in :data:`engine.learn.ntuple.TUPLE_SETS`. Chess: the linear layer alone, and
the network of :mod:`engine.learn.chessnet` with 8, 16 and 32 hidden units on the hand
linear layer, and with 16 units and the linear layer refitted too. For each: the
held-out cross-entropy (one game in ten held out, as in training) after a fit from the
hand evaluation, beside the hand evaluation's own, and the cost of one evaluation call
(numba, the weights passed as arrays, averaged over the positions) beside the hand
evaluation's::

    python -m engine.learn.compare --game chess|knight --out DIR [--games N] [--seed S]
                                   [--nodes N]

``DIR/gen-001/games.npz`` is played first (hand evaluation, as generation 1 of
``canopy train`` with the same settings would) unless it is there already.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from engine.eval.evaluate import batch_evaluate
from engine.eval.features import N_KNIGHT
from engine.eval.learned_logits import batch_logits_of
from engine.learn.chessnet import ChessModel
from engine.learn.fitting import Network, cross_entropy, fit
from engine.learn.ntuple import TUPLE_SETS, Model, tuple_squares
from engine.learn.train import Pool, TrainConfig, Trainer

Caller = Callable[[np.ndarray], np.ndarray]


def _ns_per_call(fn: Caller, states: np.ndarray) -> float:
    fn(states[:10])  # compile or load
    started = time.perf_counter()
    for _ in range(5):
        fn(states)
    return (time.perf_counter() - started) / (5 * len(states)) * 1e9


def candidates(game: str) -> Iterator[tuple[str, Network, np.ndarray]]:
    """``(label, model, mask)``: each model to compare and which of its weights learn."""
    if game == "chess":
        linear = ChessModel(1, fit_linear=True)
        mask = linear.mask()
        mask[linear.at_hidden :] = 0.0  # the hidden layer stays silent
        yield "linear", linear, mask
        for hidden in (8, 16, 32):
            model = ChessModel(hidden)
            yield f"hidden {hidden}", model, model.mask()
        both = ChessModel(16, fit_linear=True)
        yield "hidden 16 + linear", both, both.mask()
        return
    linear_only = Model(tuple_squares("pst"), fit_linear=True)
    mask = linear_only.mask()
    mask[2 * N_KNIGHT :] = 0.0  # the tuples stay at zero: only the linear layer is refitted
    yield "linear", linear_only, mask
    for name in TUPLE_SETS:
        tuples = Model(tuple_squares(name))
        yield name, tuples, tuples.mask()


def compare(out: Path, config: TrainConfig) -> list[dict[str, float | str | int]]:
    trainer = Trainer(config, out)
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "gen-001" / "games.npz").exists():
        pool = Pool(1)
        try:
            trainer.self_play(1, pool)
        finally:
            pool.close()
    states, target, held = trainer.training_data(1)
    sample = np.ascontiguousarray(states[:20000])
    results: list[dict[str, float | str | int]] = []
    hand_ns = _ns_per_call(batch_evaluate, sample)
    for label, model, mask in candidates(config.game):
        rows = model.rows(states[~held])
        held_rows = model.rows(states[held])
        prior = model.start()
        started = time.perf_counter()
        theta, _, iterations = fit(
            model, rows, target[~held], prior, prior, config.pull, config.iterations, mask
        )
        seconds = time.perf_counter() - started
        ns = _ns_per_call(batch_logits_of(model.unpack(theta, "", {})), sample)
        results.append({
            "model": label,
            "free_weights": int(mask.sum()),
            "train_positions": len(rows),
            "heldout_positions": len(held_rows),
            "heldout_ce_hand": round(cross_entropy(model, prior, held_rows, target[held]), 5),
            "heldout_ce_fit": round(cross_entropy(model, theta, held_rows, target[held]), 5),
            "fit_seconds": round(seconds, 1),
            "fit_iterations": iterations,
            "ns_per_eval": round(ns),
            "ns_per_hand_eval": round(hand_ns),
        })  # fmt: skip
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.learn.compare", description=__doc__)
    parser.add_argument("--game", choices=("chess", "knight"), default="knight")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=1500)
    args = parser.parse_args(argv)
    config = TrainConfig(game=args.game, games=args.games, seed=args.seed, nodes=args.nodes)
    for row in compare(args.out, config):
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
