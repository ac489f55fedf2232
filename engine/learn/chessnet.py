"""Fitting the chess network (:mod:`engine.eval.learned_chess`) to self-play positions.

The network's free weights are one vector ``θ = [linear (2·F), hidden (H·(F+1)), bias (H),
out (H)]``. The untrained network is the hand evaluation: ``linear`` holds the hand
weights in logits and ``out`` is zero, so the hidden layer starts silent; its units start
with small seeded random weights and a bias of ½, in the linear part of the clipped ReLU,
so each can move either way. Training (:func:`engine.learn.fitting.fit`) pulls every
weight towards that start (L2) and, unless ``fit_linear``, keeps the linear layer at the
hand weights, so what is learned is a correction on top of the hand evaluation — the
knight-chess network measured better that way (docs/learning.md).

Unlike the N-tuple network this is not convex (the hidden layer); L-BFGS from a fixed,
seeded start on full batches is still deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.eval.evaluate import CHESS_EG, CHESS_MG
from engine.eval.features import CHESS_FEATURES, N_CHESS
from engine.eval.learned_chess import chess_rows
from engine.eval.learned_weights import MAX_HIDDEN, ChessNetWeights
from engine.learn.fitting import l2_pull, logistic_loss
from engine.learn.ntuple import CP_TO_LOGIT

DEFAULT_HIDDEN = 8  # measured: docs/learning.md ("Chess: which model")
INIT_SEED = 20240601  # the hidden layer's start: fixed, so every run starts alike

#: Each feature's factor into the hidden layer: one over a typical size of the feature,
#: set by hand so that every input arrives at a similar size (well conditioned for L-BFGS).
#: Part of the weights file (``scale``), so changing it here never changes a trained file.
_SPREAD = {
    "pawn": 1.0, "knight": 0.7, "bishop": 0.7, "rook": 0.7, "queen": 0.5,
    "pst_mg": 60.0, "pst_eg": 60.0,
    "mobility_knight": 5.0, "mobility_bishop": 6.0, "mobility_rook": 6.0, "mobility_queen": 8.0,
    "king_shield": 2.0, "king_pressure": 4.0, "king_open_files": 1.0,
    "doubled_pawns": 1.0, "isolated_pawns": 1.5, "passed_pawns": 1.0, "passed_rank_squared": 10.0,
    "bishop_pair": 0.7, "rook_open_file": 0.7, "rook_half_open_file": 0.7, "tempo": 1.0,
}  # fmt: skip
SCALE = np.array([1.0 / _SPREAD[name] for name in CHESS_FEATURES])


@dataclass(frozen=True)
class ChessRows:
    """Training rows: each position's features for its side to move, and its phase share."""

    features: np.ndarray  # (n, F), unscaled
    share: np.ndarray  # (n,): phase / 24

    def __len__(self) -> int:
        return int(self.share.shape[0])


def chess_rows_of(states: np.ndarray) -> ChessRows:
    n = states.shape[0]
    features = np.zeros((n, N_CHESS))
    share = np.zeros(n)
    chess_rows(np.ascontiguousarray(states), features, share)
    return ChessRows(features, share)


