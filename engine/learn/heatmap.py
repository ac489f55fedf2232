"""What the N-tuple network learned, square by square: the value of a lone knight.

The learned evaluation adds, on top of its linear layer over the hand features, the
weights of its tuples (:mod:`engine.eval.learned_weights`). A tuple's weight depends on
what stands on all its squares together, so "the value of a knight on e4" needs a
convention: here it is the knight **alone in every tuple that holds its square** — for
each tuple containing ``q``, the weight of the config with that knight on ``q`` and its
other squares empty, minus the weight of the all-empty config. For the default
single-square tuples this is exactly the learned piece-square table the search reads
(:func:`engine.eval.learned_knight.derive`). The contact table adds the same amount for
a lone knight wherever it stands, so it is left out.

Values are in centipawns (logits divided by ``ln 10 / 400``, the hand evaluation's
squash), per phase (middlegame, endgame) and per owner (a knight of the side to move,
an enemy knight), with squares seen from the side to move: index 0 is a1 and the side
to move plays up the board (ranks flipped when Black is to move, as in the network).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.eval.learned_weights import LearnedWeights
from engine.learn.ntuple import CP_TO_LOGIT

PHASES = ("middlegame", "endgame")
OWNERS = ("own", "enemy")  # a knight of the side to move, an enemy knight


@dataclass(frozen=True)
class SquareValues:
    """``values[phase, owner, square]`` in centipawns (phase 0 middlegame, owner 0 the side
    to move's knight; square 0 = a1 from the side to move's view)."""

    values: np.ndarray  # (2, 2, 64)

    def as_dict(self) -> dict[str, dict[str, list[float]]]:
        """``{"middlegame": {"own": [64 values], "enemy": [...]}, "endgame": {...}}``,
        rounded to 0.1 cp."""
        return {
            phase: {
                owner: [round(float(v), 1) for v in self.values[p, o]]
                for o, owner in enumerate(OWNERS)
            }
            for p, phase in enumerate(PHASES)
        }


def knight_square_values(w: LearnedWeights) -> SquareValues:
    """The learned value of a lone knight on each square (see the module docstring)."""
    out = np.zeros((2, 2, 64))
    for t in range(w.tuples.shape[0]):
        for j, q in enumerate(int(sq) for sq in w.tuples[t]):
            if q < 0:
                break  # -1 pads the rest of a short tuple
            for owner in range(2):
                config = (owner + 1) * 3**j  # this square own (1) or enemy (2), others empty
                out[:, owner, q] += w.weights[:, t, config] - w.weights[:, t, 0]
    return SquareValues(out / CP_TO_LOGIT)
