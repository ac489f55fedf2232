"""Fitting a learned evaluation: the optimiser and the loss, shared by every game's model.

A model (:class:`Network`: the knight-chess N-tuple network of :mod:`engine.learn.ntuple`,
the chess network of :mod:`engine.learn.chessnet`) holds its free weights as one vector
``θ`` and gives the mean cross-entropy of its logits against targets in [0, 1], with
the gradient. :func:`fit` minimises that plus an L2 pull towards a prior on full batches
from a given start, by L-BFGS-B from ``scipy.optimize`` (a well-kept, widely used
implementation rather than one of our own); it is deterministic, so the same data and
start give the same weights.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from scipy.optimize import minimize

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
    """``a · b`` without BLAS: a threaded BLAS spins on a loaded machine and its sums may
    depend on the thread count; ``einsum`` sums the same way everywhere."""
    return float(np.einsum("i,i->", a, b))


def fit(
    model: Network,
    rows: Any,
    target: np.ndarray,
    start: np.ndarray,
    prior: np.ndarray,
    l2: float,
    iterations: int = 150,
    mask: np.ndarray | None = None,
) -> tuple[np.ndarray, float, int]:
    """θ minimising the regularised cross-entropy from ``start``, only the weights
    ``mask`` (default: ``model.mask()``) frees moving; ``(θ, loss, iterations run)``.

    L-BFGS-B keeps ten corrections and stops after ``iterations`` or when an iteration
    lowers the loss by less than a billionth of it."""
    free = model.mask() if mask is None else mask

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = model.loss_grad(theta, rows, target, prior, l2)
        return value, grad * free

    result = minimize(
        loss, start, jac=True, method="L-BFGS-B",
        options={"maxiter": iterations, "maxcor": 10, "ftol": 1e-9, "gtol": 1e-12},
    )  # fmt: skip
    return result.x, float(result.fun), int(result.nit)


def cross_entropy(model: Network, theta: np.ndarray, rows: Any, target: np.ndarray) -> float:
    """Mean cross-entropy (no prior term) of ``θ`` on ``rows``."""
    return logistic_loss(model.logits(theta, rows), target)[0]
