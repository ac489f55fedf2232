"""Parameter specifications and validation, shared by every algorithm.

Each parameter is declared once with its type, default, range and meaning;
``/api/algorithms``, ``canopy search --param``, UCI options and the app's
settings form all read these declarations, and every value entering a
search goes through :func:`validate` (clear error naming the field and the
allowed range).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine.errors import InvalidParameterError


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: str  # "float", "int", "choice" or "bool"
    default: Any
    description: str
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = ()
    game_defaults: dict[str, Any] = field(default_factory=dict)  # e.g. {"knight": "capture_first"}

    def default_for(self, game: str) -> Any:
        return self.game_defaults.get(game, self.default)

    def describe(self, game: str) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "default": self.default_for(game),
            "min": self.min,
            "max": self.max,
            "choices": list(self.choices) or None,
            "description": self.description,
        }

    def coerce(self, value: Any) -> Any:
        """The value converted to this parameter's type, or InvalidParameterError."""
        where = f"parameter {self.name!r}"
        if self.type == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise InvalidParameterError(
                    f"{where} must be one of {', '.join(self.choices)}; got {value!r}"
                )
            return value
        if self.type == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
                return value.lower() in ("true", "1", "yes")
            raise InvalidParameterError(f"{where} must be true or false; got {value!r}")
        try:
            if isinstance(value, bool):
                raise TypeError
            number: float = float(value) if self.type == "float" else _as_int(value)
        except (TypeError, ValueError):
            kind = "a number" if self.type == "float" else "a whole number"
            raise InvalidParameterError(f"{where} must be {kind}; got {value!r}") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise InvalidParameterError(f"{where} must be a finite number; got {value!r}")
        if (self.min is not None and number < self.min) or (
            self.max is not None and number > self.max
        ):
            raise InvalidParameterError(
                f"{where} must be between {self.min:g} and {self.max:g}; got {value!r}"
            )
        return number


def _as_int(value: Any) -> int:
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError
        return int(value)
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, int):
        return value
    raise TypeError


#: ``eval``: which static evaluation the search calls. Every algorithm that evaluates
#: positions gets it from :class:`engine.search.algorithm.Algorithm` (declared here, once);
#: the controller writes the choice into the root state (``engine.core.state.EVAL``).
EVAL_PARAM = ParamSpec(
    "eval",
    "choice",
    "hand",
    "static evaluation: hand (the hand-made features, fitted by Texel's method) or "
    "learned (a network trained by self-play: knight chess an N-tuple network, chess a "
    "small network on the hand features; docs/learning.md) or scaled (chess: the hand "
    "evaluation with leads scaled down in drawish endings and as the fifty-move clock runs; "
    "docs/algorithms.md) or nnue (chess: a network over the pieces on their squares, "
    "trained on Canopy's own games, updated incrementally as moves are made; "
    "docs/learning.md)",
    choices=("hand", "learned", "scaled", "nnue"),
)


def eval_param(**game_defaults: str) -> ParamSpec:
    """:data:`EVAL_PARAM` with the learned evaluation as the default in some games — for the
    algorithms where a measurement chose it (docs/learning.md); an algorithm that declares
    it keeps it instead of the shared one."""
    return replace(EVAL_PARAM, game_defaults=dict(game_defaults))


def validate(
    specs: tuple[ParamSpec, ...], given: dict[str, Any] | None, game: str, algorithm: str
) -> dict[str, Any]:
    """Full parameter dict: defaults for ``game`` overridden by ``given``, all checked."""
    known = {spec.name: spec for spec in specs}
    out = {spec.name: spec.default_for(game) for spec in specs}
    for name, value in (given or {}).items():
        if name not in known:
            allowed = ", ".join(known) or "none"
            raise InvalidParameterError(
                f"unknown parameter {name!r} for {algorithm}; allowed: {allowed}"
            )
        out[name] = known[name].coerce(value)
    if out.get(EVAL_PARAM.name) == "learned":
        from engine.eval.learned_weights import shipped

        weights, why = shipped(game)
        if weights is None:
            if EVAL_PARAM.name in (given or {}):
                raise InvalidParameterError(f"parameter 'eval' cannot be learned: {why}")
            # Only a default asked for it: the hand evaluation, which needs no file, serves.
            out[EVAL_PARAM.name] = "hand"
    if out.get(EVAL_PARAM.name) == "nnue":
        from engine.eval.nnue_weights import shipped as nnue_shipped

        net, why = nnue_shipped()
        if net is None or game != "chess":
            if EVAL_PARAM.name in (given or {}):
                reason = why if net is None else f"the network is for chess, not {game}"
                raise InvalidParameterError(f"parameter 'eval' cannot be nnue: {reason}")
            out[EVAL_PARAM.name] = "hand"  # a default only: as for learned above
    return out


def kernel_record(dtype: np.dtype, **fields: Any) -> np.record:
    """One record of ``dtype`` (a numba record: the kernel reads ``kp.c``, never a slot
    number) with every field set by name. A field left out would be a silent zero in the
    kernel, so every one must be given."""
    names = set(dtype.names or ())
    if set(fields) != names:
        raise ValueError(f"kernel record fields {sorted(names)}; given {sorted(fields)}")
    record = np.zeros(1, dtype=dtype).view(np.recarray)[0]
    for name, value in fields.items():
        record[name] = value
    return record