class ChessModel:
    """The chess network's weights as one vector (a :class:`engine.learn.fitting.Network`)."""

    game = "chess"

    def __init__(self, hidden: int = DEFAULT_HIDDEN, fit_linear: bool = False) -> None:
        if not 1 <= hidden <= MAX_HIDDEN:
            raise ValueError(f"hidden must be 1..{MAX_HIDDEN}; got {hidden}")
        self.hidden = hidden
        self.fit_linear = fit_linear
        f, h = N_CHESS, hidden
        self.at_hidden = 2 * f
        self.at_bias = self.at_hidden + h * (f + 1)
        self.at_out = self.at_bias + h
        self.size = self.at_out + h

    # -------------------------------------------------------- θ and the file
    def split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(linear (2, F), hidden (H, F+1), bias (H,), out (H,))``: views into ``θ``."""
        f, h = N_CHESS, self.hidden
        return (
            theta[: self.at_hidden].reshape(2, f),
            theta[self.at_hidden : self.at_bias].reshape(h, f + 1),
            theta[self.at_bias : self.at_out],
            theta[self.at_out :],
        )

    def start(self) -> np.ndarray:
        theta = np.zeros(self.size)
        linear, hidden, bias, _ = self.split(theta)
        linear[:] = np.stack([CHESS_MG, CHESS_EG]) * CP_TO_LOGIT
        rng = np.random.default_rng(INIT_SEED)
        hidden[:] = rng.normal(0.0, 0.5 / np.sqrt(N_CHESS + 1), hidden.shape)
        bias[:] = 0.5
        return theta

    def pack(self, w: ChessNetWeights) -> np.ndarray:
        theta = np.zeros(self.size)
        for view, array in zip(self.split(theta), (w.linear, w.hidden, w.bias, w.out),
                               strict=True):  # fmt: skip
            view[:] = array
        return theta

    def unpack(self, theta: np.ndarray, command: str, meta: dict[str, Any]) -> ChessNetWeights:
        linear, hidden, bias, out = (a.copy() for a in self.split(theta))
        return ChessNetWeights("chess", linear, SCALE.copy(), hidden, bias, out, command, meta)

    def fits(self, w: Any) -> str | None:
        if not isinstance(w, ChessNetWeights) or w.bias.shape != (self.hidden,):
            got = getattr(getattr(w, "bias", None), "shape", ("?",))[0]
            return f"have {got} hidden units, not {self.hidden}"
        if not np.array_equal(w.scale, SCALE):
            return "scale their features otherwise"
        return None

    def mask(self) -> np.ndarray:
        mask = np.ones(self.size)
        if not self.fit_linear:
            mask[: self.at_hidden] = 0.0
        return mask

    # -------------------------------------------------------- the arithmetic
    def rows(self, states: np.ndarray) -> ChessRows:
        return chess_rows_of(states)

    def _forward(
        self, theta: np.ndarray, rows: ChessRows
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(z, x, pre)``: logits, the hidden layer's inputs and its pre-activations."""
        linear, hidden, bias, out = self.split(theta)
        a = rows.share
        x = np.concatenate([rows.features * SCALE, a[:, None]], axis=1)
        pre = np.einsum("ij,kj->ik", x, hidden) + bias
        act = np.clip(pre, 0.0, 1.0)
        z = np.einsum("ij,j->i", rows.features, linear[0]) * a
        z += np.einsum("ij,j->i", rows.features, linear[1]) * (1.0 - a)
        z += np.einsum("ij,j->i", act, out)
        return z, x, pre

    def logits(self, theta: np.ndarray, rows: ChessRows) -> np.ndarray:
        return self._forward(theta, rows)[0]

    def loss_grad(
        self, theta: np.ndarray, rows: ChessRows, target: np.ndarray, prior: np.ndarray, l2: float
    ) -> tuple[float, np.ndarray]:
        z, x, pre = self._forward(theta, rows)
        loss, g = logistic_loss(z, target)
        _, _, _, out = self.split(theta)
        grad = np.zeros(self.size)
        d_linear, d_hidden, d_bias, d_out = self.split(grad)
        a = rows.share
        d_linear[0] = np.einsum("ij,i->j", rows.features, g * a)
        d_linear[1] = np.einsum("ij,i->j", rows.features, g * (1.0 - a))
        d_out[:] = np.einsum("ij,i->j", np.clip(pre, 0.0, 1.0), g)
        live = (pre > 0.0) & (pre < 1.0)
        d_pre = np.where(live, g[:, None] * out[None, :], 0.0)
        d_hidden[:] = np.einsum("ij,ik->jk", d_pre, x)
        d_bias[:] = np.einsum("ij->j", d_pre)
        pull, pull_grad = l2_pull(theta, prior, l2)
        return loss + pull, grad + pull_grad


def feature_weights(w: ChessNetWeights) -> dict[str, Any]:
    """What the chess network learned, feature by feature: the centipawns one more unit of
    each feature is worth to the side to move, hand against learned, in the middlegame
    (phase share 1) and the endgame (0).

    The network is not linear, so its weight of a feature depends on the position; this
    is its slope at a level position (every feature 0 but the tempo), the linear layer's
    weight plus what the hidden units that are live there add. The hand evaluation's
    weights are its constants. ``{"features": [...], "hand": {"middlegame": [...],
    "endgame": [...]}, "learned": {...}}``, in centipawns rounded to 0.1.
    """
    linear, scale, hidden, bias, out = w.linear, w.scale, w.hidden, w.bias, w.out
    tempo = CHESS_FEATURES.index("tempo")
    learned = {}
    for name, share in (("middlegame", 1.0), ("endgame", 0.0)):
        pre = bias + hidden[:, tempo] * scale[tempo] + hidden[:, N_CHESS] * share
        live = ((pre > 0.0) & (pre < 1.0)).astype(np.float64)
        slope = share * linear[0] + (1.0 - share) * linear[1]
        slope = slope + np.einsum("j,j,ji->i", out, live, hidden[:, :N_CHESS]) * scale
        learned[name] = [round(float(v), 1) for v in slope / CP_TO_LOGIT]
    hand = {"middlegame": [round(float(v), 1) for v in CHESS_MG],
            "endgame": [round(float(v), 1) for v in CHESS_EG]}  # fmt: skip
    return {"features": list(CHESS_FEATURES), "hand": hand, "learned": learned}
