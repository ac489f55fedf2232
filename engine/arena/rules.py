"""What a class arena allows: the game, the think time, the algorithms and parameters.

A teacher sets the rules once; every bot a student enters is checked against them
(:meth:`ArenaRules.validate_bot`). The parameters a class may change are the *free*
ones, so a tournament answers one question ("does a larger ``c`` win?"): every other
parameter stays at its default, and a bot that sends one is refused with the
parameter's name rather than silently reset.

Refusals are :class:`ArenaError` with a ``code`` the server sends unchanged
(``bad_request``, ``bad_name``, ``algorithm_not_allowed``, ``bad_params``,
``param_locked``) and a message that names the field or the limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import CanopyError
from engine.play.game import _fmt as format_value  # a parameter value as a game's PGN writes it
from engine.rules.games import get_game
from engine.search.registry import ALGORITHMS, get_algorithm

FORMATS = ("round-robin", "swiss")
#: A game still going after this many plies (counted from the standard start) is a draw.
DEFAULT_MAX_PLIES = {"chess": 300, "knight": 200}
MAX_NAME = 40
#: Limits of the rules a teacher sets: a class period holds a few hundred short games.
MOVETIME_MS = (10, 60_000)
ITERATIONS = (1, 1_000_000)
ROUNDS = (1, 50)
MAX_PLIES = (10, 1000)  # the book openings are 6 to 8 plies long


class ArenaError(CanopyError):
    """An arena's rules or a bot that cannot be accepted; ``code`` says which refusal."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _whole(name: str, value: object, limits: tuple[int, int]) -> int:
    """``value`` as a whole number within ``limits``, or ArenaError naming ``name``."""
    low, high = limits
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ArenaError(
            "bad_request", f"{name} must be a whole number from {low} to {high}; got {value!r}"
        )
    return value


