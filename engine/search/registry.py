"""Algorithms registered by name: ``uct``, ``uct-minimax``, ``bfms``, ``alphabeta``, ``mcts``."""

from __future__ import annotations

from typing import Any

from engine.errors import InvalidParameterError, UnknownAlgorithmError
from engine.rules.games import get_game
from engine.search.algorithm import Algorithm
from engine.search.algorithms.alphabeta import AlphaBeta
from engine.search.algorithms.bfms import BFMS
from engine.search.algorithms.mcts import MCTS
from engine.search.algorithms.uct import UCT
from engine.search.algorithms.uct_minimax import UCTMinimax

ALGORITHMS: dict[str, type[Algorithm]] = {}
#: The opponent of a new game, ``canopy search`` and ``canopy uci`` when none is named:
#: the strongest MCTS (docs/results.md).
DEFAULT_ALGORITHM = "mcts"
MAX_THREADS = 64


def register(algorithm: type[Algorithm]) -> type[Algorithm]:
    ALGORITHMS[algorithm.name] = algorithm
    return algorithm


for _algorithm in (UCT, UCTMinimax, BFMS, AlphaBeta, MCTS):
    register(_algorithm)


def get_algorithm(name: str) -> type[Algorithm]:
    try:
        return ALGORITHMS[name]
    except (KeyError, TypeError):
        known = ", ".join(ALGORITHMS)
        raise UnknownAlgorithmError(f"unknown algorithm {name!r}; known: {known}") from None


def validate_params(algorithm: str, params: dict[str, Any] | None, game: str) -> dict[str, Any]:
    """Complete, checked parameters of ``algorithm`` for ``game`` (defaults filled in)."""
    return get_algorithm(algorithm).validate(params, get_game(game).name)


def validate_threads(algorithm: str, threads: Any) -> int:
    """Root-parallel thread count: 1..64 for MCTS algorithms, exactly 1 for alphabeta."""
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise InvalidParameterError(f"threads must be a whole number; got {threads!r}")
    if not 1 <= threads <= MAX_THREADS:
        raise InvalidParameterError(f"threads must be between 1 and {MAX_THREADS}; got {threads}")
    if threads > 1 and not get_algorithm(algorithm).mcts:
        raise InvalidParameterError(
            f"threads applies to the MCTS algorithms (root parallelism); {algorithm} takes 1"
        )
    return threads


def describe_algorithms(game: str = "chess") -> list[dict[str, Any]]:
    """Each algorithm with its parameters (name, type, default, min, max, choices, description)."""
    name = get_game(game).name
    out = []
    for algorithm in ALGORITHMS.values():
        entry = algorithm.describe(name)
        entry["threads"] = {"default": 1, "min": 1, "max": MAX_THREADS if algorithm.mcts else 1}
        entry["default"] = algorithm.name == DEFAULT_ALGORITHM
        out.append(entry)
    return out
