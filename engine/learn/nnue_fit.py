"""Training the NNUE on self-play positions, with PyTorch.

The float network is the one :mod:`engine.eval.nnue` runs, before quantisation::

    a_c = ft(inputs seen from c) + ft_bias          (an EmbeddingBag: a sum of columns)
    z   = out · (clip(a_us, 0, 1) ‖ clip(a_them, 0, 1)) + out_bias + (psqt_us − psqt_them) / 2

fitted to each position's target ``λ · result + (1 − λ) · (score + 1) / 2`` (the game's
result for the side to move, 1 / ½ / 0, blended with the search's expected score) by the
mean squared error of ``sigmoid(z)`` — the loss engine writers use for their first
networks. The piece-square term starts at the usual piece values, so the first epochs
already play material and the hidden layer learns what material misses.

PyTorch (the ``train`` extra, CPU build) supplies the optimiser (Adam), the sparse
input layer (``nn.EmbeddingBag``) and the gradients; the search never imports it: the
trained network is quantised (:func:`quantise`) into the weights file the numba kernels
read. Why PyTorch and not JAX: ``EmbeddingBag`` is the NNUE input layer as one call, on
a CPU, and the CPU wheel installs in about 20 s (docs/learning.md).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from engine.errors import CanopyError
from engine.eval.nnue_weights import INPUTS, NNUEWeights
from engine.learn.nnue_data import SCORE_SCALE

PAD = INPUTS  # the empty slot of a position's input list (a zero column)
SLOTS = 32  # inputs a position can have on: at most 32 pieces
QA, QP = 255, 512
#: Piece values (pawn .. king) in logits, the piece-square term's start: 100 cp = 0.576.
START_VALUES = np.array([100.0, 320.0, 330.0, 500.0, 950.0, 0.0]) * math.log(10.0) / 400.0


class FitError(CanopyError):
    code = "train_failed"


def torch_module() -> Any:
    """PyTorch, or :class:`FitError` saying how to install it."""
    try:
        import torch
    except ImportError:
        raise FitError(
            "training the NNUE needs PyTorch: pip install -e '.[train]' (the CPU build, "
            "about 750 MB; `make setup` installs it)"
        ) from None
    return torch


@dataclass(frozen=True)
class FitConfig:
    hidden: int = 128
    epochs: int = 12
    batch: int = 8192
    lr: float = 2e-3
    lam: float = 0.3  # the game's result's share of the target
    holdout: int = 32  # one game in this many held out (all its positions) to measure the fit
    seed: int = 1
    threads: int = 2

    def check(self) -> None:
        checks = (
            ("hidden", 1 <= self.hidden <= 1024, "1..1024"),
            ("epochs", self.epochs >= 1, "at least 1"),
            ("batch", self.batch >= 1, "at least 1"),
            ("lr", 0 < self.lr < 1, "between 0 and 1"),
            ("lam", 0.0 <= self.lam <= 1.0, "0..1"),
            ("holdout", self.holdout == 0 or self.holdout >= 2, "0 (none) or 2 or more"),
        )
        for name, ok, allowed in checks:
            if not ok:
                raise FitError(f"{name} must be {allowed}; got {getattr(self, name)!r}")


@dataclass
class FitResult:
    weights: NNUEWeights
    train_loss: list[float] = field(default_factory=list)
    held_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    positions: int = 0
    best_epoch: int = 0  # the epoch kept (lowest held-out loss); 0: the last, none held out


@njit(cache=True, nogil=True)
def input_lists(
    occ: np.ndarray, pieces: np.ndarray, stm: np.ndarray, us: np.ndarray, them: np.ndarray
) -> None:
    """Each position's inputs seen from its side to move (``us``) and from the other
    side (``them``), :data:`PAD` after the last (the layout :mod:`engine.eval.nnue` uses)."""
    for i in range(occ.shape[0]):
        k = 0
        o = occ[i]
        side = stm[i]
        for sq in range(64):
            if (o >> np.uint64(sq)) & np.uint64(1):
                byte = pieces[i, k >> 1]
                code = (byte >> 4) if k & 1 else (byte & 15)
                colour, piece = code // 6, code % 6
                for view in range(2):
                    c = side if view == 0 else 1 - side
                    own = 0 if colour == c else 6
                    index = (own + piece) * 64 + (sq if c == 0 else sq ^ 56)
                    if view == 0:
                        us[i, k] = index
                    else:
                        them[i, k] = index
                k += 1
        for j in range(k, us.shape[1]):
            us[i, j] = PAD
            them[i, j] = PAD


def tensors(records: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(us, them, target)`` arrays for the records: inputs and the blended target."""
    n = len(records)
    us = np.empty((n, SLOTS), dtype=np.int64)
    them = np.empty((n, SLOTS), dtype=np.int64)
    input_lists(
        np.ascontiguousarray(records["occ"]), np.ascontiguousarray(records["pieces"]),
        np.ascontiguousarray(records["stm"]), us, them,
    )  # fmt: skip
    score = records["score"].astype(np.float64) / SCORE_SCALE
    result = (records["result"].astype(np.float64) + 1.0) / 2.0
    target = lam * result + (1.0 - lam) * (score + 1.0) / 2.0
    return us, them, target.astype(np.float32)


