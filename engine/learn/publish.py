"""Publish one generation of a training run as a weights file that carries the run's record.

``canopy train`` publishes only its *best* weights (``best.npz``), and none while the hand
evaluation stays best. Chess is that case: no generation of the shipped run won its gating
match (docs/learning.md), yet ``eval=learned`` and the side-by-side view are worth having
in chess too, to compare. This writes a chosen generation's candidate exactly as
``best.npz`` would hold it (:func:`engine.learn.train.with_record`: the run's whole record
of generations and its command in the file), so the Learning view draws the same curve and
can say which generation the file is and whether its gating match kept it.

    python -m engine.learn.publish --out train-chess --generation 3 \\
        --to engine/data/learned/chess.npz

The destination is written whole or not at all (temp file + rename).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from engine.errors import CanopyError
from engine.eval.learned_weights import (
    GAMES,
    AnyWeights,
    LearnedWeightsError,
    load_weights,
    save_weights,
)
from engine.learn.train import STATE_ERRORS, STATE_FILE, read_state, with_record


class PublishError(CanopyError):
    """The run, its generation or the destination cannot serve a publication."""

    code = "publish_failed"


def publish_generation(run: Path, number: int, dest: Path) -> AnyWeights:
    """Write generation ``number``'s candidate of the run in ``run`` to ``dest``, its
    meta completed with the run's record; the weights written. :class:`PublishError`
    naming the problem, with ``dest`` untouched, otherwise."""
    path = run / STATE_FILE
    if not path.is_file():
        raise PublishError(f"{run} holds no training run ({STATE_FILE} is missing)")
    try:
        state = read_state(path)
        game = state.settings["game"]
    except STATE_ERRORS as exc:
        raise PublishError(f"{path} is not a training record ({exc!r})") from None
    if game not in GAMES or not state.command:
        raise PublishError(f"{path} is not a training record of a game with a learned evaluation")
    numbers = [g.number for g in state.generations]
    if number not in numbers:
        done = ", ".join(str(n) for n in numbers) or "none"
        raise PublishError(f"{run} has no finished generation {number} (finished: {done})")
    candidate = run / f"gen-{number:03d}" / "candidate.npz"
    try:
        w = load_weights(candidate, game)
    except LearnedWeightsError as exc:
        raise PublishError(str(exc)) from None
    record = [asdict(g) for g in state.generations]
    out = with_record(w, state.command, record, state.seconds, number)
    try:
        save_weights(dest, out)
    except OSError as exc:
        raise PublishError(f"cannot write {dest}: {exc.strerror or exc}") from None
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.learn.publish",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the training run's directory (its canopy train --out)")  # fmt: skip
    parser.add_argument("--generation", type=int, required=True, metavar="N",
                        help="the generation whose candidate to publish")  # fmt: skip
    parser.add_argument("--to", type=Path, required=True, metavar="FILE",
                        help="the weights file to write")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        w = publish_generation(args.out, args.generation, args.to)
    except PublishError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    kept = next(g["accepted"] for g in w.meta["generations"] if g["number"] == args.generation)
    print(f"wrote {args.to}: {w.game} generation {args.generation} "
          f"({'kept' if kept else 'not kept'} by its gating match)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
