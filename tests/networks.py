"""An NNUE with large random weights, for the tests of its arithmetic and of the pages
that show it.

Its accumulators' sums reach far from zero, so every unit's clip is met on both sides
and a wrong sign or a lost input shows in the result. ``engine.learn.nnue_fit``'s
``random_network`` has a trained network's small magnitudes instead: what timings need.
"""

from __future__ import annotations

import numpy as np

from engine.eval.nnue_weights import INPUTS, NNUEWeights


def large_network(hidden: int = 16, seed: int = 3) -> NNUEWeights:
    rng = np.random.default_rng(seed)
    return NNUEWeights(
        ft_weight=rng.integers(-300, 300, size=(INPUTS, hidden)).astype(np.int16),
        ft_bias=rng.integers(0, 255, size=hidden).astype(np.int16),
        psqt=rng.integers(-900, 900, size=INPUTS).astype(np.int16),
        out_weight=rng.normal(0, 0.3, size=2 * hidden).astype(np.float32),
        out_bias=0.1,
    )
