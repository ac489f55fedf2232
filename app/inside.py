"""Inside the search: node details, tree and step-log exports, step frames with positions.

The live tree view draws the stats frames' ``tree``; a click on a node asks
for more than a frame carries (the node's position, eval, its own PV deeper
than the drawn part, every child's selection formula), and the exports hand
the same numbers to scripts. All of it is *read* by :mod:`engine.explain` (the
node card, the tree export, the step view) through the algorithm's and its
explainer's hooks, so the app computes nothing the engine would not: it only
turns what it gets into JSON, holds the game's lock and answers.

Points of view, as everywhere: ``q``/``value``/``eval`` of a node are for the
side that made the move into it; ``q_white`` is the same expected score for
White.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import chess

from app.streaming import num, tree_row
from engine.explain.export import export_nodes
from engine.explain.nodes import (
    NODE_CHILDREN,
    NODE_PV,
    NoTreeError,
    UnknownNodeError,
    node_details,
)
from engine.rules.san import san_line

if TYPE_CHECKING:
    from engine.search.controller import SearchController

__all__ = [
    "MAX_EXPORT_NODES",
    "NODE_CHILDREN",
    "NODE_PV",
    "STEP_LOG",
    "NoTreeError",
    "UnknownNodeError",
    "export_tree",
    "node_details",
]

#: Nodes an export may ask for (the top-N walk allocates ~12 bytes × 256 per node).
MAX_EXPORT_NODES = 5000
#: Step traces a game keeps for ``GET /api/games/{id}/steps`` (oldest dropped first).
STEP_LOG = 2000


def _finite(x: float | None, digits: int = 5) -> float | None:
    """The inside views keep one more digit than the 10 Hz frames (see :func:`num`)."""
    return num(x, digits)


def export_tree(
    controller: SearchController, nodes: int, *, game_id: str, game: str
) -> dict[str, Any]:
    """The top ``nodes`` of thread 0's tree with every statistic, as a JSON-ready dict.

    Nodes come parents first, most visited first (the stats frames' order), so
    a reader can rebuild the tree in one pass. ``iterations`` and the root's
    ``visits`` let a reader check totals: with one thread every iteration
    visits the root once.
    """
    nodes = max(1, min(int(nodes), MAX_EXPORT_NODES))
    info = controller.info()
    base = {
        "format": "canopy-tree",
        "version": 1,
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "game_id": game_id,
        "game": game,
        "root_fen": controller.board.fen(),
        "turn": "white" if controller.board.turn == chess.WHITE else "black",
        "algorithm": controller.algorithm.name,
        "params": dict(controller.params),
        "threads": info.threads,
        "thread": 0,
        "seed": controller.seed,
        "iterations": int(info.iterations),
        "running": bool(info.running),
        "bestmove": info.bestmove,
        "pv": list(info.pv),
        "points_of_view": {
            "q": "expected score in [0, 1] for the side that made the move into the node",
            "q_white": "the same expected score for White",
            "value": "bfms: backed-up negamax value; others: last terminal/eval value "
            "(same side as q)",
            "eval": "the algorithm's displayed evaluation in [-1, 1] or a mate score "
            "(same side as q)",
            "proof": "proven result for the same side: 1 win, -1 loss, 2 draw, 0 not proven; "
            "mate: plies to the end of a proven win or loss when known",
        },
    }
    export = export_nodes(controller, nodes)
    if export is None:
        return {**base, "tree_nodes": 0, "exported": 0, "root_visits": 0, "nodes": []}
    rows = [
        {
            **tree_row(n, 5),
            "eval": _finite(n.eval),
            "value_sum": _finite(n.value_sum, 6),
            "proof": n.proof,
            "mate": n.mate,
        }
        for n in export.nodes
    ]
    return {
        **base,
        "tree_nodes": export.tree_nodes,
        "exported": len(rows),
        "root_visits": export.root_visits,
        "max_depth": export.max_depth,
        "nodes": rows,
    }


def step_positions(
    fen: str, trace: Mapping[str, Any], variant_board: chess.Board
) -> dict[str, Any]:
    """Positions along a step, so the page can animate it on the board.

    ``path``: the selection path's moves from the root (UCI); ``leaf_fen``: the
    position where the simulation started; ``end_fen``: where a playout ended.
    ``variant_board`` is the root position (a copy is advanced).
    """
    back: Sequence[Mapping[str, Any]] = trace.get("backpropagation") or []
    path = [str(row.get("move") or "") for row in reversed(back)]
    path = [m for m in path if m]
    leaf, _ = san_line(variant_board, path)
    out: dict[str, Any] = {"fen": fen, "path": path, "leaf_fen": leaf.fen()}
    simulation = trace.get("simulation") or {}
    if isinstance(simulation, Mapping) and simulation.get("kind") == "playout":
        end, _ = san_line(leaf, simulation.get("moves") or [])
        out["end_fen"] = end.fen()
    return out


def log_entry(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A step trace as the step log keeps it: JSON-safe (no infinities), rounded, timed;
    its numbers only (the words of the step view, ``prose``, are the page's)."""

    def clean(obj: Any) -> Any:
        if isinstance(obj, float):
            return _finite(obj, 6)
        if isinstance(obj, Mapping):
            return {str(k): clean(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [clean(v) for v in obj]
        return obj

    entry: dict[str, Any] = clean({k: v for k, v in payload.items() if k != "prose"})
    entry["at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return entry
