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

A game keeps each engine move's search as a few :class:`MoveStats` rows
(``engine.explain.summary``): :meth:`MoveStats.to_dict` and :meth:`MoveStats.from_dict`
are the shape it is stored and reviewed in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any


def _finite(x: float) -> float | None:
    """A number for JSON: None for NaN and infinities (a number not kept)."""
    return x if math.isfinite(x) else None


def _number(x: Any) -> float:
    """A stored number back (None, a number not kept, as NaN)."""
    return math.nan if x is None else float(x)


@dataclass(frozen=True)
class MoveStats:
    """One root move: its numbers, its line and its proof, for the side to move at the
    root (see the module doc). A move kept with a game (``engine.explain.summary``) has
    its numbers rounded, its line cut short and ``pv_fen`` set; what is not kept there
    (``score``) is NaN."""

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
    pv_fen: str | None = None  # a kept move: the position at the end of ``pv`` (previews)

    def to_dict(self) -> dict[str, Any]:
        """The move as a game keeps it (``GET /api/games/{id}/review``'s ``moves``):
        ``uci``, ``san``, ``visits``, ``share``, ``q``, ``eval``, ``pv``, ``pv_san``,
        ``pv_fen``, ``proof``, ``mate``; a number not kept is null."""
        return {
            "uci": self.move,
            "san": self.san,
            "visits": self.visits,
            "share": _finite(self.share),
            "q": _finite(self.q),
            "eval": _finite(self.eval),
            "pv": list(self.pv),
            "pv_san": list(self.pv_san),
            "pv_fen": self.pv_fen,
            "proof": self.proof,
            "mate": self.mate,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MoveStats:
        """A kept move back from :meth:`to_dict`'s shape (every key but ``uci`` may be
        missing from an older record)."""
        return cls(
            move=str(data["uci"]),
            san=str(data.get("san", data["uci"])),
            visits=int(data.get("visits", 0)),
            share=_number(data.get("share")),
            q=_number(data.get("q")),
            score=math.nan,
            eval=_number(data.get("eval")),
            pv=tuple(data.get("pv") or ()),
            pv_san=tuple(data.get("pv_san") or ()),
            pv_fen=data.get("pv_fen"),
            proof=int(data.get("proof") or 0),
            mate=data.get("mate"),
        )


@dataclass(frozen=True)
class ThreadStats:
    """One root-parallel tree's own root statistics, before the merge."""

    thread: int
    iterations: int
    nodes: int
    moves: tuple[MoveStats, ...]


@dataclass(frozen=True)
class TreeNodeInfo:
    """A node of the tree's most visited part. A snapshot leaves the last four fields
    None; a tree export (``engine.explain.export``) reads them too."""

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
    eval: float | None = None  # the algorithm's displayed evaluation (None for the root)
    value_sum: float | None = None  # the sum of rewards, same point of view as ``q``
    proof: int | None = None  # proven for the mover: 1 win, -1 loss, 2 draw, 0 not proven
    mate: int | None = None  # plies to the end of a proven win or loss, when known


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
