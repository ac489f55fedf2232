"""Engine SPECs: how ``canopy match --engine`` names a player.

Two forms::

    ALGO[:KEY=VALUE[,KEY=VALUE...]]           one of Canopy's algorithms
    uci:COMMAND[:OPTION=VALUE[,OPTION=VALUE...]]  any UCI engine

``ALGO`` is ``uct``, ``uct-minimax``, ``bfms`` or ``alphabeta``. Its keys are
the algorithm's parameters (``c``, ``policy``, ``C``, ``max_depth`` ...,
checked against their ranges for the game) plus these runner keys:

* ``threads`` — root-parallel threads (MCTS only);
* ``iterations`` (or ``nodes``) — a fixed budget per move instead of the
  match's time (MCTS: iterations in total over the threads; alphabeta: nodes);
* ``movetime`` — this engine's own time per move in ms; ``depth`` — a depth cap;
* ``seed`` — a fixed seed (default: a different seed every game);
* ``hash`` (alphabeta's table, MB) and ``node_budget`` (MCTS tree nodes);
* ``name`` — the name in the PGN and the tables (default: the SPEC itself);
* ``nnue`` — a weights file for ``eval=nnue`` instead of the shipped network (so two
  networks can play each other: ``alphabeta:eval=nnue,nnue=gen-002/nnue.npz``).

Our engines run as ``python -m canopy uci`` child processes, exactly as a GUI
would run them, so every match also exercises the UCI engine.

For ``uci:`` the COMMAND is split like a shell line (``uci:python3 -m canopy uci``
works) and must not contain ``:``; each ``OPTION=VALUE`` is sent as
``setoption`` in the order given (so ``VariantPath`` can precede the
``UCI_Variant`` the runner sets), except the runner keys ``name``,
``movetime``, ``nodes`` and ``depth``. Values cannot contain ``,``.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import CanopyError
from engine.search.registry import ALGORITHMS, get_algorithm, validate_params, validate_threads

INTERNAL_KEYS = ("threads", "iterations", "nodes", "movetime", "depth", "seed", "hash",
                 "node_budget", "name", "nnue")  # fmt: skip
EXTERNAL_KEYS = ("name", "movetime", "nodes", "depth")


class SpecError(CanopyError):
    code = "bad_spec"


@dataclass(frozen=True)
class Limits:
    """Per-engine overrides of the match's time control (None: use the match's)."""

    movetime: int | None = None
    nodes: int | None = None
    depth: int | None = None

    def go(self) -> str | None:
        """A ``go`` command for a fixed budget, or None when the clock decides."""
        parts = []
        if self.nodes:
            parts.append(f"nodes {self.nodes}")
        if self.depth:
            parts.append(f"depth {self.depth}")
        if self.movetime:
            parts.append(f"movetime {self.movetime}")
        return "go " + " ".join(parts) if parts else None


@dataclass(frozen=True)
class EngineSpec:
    text: str
    name: str
    argv: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    limits: Limits = field(default_factory=Limits)
    internal: bool = False
    threads: int = 1
    fixed_seed: bool = False
    # set in the engine process's environment (None: removed from it)
    env: tuple[tuple[str, str | None], ...] = ()


def _pairs(text: str, what: str) -> list[tuple[str, str]]:
    pairs = []
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SpecError(f"{what}: expected KEY=VALUE, got {item!r}")
        pairs.append((key.strip(), value.strip()))
    return pairs


def _positive(key: str, value: str, spec: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise SpecError(f"engine {spec!r}: {key} must be a whole number, got {value!r}") from None
    if number <= 0:
        raise SpecError(f"engine {spec!r}: {key} must be positive, got {number}")
    return number


def parse_spec(text: str, game: str = "chess") -> EngineSpec:
    """The :class:`EngineSpec` for ``text``; SpecError (exit status 2) when malformed."""
    text = text.strip()
    if not text:
        raise SpecError("empty engine SPEC")
    if text.startswith("uci:"):
        return _external(text)
    head, _, rest = text.partition(":")
    if head not in ALGORITHMS:
        known = ", ".join(ALGORITHMS)
        raise SpecError(
            f"engine {text!r}: unknown algorithm {head!r} (known: {known}; "
            "or uci:COMMAND for an external engine)"
        )
    return _internal(text, head, _pairs(rest, f"engine {text!r}"), game)


def _internal(text: str, algorithm: str, pairs: list[tuple[str, str]], game: str) -> EngineSpec:
    keys = {k: v for k, v in pairs if k in INTERNAL_KEYS}
    params = {k: v for k, v in pairs if k not in INTERNAL_KEYS}
    env = _network(text, keys.get("nnue"), params)
    checked = {k: v for k, v in params.items() if not (env and k == "eval")}
    validated = validate_params(algorithm, checked, game)  # raises with the allowed range
    if env:
        validated["eval"] = "nnue"
    threads = _positive("threads", keys["threads"], text) if "threads" in keys else 1
    validate_threads(algorithm, threads)
    options: list[tuple[str, str]] = [("Algorithm", algorithm), ("Threads", str(threads))]
    for key in params:
        value = validated[key]
        options.append((f"{algorithm}.{key}", str(value).lower() if isinstance(value, bool) else
                        f"{value:g}" if isinstance(value, float) else str(value)))  # fmt: skip
    if "hash" in keys:
        options.append(("Hash", str(_positive("hash", keys["hash"], text))))
    if "node_budget" in keys:
        options.append(("NodeBudget", str(_positive("node_budget", keys["node_budget"], text))))
    if "seed" in keys:
        try:
            seed = int(keys["seed"])
        except ValueError:
            raise SpecError(f"engine {text!r}: seed must be a whole number") from None
        options.append(("Seed", str(seed)))
    nodes = keys.get("iterations") or keys.get("nodes")
    limits = Limits(
        movetime=_positive("movetime", keys["movetime"], text) if "movetime" in keys else None,
        nodes=_positive("iterations", nodes, text) if nodes else None,
        depth=_positive("depth", keys["depth"], text) if "depth" in keys else None,
    )
    get_algorithm(algorithm)
    return EngineSpec(
        text=text,
        name=keys.get("name") or text,
        argv=(sys.executable, "-m", "canopy", "uci"),
        options=tuple(options),
        limits=limits,
        internal=True,
        threads=threads,
        fixed_seed="seed" in keys,
        env=env,
    )


def _network(
    text: str, path: str | None, params: dict[str, str]
) -> tuple[tuple[str, str | None], ...]:
    """The environment that gives the engine the NNUE file ``path`` (checked here, so a bad
    file is refused before any game) and a kernel cache of its own, or none."""
    if path is None:
        return ()
    from engine import weights_cache_environment
    from engine.eval.nnue_weights import ENV_VAR, NNUEWeightsError, load

    if params.get("eval") != "nnue":
        raise SpecError(f"engine {text!r}: nnue=FILE is for eval=nnue; add eval=nnue")
    try:
        load(Path(path))
    except NNUEWeightsError as exc:
        raise SpecError(f"engine {text!r}: {exc}") from None
    cache = weights_cache_environment(Path(path))
    return ((ENV_VAR, str(Path(path).resolve())), *cache.items())


def _external(text: str) -> EngineSpec:
    body = text[4:]
    command, _, rest = body.partition(":")
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise SpecError(f"engine {text!r}: bad command: {exc}") from None
    if not argv:
        raise SpecError(f"engine {text!r}: uci: needs a command")
    pairs = _pairs(rest, f"engine {text!r}")
    keys = {k: v for k, v in pairs if k in EXTERNAL_KEYS}
    options = tuple((k, v) for k, v in pairs if k not in EXTERNAL_KEYS)
    threads = 1
    for key, value in options:
        if key.lower() == "threads":
            threads = _positive("Threads", value, text)
    limits = Limits(
        movetime=_positive("movetime", keys["movetime"], text) if "movetime" in keys else None,
        nodes=_positive("nodes", keys["nodes"], text) if "nodes" in keys else None,
        depth=_positive("depth", keys["depth"], text) if "depth" in keys else None,
    )
    return EngineSpec(
        text=text,
        name=keys.get("name") or text,
        argv=tuple(argv),
        options=options,
        limits=limits,
        internal=False,
        threads=threads,
    )
