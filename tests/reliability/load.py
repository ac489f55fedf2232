"""Load benchmark and connect/disconnect cycles against a real server on loopback.

    .venv/bin/python -m tests.reliability.load load --clients 50 --seconds 60
    .venv/bin/python -m tests.reliability.load cycles --cycles 1000

``load``: N websocket clients, each with its own game against the engine. A
client plays a random legal move whenever it is its turn, so every client
keeps asking for an engine search the whole time (more than the pool runs at
once: the rest wait in the queue, as in a classroom), pings once a second and
counts every ``error`` frame, unexpected close and HTTP failure as an error.
Meanwhile ``/api/health`` is polled every 100 ms (latency percentiles) and the
server's resident memory and thread count are sampled from /proc each second.

``cycles``: a few games search continuously (alpha-beta analysis, each kept watched by
one socket); then sockets connect to them, read the state and a stats
frame, and disconnect, C times, K at once. Threads and resident memory are
read after a warm-up round and again at the end.

Both print a JSON summary as their last line (docs/reliability.md has the figures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.reliability.server import ServerProcess, proc_status


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class LoadReport:
    clients: int
    seconds: float
    cores: int
    max_searches: int
    think_ms: int
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    moves_human: int = 0
    moves_engine: int = 0
    games_finished: int = 0
    stats_frames: int = 0
    queued_seen: int = 0
    ping_ms: dict[str, float] = field(default_factory=dict)
    health_requests: int = 0
    health_failures: int = 0
    health_ms: dict[str, float] = field(default_factory=dict)
    rss_mb: dict[str, float] = field(default_factory=dict)
    threads: dict[str, int] = field(default_factory=dict)

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(text[:300])


async def _client(
    idx: int, base: str, ws_base: str, http: httpx.AsyncClient, report: LoadReport, end: float,
    think_ms: int, pings: list[float],
) -> None:  # fmt: skip
    rng = random.Random(idx)
    while time.monotonic() < end:
        r = await http.post(
            f"{base}/api/games",
            json={"game": rng.choice(["chess", "knight"]), "human": "white",
                  "movetime_ms": think_ms, "name": f"load client {idx}"},
        )  # fmt: skip
        if r.status_code != 201:
            report.error(f"create: {r.status_code} {r.text}")
            await asyncio.sleep(1)
            continue
        game = r.json()
        try:
            async with connect(f"{ws_base}{game['ws']}", max_size=2**20) as ws:
                last_ping = 0.0
                sent: dict[str, float] = {}
                while time.monotonic() < end:
                    now = time.monotonic()
                    if now - last_ping >= 1.0:
                        key = f"{idx}-{now}"
                        sent[key] = time.perf_counter()
                        await ws.send(json.dumps({"type": "ping", "t": key}))
                        last_ping = now
                    try:
                        text = await asyncio.wait_for(ws.recv(), timeout=max(0.05, end - now))
                    except TimeoutError:
                        break
                    frame = json.loads(text)
                    kind = frame["type"]
                    if kind == "stats":
                        report.stats_frames += 1
                    elif kind == "pong":
                        t0 = sent.pop(str(frame["t"]), None)
                        if t0 is not None:
                            pings.append((time.perf_counter() - t0) * 1000)
                    elif kind == "error":
                        report.error(f"error frame: {frame}")
                    elif kind == "state":
                        if frame["search"]["status"] == "queued":
                            report.queued_seen += 1
                        if frame["result"]:
                            report.games_finished += 1
                            break  # a new game
                        if (
                            frame["history"]
                            and frame["history"][-1]["by"] == "engine"
                            and (frame["turn"] == "white" and frame["search"]["status"] == "idle")
                        ):
                            pass
                        if (
                            frame["turn"] == "white"
                            and frame["legal"]
                            and frame["search"]["status"] == "idle"
                        ):
                            if frame["ply"] > 0 and frame["history"][-1]["by"] == "engine":
                                report.moves_engine += 1
                            await asyncio.sleep(rng.uniform(0.05, 0.3))  # a (fast) human
                            await ws.send(
                                json.dumps({"type": "move", "uci": rng.choice(frame["legal"])})
                            )
                            report.moves_human += 1
        except ConnectionClosed as exc:
            if time.monotonic() < end:
                report.error(f"socket closed: {exc}")
        except OSError as exc:
            report.error(f"socket: {exc!r}")


async def _health_poller(base: str, report: LoadReport, end: float, out: list[float]) -> None:
    async with httpx.AsyncClient(timeout=5.0) as http:
        while time.monotonic() < end:
            t0 = time.perf_counter()
            try:
                r = await http.get(f"{base}/api/health")
                ms = (time.perf_counter() - t0) * 1000
                report.health_requests += 1
                if r.status_code != 200 or r.json()["status"] != "ok":
                    report.health_failures += 1
                    report.error(f"health: {r.status_code} {r.text[:200]}")
                out.append(ms)
            except httpx.HTTPError as exc:
                report.health_failures += 1
                report.error(f"health: {exc!r}")
            await asyncio.sleep(max(0.0, 0.1 - (time.perf_counter() - t0)))


async def _sampler(pid: int, end: float, rss: list[float], threads: list[int]) -> None:
    while time.monotonic() < end:
        status = proc_status(pid)
        rss.append(status["VmRSS"] / 1024)
        threads.append(status["Threads"])
        await asyncio.sleep(1.0)


async def _run_load(server: ServerProcess, report: LoadReport) -> None:
    pings: list[float] = []
    health: list[float] = []
    rss: list[float] = []
    threads: list[int] = []
    before = proc_status(server.pid())
    end = time.monotonic() + report.seconds
    limits = httpx.Limits(max_connections=report.clients + 10)
    async with httpx.AsyncClient(timeout=10.0, limits=limits) as http:
        tasks = [
            _client(i, server.base, server.ws_base, http, report, end, report.think_ms, pings)
            for i in range(report.clients)
        ]
        await asyncio.gather(
            _health_poller(server.base, report, end, health),
            _sampler(server.pid(), end, rss, threads),
            *tasks,
        )
    await asyncio.sleep(2.0)
    after = proc_status(server.pid())
    report.ping_ms = _summary(pings)
    report.health_ms = _summary(health)
    report.rss_mb = {
        "before": round(before["VmRSS"] / 1024, 1),
        "peak": round(max(rss), 1) if rss else float("nan"),
        "after": round(after["VmRSS"] / 1024, 1),
    }
    report.threads = {"before": before["Threads"], "peak": max(threads), "after": after["Threads"]}


def _summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "n": len(values),
        "p50": round(percentile(values, 50), 2),
        "p90": round(percentile(values, 90), 2),
        "p99": round(percentile(values, 99), 2),
        "max": round(max(values), 2),
        "mean": round(statistics.fmean(values), 2),
    }


def run_load(
    clients: int = 50, seconds: float = 60.0, think_ms: int = 300, data_dir: Path | None = None,
    max_searches: int | None = None,
) -> LoadReport:  # fmt: skip
    cores = os.cpu_count() or 1
    searches = max_searches or cores
    env = {
        "CANOPY_MAX_SEARCHES": str(searches),
        "CANOPY_STATS_HZ": "10",
        "CANOPY_LOG_LEVEL": "warning",
        "CANOPY_GAMES_PER_MINUTE": "100000",
    }
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(data_dir or Path(tmp), env)
        server.start()
        try:
            report = LoadReport(clients, seconds, cores, searches, think_ms)
            asyncio.run(_run_load(server, report))
            return report
        finally:
            server.stop()


# ---------------------------------------------------------------- connect/disconnect cycles


@dataclass
class CycleReport:
    cycles: int
    concurrency: int
    searches: int
    seconds: float = 0.0
    failures: int = 0
    threads: dict[str, int] = field(default_factory=dict)
    rss_mb: dict[str, float] = field(default_factory=dict)
    searches_running: dict[str, int] = field(default_factory=dict)


async def _one_cycle(ws_url: str, want_stats: bool) -> None:
    async with connect(ws_url, max_size=2**20) as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert first["type"] == "state", first
        if want_stats:
            while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "stats":
                pass


async def _run_cycles(server: ServerProcess, report: CycleReport) -> None:
    async with httpx.AsyncClient(timeout=10.0) as http:
        games = []
        for _ in range(report.searches):
            # Alpha-beta: its memory is its hash table, allocated once, so the searches go
            # on for the whole run without their own memory growing under the measurement
            # (an MCTS tree grows until its node budget).
            r = await http.post(
                f"{server.base}/api/games", json={"human": "both", "algorithm": "alphabeta"}
            )
            games.append(r.json())
        keepers = []
        for g in games:  # one watcher per game keeps its analysis running throughout
            ws = await connect(f"{server.ws_base}{g['ws']}", max_size=2**20)
            await ws.recv()
            await ws.send(json.dumps({"type": "search", "action": "start"}))
            keepers.append(ws)
        drains = [asyncio.create_task(_drain(ws)) for ws in keepers]
        urls = [f"{server.ws_base}/ws/games/{g['id']}" for g in games]
        urls += [f"{server.ws_base}{g['ws']}" for g in games]  # players too, not only spectators

        async def batch(n: int, offset: int) -> None:
            sem = asyncio.Semaphore(report.concurrency)

            async def one(i: int) -> None:
                async with sem:
                    try:
                        await _one_cycle(urls[i % len(urls)], want_stats=i % 4 == 0)
                    except Exception:
                        report.failures += 1

            await asyncio.gather(*(one(offset + i) for i in range(n)))

        await batch(100, 0)  # warm-up: executor threads, caches, first allocations
        await asyncio.sleep(1.0)
        start = proc_status(server.pid())
        health = (await http.get(f"{server.base}/api/health")).json()
        report.searches_running["start"] = health["pool"]["running"]
        t0 = time.perf_counter()
        await batch(report.cycles, 100)
        report.seconds = round(time.perf_counter() - t0, 2)
        await asyncio.sleep(2.0)
        end = proc_status(server.pid())
        health = (await http.get(f"{server.base}/api/health")).json()
        report.searches_running["end"] = health["pool"]["running"]
        report.threads = {"start": start["Threads"], "end": end["Threads"]}
        report.rss_mb = {
            "start": round(start["VmRSS"] / 1024, 1),
            "end": round(end["VmRSS"] / 1024, 1),
        }
        for task in drains:
            task.cancel()
        for ws in keepers:
            await ws.close()


async def _drain(ws: Any) -> None:
    try:
        async for _ in ws:
            pass
    except (ConnectionClosed, asyncio.CancelledError):
        pass


def run_cycles(cycles: int = 1000, concurrency: int = 10, searches: int = 2) -> CycleReport:
    env = {
        "CANOPY_MAX_SEARCHES": str(searches),
        "CANOPY_ANALYSIS_MS": "600000",
        "CANOPY_LOG_LEVEL": "warning",
        "CANOPY_WS_RATE": "1000",
    }
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), env)
        server.start()
        try:
            report = CycleReport(cycles, concurrency, searches)
            asyncio.run(_run_cycles(server, report))
            return report
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("load", help="N clients, each with a game and searches, for S seconds")
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--think-ms", type=int, default=300)
    p.add_argument("--max-searches", type=int, default=None)
    c = sub.add_parser("cycles", help="connect/disconnect cycles during searches")
    c.add_argument("--cycles", type=int, default=1000)
    c.add_argument("--concurrency", type=int, default=10)
    c.add_argument("--searches", type=int, default=2)
    args = parser.parse_args()
    if args.cmd == "load":
        out: Any = run_load(args.clients, args.seconds, args.think_ms, None, args.max_searches)
    else:
        out = run_cycles(args.cycles, args.concurrency, args.searches)
    print(json.dumps(asdict(out)))


if __name__ == "__main__":
    main()
