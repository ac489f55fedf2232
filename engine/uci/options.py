"""The engine's UCI options, generated from the algorithm registry.

Every algorithm parameter becomes one option named ``<algorithm>.<parameter>``
(``uct.c``, ``bfms.C``, ``alphabeta.max_depth``): UCI option names are
case-insensitive, and ``uct.c`` and ``bfms.C`` would collide without the
prefix. Types follow the parameter: ``spin`` for whole numbers, ``check`` for
booleans, ``combo`` for choices and ``string`` for real numbers (UCI has no
real-valued type). A parameter whose default differs between chess and knight
chess (``uct.policy``) offers the value ``auto``, meaning "this game's
default", so a GUI that re-sends every default does not override it.

The fixed options: ``UCI_Variant`` (chess, knightchess), ``Algorithm``,
``Threads`` (root parallelism), ``Hash`` (alpha-beta's transposition table in
MB), ``NodeBudget`` (the MCTS algorithms' "hash": tree nodes per root-parallel
tree; the tree's arrays take 48 bytes per allocated node and grow by doubling,
so just after a growth step they hold up to about 96 bytes per node in use, and
never more than 48 bytes × ``NodeBudget`` per tree, as growth stops at the
budget), ``MultiPV``, ``Move Overhead``, ``Seed``,
``Ponder``, ``TreeReuse`` (keep the subtree of the moves played between two
searches) and the button ``Clear Hash``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.errors import CanopyError, InvalidParameterError
from engine.search.params import ParamSpec
from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM, MAX_THREADS

AUTO = "auto"
VARIANTS = ("chess", "knightchess")
MAX_HASH_MB = 1024  # alphabeta's hash_mb range
DEFAULT_NODE_BUDGET = 2_000_000
MAX_NODE_BUDGET = 50_000_000
# Parameters a fixed option already controls, whichever algorithm has them: a
# transposition table's size (alphabeta's) is ``Hash``.
HIDDEN_PARAMS = frozenset({"hash_mb"})


class UciOptionError(CanopyError):
    """A ``setoption`` naming an unknown option or giving a value it cannot take."""

    code = "bad_option"


@dataclass
class UciOption:
    """One option as announced by ``uci`` and set by ``setoption``."""

    name: str
    type: str  # check, spin, combo, string, button
    default: Any
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    algorithm: str | None = None  # set for algorithm parameters
    param: ParamSpec | None = None
    value: Any = None
    explicit: bool = False  # set by the GUI (not just the announced default)

    def __post_init__(self) -> None:
        self.value = self.default

    def announce(self) -> str:
        line = f"option name {self.name} type {self.type}"
        if self.type == "button":
            return line
        default = self.default
        if self.type == "check":
            default = "true" if default else "false"
        elif self.type == "string" and default == "":
            default = "<empty>"
        line += f" default {default}"
        if self.type == "spin":
            line += f" min {self.min} max {self.max}"
        for choice in self.choices:
            line += f" var {choice}"
        return line

    def parse(self, text: str) -> Any:
        """The value ``text`` stands for, or UciOptionError naming the allowed values."""
        text = text.strip()
        if self.type == "button":
            return True
        if self.type == "check":
            if text.lower() in ("true", "false"):
                return text.lower() == "true"
            raise UciOptionError(f"option {self.name} takes true or false, not {text!r}")
        if self.type == "spin":
            try:
                number = int(text)
            except ValueError:
                raise UciOptionError(
                    f"option {self.name} takes a whole number, not {text!r}"
                ) from None
            assert self.min is not None and self.max is not None
            if not self.min <= number <= self.max:
                raise UciOptionError(
                    f"option {self.name} must be between {self.min} and {self.max}, not {number}"
                )
            return number
        if self.type == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise UciOptionError(
                f"option {self.name} takes one of {', '.join(self.choices)}, not {text!r}"
            )
        # string: an algorithm's real-valued parameter is checked against its range now
        if self.param is not None:
            if text.lower() == AUTO and AUTO in self.choices:
                return AUTO
            try:
                return self.param.coerce(text)
            except InvalidParameterError as exc:
                raise UciOptionError(f"option {self.name}: {exc}") from None
        return text


def _param_option(algorithm: str, spec: ParamSpec) -> UciOption:
    name = f"{algorithm}.{spec.name}"
    per_game = {spec.default_for("chess"), spec.default_for("knight")}
    auto = len(per_game) > 1
    default: Any = AUTO if auto else spec.default
    if spec.type == "bool":
        return UciOption(name, "check", default, algorithm=algorithm, param=spec)
    if spec.type == "choice":
        choices = ((AUTO,) if auto else ()) + spec.choices
        return UciOption(name, "combo", default, choices=choices, algorithm=algorithm, param=spec)
    if spec.type == "int" and not auto:
        return UciOption(
            name,
            "spin",
            default,
            min=int(spec.min if spec.min is not None else -(2**31)),
            max=int(spec.max if spec.max is not None else 2**31 - 1),
            algorithm=algorithm,
            param=spec,
        )
    text_default = default if auto else f"{spec.default:g}"
    return UciOption(
        name,
        "string",
        text_default,
        choices=(AUTO,) if auto else (),
        algorithm=algorithm,
        param=spec,
    )


@dataclass
class OptionSet:
    """All options with their current values; names are matched case-insensitively."""

    options: dict[str, UciOption] = field(default_factory=dict)

    @classmethod
    def build(cls) -> OptionSet:
        fixed = [
            UciOption("UCI_Variant", "combo", "chess", choices=VARIANTS),
            UciOption("Algorithm", "combo", DEFAULT_ALGORITHM, choices=tuple(ALGORITHMS)),
            UciOption("Threads", "spin", 1, min=1, max=MAX_THREADS),
            UciOption("Hash", "spin", 16, min=1, max=MAX_HASH_MB),
            UciOption("NodeBudget", "spin", DEFAULT_NODE_BUDGET, min=1000, max=MAX_NODE_BUDGET),
            UciOption("Clear Hash", "button", None),
            UciOption("MultiPV", "spin", 1, min=1, max=16),
            UciOption("Move Overhead", "spin", 30, min=0, max=5000),
            UciOption("Seed", "spin", 0, min=0, max=2**31 - 1),
            UciOption("Ponder", "check", False),
            UciOption("TreeReuse", "check", True),
        ]
        params = [
            _param_option(name, spec)
            for name, algorithm in ALGORITHMS.items()
            for spec in algorithm.params
            if spec.name not in HIDDEN_PARAMS
        ]
        return cls({o.name.lower(): o for o in fixed + params})

    def __iter__(self) -> Iterator[UciOption]:
        return iter(self.options.values())

    def get(self, name: str) -> UciOption:
        try:
            return self.options[name.strip().lower()]
        except KeyError:
            raise UciOptionError(f"unknown option {name.strip()!r}") from None

    def __getitem__(self, name: str) -> Any:
        return self.get(name).value

    def set(self, name: str, text: str) -> UciOption:
        option = self.get(name)
        option.value = option.parse(text)
        option.explicit = True
        return option

    def params_for(self, algorithm: str) -> dict[str, Any]:
        """Parameters the GUI set for ``algorithm``; the rest (and ``auto``) take game defaults."""
        out: dict[str, Any] = {}
        for option in self.options.values():
            if option.algorithm != algorithm or option.param is None:
                continue
            if option.explicit and option.value != AUTO:
                out[option.param.name] = option.value
        return out