@dataclass(frozen=True)
class ArenaRules:
    """An arena's rules, checked and completed on construction (ArenaError otherwise).

    ``algorithms`` empty means every registered algorithm; an allowed algorithm missing
    from ``free`` has every parameter free (after construction each has its entry);
    ``max_plies`` 0 (or None) means the game's default.
    """

    game: str
    movetime_ms: int | None = None
    iterations: int | None = None
    algorithms: tuple[str, ...] = ()
    free: dict[str, tuple[str, ...]] = field(default_factory=dict)
    format: str = "round-robin"
    rounds: int = 1
    max_plies: int = 0

    def __post_init__(self) -> None:
        try:
            game = get_game(self.game).name if isinstance(self.game, str) else ""
        except CanopyError:
            game = ""
        if not game:
            raise ArenaError("bad_request", f"game must be chess or knight; got {self.game!r}")
        if (self.movetime_ms is None) == (self.iterations is None):
            raise ArenaError("bad_request", "give exactly one of movetime_ms and iterations")
        if self.movetime_ms is not None:
            _whole("movetime_ms", self.movetime_ms, MOVETIME_MS)
        if self.iterations is not None:
            _whole("iterations", self.iterations, ITERATIONS)
        if self.format not in FORMATS:
            raise ArenaError(
                "bad_request", f"format must be one of {', '.join(FORMATS)}; got {self.format!r}"
            )
        _whole("rounds", self.rounds, ROUNDS)
        max_plies = self.max_plies or DEFAULT_MAX_PLIES[game]
        _whole("max_plies", max_plies, MAX_PLIES)
        algorithms = self._algorithms()
        object.__setattr__(self, "game", game)
        object.__setattr__(self, "algorithms", algorithms)
        object.__setattr__(self, "free", self._free(algorithms))
        object.__setattr__(self, "max_plies", max_plies)

    def _algorithms(self) -> tuple[str, ...]:
        given = self.algorithms or ()  # None (JSON's null): every algorithm
        if isinstance(given, str) or not all(isinstance(a, str) for a in given):
            raise ArenaError("bad_request", "algorithms must be a list of algorithm names")
        if not given:
            return tuple(ALGORITHMS)
        unknown = [a for a in given if a not in ALGORITHMS]
        if unknown:
            raise ArenaError(
                "bad_request",
                f"algorithms: unknown algorithm {unknown[0]!r}; known: {', '.join(ALGORITHMS)}",
            )
        return tuple(dict.fromkeys(given))  # order kept, repeats dropped

    def _free(self, algorithms: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        given = self.free
        if given is None:  # JSON's null: the default
            given = {}
        if not isinstance(given, dict):
            raise ArenaError("bad_request", "free must map algorithm names to parameter lists")
        out: dict[str, tuple[str, ...]] = {}
        for name in algorithms:
            names = tuple(spec.name for spec in get_algorithm(name).params)
            if name not in given:
                out[name] = names
                continue
            chosen = given[name]
            if isinstance(chosen, str) or not all(isinstance(p, str) for p in chosen):
                raise ArenaError("bad_request", f"free.{name} must be a list of parameter names")
            unknown = [p for p in chosen if p not in names]
            if unknown:
                raise ArenaError(
                    "bad_request",
                    f"free.{name}: unknown parameter {unknown[0]!r}; allowed: {', '.join(names)}",
                )
            out[name] = tuple(p for p in names if p in chosen)  # the algorithm's order
        strays = [a for a in given if a not in algorithms]
        if strays:
            raise ArenaError("bad_request", f"free names {strays[0]!r}, which is not allowed")
        return out

    def validate_bot(
        self, name: str, algorithm: str, params: dict[str, Any] | None
    ) -> tuple[str, str, dict[str, Any]]:
        """(clean name, algorithm, full params with defaults) or ArenaError (module doc)."""
        clean = clean_name(name)
        if not isinstance(algorithm, str) or algorithm not in self.algorithms:
            raise ArenaError(
                "algorithm_not_allowed",
                f"algorithm {algorithm!r} is not allowed here; allowed: "
                f"{', '.join(self.algorithms)}",
            )
        if params is not None and not isinstance(params, dict):
            raise ArenaError("bad_params", "params must be an object of parameter values")
        try:
            full = get_algorithm(algorithm).validate(params, self.game)
        except CanopyError as exc:
            raise ArenaError("bad_params", str(exc)) from None
        free = self.free[algorithm]
        locked = [p for p in params or {} if p not in free]
        if locked:
            raise ArenaError(
                "param_locked",
                f"parameter {locked[0]!r} of {algorithm} is fixed in this arena; "
                f"free: {', '.join(free) or 'none'}",
            )
        return clean, algorithm, full


def clean_name(name: object) -> str:
    """A bot's name stripped, 1..40 printable characters, or ArenaError ``bad_name``."""
    clean = name.strip() if isinstance(name, str) else ""
    if not 1 <= len(clean) <= MAX_NAME or not clean.isprintable():
        raise ArenaError(
            "bad_name", f"name must be 1 to {MAX_NAME} printable characters; got {name!r}"
        )
    return clean


def default_params(algorithm: str, game: str) -> dict[str, Any]:
    """Every parameter of ``algorithm`` at its default for ``game``."""
    return get_algorithm(algorithm).validate(None, get_game(game).name)


@dataclass(frozen=True)
class Bot:
    """A student's entry: a name, an algorithm and its complete parameters."""

    id: str
    name: str
    algorithm: str
    params: dict[str, Any] = field(default_factory=dict)

    def changed(self, game: str = "chess") -> dict[str, Any]:
        """The parameters that differ from the algorithm's defaults in ``game``."""
        defaults = default_params(self.algorithm, game)
        return {k: v for k, v in self.params.items() if defaults.get(k, object()) != v}

    def engine(self, game: str = "chess") -> str:
        """The algorithm and its changed parameters: ``uct c=0.7 policy=random``."""
        parts = [self.algorithm]
        parts += [f"{k}={format_value(v)}" for k, v in self.changed(game).items()]
        return " ".join(parts)

    def label(self, game: str = "chess") -> str:
        """``Ada (uct c=0.7)``: the name and :meth:`engine`."""
        return f"{self.name} ({self.engine(game)})"
