"""Fitting the knight-chess N-tuple network to self-play positions (numpy only).

The network (:mod:`engine.eval.learned_weights` has the arrays) is logistic
regression in disguise: a position's logit is a sum of weights picked by its features
and its tuples' contents, tapered between a middlegame and an endgame set by the phase,
so fitting it is a convex problem. :func:`engine.learn.fitting.fit` minimises

    mean_i  CE(target_i, sigmoid(z_i))  +  l2 · (|linear − linear₀|² + |tuple weights|²)

by L-BFGS (:mod:`engine.learn.fitting`). ``linear₀``
is the hand evaluation turned into logits (centipawns · ln 10 / 400), so the untrained
network **is** the hand evaluation and the tuples learn what it misses.

Tuples are tied under the board's left-right mirror (knight chess is symmetric that
way), which halves the free weights: a tuple and its mirror image share one weight per
pair of mirrored configs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.eval.evaluate import KNIGHT_EG, KNIGHT_MG, SQUASH_CP
from engine.eval.features import N_KNIGHT
from engine.eval.learned_knight import tuple_rows
from engine.eval.learned_weights import CONTACT_SHAPE, MAX_TUPLE, LearnedWeights
from engine.learn.fitting import l2_pull, logistic_loss

N_CONTACT = CONTACT_SHAPE[1] * CONTACT_SHAPE[2]  # contact weights per phase
CP_TO_LOGIT = math.log(10.0) / SQUASH_CP  # the hand evaluation's squash as a logistic
KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2))  # half of them: each pair once


def _singles() -> list[list[int]]:
    return [[sq] for sq in range(64)]


def _blocks() -> list[list[int]]:
    return [
        [r * 8 + f, r * 8 + f + 1, (r + 1) * 8 + f, (r + 1) * 8 + f + 1]
        for r in range(7)
        for f in range(7)
    ]


def _knight_pairs() -> list[list[int]]:
    out = []
    for sq in range(64):
        f, r = sq % 8, sq // 8
        for df, dr in KNIGHT_JUMPS:
            ff, rr = f + df, r + dr
            if 0 <= ff < 8 and 0 <= rr < 8:
                out.append([sq, rr * 8 + ff])
    return out


#: Tuple sets by name (the measurement behind the default is in docs/learning.md).
TUPLE_SETS = {
    "pst": lambda: _singles(),
    "blocks": lambda: _singles() + _blocks(),
    "pairs": lambda: _singles() + _knight_pairs(),
}
DEFAULT_TUPLES = "pst"


def tuple_squares(name: str) -> np.ndarray:
    """The (T, K) square table of tuple set ``name`` (-1 pads short tuples)."""
    tuples = TUPLE_SETS[name]()
    k = max(len(t) for t in tuples)
    assert k <= MAX_TUPLE
    out = np.full((len(tuples), k), -1, dtype=np.int64)
    for i, t in enumerate(tuples):
        out[i, : len(t)] = t
    return out


def tied_index(squares: np.ndarray) -> tuple[np.ndarray, int]:
    """``(index, count)``: ``index[t, c]`` is the free weight that tuple ``t``'s config
    ``c`` uses; a tuple's mirror image (files a↔h) shares it with the mirrored config."""
    t_count, k = squares.shape
    configs = 3**k
    by_set = {frozenset(int(q) for q in row if q >= 0): i for i, row in enumerate(squares)}
    digits = np.array([[(c // 3**j) % 3 for j in range(k)] for c in range(configs)])
    raw = np.arange(t_count * configs).reshape(t_count, configs)
    index = raw.copy()
    for t in range(t_count):
        row = [int(q) for q in squares[t] if q >= 0]
        mirrored = [q ^ 7 for q in row]
        u = by_set.get(frozenset(mirrored))
        if u is None:
            continue
        urow = [int(q) for q in squares[u] if q >= 0]
        perm = [urow.index(q) for q in mirrored]  # t's square j sits at perm[j] in u
        for c in range(configs):
            if any(digits[c, j] for j in range(len(row), k)):
                continue  # a config a short tuple never shows
            cu = sum(int(digits[c, j]) * 3 ** perm[j] for j in range(len(row)))
            index[t, c] = min(raw[t, c], raw[u, cu])
    _, compact = np.unique(index, return_inverse=True)
    compact = compact.reshape(t_count, configs)
    return compact.astype(np.int64), int(compact.max()) + 1


@dataclass(frozen=True)
class Rows:
    """Training rows: per position its side-to-move features, mg share and tuple configs."""

    features: np.ndarray  # (n, N_KNIGHT)
    mg_share: np.ndarray  # (n,)
    configs: np.ndarray  # (n, T)
    contacts: np.ndarray  # (n, 2 · 16): knights per side and contact bucket

    def __len__(self) -> int:
        return int(self.mg_share.shape[0])


def rows_of(states: np.ndarray, squares: np.ndarray) -> Rows:
    n = states.shape[0]
    configs = np.zeros((n, squares.shape[0]), dtype=np.int64)
    features = np.zeros((n, N_KNIGHT))
    share = np.zeros(n)
    contacts = np.zeros((n, N_CONTACT))
    tuple_rows(np.ascontiguousarray(states), squares, configs, features, share, contacts)
    return Rows(features, share, configs, contacts)


def hand_linear() -> np.ndarray:
    """The hand evaluation as the network's linear layer (tuples at zero)."""
    return np.stack([KNIGHT_MG, KNIGHT_EG]) * CP_TO_LOGIT


class Model:
    """The network's free weights as one vector
    ``θ = [linear (2·F), contact (2·32), tied tuple weights (2·U)]``
    (a :class:`engine.learn.fitting.Network`).

    Unless ``fit_linear``, the linear layer keeps its start value (the hand evaluation's
    weights), and unless ``fit_contact`` the contact table does: only the tuples learn.
    Refitting either predicted results better and played worse (docs/learning.md has the
    gating matches)."""

    game = "knight"

    def __init__(
        self, squares: np.ndarray, fit_linear: bool = False, fit_contact: bool = False
    ) -> None:
        self.squares = squares
        self.fit_linear = fit_linear
        self.fit_contact = fit_contact
        self.index, self.free = tied_index(squares)
        self.tied_at = 2 * N_KNIGHT + 2 * N_CONTACT  # where the tuple weights start
        self.size = self.tied_at + 2 * self.free

    def rows(self, states: np.ndarray) -> Rows:
        return rows_of(states, self.squares)

    def mask(self) -> np.ndarray:
        mask = np.ones(self.size)
        if not self.fit_linear:
            mask[: 2 * N_KNIGHT] = 0.0
        if not self.fit_contact:
            mask[2 * N_KNIGHT : self.tied_at] = 0.0
        return mask

    def fits(self, w: Any) -> str | None:
        if not isinstance(w, LearnedWeights) or not np.array_equal(w.tuples, self.squares):
            shape = getattr(getattr(w, "tuples", None), "shape", None)
            got = f"{shape[0]} tuples of {shape[1]} squares" if shape else "no tuples"
            return f"use other tuples ({got})"
        return None

    def pack(self, w: LearnedWeights) -> np.ndarray:
        """θ from expanded weights (each tied group takes its first member's value)."""
        theta = np.zeros(self.size)
        theta[: 2 * N_KNIGHT] = w.linear.ravel()
        theta[2 * N_KNIGHT : self.tied_at] = w.contact.ravel()
        flat = self.index.ravel()
        for p in range(2):
            tied = np.zeros(self.free)
            tied[flat[::-1]] = w.weights[p].ravel()[::-1]
            start = self.tied_at + p * self.free
            theta[start : start + self.free] = tied
        return theta

    def unpack(self, theta: np.ndarray, command: str, meta: dict) -> LearnedWeights:
        linear = theta[: 2 * N_KNIGHT].reshape(2, N_KNIGHT).copy()
        contact = theta[2 * N_KNIGHT : self.tied_at].reshape(CONTACT_SHAPE).copy()
        tied = theta[self.tied_at :].reshape(2, self.free)
        weights = np.stack([tied[p][self.index] for p in range(2)])
        return LearnedWeights(
            "knight", linear, self.squares.copy(), weights, contact, command=command, meta=meta
        )

    def start(self) -> np.ndarray:
        theta = np.zeros(self.size)
        theta[: 2 * N_KNIGHT] = hand_linear().ravel()
        return theta

    def logits(self, theta: np.ndarray, rows: Rows) -> np.ndarray:
        lin = theta[: 2 * N_KNIGHT].reshape(2, N_KNIGHT)
        contact = theta[2 * N_KNIGHT : self.tied_at].reshape(2, N_CONTACT)
        tied = theta[self.tied_at :].reshape(2, self.free)
        a = rows.mg_share
        idx = self.index[np.arange(self.squares.shape[0])[None, :], rows.configs]
        mg = np.einsum("ij,j->i", rows.features, lin[0]) + tied[0][idx].sum(axis=1)
        eg = np.einsum("ij,j->i", rows.features, lin[1]) + tied[1][idx].sum(axis=1)
        mg += np.einsum("ij,j->i", rows.contacts, contact[0])
        eg += np.einsum("ij,j->i", rows.contacts, contact[1])
        return mg * a + eg * (1.0 - a)

    def loss_grad(
        self, theta: np.ndarray, rows: Rows, target: np.ndarray, prior: np.ndarray, l2: float
    ) -> tuple[float, np.ndarray]:
        loss, g = logistic_loss(self.logits(theta, rows), target)  # g: d loss / d z
        a = rows.mg_share
        grad = np.zeros(self.size)
        grad[:N_KNIGHT] = np.einsum("ij,i->j", rows.features, g * a)
        grad[N_KNIGHT : 2 * N_KNIGHT] = np.einsum("ij,i->j", rows.features, g * (1.0 - a))
        c0 = 2 * N_KNIGHT
        grad[c0 : c0 + N_CONTACT] = np.einsum("ij,i->j", rows.contacts, g * a)
        grad[c0 + N_CONTACT : self.tied_at] = np.einsum("ij,i->j", rows.contacts, g * (1.0 - a))
        idx = self.index[np.arange(self.squares.shape[0])[None, :], rows.configs].ravel()
        t_count = self.squares.shape[0]
        for p, share in enumerate((a, 1.0 - a)):
            w = np.repeat(g * share, t_count)
            start = self.tied_at + p * self.free
            grad[start : start + self.free] = np.bincount(idx, weights=w, minlength=self.free)
        pull, pull_grad = l2_pull(theta, prior, l2)
        return loss + pull, grad + pull_grad
