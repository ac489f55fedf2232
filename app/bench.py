"""Streaming benchmark: what watching a search costs it, and how fresh the frames are.

Two measurements, both on loopback with the real server (uvicorn in a thread)
and a real websocket client (the ``websockets`` package):

* **throughput**: iterations per second of one search while a client receives
  its stats at 10 Hz, beside the *same* search (game, algorithm, seed, time)
  run headless with nobody listening; rounds alternate and the medians are
  compared. The goal is a ratio of at least 0.9. The search is the default
  opponent's (``mcts``): the one a class watches, and the one the issue's goal
  names; ``--algorithm`` measures another.
* **latency**: for every stats frame, the time from the snapshot reaching the
  app (the controller's ``on_info``) to the client having the frame parsed;
  and for moves, from sending a ``move`` to receiving the ``state`` frame
  that shows it. The goal is a p95 under 150 ms.

A benchmark, never a timed test. Run it with ``python -m app.bench`` (add
``--json`` for one JSON object on the last line); ``canopy bench`` includes it
once ``app.bench.register()`` has been called (see ``register``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from app.bench_server import BenchServer, headless_nps
from app.bench_tree import register as register_tree
from app.settings import Settings
from engine.bench import BenchResult
from engine.search.registry import DEFAULT_ALGORITHM


@dataclass
class StreamingReport:
    game: str
    algorithm: str
    seconds: float
    rounds: int
    hz: float
    headless_nps: list[float] = field(default_factory=list)
    streaming_nps: list[float] = field(default_factory=list)
    frames: int = 0
    frame_bytes_max: int = 0
    frame_bytes_mean: float = 0.0
    stats_latency_ms: list[float] = field(default_factory=list)
    move_latency_ms: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        headless = statistics.median(self.headless_nps)
        return statistics.median(self.streaming_nps) / headless if headless else 0.0

    def summary(self) -> dict[str, Any]:
        out = {
            k: v
            for k, v in asdict(self).items()
            if k not in ("stats_latency_ms", "move_latency_ms")
        }
        out["headless_nps_median"] = statistics.median(self.headless_nps)
        out["streaming_nps_median"] = statistics.median(self.streaming_nps)
        out["ratio"] = self.ratio
        out["stats_latency_ms"] = _percentiles(self.stats_latency_ms)
        out["move_latency_ms"] = _percentiles(self.move_latency_ms)
        return out


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]

    return {
        "n": len(ordered),
        "p50": pct(0.5),
        "p95": pct(0.95),
        "max": ordered[-1],
        "mean": statistics.fmean(ordered),
    }


async def _watch_search(
    server: BenchServer, report: StreamingReport, created: dict[float, int], seed: int
) -> float:
    """Analyse the start position for ``seconds`` while receiving every frame; return nps."""
    from websockets.asyncio.client import connect

    game = server.create(game=report.game, human="both", algorithm=report.algorithm, seed=seed)
    url = f"ws://127.0.0.1:{server.port}{game['ws']}"
    sizes: list[int] = []
    final: dict[str, Any] | None = None
    async with connect(url, max_size=None) as ws:
        await ws.recv()  # the state on connect
        await ws.send(json.dumps({"type": "search", "action": "start"}))
        started = False
        while True:
            text = await ws.recv()
            now = time.perf_counter()
            frame = json.loads(text)
            if frame["type"] == "stats":
                sizes.append(len(text))
                made = created.get(frame["seq"])
                if made is not None:
                    report.stats_latency_ms.append((now - made) * 1000)
                if not frame["running"] and started:
                    final = frame
                    break
                started = started or frame["running"]
            elif frame["type"] == "state" and frame["search"]["status"] == "running":
                started = True
    report.frames += len(sizes)
    report.frame_bytes_max = max([report.frame_bytes_max, *sizes])
    report.frame_bytes_mean = statistics.fmean(sizes) if sizes else 0.0
    assert final is not None
    return float(final["iterations"]) / (float(final["elapsed_ms"]) / 1000.0)


async def _move_latency(server: BenchServer, report: StreamingReport, plies: int) -> None:
    """Play ``plies`` random moves (both sides human) and time each move → state frame."""
    from websockets.asyncio.client import connect

    rng = random.Random(1)
    game = server.create(game=report.game, human="both")
    url = f"ws://127.0.0.1:{server.port}{game['ws']}"
    async with connect(url, max_size=None) as ws:
        state = json.loads(await ws.recv())
        for _ in range(plies):
            if state["result"] or not state["legal"]:
                break
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "move", "uci": rng.choice(state["legal"])}))
            ply = state["ply"]
            while True:
                frame = json.loads(await ws.recv())
                if frame["type"] == "state" and frame["ply"] > ply:
                    report.move_latency_ms.append((time.perf_counter() - sent) * 1000)
                    state = frame
                    break


def measure(
    *,
    game: str = "chess",
    algorithm: str = DEFAULT_ALGORITHM,
    seconds: float = 3.0,
    rounds: int = 3,
    hz: float = 10.0,
    plies: int = 60,
    seed: int = 1,
) -> StreamingReport:
    report = StreamingReport(game, algorithm, seconds, rounds, hz)
    settings = Settings(
        warmup=False,
        stats_hz=hz,
        analysis_ms=max(1, int(seconds * 1000)),
        max_searches=2,
    )
    headless_nps(game, algorithm, 0.2, seed)  # compile the kernels before timing anything
    with BenchServer(settings) as server:
        created: dict[float, int] = {}
        service = server.app.state.service

        def on_snapshot(_game: Any, snap: Any) -> None:
            created[snap.seq] = snap.created

        service.on_snapshot = on_snapshot
        for _ in range(rounds):
            report.headless_nps.append(
                headless_nps(game, algorithm, seconds, seed, nice=settings.search_nice)
            )
            created.clear()
            report.streaming_nps.append(asyncio.run(_watch_search(server, report, created, seed)))
        asyncio.run(_move_latency(server, report, plies))
    return report


# ---------------------------------------------------------------- canopy bench

_LAST: dict[bool, StreamingReport] = {}


def _report(quick: bool) -> StreamingReport:
    if quick not in _LAST:
        _LAST[quick] = (
            measure(seconds=0.6, rounds=1, plies=10) if quick else measure(seconds=3.0, rounds=3)
        )
    return _LAST[quick]


def bench_streaming_throughput(quick: bool) -> BenchResult:
    r = _report(quick)
    headless = statistics.median(r.headless_nps)
    value = statistics.median(r.streaming_nps)
    return BenchResult(
        name=f"search while streaming stats at {r.hz:g} Hz ({r.algorithm}, {r.game})",
        value=value,
        unit="iterations/s",
        baseline=headless,
        ratio=value / headless if headless else None,
        note="baseline: the same search headless (goal: ratio >= 0.9)",
        baseline_label="headless",
    )


def bench_streaming_latency(quick: bool) -> BenchResult:
    r = _report(quick)
    stats = _percentiles(r.stats_latency_ms)
    return BenchResult(
        name="snapshot to stats frame on loopback, p95",
        value=stats.get("p95", float("nan")),
        unit="ms",
        baseline=None,
        ratio=None,
        note=f"goal < 150 ms; move to state frame p95 "
        f"{_percentiles(r.move_latency_ms).get('p95', float('nan')):.1f} ms",
    )


def register() -> None:
    """Add both figures to ``canopy bench`` (``engine.bench`` cannot import the app itself)."""
    from engine import bench

    bench.register("streaming", bench_streaming_throughput)
    bench.register("streaming-latency", bench_streaming_latency)
    register_tree()  # the tree view: frame size and build time, search speed while drawn


def results(quick: bool = False) -> Iterator[BenchResult]:
    yield bench_streaming_throughput(quick)
    yield bench_streaming_latency(quick)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--game", choices=["chess", "knight"], default="chess")
    parser.add_argument("--algorithm", default=DEFAULT_ALGORITHM)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hz", type=float, default=10.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = measure(
        game=args.game,
        algorithm=args.algorithm,
        seconds=args.seconds,
        rounds=args.rounds,
        hz=args.hz,
    )
    s = report.summary()
    print(f"headless   {s['headless_nps_median']:>12,.0f} iterations/s  {report.headless_nps}")
    print(f"streaming  {s['streaming_nps_median']:>12,.0f} iterations/s  {report.streaming_nps}")
    print(f"ratio      {s['ratio']:.3f}  (goal >= 0.9)")
    print(
        f"frames     {s['frames']}  max {s['frame_bytes_max']} B  "
        f"mean {s['frame_bytes_mean']:.0f} B"
    )
    for key in ("stats_latency_ms", "move_latency_ms"):
        p = s[key]
        if p.get("n"):
            print(f"{key:<18} n={p['n']} p50={p['p50']:.1f} p95={p['p95']:.1f} max={p['max']:.1f}")
    if args.json:
        print(json.dumps(s, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