def _load_start(torch: Any, net: Any, w: NNUEWeights) -> None:
    """The float network set to the quantised one ``w`` (training goes on from it)."""
    with torch.no_grad():
        net.ft.weight[:INPUTS] = torch.from_numpy(w.ft_weight.astype(np.float32) / w.qa)
        net.ft_bias.copy_(torch.from_numpy(w.ft_bias.astype(np.float32) / w.qa))
        net.psqt.weight[:INPUTS, 0] = torch.from_numpy(w.psqt.astype(np.float32) / w.qp)
        net.out.weight[0] = torch.from_numpy(w.out_weight.astype(np.float32))
        net.out.bias.fill_(w.out_bias)


def _model(torch: Any, hidden: int, seed: int) -> Any:
    nn = torch.nn
    torch.manual_seed(seed)

    class Network(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.ft = nn.EmbeddingBag(INPUTS + 1, hidden, mode="sum", padding_idx=PAD)
            self.ft_bias = nn.Parameter(torch.zeros(hidden))
            self.psqt = nn.EmbeddingBag(INPUTS + 1, 1, mode="sum", padding_idx=PAD)
            self.out = nn.Linear(2 * hidden, 1)
            with torch.no_grad():
                self.ft.weight.normal_(0.0, 0.1 / math.sqrt(SLOTS))
                self.ft.weight[PAD].zero_()
                self.ft_bias.fill_(0.5)
                values = np.zeros(INPUTS + 1, dtype=np.float32)
                for own in range(2):
                    for piece in range(6):
                        start = (own * 6 + piece) * 64
                        values[start : start + 64] = START_VALUES[piece] * (1 if own == 0 else -1)
                self.psqt.weight.copy_(torch.from_numpy(values).unsqueeze(1))
                self.out.weight.normal_(0.0, 0.01)
                self.out.bias.zero_()

        def forward(self, us: Any, them: Any) -> Any:
            a = torch.clamp(self.ft(us) + self.ft_bias, 0.0, 1.0)
            b = torch.clamp(self.ft(them) + self.ft_bias, 0.0, 1.0)
            z = self.out(torch.cat([a, b], dim=1)).squeeze(1)
            return z + (self.psqt(us) - self.psqt(them)).squeeze(1) / 2.0

    return Network()


def random_network(hidden: int, seed: int = 1) -> NNUEWeights:
    """An untrained network of the trained one's shapes and magnitudes (for timings and
    tests that need a network but not a good one)."""
    rng = np.random.default_rng(seed)
    return NNUEWeights(
        ft_weight=rng.integers(-40, 40, size=(INPUTS, hidden)).astype(np.int16),
        ft_bias=rng.integers(0, QA, size=hidden).astype(np.int16),
        psqt=rng.integers(-600, 600, size=INPUTS).astype(np.int16),
        out_weight=rng.normal(0.0, 0.1, size=2 * hidden).astype(np.float32),
        out_bias=0.0,
    )


def quantise(net: Any, command: str = "", meta: dict[str, Any] | None = None) -> NNUEWeights:
    """The float network as the weights file stores it (:mod:`engine.eval.nnue_weights`)."""
    ft = net.ft.weight.detach().numpy()[:INPUTS]
    limit = 32767
    return NNUEWeights(
        ft_weight=np.clip(np.rint(ft * QA), -limit, limit).astype(np.int16),
        ft_bias=np.clip(np.rint(net.ft_bias.detach().numpy() * QA), -limit, limit).astype(np.int16),
        psqt=np.clip(
            np.rint(net.psqt.weight.detach().numpy()[:INPUTS, 0] * QP), -limit, limit
        ).astype(np.int16),
        out_weight=net.out.weight.detach().numpy()[0].astype(np.float32),
        out_bias=float(net.out.bias.detach().numpy()[0]),
        qa=QA,
        qp=QP,
        command=command,
        meta=dict(meta or {}),
    )


def fit(
    records: np.ndarray,
    config: FitConfig,
    progress: Callable[[str, int, int], None] | None = None,
    command: str = "",
    meta: dict[str, Any] | None = None,
    start: NNUEWeights | None = None,
) -> FitResult:
    """Train a network on ``records`` (:data:`engine.learn.nnue_data.RECORD` rows), from
    ``start`` (a network of the same size) or from scratch. With games held out, the
    network returned is the epoch's with the lowest held-out loss (early stopping: past
    it the network learns the training games, not chess)."""
    config.check()
    if len(records) < 2:
        raise FitError(f"{len(records)} positions are too few to train on")
    torch = torch_module()
    torch.set_num_threads(max(1, config.threads))
    started = time.monotonic()
    us, them, target = tensors(records, config.lam)
    rng = np.random.default_rng(config.seed)
    # Held out by game, not by position: positions of one game are alike, and a position
    # held out beside its neighbours in training would flatter the fit.
    if config.holdout:
        out = records["game"].astype(np.int64) % config.holdout == config.holdout - 1
    else:
        out = np.zeros(len(records), dtype=bool)
    held, train = np.flatnonzero(out), np.flatnonzero(~out)
    if len(train) == 0:
        raise FitError("every position is held out: too few games to train on")
    t_us, t_them, t_target = (torch.from_numpy(a) for a in (us, them, target))
    net = _model(torch, config.hidden, config.seed)
    if start is not None:
        if start.hidden != config.hidden:
            raise FitError(
                f"the start network has {start.hidden} hidden units, not {config.hidden}"
            )
        _load_start(torch, net, start)
    optimiser = torch.optim.Adam(net.parameters(), lr=config.lr)
    steps = config.epochs * math.ceil(len(train) / config.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=config.lr, total_steps=max(1, steps), pct_start=0.1
    )
    result = FitResult(weights=quantise(net))
    best_state: dict[str, Any] = {}

    def loss_of(rows: np.ndarray) -> float:
        if len(rows) == 0:
            return float("nan")
        total = 0.0
        with torch.no_grad():
            for lo in range(0, len(rows), 65536):
                idx = torch.from_numpy(rows[lo : lo + 65536])
                p = torch.sigmoid(net(t_us[idx], t_them[idx]))
                total += float(((p - t_target[idx]) ** 2).sum())
        return total / len(rows)

    for epoch in range(config.epochs):
        perm = torch.from_numpy(rng.permutation(train))
        running = 0.0
        net.train()
        for lo in range(0, len(perm), config.batch):
            idx = perm[lo : lo + config.batch]
            p = torch.sigmoid(net(t_us[idx], t_them[idx]))
            loss = ((p - t_target[idx]) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            with torch.no_grad():
                net.ft.weight[PAD].zero_()
                net.psqt.weight[PAD].zero_()
            running += float(loss.detach()) * len(idx)
        net.eval()
        result.train_loss.append(running / max(1, len(train)))
        if len(held):
            result.held_loss.append(loss_of(held))
            if result.held_loss[-1] <= min(result.held_loss):
                best_state = {k: v.clone() for k, v in net.state_dict().items()}
                result.best_epoch = epoch + 1
        if progress:
            progress("epochs", epoch + 1, config.epochs)
    if result.best_epoch:
        net.load_state_dict(best_state)
    result.seconds = time.monotonic() - started
    result.positions = len(records)
    info = dict(meta or {})
    info.update(
        hidden=config.hidden, epochs=config.epochs, lam=config.lam, lr=config.lr,
        batch=config.batch, seed=config.seed, positions=len(records),
        train_loss=[round(x, 6) for x in result.train_loss],
        held_loss=[round(x, 6) for x in result.held_loss],
        best_epoch=result.best_epoch,
        fit_seconds=round(result.seconds, 1),
    )  # fmt: skip
    result.weights = quantise(net, command, info)
    return result
