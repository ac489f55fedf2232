"""Immutable snapshots of a search: the only thing that crosses into ``app/``.

Points of view (pinned by tests):

* ``MoveStats.q``      expected score in [0, 1] for the side to move at the root
                       (the side that makes that root move).
* ``MoveStats.eval``   evaluation in [-1, 1] (or a mate score, |x| > 1) for that
                       same side: the static eval of the position after the move
                       for ``uct``/``uct-minimax``, the backed-up negamax value for
                       ``bfms``, the alpha-beta score for ``alphabeta``.
* ``MoveStats.score``  the number the algorithm selects by right now: UCB1 for
                       ``uct``/``uct-minimax``, eval + exploration for ``bfms``,
                       the search score for ``alphabeta``.
* ``MoveStats.proof``  the move's proven value for that same side: 1 win, -1 loss,
                       2 draw, 0 not proven; ``MoveStats.mate`` the plies to the end
                       of a proven win or loss when known (``score mate`` in UCI).
* ``TreeNodeInfo.q``   expected score for the side that made the move into that
                       node; ``q_white`` is the same number for White.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class MoveStats:
    move: str  # UCI
    san: str
    visits: int
    share: float  # visits / sum of root visits, in [0, 1]
    q: float  # expected score in [0, 1] for the side to move at the root
    score: float  # what the selection rule ranks by now (UCB1, eval+U, or the AB score)
    eval: float  # [-1, 1] or a mate score, for the side to move at the root
    prior: float | None = None
    pv: tuple[str, ...] = ()  # UCI moves starting with ``move``
    pv_san: tuple[str, ...] = ()
    bound: str = "exact"  # alphabeta: "exact", "upper" (fail-low) or "lower"
    proof: int = 0  # proven for the side to move at the root: 1 win, -1 loss, 2 draw; 0 not
    mate: int | None = None  # plies to the end of a proven win or loss, when known


@dataclass(frozen=True)
class ThreadStats:
    """One root-parallel tree's own root statistics, before the merge."""

    thread: int
    iterations: int
    nodes: int
    moves: tuple[MoveStats, ...]


@dataclass(frozen=True)
class TreeNodeInfo:
    id: int  # stable within one snapshot; the root is 0
    parent: int  # -1 for the root
    move: str  # UCI of the move into this node ("" for the root)
    san: str
    depth: int
    visits: int
    q: float  # for the side that made the move into this node, in [0, 1]
    q_white: float
    value: float  # bfms backed-up value / eval, same point of view as ``q``
    terminal: bool
    children: int  # children in the real tree (some may be cut from the snapshot)


@dataclass(frozen=True)
class SearchInfo:
    algorithm: str
    game: str
    fen: str  # the root position
    turn: str  # "white" or "black": side to move at the root
    params: dict[str, Any]
    threads: int
    seed: int
    iterations: int
    nodes: int
    elapsed_ms: float
    nps: float  # iterations per second (alphabeta: nodes per second)
    max_depth: int
    mean_depth: float
    memory_bytes: int
    bytes_per_node: float
    moves: tuple[MoveStats, ...]  # sorted best first by the final-choice rule
    bestmove: str | None
    pv: tuple[str, ...]
    pv_san: tuple[str, ...]
    thread_stats: tuple[ThreadStats, ...] = ()
    tree: tuple[TreeNodeInfo, ...] = ()
    running: bool = False
    stop_reason: str | None = None  # "iterations", "time", "nodes", "terminal", "proven", ...
    depth: int = 0  # alphabeta: last completed iteration; MCTS: max tree depth
    depth_histogram: tuple[int, ...] = ()  # tree nodes at each depth (all threads' trees)
    branching_factor: float = 0.0  # mean children per expanded node
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, *, tree: bool = True) -> dict[str, Any]:
        out = asdict(self)
        if not tree:
            out.pop("tree")
        return out
