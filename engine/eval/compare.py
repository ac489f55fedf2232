"""A position's static evaluations side by side: the hand one, the learned one, the NNUE.

The app's "hand +0.31 · learned +0.12 · nnue +0.20" toggle shows these next to the
search's own numbers, so a class can see where the learned evaluations disagree with the
hand-made one (the NNUE, :mod:`engine.eval.nnue`, is chess's only). Every number here is
**for the side to move in the given position**, in [-1, 1]: the position's own
evaluation, and for each move the evaluation of the position after it, negated (the same
point of view as the Moves table's ``eval``: the side making the root move).

The hand evaluation is :func:`engine.eval.evaluate.evaluate` with the state's
``EVAL`` slot at ``HAND_EVAL``, exactly what a search with ``eval=hand`` calls. The
learned one and the NNUE are computed from the weights passed in
(:mod:`engine.eval.learned_logits`: the arithmetic the search's kernels run on the weights
baked in at import), so any weights file can be shown (and tested) without a recompile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.core.games import make_move
from engine.core.state import EVAL, HAND_EVAL
from engine.eval.evaluate import evaluate
from engine.eval.learned_knight import logit_to_eval
from engine.eval.learned_logits import logit_of, nnue_logit_of
from engine.eval.learned_weights import AnyWeights
from engine.eval.nnue_weights import NNUEWeights
from engine.rules.convert import state_from_fen, uci_to_move
from engine.rules.games import get_game

MAX_MOVES = 256  # more than any position's legal moves in either game


@dataclass(frozen=True)
class EvalPair:
    """A position's static evaluations for one side, in [-1, 1]; ``learned`` and ``nnue``
    are None when there is no such evaluation to ask (the NNUE: not in knight chess)."""

    hand: float
    learned: float | None
    nnue: float | None = None


@dataclass(frozen=True)
class SideBySide:
    position: EvalPair  # the position itself, for its side to move
    moves: tuple[tuple[str, EvalPair], ...]  # (UCI, after the move, for the side making it)


Logit = Callable[[np.ndarray], float]


def _value(s: np.ndarray, logit: Logit | None, sign: float) -> float | None:
    return None if logit is None else sign * float(logit_to_eval(logit(s)))


def _pair(s: np.ndarray, logit: Logit | None, nnue: Logit | None, sign: float) -> EvalPair:
    s[EVAL] = HAND_EVAL
    hand = sign * float(evaluate(s))
    return EvalPair(hand, _value(s, logit, sign), _value(s, nnue, sign))


def static_evaluations(
    game: str,
    fen: str,
    moves: Sequence[str],
    learned: AnyWeights | None,
    nnue: NNUEWeights | None = None,
) -> SideBySide:
    """The hand, (with ``learned``) the learned and (with ``nnue``, in chess) the NNUE
    evaluation of ``fen`` and of each move's result;
    :class:`~engine.errors.InvalidFenError` or :class:`~engine.errors.IllegalMoveError`
    for a bad position or move."""
    g = get_game(game)
    root = state_from_fen(fen, g)
    logit = logit_of(learned) if learned is not None and g.name == learned.game else None
    net = nnue_logit_of(nnue) if nnue is not None and g.name == "chess" else None
    out = []
    for uci in moves[:MAX_MOVES]:
        child = root.copy()
        make_move(child, uci_to_move(child, uci))
        out.append((uci, _pair(child, logit, net, -1.0)))
    return SideBySide(_pair(root.copy(), logit, net, 1.0), tuple(out))
