"""Inside the search: node details, tree and step-log exports, step frames with positions.

The live tree view draws the stats frames' ``tree``; a click on a node asks
for more than a frame carries (the node's position, eval, its own PV deeper
than the drawn part, every child's selection formula), and the exports hand
the same numbers to scripts. All of it is *read* from the controller's
search tree with the algorithm's own rules (``Algorithm.q``,
``selection_score``, ``display_eval``, ``Worker.principal_variation``), so the
app computes nothing the engine would not: it only turns arrays into JSON.

Reading a tree while its search runs gives numbers a few iterations apart,
never invalid memory (the same guarantee the snapshots rely on); callers hold
the game's lock so the tree is not re-rooted underneath (a move, a new
position or new settings replace it).

Points of view, as everywhere: ``q``/``value``/``eval`` of a node are for the
side that made the move into it; ``q_white`` is the same expected score for
White.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import chess

from app.streaming import num, tree_row
from engine.errors import CanopyError

if TYPE_CHECKING:
    from app.games import Connection, LiveGame
    from engine.search.algorithm import Worker
    from engine.search.controller import SearchController

#: Nodes an export may ask for (the top-N walk allocates ~12 bytes × 256 per node).
MAX_EXPORT_NODES = 5000
#: Children listed with their formula in a ``node`` frame (most visited first).
NODE_CHILDREN = 40
#: Plies of a node's own PV in a ``node`` frame and in exports.
NODE_PV = 24
#: Step traces a game keeps for ``GET /api/games/{id}/steps`` (oldest dropped first).
STEP_LOG = 2000

FORMULAS = {
    "ucb1": "Q/N + c·sqrt(2 ln N_parent / N)",
    "bfms": "eval + C·sqrt(ln N_parent / N)  (N = 0: eval + FPU)",
}


class UnknownNodeError(CanopyError):
    """A node id that is not (or no longer) in the search tree."""

    code = "unknown_node"


class NoTreeError(CanopyError):
    """alphabeta keeps no tree, or no search has run in this position yet."""

    code = "no_tree"


def _rule(algorithm: str) -> str:
    return "bfms" if algorithm == "bfms" else "ucb1"


def _finite(x: float | None, digits: int = 5) -> float | None:
    """The inside views keep one more digit than the 10 Hz frames (see :func:`num`)."""
    return num(x, digits)


def _tree_of(controller: SearchController) -> Any:
    tree = getattr(controller.workers[0], "tree", None)
    if tree is None:
        raise NoTreeError(
            f"{controller.algorithm.name} keeps no search tree (it searches depth by depth)"
        )
    return tree


def _path(tree: Any, node: int) -> list[int]:
    """Node ids from the root's first child down to ``node`` (empty for the root)."""
    path = []
    n = node
    while n > 0:
        path.append(n)
        n = int(tree.parent[n])
    path.reverse()
    return path


def _uci(tree: Any, node: int) -> str:
    from engine.core.convert import move_to_uci

    return move_to_uci(int(tree.move[node]))


def _san_line(board: chess.Board, moves: Iterable[str]) -> tuple[chess.Board, list[str]]:
    """SAN of ``moves`` from ``board`` (a copy is advanced; stops at an illegal move)."""
    b = board.copy(stack=False)
    out = []
    for uci in moves:
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            break
        if move not in b.legal_moves:
            break
        out.append(b.san(move))
        b.push(move)
    return b, out


def _mover_white(root_white: bool, depth: int) -> bool:
    """The side that moved into a node at odd depth is the root's side to move."""
    return root_white == (depth % 2 == 1)


def _formula(
    controller: SearchController, worker: Any, node: int, parent_visits: int
) -> dict[str, Any]:
    """Selection terms of ``node`` as its parent sees them: exploitation, exploration, sum."""
    algorithm = controller.algorithm
    stats = worker.child_stats(node)
    score = float(algorithm.selection_score(stats, parent_visits, controller.params))
    if algorithm.name == "bfms":
        exploit: float | None = float(stats.value)
    else:
        exploit = stats.value_sum / stats.visits if stats.visits else None
    explore = score - exploit if exploit is not None and math.isfinite(score) else None
    return {
        "exploit": _finite(exploit),
        "explore": _finite(explore),
        "score": _finite(score),
    }


