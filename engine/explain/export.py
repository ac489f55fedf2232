"""The top of a controller's search tree with every statistic: the tree export.

Nodes come as the snapshots list them (:func:`engine.search.snapshot.tree_nodes`: parents
first, most visited first), each a :class:`~engine.search.info.TreeNodeInfo` with the
numbers a snapshot leaves out read as well: the algorithm's displayed evaluation, the sum
of rewards and the proof. Points of view are the tree's: every number of a node is for the
side that made the move into it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from engine.explain.nodes import tree_worker
from engine.rules.san import SanCache
from engine.search.algorithm import NOT_PROVEN
from engine.search.info import TreeNodeInfo
from engine.search.snapshot import tree_nodes

if TYPE_CHECKING:
    from engine.search.controller import SearchController


@dataclass(frozen=True)
class TreeExport:
    """The top nodes of thread 0's tree, parents first, most visited first."""

    tree_nodes: int  # nodes in the whole tree
    root_visits: int
    max_depth: int
    nodes: tuple[TreeNodeInfo, ...]


def top_tree(controller: SearchController, limit: int, sans: SanCache) -> tuple[TreeNodeInfo, ...]:
    """The ``limit`` most visited nodes of thread 0's tree, as a stats frame carries them
    (the benchmark of the tree view times exactly this); ``sans`` names their moves."""
    return tree_nodes(
        controller.algorithm, tree_worker(controller), limit, controller.tree_depth, sans
    )


def export_nodes(controller: SearchController, limit: int) -> TreeExport | None:
    """The top ``limit`` nodes of thread 0's tree with every statistic; None when the
    algorithm keeps no tree."""
    if not controller.algorithm.tree:
        return None
    worker = tree_worker(controller)
    tree = worker.tree
    algorithm = controller.algorithm
    rows = []
    for n in top_tree(controller, limit, SanCache(controller.board)):
        stats = worker.child_stats(n.id)
        rows.append(
            replace(
                n,
                eval=None if n.id == 0 else float(algorithm.display_eval(stats)),
                value_sum=float(stats.value_sum),
                proof=int(stats.proof) if n.id != 0 else NOT_PROVEN,
                mate=stats.mate if n.id != 0 and stats.proof else None,
            )
        )
    return TreeExport(
        tree_nodes=int(tree.used),
        root_visits=int(tree.visits[0]),
        max_depth=int(tree.max_depth),
        nodes=tuple(rows),
    )
