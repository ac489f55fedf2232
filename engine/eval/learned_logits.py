"""Either game's learned evaluation on weights given as arrays, not baked in.

The search runs the weights the engine loaded at import, baked into its kernels
(:func:`engine.eval.learned_knight.learned_knight`, :func:`engine.eval.learned_chess.
learned_chess`). Everything else that shows or measures a learned evaluation — the app's
side-by-side view, the model comparison, the benchmark — takes a weights object and wants
the same arithmetic without a recompile: these give it, one state or a batch at a time,
as the logit for the side to move (``logit_to_eval`` turns it into [-1, 1]). The chess
NNUE (:mod:`engine.eval.nnue`) likewise: :func:`nnue_logit_of` runs its ``*_with`` kernels
on any network passed in.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine.core.state import TURN
from engine.eval.learned_chess import arrays_of, batch_net_logits, net_logit
from engine.eval.learned_knight import batch_fast_logits, derive, fast_logit
from engine.eval.learned_weights import AnyWeights, ChessNetWeights
from engine.eval.nnue import kernel_arrays, logit_with, refresh_with
from engine.eval.nnue_weights import NNUEWeights


def _arrays(w: AnyWeights) -> tuple[np.ndarray, ...]:
    if isinstance(w, ChessNetWeights):
        return arrays_of(w)
    return derive(w.linear, w.tuples, w.weights, w.contact)


def logit_of(w: AnyWeights) -> Callable[[np.ndarray], float]:
    """The logit of one state for its side to move, on weights ``w``."""
    arrays = _arrays(w)
    kernel = net_logit if isinstance(w, ChessNetWeights) else fast_logit
    return lambda s: float(kernel(s, *arrays))


def batch_logits_of(w: AnyWeights) -> Callable[[np.ndarray], np.ndarray]:
    """The logits of every row of a ``(n, STATE_SIZE)`` array, on weights ``w``."""
    arrays = _arrays(w)
    kernel = batch_net_logits if isinstance(w, ChessNetWeights) else batch_fast_logits
    return lambda states: kernel(states, *arrays)


def nnue_logit_of(w: NNUEWeights) -> Callable[[np.ndarray], float]:
    """The NNUE's logit of one chess state for its side to move, on network ``w``: both
    accumulators summed afresh, as :func:`engine.eval.nnue.nnue_fresh` does with the
    network baked in."""
    ft, bias, out, out_bias, qa, qp = kernel_arrays(w)
    acc = np.empty((2, ft.shape[1]), dtype=np.int32)

    def logit(s: np.ndarray) -> float:
        refresh_with(s, acc, ft, bias)
        return float(logit_with(acc, int(s[TURN]), out, out_bias, qa, qp))

    return logit