def node_details(controller: SearchController, node: int) -> dict[str, Any]:
    """Everything about one node of thread 0's tree (the tree the stats frames show)."""
    tree = _tree_of(controller)
    worker = cast("Worker", controller.workers[0])  # a tree algorithm's worker
    algorithm = controller.algorithm
    if not 0 <= node < tree.used:
        raise UnknownNodeError(f"node {node} is not in the search tree (it has {tree.used})")
    root_board = controller.board
    root_white = root_board.turn == chess.WHITE
    path = _path(tree, node)
    board, path_san = _san_line(root_board, [_uci(tree, n) for n in path])
    depth = int(tree.depth[node])
    stats = worker.child_stats(node)
    visits = int(stats.visits)
    parent = int(tree.parent[node])
    parent_visits = int(tree.visits[parent]) if parent >= 0 else None
    q = float(algorithm.q(stats)) if node != 0 else None
    mover_white = _mover_white(root_white, depth)
    selection = None
    if parent_visits is not None:
        selection = {
            "rule": _rule(algorithm.name),
            "formula": FORMULAS[_rule(algorithm.name)],
            "parent_visits": parent_visits,
            "params": {k: v for k, v in controller.params.items() if k in ("c", "C", "fpu")},
            **_formula(controller, worker, node, parent_visits),
        }
    pv_moves = worker.principal_variation(node, NODE_PV + 1)[1:] if node != 0 else []
    if node == 0 and tree.children(0):
        best = max(tree.children(0), key=lambda k: algorithm.pv_key(tree, k))
        pv_moves = worker.principal_variation(best, NODE_PV)
    from engine.core.convert import move_to_uci

    pv = [move_to_uci(int(m)) for m in pv_moves]
    _, pv_san = _san_line(board, pv)
    kids = tree.children(node)
    kids.sort(key=lambda k: -int(tree.visits[k]))
    children = []
    for k in kids[:NODE_CHILDREN]:
        kstats = worker.child_stats(k)
        _, san = _san_line(board, [_uci(tree, k)])
        children.append(
            {
                "id": int(k),
                "move": _uci(tree, k),
                "san": san[0] if san else _uci(tree, k),
                "visits": int(kstats.visits),
                "q": _finite(algorithm.q(kstats)),
                "terminal": bool(kstats.terminal),
                **_formula(controller, worker, k, max(1, visits)),
            }
        )
    terminal = bool(stats.terminal) if node != 0 else False
    return {
        "type": "node",
        "id": node,
        "thread": 0,
        "root_fen": root_board.fen(),
        "fen": board.fen(),
        "path": [_uci(tree, n) for n in path],
        "path_san": path_san,
        "depth": depth,
        "mover": None if node == 0 else ("white" if mover_white else "black"),
        "visits": visits,
        "q": _finite(q),
        "q_white": None if q is None else _finite(q if mover_white else 1.0 - q),
        "eval": _finite(float(algorithm.display_eval(stats))) if node != 0 else None,
        "value": _finite(float(stats.value)) if node != 0 else None,
        "terminal": terminal,
        "outcome": int(stats.outcome) if terminal else None,
        "parent": parent,
        "selection": selection,
        "pv": pv,
        "pv_san": pv_san,
        "children": children,
        "children_total": len(kids),
        "legal_moves": int(tree.num_legal[node]) if int(tree.num_legal[node]) >= 0 else None,
    }


