"""The node card: everything about one node of a controller's search tree.

Everything is read through the algorithm's hooks (``Algorithm.q``,
``selection_terms``, ``display_eval``, ``child_proof`` via ``Worker.child_stats``,
``pv_key``, ``Worker.principal_variation``) and its explainer's (the names of the
formula's parts, a sibling's row, ``node_scoring``), so no caller needs to know which
algorithm runs, and none reaches into ``controller.workers`` or a worker's tree: ``app/``
comes here (and to :mod:`engine.explain.export` for the tree export).

Reading a tree while its search runs gives numbers a few iterations apart, never
invalid memory (the same guarantee the snapshots rely on); callers keep the tree
from being re-rooted meanwhile (a move, a new position or new settings replace it).

Points of view, as everywhere: ``q``/``value``/``eval``/``proof`` of a node are for
the side that made the move into it; ``q_white`` is the same expected score for White.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import chess

from engine.errors import CanopyError
from engine.explain.explainer import Explainer
from engine.explain.explainers import explainer_for
from engine.explain.words import side_name
from engine.rules.convert import move_to_uci
from engine.rules.san import san_line
from engine.search.algorithm import NOT_PROVEN, ChildStats, Worker

if TYPE_CHECKING:
    from engine.search.controller import SearchController

#: Children listed with their formula in node details (most visited first).
NODE_CHILDREN = 40
#: Plies of a node's own PV in node details.
NODE_PV = 24


class UnknownNodeError(CanopyError):
    """A node id that is not (or no longer) in the search tree."""

    code = "unknown_node"


class NoTreeError(CanopyError):
    """The algorithm keeps no tree (alphabeta), or no search has run in this position yet."""

    code = "no_tree"


def finite(x: float | None, digits: int = 5) -> float | None:
    """JSON-safe rounded float: None for None, NaN and infinities (an unvisited UCB1)."""
    if x is None:
        return None
    x = float(x)
    return round(x, digits) if math.isfinite(x) else None


def tree_worker(controller: SearchController) -> Worker:
    """Thread 0's worker (the tree the stats frames show), or :class:`NoTreeError`."""
    if not controller.algorithm.tree:
        raise NoTreeError(
            f"{controller.algorithm.name} keeps no search tree (it searches depth by depth)"
        )
    return cast(Worker, controller.workers[0])


def _uci(tree: Any, node: int) -> str:
    return move_to_uci(int(tree.move[node]))


def _mover_white(root_white: bool, depth: int) -> bool:
    """The side that moved into a node at odd depth is the root's side to move."""
    return root_white == (depth % 2 == 1)


def proof_fields(stats: ChildStats) -> dict[str, Any]:
    """``proof`` (1 win, -1 loss, 2 draw, 0 not proven) and ``mate`` (plies, or None)."""
    return {"proof": int(stats.proof), "mate": stats.mate if stats.proof else None}


def _chosen_by(controller: SearchController, parent: int) -> dict[str, Any]:
    """The parameters ``parent``'s selection reads, as the kernel does: the root's own
    (``c_root``) where they apply."""
    return controller.algorithm.node_params(controller.params, parent == 0)


def selection_terms(
    explainer: type[Explainer], stats: ChildStats, parent_visits: int, params: dict[str, Any]
) -> dict[str, float | None]:
    """Selection terms of a node (``stats``) as its parent sees them, with the parameters
    its parent's selection reads (:func:`_chosen_by`): exploitation, exploration, sum, and
    whatever else the algorithm's step table shows of a sibling (``mcts``: the prior, the
    minimax value, the mean reward)."""
    terms = explainer.algorithm.selection_terms(stats, parent_visits, params)
    row = explainer.selection_row(stats, terms)
    extra = {
        key: finite(value) if isinstance(value, float) else value
        for key, value in row.items()
        if key not in ("value_sum", "q", "explore", "score", "proof", "mate")
    }
    return {
        **extra,
        "exploit": finite(terms.exploit),
        "explore": finite(terms.explore),
        "score": finite(terms.score),
    }


