"""``mcts``'s node card: how a node and its children were scored (the node's own leaf
score and the depth of its search, its children's, the leaf table's entry), read from the
worker's tree by the kernel's own depth rules (the tree keeps no depth per score), and the
card's rows that say it."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core.bits import table_slot
from engine.core.games import make_move
from engine.core.state import HASH
from engine.explain.words import signed
from engine.search.algorithm import Worker
from engine.search.algorithms.mcts.depth import (
    FULL_TREE_PLIES,
    search_depth,
    untried,
    visit_plies,
)
from engine.search.algorithms.mcts.worker import MCTSWorker
from engine.search.tree import EVALUATED, NONE, PARTIAL, PROVEN, ROOT, TERMINAL


def node_position(worker: Worker, node: int) -> np.ndarray:
    """``node``'s position, replayed from the worker's root by the engine's own move
    function: the tree keeps no position and no Zobrist key per node, and one node's
    path is a few moves (the card asks for one)."""
    s = worker.root.copy()
    for n in worker.tree.path(node):
        make_move(s, int(worker.tree.move[n]))
    return s


def own_depths(worker: Worker, node: int) -> tuple[int, int]:
    """The lowest and the highest number of alpha-beta plies (before the quiescence
    search or the evaluation) the search that gave ``node`` its present score can have
    had, by the rules the kernel follows (``mcts_iteration``, ``score_children`` in
    :mod:`engine.search.algorithms.mcts`); the tree keeps no depth per score.

    The two differ only with ``expand=evaluate`` and ``rescore``, for a node tried since
    its parent's scoring: the rescore plies its parent has earned by now
    (:func:`visit_plies` of its visits at its latest walk, one fewer than now — the
    visits its step counted) may have come after the node's score. A child not tried yet
    was scored again at each of them (``rescore_children``), so its depth is known, and
    it is the one the step view reported (``T_SIM_DEPTH``). In a tree kept from the
    previous move, a score that ``refresh`` did not renew was searched before the move,
    two plies further from that root."""
    tree, kp, params = worker.tree, worker.kparams, worker.params
    visits = int(tree.visits[node])
    has_kids = int(tree.first_child[node]) != NONE
    own = int(search_depth(kp, int(tree.depth[node])))  # a leaf scored on its own
    if node == ROOT:  # a leaf at the first iteration, never re-scored
        return own, own
    if params["expand"] != "evaluate":  # scored at its first visit
        # a full tree's leaf: one ply deeper at each visit since (mcts_iteration)
        scorings = 0 if has_kids else max(0, visits - 1)
        depth = own + min(scorings, FULL_TREE_PLIES)
        return depth, depth
    parent = int(tree.parent[node])
    earned = int(visit_plies(kp, max(0, int(tree.visits[parent]) - 1)))
    low, high = 0, earned  # rescore plies of the parent's scoring of it
    if untried(tree.arrays, node) and not tree.flags[parent] & PROVEN:
        low = high  # scored again at each rescore step of its parent
    if not visits or has_kids:  # its parent's scoring of it stands
        return own + low, own + high
    # A full tree's leaf, searched again at each visit, counting on from the depth of its
    # parent's scoring of it (the rescore plies the parent had then) plus one ply a
    # scoring, capped. That visit came at the parent's walk ``visits + 1`` or later (the
    # parent is walked through at each of the node's visits): the parent had those
    # rescore plies at least.
    low = min(high, max(low, int(visit_plies(kp, visits + 1))))
    return (
        own + min(low + visits, FULL_TREE_PLIES),
        own + min(high + visits, FULL_TREE_PLIES),
    )


def node_scoring(worker: Worker, node: int) -> dict[str, Any] | None:
    """The node card's account of how ``node`` and its children were scored: the node's
    own leaf score (its quiescence or alpha-beta score, ``eval``), the depths its search
    and its children's had, whether every child is scored (``PARTIAL``: not while a
    refutation stops the scoring) and whether the leaf table holds the position now: what
    the step view shows as it happens, kept for the card. Every score is for the side that
    moved into the node, as its minimax value."""
    if not isinstance(worker, MCTSWorker):
        return None
    tree, kp, params = worker.tree, worker.kparams, worker.params
    flags = int(tree.flags[node])
    s = node_position(worker, node)
    evaluate = params["expand"] == "evaluate"
    scored = bool(flags & EVALUATED)
    terminal = bool(flags & TERMINAL)
    depths = own_depths(worker, node) if scored and not terminal else None
    kids = tree.children(node)
    children_depth = rescore_plies = None
    if kids and evaluate:  # what its latest walk scored untried children at
        rescore_plies = int(visit_plies(kp, max(0, int(tree.visits[node]) - 1)))
        children_depth = int(search_depth(kp, int(tree.depth[node]) + 1)) + rescore_plies
    key = np.uint64(s[HASH])
    cache = worker.extra.cache
    slot = int(table_slot(cache.keys, key))
    in_table = bool(params["tt"]) and int(cache.keys[slot]) == int(key)
    return {
        # for the side that moved into the node, as its minimax value (the root: the side
        # not to move there)
        "score": float(tree.eval[node]) if scored else None,
        "scored_by": "game over" if terminal else params["leaf"] if scored else None,
        "depth": depths[0] if depths else None,
        "depth_max": depths[1] if depths else None,
        "expand": params["expand"],
        "children": len(kids),
        "children_scored": sum(1 for k in kids if tree.flags[k] & EVALUATED),
        "partial": bool(flags & PARTIAL),
        "children_depth": children_depth,
        "rescore_plies": rescore_plies,
        "key": f"{int(key):016x}",
        "tt": bool(params["tt"]),
        "table_depth": 0,  # the table keeps quiescence scores (no alpha-beta plies)
        "in_table": in_table,
        # the table keeps the score for the side to move in the position: negated here
        "table_score": -float(cache.scores[slot]) if in_table else None,
    }


def search_text(leaf: str, low: int | None, high: int | None) -> str:
    """A leaf search as the card names it: "quiescence", "2-ply alpha-beta + quiescence",
    "1–2-ply …" when the depth is only known within a range."""
    last = "static evaluation" if leaf == "static" else "quiescence"
    depth = f"{low}" if low == high else f"{low}–{high}"
    return f"{depth}-ply alpha-beta + {last}" if high else last


def scoring_rows(sc: dict[str, Any], whom: str, sign: int) -> list[list[str]]:
    """The card's rows for :func:`node_scoring`'s numbers (``sc``, as sent): each a term,
    its value and, where one helps, a tooltip. The scores are for the side that moved into
    the node; the card speaks for ``whom``, ``sign`` = -1 flipping them (the root: the side
    to move)."""
    leaf = "static" if sc["scored_by"] == "static" else "quiescence"
    rows: list[list[str]] = []
    if sc["score"] is None:
        rows.append(["own score", "not scored yet"])
    elif sc["scored_by"] == "game over":
        rows.append(
            ["own score", f"{signed(sign * sc['score'], 3)} for {whom} (the game is over here)"]
        )
    else:
        search = search_text(leaf, sc["depth"], sc["depth_max"])
        row = ["own score", f"{signed(sign * sc['score'], 3)} for {whom} ({search})"]
        if sc["depth"] != sc["depth_max"]:
            row.append("its parent's rescore plies may have come after it was scored")
        rows.append(row)
    if sc["children"]:
        if sc["children_depth"] is None:
            how = "each when first visited"
        else:
            extra = sc["rescore_plies"]
            rescored = f" ({extra} rescore {'ply' if extra == 1 else 'plies'})" if extra else ""
            how = f"by {search_text(leaf, sc['children_depth'], sc['children_depth'])}{rescored}"
        partial = " — partial: the rest wait to be scored (again)" if sc["partial"] else ""
        rows.append(
            ["children scored", f"{sc['children_scored']} of {sc['children']}, {how}{partial}"]
        )
    if not sc["tt"]:
        table = "off"
    elif sc["in_table"]:
        table = f"yes: {signed(sign * sc['table_score'], 3)} for {whom}"
    elif sc["depth"] is not None and sc["depth"] > sc["table_depth"]:
        alone = "static evaluation" if leaf == "static" else "quiescence search"
        kept = f"{sc['table_depth']}-ply searches" if sc["table_depth"] else f"the {alone} alone"
        table = f"no (it keeps only scores of {kept})"
    else:
        table = "no"
    rows.append(["in leaf table", table, f"Zobrist key {sc['key']}"])
    return rows