def export_tree(
    controller: SearchController, nodes: int, *, game_id: str, game: str
) -> dict[str, Any]:
    """The top ``nodes`` of thread 0's tree with every statistic, as a JSON-ready dict.

    Nodes come parents first, most visited first (the stats frames' order), so
    a reader can rebuild the tree in one pass. ``iterations`` and the root's
    ``visits`` let a reader check totals: with one thread every iteration
    visits the root once.
    """
    from engine.search.snapshot import SanCache, tree_nodes

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
        "threads": len(controller.workers),
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
        },
    }
    tree = getattr(controller.workers[0], "tree", None)
    if tree is None:
        return {**base, "tree_nodes": 0, "exported": 0, "root_visits": 0, "nodes": []}
    worker = cast("Worker", controller.workers[0])
    infos = tree_nodes(
        controller.algorithm, worker, nodes, controller.tree_depth, SanCache(controller.board)
    )
    rows = []
    for n in infos:
        stats = worker.child_stats(n.id)
        rows.append(
            {
                **tree_row(n, 5),
                "eval": None if n.id == 0 else _finite(controller.algorithm.display_eval(stats)),
                "value_sum": _finite(stats.value_sum, 6),
            }
        )
    return {
        **base,
        "tree_nodes": int(tree.used),
        "exported": len(rows),
        "root_visits": int(tree.visits[0]),
        "max_depth": int(tree.max_depth),
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
    leaf, _ = _san_line(variant_board, path)
    out: dict[str, Any] = {"fen": fen, "path": path, "leaf_fen": leaf.fen()}
    simulation = trace.get("simulation") or {}
    if isinstance(simulation, Mapping) and simulation.get("kind") == "playout":
        end, _ = _san_line(leaf, simulation.get("moves") or [])
        out["end_fen"] = end.fen()
    return out


def log_entry(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A step trace as the step log keeps it: JSON-safe (no infinities), rounded, timed."""

    def clean(obj: Any) -> Any:
        if isinstance(obj, float):
            return _finite(obj, 6)
        if isinstance(obj, Mapping):
            return {str(k): clean(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [clean(v) for v in obj]
        return obj

    entry: dict[str, Any] = clean(payload)
    entry["at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return entry


# ---------------------------------------------------------------- live game hooks


def tree_size_wanted(game: LiveGame) -> int:
    """Tree nodes each snapshot must carry: the largest any watcher subscribed to.

    Snapshots are shared by all watchers and trimmed per connection, so the
    controller builds the biggest tree asked for (never less than the
    server's ``tree_nodes`` default).
    """
    wanted = [game.settings.tree_nodes]
    for conn in game.connections:
        if conn.outbox.tree and conn.outbox.tree_nodes:
            wanted.append(conn.outbox.tree_nodes)
    return max(wanted)


#: Tree nodes a snapshot may carry at the full stats rate; bigger trees slow the rate.
FULL_RATE_NODES = 200


def snapshot_interval(game: LiveGame, nodes: int) -> float:
    """Seconds between snapshots: ``1 / CANOPY_STATS_HZ``, longer for big trees.

    Building a snapshot's tree costs the server time in proportion to its
    nodes (about 15 µs each, docs/performance.md), taken from the machine the
    search runs on; so a 500-node tree is snapshotted 4 times a second instead of
    10 (the page redraws a tree that big no faster anyway).
    """
    return (1.0 / game.settings.stats_hz) * max(1.0, nodes / FULL_RATE_NODES)


def sync_tree_size(game: LiveGame) -> None:
    """Apply :func:`tree_size_wanted` (and its snapshot rate) to the game's controller;
    both are read at each snapshot."""
    controller = game.controller
    if controller is not None:
        nodes = tree_size_wanted(game)
        controller.tree_size = nodes
        if hasattr(controller, "info_interval"):
            controller.info_interval = snapshot_interval(game, nodes)


async def inspect(game: LiveGame, conn: Connection, node: int) -> None:
    """Answer a ``node`` request with the node's details (to that connection only)."""
    async with game.lock:  # no move or new position re-roots the tree meanwhile
        controller = game.controller
        if controller is None:
            raise NoTreeError("no search has run in this position yet: start or step one")
        details = await asyncio.to_thread(node_details, controller, node)  # type: ignore[arg-type]
    from app.streaming import dumps

    conn.outbox.put_reply(dumps(details))
