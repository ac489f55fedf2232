"""Turning search snapshots into frames, and sending only the latest one to each client.

Two rules from the house style meet here:

* the search hands over immutable ``SearchInfo`` snapshots; a :class:`Snapshot`
  wraps one and encodes it to JSON lazily, once per variant (with or without
  the tree), so a snapshot no client has time for is never encoded at all;
* each connection has an :class:`Outbox` with one *slot* for the latest state
  and one for the latest stats, plus a small bounded queue for replies. A slow
  client skips frames (the slot is overwritten), it never builds a backlog.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

import chess

from engine.explain.words import rounded, rounded_all
from engine.search.info import MoveStats, SearchInfo

#: At most this many plies of each root move's PV are sent (the table shows fewer).
PV_PLIES = 12
#: Rows whose PV also gets the FEN at its end (hover previews); the rest get null.
PV_FEN_ROWS = 16
#: Bytes kept free below the frame limit (headroom for the JSON framing).
FRAME_MARGIN = 256
#: Tree sizes a client may subscribe to (``subscribe`` ``tree_nodes``): the tree view's
#: sizes run from 50 to 500 nodes; fewer than 50 shows too little of the search.
MIN_TREE_NODES = 50
MAX_TREE_NODES = 500
#: Column order of a tree node in the ``compact`` tree format (one array per node).
TREE_FIELDS = (
    "id",
    "parent",
    "move",
    "san",
    "depth",
    "visits",
    "q",
    "q_white",
    "value",
    "terminal",
    "children",
)
#: ``thread_stats`` lists each thread's numbers for the merged table's top this many moves
#: (and the thread's own best), so every cell of a "threads beside the merge" view is filled.
THREAD_MOVES = 16
#: The columns of a thread's own root table (the merged table has more).
THREAD_ROW = frozenset(("move", "san", "visits", "share", "q", "uct"))


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), allow_nan=False)


#: A number as frames carry it: rounded as shown, NaN and infinities (an unvisited
#: child's UCB) as null.
num = rounded


class Snapshot:
    """One search snapshot ready to stream: shaped once, encoded lazily per variant."""

    __slots__ = ("_cache", "_pv_fens", "created", "info", "root", "seq", "status")

    def __init__(
        self,
        info: SearchInfo,
        *,
        seq: int,
        root: chess.Board,
        status: Callable[[], dict[str, Any]],
    ) -> None:
        self.info = info
        self.seq = seq
        self.root = root  # a private copy of the root position (PV previews)
        self.status = status  # search + pool status, read when the frame is encoded
        self.created = time.perf_counter()
        self._cache: dict[tuple[bool, int | None, bool], str] = {}
        self._pv_fens: dict[tuple[str, ...], str | None] = {}

    def encode(
        self, *, tree: bool, max_bytes: int, nodes: int | None = None, compact: bool = False
    ) -> str:
        """The stats frame as JSON text, trimmed to stay under ``max_bytes``.

        ``nodes`` caps the tree (None: every node of the snapshot); ``compact``
        sends each node as an array in :data:`TREE_FIELDS` order, which is what
        lets 500 nodes fit in a frame (rows cost ~2.5 times as many bytes).
        Each variant is encoded at most once per snapshot.
        """
        key = (tree, nodes if tree else 0, compact and tree)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = self._encode(tree, max_bytes, nodes, compact)
        return cached

    # ---------------------------------------------------------------- shaping
    def _pv_fen(self, pv: tuple[str, ...]) -> str | None:
        if pv not in self._pv_fens:
            board = self.root.copy(stack=False)
            try:
                for uci in pv:
                    board.push(chess.Move.from_uci(uci))
                self._pv_fens[pv] = board.fen()
            except (ValueError, AssertionError):
                self._pv_fens[pv] = None
        return self._pv_fens[pv]

    def _row(self, m: MoveStats, index: int, plies: int) -> dict[str, Any]:
        row = move_row(m, plies)
        row["pv_fen"] = self._pv_fen(tuple(m.pv[:plies])) if index < PV_FEN_ROWS and m.pv else None
        return row

    def payload(
        self, *, tree_nodes: int | None, plies: int = PV_PLIES, compact: bool = False
    ) -> dict[str, Any]:
        """The stats frame as a dict (``tree_nodes``: cap on tree nodes, None = all)."""
        i = self.info
        merged_top = {m.move for m in i.moves[:THREAD_MOVES]}
        nodes = list(i.tree) if tree_nodes is None else _trim_tree(i.tree, tree_nodes)
        status = self.status()
        out = {
            "type": "stats",
            "seq": self.seq,
            "fen": i.fen,
            "algorithm": i.algorithm,
            "threads": i.threads,
            "running": i.running,
            "stop_reason": i.stop_reason,
            "iterations": int(i.iterations),
            "nodes": int(i.nodes),
            "elapsed_ms": num(i.elapsed_ms, 1),
            "nps": num(i.nps, 1),
            "max_depth": int(i.max_depth),
            "mean_depth": num(i.mean_depth, 2),
            "depth": int(i.depth),
            "memory_bytes": int(i.memory_bytes),
            "bytes_per_node": num(i.bytes_per_node, 1),
            "bestmove": i.bestmove,
            "pv": list(i.pv[:32]),
            "pv_san": list(i.pv_san[:32]),
            "moves": [self._row(m, k, plies) for k, m in enumerate(i.moves)],
            "thread_stats": [
                {
                    "thread": t.thread,
                    "iterations": int(t.iterations),
                    "nodes": int(t.nodes),
                    "moves": [
                        {k: v for k, v in move_row(m, 0).items() if k in THREAD_ROW}
                        for rank, m in enumerate(t.moves)
                        if rank == 0 or m.move in merged_top
                    ],
                }
                for t in i.thread_stats
            ],
            "tree": [_tree_array(n) if compact else tree_row(n) for n in nodes],
            "tree_trimmed": len(nodes) < len(i.tree),
            "depth_histogram": [int(c) for c in i.depth_histogram],
            "branching_factor": num(i.branching_factor, 3),
            "search": status["search"],
            "pool": status["pool"],
            "extra": _jsonable(i.extra),
        }
        if compact:
            out["tree_fields"] = list(TREE_FIELDS)
        return out

    def _encode(self, tree: bool, max_bytes: int, nodes: int | None, compact: bool) -> str:
        limit = max_bytes - FRAME_MARGIN
        cap: int | None = (None if nodes is None else max(0, nodes)) if tree else 0
        text = dumps(self.payload(tree_nodes=cap, compact=compact))
        # Too big: halve the tree first, then shorten PVs, then drop the rarest rows.
        while len(text.encode()) > limit and tree and (cap is None or cap > 0):
            cap = len(self.info.tree) // 2 if cap is None else cap // 2
            text = dumps(self.payload(tree_nodes=cap, compact=compact))
        if len(text.encode()) > limit:
            payload = self.payload(tree_nodes=0, plies=4, compact=compact)
            while len(dumps(payload).encode()) > limit and len(payload["moves"]) > 1:
                payload["moves"] = payload["moves"][: max(1, len(payload["moves"]) * 3 // 4)]
                payload["moves_trimmed"] = True
            text = dumps(payload)
        return text


def move_row(m: MoveStats, plies: int) -> dict[str, Any]:
    """A root move as every table shows it (stats frames, threads, races), JSON-safe.

    Points of view as in :class:`~engine.search.info.MoveStats`: ``q``, ``eval`` and
    ``proof`` are for the side to move at the root. ``plies`` caps the PV sent.
    """
    return {
        "move": m.move,
        "san": m.san,
        "visits": int(m.visits),
        "share": num(m.share),
        "q": num(m.q),
        "uct": num(m.score),
        "eval": num(m.eval),
        "prior": num(m.prior),
        "pv": list(m.pv[:plies]),
        "pv_san": list(m.pv_san[:plies]),
        "bound": m.bound,
        "proof": int(m.proof),
        "mate": m.mate,
    }


def tree_row(n: Any, digits: int = 4) -> dict[str, Any]:
    """A tree node as an object (the default ``rows`` format, and the tree export's base)."""
    return {
        "id": n.id,
        "parent": n.parent,
        "move": n.move,
        "san": n.san,
        "depth": n.depth,
        "visits": int(n.visits),
        "q": num(n.q, digits),
        "q_white": num(n.q_white, digits),
        "value": num(n.value, digits),
        "terminal": bool(n.terminal),
        "children": int(n.children),
    }


def _tree_array(n: Any) -> list[Any]:
    """A tree node as an array in :data:`TREE_FIELDS` order (the ``compact`` format)."""
    return [
        n.id,
        n.parent,
        n.move,
        n.san,
        n.depth,
        int(n.visits),
        num(n.q),
        num(n.q_white),
        num(n.value),
        1 if n.terminal else 0,
        int(n.children),
    ]


def _trim_tree(tree: tuple[Any, ...], cap: int) -> list[Any]:
    """The first ``cap`` nodes whose parents are kept (the snapshot lists parents first)."""
    kept: list[Any] = []
    ids: set[int] = set()
    for node in tree:
        if len(kept) >= cap:
            break
        if node.parent == -1 or node.parent in ids:
            kept.append(node)
            ids.add(node.id)
    return kept


def _jsonable(extra: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in extra.items():
        if isinstance(value, float):
            out[str(key)] = num(value)
        elif isinstance(value, str | int | bool) or value is None:
            out[str(key)] = value
        elif isinstance(value, list | tuple) and all(
            isinstance(v, str | int | bool) for v in value
        ):
            out[str(key)] = list(value)
    return out


def encode_step(trace: Mapping[str, Any], max_bytes: int) -> str:
    """A ``step`` frame under ``max_bytes``: rounded numbers, then fewer siblings per level.

    A selection level lists every sibling with its formula values; in a wide
    position deep in a search that can outgrow a frame, so the chosen child
    and the best-scoring siblings are kept and the rest counted.
    """
    limit = max_bytes - FRAME_MARGIN
    payload = {"type": "step", **rounded_all(dict(trace))}
    text = dumps(payload)
    for keep in (24, 12, 6, 2, 0):
        if len(text.encode()) <= limit:
            return text
        for level in payload.get("selection") or []:
            children = level.get("children")
            if isinstance(children, list) and len(children) > keep:
                chosen = [c for c in children if c.get("chosen")]
                rest = sorted(
                    (c for c in children if not c.get("chosen")),
                    key=lambda c: -(c.get("score") or 0.0),
                )
                level["children"] = chosen + rest[: max(0, keep - len(chosen))]
                level["children_trimmed"] = len(children) - len(level["children"])
        simulation = payload.get("simulation")
        if isinstance(simulation, dict) and isinstance(simulation.get("moves"), list):
            moves = simulation["moves"]
            if len(moves) > 64:
                simulation["moves_trimmed"] = len(moves) - 64
                simulation["moves"] = moves[:64]
        text = dumps(payload)
    return text


class Outbox:
    """What one connection still has to send: latest state, latest stats, a few replies.

    ``next()`` hands out frames in priority order (replies, then state, then
    race, then stats) and paces stats frames to ``hz``. Stats, state and race
    are slots: a new one replaces the unsent one. Replies (errors, pongs, step traces) answer
    the client's own requests, so they are bounded by what it sends; the
    deque is capped anyway.
    """

    def __init__(self, *, hz: float, tree: bool = True, max_bytes: int = 65536) -> None:
        self.hz = hz
        self.tree = tree
        self.tree_nodes: int | None = None  # cap on tree nodes per stats frame (None: all)
        self.tree_compact = False  # nodes as arrays (``subscribe`` ``tree_format``)
        self.max_bytes = max_bytes
        self._state: str | None = None
        self._stats: Snapshot | None = None
        self._race: str | None = None
        self._replies: deque[str] = deque(maxlen=64)
        self._event = asyncio.Event()
        self._last_stats = 0.0
        self.closed = False
        self.skipped = 0  # stats snapshots overwritten before they were sent

    def put_state(self, text: str) -> None:
        self._state = text
        self._event.set()

    def put_stats(self, snapshot: Snapshot) -> None:
        if self._stats is not None:
            self.skipped += 1
        self._stats = snapshot
        self._event.set()

    def drop_stats(self) -> None:
        """Forget unsent stats (the position changed: they describe the old root)."""
        self._stats = None

    def put_race(self, text: str) -> None:
        """The latest ``race`` frame (a slot, like stats: a newer one replaces it)."""
        self._race = text
        self._event.set()

    def put_reply(self, text: str) -> None:
        self._replies.append(text)
        self._event.set()

    def close(self) -> None:
        self.closed = True
        self._event.set()

    async def next(self) -> str | None:
        """The next frame to send, waiting as needed; None once closed."""
        while True:
            self._event.clear()
            if self.closed:
                return None
            if self._replies:
                return self._replies.popleft()
            if self._state is not None:
                text, self._state = self._state, None
                return text
            if self._race is not None:
                text, self._race = self._race, None
                return text
            if self._stats is not None:
                due = self._last_stats + 1.0 / self.hz - time.perf_counter()
                if due <= 0:
                    snap, self._stats = self._stats, None
                    self._last_stats = time.perf_counter()
                    return snap.encode(
                        tree=self.tree,
                        max_bytes=self.max_bytes,
                        nodes=self.tree_nodes,
                        compact=self.tree_compact,
                    )
                try:  # something more urgent may arrive while we wait for the slot
                    async with asyncio.timeout(due):
                        await self._event.wait()
                except TimeoutError:
                    pass
                continue
            await self._event.wait()