def node_details(controller: SearchController, node: int) -> dict[str, Any]:
    """Everything about one node of thread 0's tree, JSON-ready (the ``node`` frame)."""
    worker = tree_worker(controller)
    tree = worker.tree
    algorithm = controller.algorithm
    explainer = explainer_for(algorithm.name)
    if not 0 <= node < tree.used:
        raise UnknownNodeError(f"node {node} is not in the search tree (it has {tree.used})")
    root_board = controller.board
    root_white = root_board.turn == chess.WHITE
    path = tree.path(node)
    board, path_san = san_line(root_board, [_uci(tree, n) for n in path])
    depth = int(tree.depth[node])
    stats = worker.child_stats(node)
    visits = int(stats.visits)
    parent = int(tree.parent[node])
    parent_visits = int(tree.visits[parent]) if parent >= 0 else None
    q = float(algorithm.q(stats)) if node != 0 else None
    mover_white = _mover_white(root_white, depth)
    selection = None
    if parent_visits is not None:
        chosen_by = _chosen_by(controller, parent)
        selection = {
            "rule": explainer.selection_rule,
            "formula": explainer.formula,
            "exploit_label": explainer.exploit_label,
            "score_label": explainer.score_label,
            "parent_visits": parent_visits,
            "params": {k: v for k, v in chosen_by.items() if k in explainer.selection_params},
            **selection_terms(explainer, stats, parent_visits, chosen_by),
        }
    pv_moves = worker.principal_variation(node, NODE_PV + 1)[1:] if node != 0 else []
    if node == 0 and tree.children(0):
        best = max(tree.children(0), key=lambda k: algorithm.pv_key(tree, k))
        pv_moves = worker.principal_variation(best, NODE_PV)
    pv = [move_to_uci(int(m)) for m in pv_moves]
    _, pv_san = san_line(board, pv)
    kids = tree.children(node)
    kids.sort(key=lambda k: -int(tree.visits[k]))
    children = []
    among_kids = _chosen_by(controller, node)  # what selection reads among them
    for k in kids[:NODE_CHILDREN]:
        kstats = worker.child_stats(k)
        _, san = san_line(board, [_uci(tree, k)])
        children.append(
            {
                "id": int(k),
                "move": _uci(tree, k),
                "san": san[0] if san else _uci(tree, k),
                "visits": int(kstats.visits),
                "q": finite(algorithm.q(kstats)),
                "terminal": bool(kstats.terminal),
                **proof_fields(kstats),
                **selection_terms(explainer, kstats, max(1, visits), among_kids),
            }
        )
    terminal = bool(stats.terminal) if node != 0 else False
    scoring = explainer.node_scoring(worker, node)
    if scoring is not None:
        scoring = {k: finite(v) if isinstance(v, float) else v for k, v in scoring.items()}
        # the card speaks for the mover (the root: the side to move there)
        whom = root_white if node == 0 else mover_white
        side = side_name(controller.game.name, "white" if whom else "black")
        scoring["prose"] = explainer.scoring_rows(scoring, side, -1 if node == 0 else 1)
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
        "q": finite(q),
        "q_white": None if q is None else finite(q if mover_white else 1.0 - q),
        "eval": finite(float(algorithm.display_eval(stats))) if node != 0 else None,
        "value": finite(float(stats.value)) if node != 0 else None,
        "terminal": terminal,
        "outcome": int(stats.outcome) if terminal else None,
        **(proof_fields(stats) if node != 0 else {"proof": NOT_PROVEN, "mate": None}),
        "parent": parent,
        "selection": selection,
        "pv": pv,
        "pv_san": pv_san,
        "children": children,
        "children_total": len(kids),
        "legal_moves": int(tree.num_legal[node]) if int(tree.num_legal[node]) >= 0 else None,
        "scoring": scoring,
    }
