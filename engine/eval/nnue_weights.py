"""The NNUE's weights file: format, loading with clear errors, saving.

The network (:mod:`engine.eval.nnue`) is stored quantised, as the search reads it: the
feature transformer in 16-bit integers (so the accumulators are exact 32-bit sums and an
incrementally updated accumulator equals a fresh one bit for bit), the output layer in
float32 (the kernels round it to multiples of 2^-16 so that its sum, too, is exact).
``engine/data/eval/nnue-chess.npz`` (plain arrays, no pickle):

=========== =============== ============================================================
key         shape / type    meaning
=========== =============== ============================================================
version     int             :data:`FORMAT_VERSION`
game        str             ``"chess"``
kind        str             ``"nnue"``
inputs      int             768: colour (own, enemy) × piece type × square, own view
ft_weight   (768, H) int16  the feature transformer: a column per input, × ``qa``
ft_bias     (H,) int16      its bias, × ``qa``
psqt        (768,) int16    a direct piece-square term per input, × ``qp`` (logits)
out_weight  (2 H,) float32  the output layer over (own, enemy) clipped accumulators
out_bias    () float32      its bias (logits)
qa          int             the accumulator's scale: an activation of 1.0 reads ``qa``
qp          int             the piece-square term's scale
command     str             the command that trained it
meta        str             JSON: its provenance — data, seed, generations, positions,
                            losses, gating matches
=========== =============== ============================================================

``CANOPY_NNUE_WEIGHTS`` names another file to use instead (training's candidate networks
play in their own processes that way); ``engine/__init__.py`` hashes it into the numba
cache directory's name, because the arrays are baked into the kernels as constants.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import CanopyError
from engine.files import provenance, read_npz, write_atomic

FORMAT_VERSION = 1
KIND = "nnue"
INPUTS = 768
MAX_HIDDEN = 1024
#: Far beyond any trained network's, and small enough that the kernels' integer output
#: sum (weights × 2^16, 2 × 1024 units, activations up to 1024) cannot overflow.
MAX_OUT_WEIGHT = 1e4
ENV_VAR = "CANOPY_NNUE_WEIGHTS"
DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "eval"
SHIPPED = DATA_DIR / "nnue-chess.npz"
NEEDED = ("version", "game", "kind", "inputs", "ft_weight", "ft_bias", "psqt",
          "out_weight", "out_bias", "qa", "qp")  # fmt: skip
FIX = "train one with `canopy train --game chess --model nnue` (docs/learning.md)"


class NNUEWeightsError(CanopyError):
    """A weights file that cannot be used: missing, unreadable, another format or shape."""

    code = "bad_weights"


@dataclass(frozen=True)
class NNUEWeights:
    ft_weight: np.ndarray  # (768, H) int16
    ft_bias: np.ndarray  # (H,) int16
    psqt: np.ndarray  # (768,) int16
    out_weight: np.ndarray  # (2H,) float32
    out_bias: float
    qa: int = 255
    qp: int = 512
    command: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def hidden(self) -> int:
        return int(self.ft_weight.shape[1])

    @property
    def parameters(self) -> int:
        return int(self.ft_weight.size + self.ft_bias.size + self.psqt.size
                   + self.out_weight.size + 1)  # fmt: skip

    @property
    def digest(self) -> str:
        h = hashlib.sha1()
        for a in (self.ft_weight, self.ft_bias, self.psqt, self.out_weight):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(np.float32(self.out_bias).tobytes())
        h.update(f"{self.qa},{self.qp}".encode())
        return h.hexdigest()[:16]


def _check(w: NNUEWeights, where: str) -> None:
    h = w.hidden
    want = {
        "ft_weight": (w.ft_weight, (INPUTS, h), np.int16),
        "ft_bias": (w.ft_bias, (h,), np.int16),
        "psqt": (w.psqt, (INPUTS,), np.int16),
        "out_weight": (w.out_weight, (2 * h,), np.float32),
    }
    if not 1 <= h <= MAX_HIDDEN:
        raise NNUEWeightsError(f"NNUE weights {where}: {h} hidden units, expected 1..{MAX_HIDDEN}")
    for name, (a, shape, dtype) in want.items():
        if a.shape != shape:
            raise NNUEWeightsError(
                f"NNUE weights {where}: {name} has shape {a.shape}, expected {shape}; {FIX}"
            )
        if a.dtype != dtype:
            raise NNUEWeightsError(
                f"NNUE weights {where}: {name} is {a.dtype}, expected {np.dtype(dtype)}; {FIX}"
            )
    if not all(np.isfinite(x).all() for x in (w.out_weight, np.float32(w.out_bias))):
        raise NNUEWeightsError(f"NNUE weights {where}: the output layer is not finite; {FIX}")
    if np.abs(w.out_weight).max(initial=0.0) > MAX_OUT_WEIGHT:
        raise NNUEWeightsError(
            f"NNUE weights {where}: an output weight beyond ±{MAX_OUT_WEIGHT:g} (the kernels "
            f"sum the output layer in 64-bit integers); {FIX}"
        )
    if not (1 <= w.qa <= 1024 and 1 <= w.qp <= 1 << 15):
        raise NNUEWeightsError(f"NNUE weights {where}: scales qa={w.qa}, qp={w.qp} out of range")


def save(path: Path, w: NNUEWeights) -> None:
    """Write ``w`` to ``path`` atomically (never half a file)."""
    _check(w, str(path))
    write_atomic(
        Path(path),
        lambda out: np.savez(
            out,
            version=np.array(FORMAT_VERSION),
            game=np.array("chess"),
            kind=np.array(KIND),
            inputs=np.array(INPUTS),
            ft_weight=w.ft_weight,
            ft_bias=w.ft_bias,
            psqt=w.psqt,
            out_weight=w.out_weight,
            out_bias=np.array(w.out_bias, dtype=np.float32),
            qa=np.array(w.qa),
            qp=np.array(w.qp),
            command=np.array(w.command),
            meta=np.array(json.dumps(w.meta, sort_keys=True)),
        ),
    )


def load(path: Path) -> NNUEWeights:
    """The network in ``path``; :class:`NNUEWeightsError` naming the file and the problem
    (missing, unreadable, not an NNUE file, another version, a wrong shape or type)."""
    arrays = read_npz(Path(path), ("kind",), "NNUE weights", FIX, NNUEWeightsError)
    if str(arrays["kind"]) != KIND:
        raise NNUEWeightsError(f"{path} holds a {str(arrays['kind'])!r} model, not an NNUE; {FIX}")
    missing = [key for key in NEEDED if key not in arrays]
    if missing:
        raise NNUEWeightsError(f"NNUE weights file {path} lacks {missing}; {FIX}")
    scalars = ("version", "game", "kind", "inputs", "out_bias", "qa", "qp")
    bad = [k for k in scalars if arrays[k].shape != ()]
    if bad:
        raise NNUEWeightsError(f"NNUE weights file {path}: {bad} must be single values; {FIX}")
    if str(arrays["kind"]) != KIND:
        raise NNUEWeightsError(f"{path} holds a {str(arrays['kind'])!r} model, not an NNUE; {FIX}")
    if int(arrays["version"]) != FORMAT_VERSION:
        raise NNUEWeightsError(
            f"NNUE weights file {path} has format version {int(arrays['version'])}; this "
            f"Canopy reads version {FORMAT_VERSION}; {FIX}"
        )
    if str(arrays["game"]) != "chess" or int(arrays["inputs"]) != INPUTS:
        raise NNUEWeightsError(
            f"NNUE weights file {path} is for {str(arrays['game'])!r} with "
            f"{int(arrays['inputs'])} inputs; expected 'chess' with {INPUTS}; {FIX}"
        )
    command, meta = provenance(arrays)
    w = NNUEWeights(
        ft_weight=arrays["ft_weight"], ft_bias=arrays["ft_bias"], psqt=arrays["psqt"],
        out_weight=arrays["out_weight"], out_bias=float(arrays["out_bias"]),
        qa=int(arrays["qa"]), qp=int(arrays["qp"]),
        command=command, meta=meta,
    )  # fmt: skip
    _check(w, f"file {path}")
    return w


def active_path() -> Path:
    """``$CANOPY_NNUE_WEIGHTS`` when set, else the shipped network."""
    override = os.environ.get(ENV_VAR)
    return Path(override) if override else SHIPPED


@functools.cache
def shipped() -> tuple[NNUEWeights | None, str]:
    """``(weights, "")`` loaded once; ``(None, why)`` when there is no usable network
    (every other evaluation works regardless)."""
    try:
        return load(active_path()), ""
    except NNUEWeightsError as exc:
        return None, str(exc)


def require() -> NNUEWeights:
    """The loaded network, or :class:`NNUEWeightsError` saying why there is none."""
    weights, why = shipped()
    if weights is None:
        raise NNUEWeightsError(f"eval=nnue is unavailable: {why}")
    return weights
