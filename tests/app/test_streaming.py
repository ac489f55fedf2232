"""Latest-only outboxes, frame trimming under the size limit, and the search pool."""

from __future__ import annotations

import asyncio
import json
import math
import time

import chess
import pytest

from app.pool import SearchPool
from app.schemas import StatsFrame
from app.streaming import Outbox, Snapshot, encode_step, num
from engine.search.info import MoveStats, SearchInfo, TreeNodeInfo
from tests.timing import limits

STATUS = {
    "search": {"status": "running", "purpose": "move", "paused": False, "queue_position": None},
    "pool": {"capacity": 1, "running": 1, "queued": 0},
}


def make_info(
    *, moves: int = 20, pv: int = 12, tree: int = 50, iterations: int = 100
) -> SearchInfo:
    board = chess.Board()
    legal = [m.uci() for m in board.legal_moves]
    rows = tuple(
        MoveStats(
            move=legal[i % len(legal)],
            san=board.san(chess.Move.from_uci(legal[i % len(legal)])),
            visits=100 - i,
            share=(100 - i) / 5000,
            q=0.5,
            score=math.inf if i == 0 else 0.6,
            eval=math.nan if i == 1 else 0.01,
            pv=(legal[i % len(legal)], *("e7e5", "g1f3") * (pv // 2))[:pv],
            pv_san=("x",) * pv,
        )
        for i in range(moves)
    )
    nodes = tuple(
        TreeNodeInfo(
            id=k,
            parent=-1 if k == 0 else (k - 1) // 3,
            move="" if k == 0 else "e2e4",
            san="" if k == 0 else "e4",
            depth=0,
            visits=tree - k,
            q=0.5,
            q_white=0.5,
            value=0.0,
            terminal=False,
            children=3,
        )
        for k in range(tree)
    )
    return SearchInfo(
        algorithm="uct",
        game="chess",
        fen=board.fen(),
        turn="white",
        params={},
        threads=1,
        seed=0,
        iterations=iterations,
        nodes=tree,
        elapsed_ms=12.5,
        nps=8000.0,
        max_depth=4,
        mean_depth=2.5,
        memory_bytes=1000,
        bytes_per_node=20.0,
        moves=rows,
        bestmove=rows[0].move,
        pv=rows[0].pv,
        pv_san=rows[0].pv_san,
        tree=nodes,
        running=True,
    )


def snapshot(info: SearchInfo, seq: int = 1) -> Snapshot:
    return Snapshot(info, seq=seq, root=chess.Board(), status=lambda: STATUS)


def test_a_snapshot_encodes_to_a_valid_stats_frame_with_json_safe_numbers() -> None:
    text = snapshot(make_info(pv=2)).encode(tree=True, max_bytes=65536)
    frame = json.loads(text)
    StatsFrame.model_validate(frame)
    assert frame["moves"][0]["uct"] is None  # an unvisited child's infinite UCB
    assert frame["moves"][1]["eval"] is None
    row = frame["moves"][0]
    board = chess.Board()
    for uci in row["pv"]:
        board.push_uci(uci)
    assert row["pv_fen"] == board.fen()  # the position a hover preview shows
    assert len(frame["tree"]) == 50 and not frame["tree_trimmed"]
    assert num(float("inf")) is None and num(0.123456) == 0.1235


def test_large_snapshots_are_trimmed_under_the_frame_limit() -> None:
    info = make_info(moves=200, pv=40, tree=5000)
    text = snapshot(info).encode(tree=True, max_bytes=65536)
    assert len(text.encode()) < 65536
    frame = json.loads(text)
    StatsFrame.model_validate(frame)
    ids = {n["id"] for n in frame["tree"]}
    assert all(n["parent"] in ids for n in frame["tree"][1:])  # still a tree
    assert frame["tree_trimmed"]
    tiny = snapshot(info).encode(tree=True, max_bytes=8192)
    assert len(tiny.encode()) < 8192 and json.loads(tiny)["moves"]


def test_without_the_tree_subscription_the_frame_has_no_nodes() -> None:
    frame = json.loads(snapshot(make_info()).encode(tree=False, max_bytes=65536))
    assert frame["tree"] == [] and frame["tree_trimmed"]


def test_a_snapshot_is_encoded_once_per_variant() -> None:
    snap = snapshot(make_info())
    assert snap.encode(tree=True, max_bytes=65536) is snap.encode(tree=True, max_bytes=65536)


def test_the_outbox_keeps_only_the_latest_stats() -> None:
    async def run() -> tuple[dict, int]:
        box = Outbox(hz=1000)
        for seq in range(1, 6):
            box.put_stats(snapshot(make_info(iterations=seq), seq=seq))
        frame = json.loads(await box.next())
        return frame, box.skipped

    frame, skipped = asyncio.run(run())
    assert frame["seq"] == 5 and frame["iterations"] == 5
    assert skipped == 4


def test_the_outbox_sends_replies_then_state_then_stats() -> None:
    async def run() -> list[str]:
        box = Outbox(hz=1000)
        box.put_stats(snapshot(make_info()))
        box.put_state('{"type":"state","n":1}')
        box.put_state('{"type":"state","n":2}')  # replaces the unsent state
        box.put_reply('{"type":"error"}')
        return [json.loads(await box.next())["type"] for _ in range(3)]

    assert asyncio.run(run()) == ["error", "state", "stats"]


@limits(0.5, 3.0)
def test_the_outbox_paces_stats_to_its_rate(limit: float) -> None:
    async def run() -> float:
        box = Outbox(hz=10)
        box.put_stats(snapshot(make_info(), seq=1))
        await box.next()
        box.put_stats(snapshot(make_info(), seq=2))
        start = time.perf_counter()
        await box.next()
        return time.perf_counter() - start

    assert 0.07 <= asyncio.run(run()) < limit  # never sooner than 1/hz; later under load


@limits(0.1, 0.4)  # the stats slot opens 0.5 s after the last frame
def test_a_state_is_not_held_back_by_stats_pacing(limit: float) -> None:
    async def run() -> tuple[str, float]:
        box = Outbox(hz=2)
        box.put_stats(snapshot(make_info(), seq=1))
        await box.next()
        box.put_stats(snapshot(make_info(), seq=2))
        waiter = asyncio.ensure_future(box.next())
        await asyncio.sleep(0.02)
        start = time.perf_counter()
        box.put_state('{"type":"state"}')
        text = await waiter
        return json.loads(text)["type"], time.perf_counter() - start

    kind, waited = asyncio.run(run())
    assert kind == "state" and waited < limit


def test_a_closed_outbox_ends_the_sender() -> None:
    async def run() -> str | None:
        box = Outbox(hz=10)
        waiter = asyncio.ensure_future(box.next())
        await asyncio.sleep(0)
        box.close()
        return await waiter

    assert asyncio.run(run()) is None


def test_the_pool_admits_up_to_capacity_and_queues_the_rest_in_order() -> None:
    changes = []
    pool = SearchPool(2, on_change=lambda: changes.append(pool.status()))
    assert pool.request("a") and pool.request("b")
    assert not pool.request("c") and not pool.request("d")
    assert pool.request("a")  # idempotent
    assert (pool.position("c"), pool.position("d"), pool.position("a")) == (1, 2, None)
    assert pool.status() == {"capacity": 2, "running": 2, "queued": 2}
    assert pool.release("a") == ["c"]
    assert pool.is_running("c") and pool.position("d") == 1
    assert pool.release("d") == []  # leaving the queue admits nobody
    assert pool.release("nobody") == []
    assert pool.status() == {"capacity": 2, "running": 2, "queued": 0}
    assert changes


def test_the_pool_refuses_a_zero_capacity() -> None:
    with pytest.raises(ValueError, match="capacity"):
        SearchPool(0)


def test_a_wide_deep_step_trace_is_trimmed_under_the_limit_keeping_the_chosen_child() -> None:
    level = {
        "node": 0,
        "children": [
            {"node": k, "move": "a2a3", "san": "a3", "score": k / 1000, "q": 0.123456789}
            | {"chosen": k == 3}
            for k in range(300)
        ],
    }
    trace = {
        "selection": [dict(level) for _ in range(12)],
        "expansion": {},
        "simulation": {"kind": "playout", "moves": ["e2e4"] * 500},
        "backpropagation": [],
    }
    text = encode_step(trace, 65536)
    assert len(text.encode()) < 65536
    frame = json.loads(text)
    first = frame["selection"][0]
    assert any(c["chosen"] for c in first["children"])
    assert first["children_trimmed"] == 300 - len(first["children"])
    assert frame["simulation"]["moves_trimmed"] == 500 - 64
