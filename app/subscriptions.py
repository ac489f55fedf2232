"""What a game's watchers subscribed to, applied to its search: tree size and snapshot rate.

Snapshots are shared by all watchers and trimmed per connection, so the
controller builds the biggest tree anyone asked for; and because building a
big tree costs the machine the search runs on, big trees are snapshotted
less often.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from app.connection import Connection
from app.settings import Settings

if TYPE_CHECKING:
    from engine.search.controller import SearchController

#: Tree nodes a snapshot may carry at the full stats rate; bigger trees slow the rate.
FULL_RATE_NODES = 200


def tree_size_wanted(settings: Settings, connections: Iterable[Connection]) -> int:
    """Tree nodes each snapshot must carry: the largest any watcher subscribed to
    (never less than the server's ``tree_nodes`` default)."""
    wanted = [settings.tree_nodes]
    for conn in connections:
        if conn.outbox.tree and conn.outbox.tree_nodes:
            wanted.append(conn.outbox.tree_nodes)
    return max(wanted)


def snapshot_interval(settings: Settings, nodes: int) -> float:
    """Seconds between snapshots: ``1 / CANOPY_STATS_HZ``, longer for big trees.

    Building a snapshot's tree costs the server time in proportion to its
    nodes (about 15 µs each, docs/performance.md), taken from the machine the
    search runs on; so a 500-node tree is snapshotted 4 times a second instead of
    10 (the page redraws a tree that big no faster anyway).
    """
    return (1.0 / settings.stats_hz) * max(1.0, nodes / FULL_RATE_NODES)


def sync_tree_size(
    settings: Settings, connections: Iterable[Connection], controller: SearchController | None
) -> None:
    """Apply :func:`tree_size_wanted` (and its snapshot rate) to ``controller``; both are
    read at each snapshot."""
    if controller is not None:
        nodes = tree_size_wanted(settings, connections)
        controller.tree_size = nodes
        controller.info_interval = snapshot_interval(settings, nodes)
