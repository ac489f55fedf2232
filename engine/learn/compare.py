"""Which network? Fit each tuple set to the same self-play games and compare.

For the linear layer alone (the hand features refitted, no tuples) and every tuple set in
:data:`engine.learn.ntuple.TUPLE_SETS`: the held-out
cross-entropy (one game in ten held out, as in training) after a fit from the hand
evaluation, beside the hand evaluation's own, and the cost of one evaluation call
(numba, the form the search runs with the weights passed as arrays, averaged over the
positions) beside the hand evaluation's::

    python -m engine.learn.compare --out DIR [--games N] [--seed S] [--nodes N]

``DIR/gen-001/games.npz`` is played first (hand evaluation, as generation 1 of
``canopy train`` with the same settings would) unless it is there already.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.learn.ntuple import (
    TUPLE_SETS,
    Model,
    Rows,
    cross_entropy,
    lbfgs,
    rows_of,
    tuple_squares,
)
from engine.learn.train import Pool, TrainConfig, Trainer
from engine.search.eval_features import N_KNIGHT
from engine.search.evaluation import batch_evaluate
from engine.search.learned_eval import batch_fast_logits, derive


def _ns_per_call(fn: Callable[[np.ndarray], np.ndarray], states: np.ndarray) -> float:
    fn(states[:10])  # compile or load
    started = time.perf_counter()
    for _ in range(5):
        fn(states)
    return (time.perf_counter() - started) / (5 * len(states)) * 1e9


def compare(out: Path, config: TrainConfig) -> list[dict[str, float | str | int]]:
    trainer = Trainer(config, out)
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "gen-001" / "games.npz").exists():
        pool = Pool(1, config.nodes)
        try:
            trainer.self_play(1, pool)
        finally:
            pool.close()
    states, target, held = trainer.training_data(1)
    sample = np.ascontiguousarray(states[:20000])
    results: list[dict[str, float | str | int]] = []
    hand_ns = _ns_per_call(batch_evaluate, sample)
    variants = [("linear", "pst", True)] + [(name, name, False) for name in TUPLE_SETS]
    for label, name, linear_only in variants:
        squares = tuple_squares(name)
        model = Model(squares)
        rows = rows_of(states[~held], squares)
        held_rows = rows_of(states[held], squares)
        prior = model.start()
        mask = np.ones(model.size)
        if linear_only:  # the tuples stay at zero: only the linear layer is refitted
            mask[2 * N_KNIGHT :] = 0.0

        def loss(
            theta: np.ndarray,
            model: Model = model,
            rows: Rows = rows,
            mask: np.ndarray = mask,
            prior: np.ndarray = prior,
        ) -> tuple[float, np.ndarray]:
            value, grad = model.loss_grad(theta, rows, target[~held], prior, config.l2)
            return value, grad * mask

        started = time.perf_counter()
        theta, _, iterations = lbfgs(loss, prior, config.iterations)
        seconds = time.perf_counter() - started
        w = model.unpack(theta, "", {})
        arrays = derive(w.linear, w.tuples, w.weights, w.contact)
        ns = _ns_per_call(lambda s, a=arrays: batch_fast_logits(s, *a), sample)
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
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=1500)
    args = parser.parse_args(argv)
    config = TrainConfig(games=args.games, seed=args.seed, nodes=args.nodes)
    for row in compare(args.out, config):
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
