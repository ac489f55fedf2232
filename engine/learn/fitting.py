"""Fitting a learned evaluation: the optimiser and the loss, shared by every game's model.

A model (:class:`Network`: the knight-chess N-tuple network of :mod:`engine.learn.ntuple`,
the chess network of :mod:`engine.learn.chessnet`) holds its free weights as one vector
``θ`` and gives the mean cross-entropy of its logits against targets in [0, 1], with
the gradient. :func:`fit` minimises that plus an L2 pull towards a prior by L-BFGS on
full batches from a given start, without BLAS (see :func:`_dot`): the same data and
start give the same weights on any machine with the same numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from engine.eval.learned_weights import AnyWeights


class Network(Protocol):
    """What the trainer needs of a game's learned evaluation while fitting it."""

    game: str
    size: int  # free weights in θ

    def rows(self, states: np.ndarray) -> Any: ...  # the model's inputs for each state

    def start(self) -> np.ndarray: ...  # θ of the untrained network: the hand evaluation

    def pack(self, w: Any) -> np.ndarray: ...

    def unpack(self, theta: np.ndarray, command: str, meta: dict[str, Any]) -> AnyWeights: ...

    def mask(self) -> np.ndarray: ...  # 1 where θ learns, 0 where it keeps its start value

    def logits(self, theta: np.ndarray, rows: Any) -> np.ndarray: ...

    def loss_grad(
        self, theta: np.ndarray, rows: Any, target: np.ndarray, prior: np.ndarray, l2: float
    ) -> tuple[float, np.ndarray]: ...

    def fits(self, w: AnyWeights) -> str | None: ...  # why ``w`` is not of this model, or None


def logistic_loss(z: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of ``sigmoid(z)`` against ``target`` (written stably) and its
    derivative by each ``z``."""
    loss = float(np.mean(np.logaddexp(0.0, z) - target * z))
    return loss, (1.0 / (1.0 + np.exp(-z)) - target) / z.shape[0]


def l2_pull(theta: np.ndarray, prior: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """``l2 · |θ − prior|²`` and its gradient."""
    diff = theta - prior
    return l2 * _dot(diff, diff), 2.0 * l2 * diff


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a · b`` without BLAS: a threaded BLAS spins on a loaded machine (measured: the
    fit ran ten times slower beside other work) and its sums may depend on the thread
    count; ``einsum`` sums the same way everywhere."""
    return float(np.einsum("i,i->", a, b))


def lbfgs(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    iterations: int = 150,
    memory: int = 10,
    tol: float = 1e-9,
) -> tuple[np.ndarray, float, int]:
    """Minimise ``fun(x) -> (f, grad)`` by L-BFGS with a backtracking (Armijo) line
    search; deterministic. Returns ``(x, f, iterations)``."""
    x = x0.copy()
    f, g = fun(x)
    s_hist: list[np.ndarray] = []
    y_hist: list[np.ndarray] = []
    it = 0
    while it < iterations:
        it += 1
        q = g.copy()
        alphas = []
        for s, y in zip(reversed(s_hist), reversed(y_hist), strict=True):
            rho = 1.0 / _dot(y, s)
            alpha = rho * _dot(s, q)
            alphas.append((rho, alpha))
            q -= alpha * y
        if s_hist:
            q *= _dot(s_hist[-1], y_hist[-1]) / _dot(y_hist[-1], y_hist[-1])
        for (s, y), (rho, alpha) in zip(
            zip(s_hist, y_hist, strict=True), reversed(alphas), strict=True
        ):
            beta = rho * _dot(y, q)
            q += (alpha - beta) * s
        direction = -q
        slope = _dot(g, direction)
        if slope >= 0:  # not a descent direction: restart from the gradient
            s_hist.clear()
            y_hist.clear()
            direction = -g
            slope = -_dot(g, g)
        step = 1.0 if s_hist else 1.0 / max(1.0, math.sqrt(_dot(g, g)))
        while True:
            x_new = x + step * direction
            f_new, g_new = fun(x_new)
            if f_new <= f + 1e-4 * step * slope or step < 1e-12:
                break
            step *= 0.5
        s, y = x_new - x, g_new - g
        if _dot(s, y) > 1e-12:
            s_hist.append(s)
            y_hist.append(y)
            if len(s_hist) > memory:
                s_hist.pop(0)
                y_hist.pop(0)
        done = abs(f - f_new) <= tol * max(1.0, abs(f))
        x, f, g = x_new, f_new, g_new
        if done:
            break
    return x, f, it


def fit(
    model: Network,
    rows: Any,
    target: np.ndarray,
    start: np.ndarray,
    prior: np.ndarray,
    l2: float,
    iterations: int = 150,
) -> tuple[np.ndarray, float, int]:
    """θ minimising the regularised cross-entropy from ``start``, only the weights
    ``model.mask()`` frees moving; ``(θ, loss, iterations)``."""
    mask = model.mask()

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = model.loss_grad(theta, rows, target, prior, l2)
        return value, grad * mask

    return lbfgs(loss, start, iterations)


def cross_entropy(model: Network, theta: np.ndarray, rows: Any, target: np.ndarray) -> float:
    """Mean cross-entropy (no prior term) of ``θ`` on ``rows``."""
    return logistic_loss(model.logits(theta, rows), target)[0]
