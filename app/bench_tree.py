"""Tree-view benchmark: what a 500-node tree costs the server, and the search, to stream.

Two measurements (the issue's goals in brackets):

* **tree frame**: on a real search tree (chess, UCT, 30 000 iterations), the
  server time to build the 500 most visited nodes (the snapshot's tree: the
  top-N walk, each node's numbers and SAN) with the SAN cache cold (a new
  root) and warm (a running search, where most nodes were named in an earlier
  snapshot), the time to encode the stats frame, and its size in the compact
  format the page subscribes to and in the row format (which would not fit).
* **tree view open**: iterations per second of one search while a client
  watches its tree — a websocket client subscribed to 500 compact nodes at
  10 Hz, and, when Chromium is installed, the real page with the Tree tab open
  at 500 nodes drawing every frame on the same machine — beside the same
  search (game, algorithm, seed, time) headless; rounds alternate and the
  medians are compared [≥ 85% of headless].

Run it with ``python -m app.bench_tree`` (``--json`` for one JSON object on
the last line); ``canopy bench`` includes it (``app.bench.register``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import chess

from app.bench_server import BenchServer, headless_nps
from app.settings import Settings
from app.streaming import Snapshot
from app.subscriptions import FULL_RATE_NODES
from engine.bench import BenchResult

TREE_NODES = 500
CHROMIUM = Path(os.environ.get("CANOPY_CHROMIUM", "/usr/bin/chromium"))
STATUS = {
    "search": {"status": "running", "purpose": "analysis", "paused": False, "queue_position": None},
    "pool": {"capacity": 1, "running": 1, "queued": 0},
}


@dataclass
class FrameReport:
    nodes: int
    tree_nodes_total: int
    build_cold_ms: float
    build_warm_ms: float
    snapshot_without_tree_ms: float
    snapshot_with_tree_ms: float
    encode_compact_ms: float
    bytes_compact: int
    bytes_rows: int
    bytes_without_tree: int

    @property
    def snapshots_per_second(self) -> float:
        """How often the app snapshots a tree this big at the default 10 Hz (app.subscriptions)."""
        return 10.0 / max(1.0, self.nodes / FULL_RATE_NODES)

    @property
    def cpu_ms_per_second(self) -> float:
        """Server CPU the tree adds per second (building plus encoding, at the snapshot
        rate the app uses for it): the load-independent cost behind the throughputs."""
        return self.snapshots_per_second * (
            self.snapshot_with_tree_ms - self.snapshot_without_tree_ms + self.encode_compact_ms
        )


def _median_ms(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


def measure_frame(
    *, iterations: int = 30_000, nodes: int = TREE_NODES, repeat: int = 15
) -> FrameReport:
    """Build and encode a ``nodes``-node stats frame from a real search tree."""
    from engine.explain.export import top_tree
    from engine.rules.san import SanCache
    from engine.search.controller import SearchController

    ctl = SearchController("chess", algorithm="uct", seed=1, tree_size=nodes)
    try:
        ctl.search(iterations=iterations)

        def cold() -> Any:
            return top_tree(ctl, nodes, SanCache(ctl.board))

        warm_sans = SanCache(ctl.board)
        top_tree(ctl, nodes, warm_sans)

        def warm() -> Any:
            return top_tree(ctl, nodes, warm_sans)

        build_cold = _median_ms(cold, repeat)
        build_warm = _median_ms(warm, repeat)
        # The whole snapshot the controller publishes, without and with the tree.
        ctl.tree_size = 0
        without = _median_ms(lambda: ctl._snapshot(False), repeat)
        ctl.tree_size = nodes
        ctl._snapshot(False)  # names the nodes (a running search has done so already)
        with_tree = _median_ms(lambda: ctl._snapshot(False), repeat)
        info = ctl._snapshot(False)
        board = chess.Board()

        def snapshot() -> Snapshot:
            return Snapshot(info, seq=1, root=board, status=lambda: STATUS)

        big = 1 << 22
        encode = _median_ms(
            lambda: snapshot().encode(tree=True, max_bytes=big, nodes=nodes, compact=True), repeat
        )
        compact = snapshot().encode(tree=True, max_bytes=big, nodes=nodes, compact=True)
        rows = snapshot().encode(tree=True, max_bytes=big, nodes=nodes)
        bare = snapshot().encode(tree=False, max_bytes=big)
        return FrameReport(
            nodes=len(info.tree),
            tree_nodes_total=int(info.nodes),
            build_cold_ms=build_cold,
            build_warm_ms=build_warm,
            snapshot_without_tree_ms=without,
            snapshot_with_tree_ms=with_tree,
            encode_compact_ms=encode,
            bytes_compact=len(compact.encode()),
            bytes_rows=len(rows.encode()),
            bytes_without_tree=len(bare.encode()),
        )
    finally:
        ctl.close()


@dataclass
class ViewReport:
    game: str
    algorithm: str
    seconds: float
    rounds: int
    headless_nps: list[float] = field(default_factory=list)
    plain_nps: list[float] = field(default_factory=list)  # a client watching without the tree
    websocket_nps: list[float] = field(default_factory=list)
    browser_nps: list[float] = field(default_factory=list)
    frames: int = 0
    frame_bytes_max: int = 0
    browser_trees_drawn: int = 0
    browser_note: str = ""
    #: The machine's 1-minute load average before and after (the figures depend on it).
    load_before: float = 0.0
    load_after: float = 0.0

    def ratio(self, which: str) -> float | None:
        values = getattr(self, f"{which}_nps")
        if not values or not self.headless_nps:
            return None
        return statistics.median(values) / statistics.median(self.headless_nps)


async def _watch_tree(
    server: BenchServer, report: ViewReport, seed: int, tree: bool = True
) -> float:
    """Analyse for ``seconds`` while a client receives 500-node trees (or, ``tree=False``,
    the stats without any tree: the cost of watching at all); the search's nps."""
    from websockets.asyncio.client import connect

    game = server.create(game=report.game, human="both", algorithm=report.algorithm, seed=seed)
    url = f"ws://127.0.0.1:{server.port}{game['ws']}"
    final: dict[str, Any] | None = None
    async with connect(url, max_size=None) as ws:
        await ws.recv()
        sub: dict[str, Any] = {"type": "subscribe", "tree": False}
        if tree:
            sub = {"type": "subscribe", "tree_nodes": TREE_NODES, "tree_format": "compact"}
        await ws.send(json.dumps(sub))
        await ws.send(json.dumps({"type": "search", "action": "start"}))
        started = False
        while True:
            text = await ws.recv()
            frame = json.loads(text)
            if frame["type"] != "stats":
                started = started or (
                    frame["type"] == "state" and frame["search"]["status"] == "running"
                )
                continue
            if tree:
                size = len(text.encode()) if isinstance(text, str) else len(text)
                report.frames += 1
                report.frame_bytes_max = max(report.frame_bytes_max, size)
            if not frame["running"] and started:
                final = frame
                break
            started = started or frame["running"]
    assert final is not None
    return float(final["iterations"]) / (float(final["elapsed_ms"]) / 1000.0)


def _browser_round(server: BenchServer, report: ViewReport, seed: int, browser: Any) -> float:
    """The real page, Tree tab open at 500 nodes, drawing every frame during the analysis."""
    game = server.create(game=report.game, human="both", algorithm=report.algorithm, seed=seed)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.add_init_script(
            "localStorage.setItem('canopy:tab', 'tree');"
            f"localStorage.setItem('canopy:tree-nodes', '{TREE_NODES}');"
        )
        page.goto(f"{server.base}{game['url']}#token={game['token']}")
        page.wait_for_selector("body[data-conn=open][data-version]")
        page.keyboard.press("Space")
        page.wait_for_function(
            "() => { const s = window.canopy.state.stats;"
            " return s && !s.running && s.iterations > 0"
            " && window.canopy.state.game.search.status === 'idle'; }",
            timeout=(report.seconds + 30) * 1000,
        )
        drawn = int(page.evaluate("document.querySelectorAll('#tree-area g.tnode').length"))
        report.browser_trees_drawn = max(report.browser_trees_drawn, drawn)
        stats = page.evaluate("window.canopy.state.stats")
        return float(stats["iterations"]) / (float(stats["elapsed_ms"]) / 1000.0)
    finally:
        page.close()


def measure_view(
    *,
    game: str = "chess",
    algorithm: str = "uct",
    seconds: float = 3.0,
    rounds: int = 3,
    seed: int = 1,
    browser: bool = True,
) -> ViewReport:
    report = ViewReport(game, algorithm, seconds, rounds, load_before=os.getloadavg()[0])
    settings = Settings(
        warmup=False, stats_hz=10, analysis_ms=max(1, int(seconds * 1000)), max_searches=2
    )
    headless_nps(game, algorithm, 0.2, seed)  # compile before timing anything
    use_browser = browser and CHROMIUM.exists()
    if browser and not use_browser:
        report.browser_note = f"{CHROMIUM} not found: browser rounds skipped"
    with BenchServer(settings) as server:
        pw = chromium = None
        if use_browser:
            from playwright.sync_api import sync_playwright

            pw = sync_playwright().start()
            chromium = pw.chromium.launch(
                executable_path=str(CHROMIUM),
                args=["--headless=new", "--no-sandbox", "--disable-gpu"],
            )
        try:
            for _ in range(rounds):
                report.headless_nps.append(
                    headless_nps(game, algorithm, seconds, seed, nice=settings.search_nice)
                )
                # (in a thread: Playwright's sync API holds this thread's event loop)
                with ThreadPoolExecutor(1) as pool:
                    plain = pool.submit(asyncio.run, _watch_tree(server, report, seed, False))
                    report.plain_nps.append(plain.result())
                    nps = pool.submit(asyncio.run, _watch_tree(server, report, seed)).result()
                report.websocket_nps.append(nps)
                if chromium is not None:
                    report.browser_nps.append(_browser_round(server, report, seed, chromium))
        finally:
            if chromium is not None:
                chromium.close()
            if pw is not None:
                pw.stop()
    report.load_after = os.getloadavg()[0]
    return report


# ---------------------------------------------------------------- canopy bench

_FRAME: dict[bool, FrameReport] = {}
_VIEW: dict[bool, ViewReport] = {}


def _frame(quick: bool) -> FrameReport:
    if quick not in _FRAME:
        _FRAME[quick] = measure_frame(
            iterations=8_000 if quick else 30_000, repeat=5 if quick else 15
        )
    return _FRAME[quick]


def _view(quick: bool) -> ViewReport:
    if quick not in _VIEW:
        _VIEW[quick] = (
            measure_view(seconds=0.8, rounds=1) if quick else measure_view(seconds=3.0, rounds=3)
        )
    return _VIEW[quick]


def bench_tree_frame(quick: bool) -> list[BenchResult]:
    r = _frame(quick)
    return [
        BenchResult(
            name=f"build a {r.nodes}-node tree for a stats frame (warm SAN cache)",
            value=r.build_warm_ms,
            unit="ms",
            baseline=None,
            ratio=None,
            note=f"cold (new root): {r.build_cold_ms:.1f} ms; encoding the frame "
            f"{r.encode_compact_ms:.1f} ms; {r.cpu_ms_per_second:.0f} ms of server CPU per "
            f"second ({r.snapshots_per_second:g} snapshots/s)",
        ),
        BenchResult(
            name=f"stats frame with a {r.nodes}-node tree (compact)",
            value=r.bytes_compact / 1024,
            unit="KiB",
            baseline=r.bytes_rows / 1024,
            ratio=r.bytes_compact / r.bytes_rows,
            note=f"frame limit 64 KiB; without the tree {r.bytes_without_tree / 1024:.1f} KiB",
            baseline_label="the same tree as rows",
        ),
    ]


def bench_tree_view(quick: bool) -> list[BenchResult]:
    r = _view(quick)
    headless = statistics.median(r.headless_nps)
    out = [
        BenchResult(
            name=f"search while a client receives {TREE_NODES}-node trees at 10 Hz "
            f"({r.algorithm}, {r.game})",
            value=statistics.median(r.websocket_nps),
            unit="iterations/s",
            baseline=headless,
            ratio=r.ratio("websocket"),
            note="baseline: the same search headless (goal: ratio >= 0.85); a client "
            f"watching without the tree in the same rounds: {r.ratio('plain') or 0:.3f}",
            baseline_label="headless",
        )
    ]
    if r.browser_nps:
        out.append(
            BenchResult(
                name=f"search with the page's Tree view open ({TREE_NODES} nodes, Chromium "
                "on the same machine)",
                value=statistics.median(r.browser_nps),
                unit="iterations/s",
                baseline=headless,
                ratio=r.ratio("browser"),
                note="baseline: the same search headless (goal: ratio >= 0.85)",
                baseline_label="headless",
            )
        )
    return out


def register() -> None:
    from engine import bench

    bench.register("tree-frame", bench_tree_frame)
    bench.register("tree-view", bench_tree_view)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.bench_tree", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--game", choices=["chess", "knight"], default="chess")
    parser.add_argument("--algorithm", default="uct")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium rounds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    frame = measure_frame()
    print(
        f"tree frame   {frame.nodes} of {frame.tree_nodes_total:,} nodes: build "
        f"{frame.build_warm_ms:.2f} ms warm / {frame.build_cold_ms:.2f} ms cold; encode "
        f"{frame.encode_compact_ms:.2f} ms; whole snapshot {frame.snapshot_with_tree_ms:.2f} ms "
        f"(without the tree {frame.snapshot_without_tree_ms:.2f} ms); "
        f"{frame.bytes_compact:,} B compact, "
        f"{frame.bytes_rows:,} B as rows, {frame.bytes_without_tree:,} B without the tree; "
        f"{frame.cpu_ms_per_second:.0f} ms of server CPU per second "
        f"({frame.snapshots_per_second:g} snapshots/s)"
    )
    view = measure_view(
        game=args.game,
        algorithm=args.algorithm,
        seconds=args.seconds,
        rounds=args.rounds,
        browser=not args.no_browser,
    )
    print(f"headless     {statistics.median(view.headless_nps):>12,.0f} it/s  {view.headless_nps}")
    for which in ("plain", "websocket", "browser"):
        values = getattr(view, f"{which}_nps")
        if values:
            print(
                f"{which:<12} {statistics.median(values):>12,.0f} it/s  {values}  "
                f"ratio {view.ratio(which):.3f} (goal >= 0.85)"
            )
    if view.browser_note:
        print(view.browser_note)
    print(f"load average {view.load_before:.2f} before, {view.load_after:.2f} after")
    print(
        f"frames {view.frames}, largest {view.frame_bytes_max:,} B; "
        f"nodes drawn {view.browser_trees_drawn}"
    )
    if args.json:
        out = {
            "frame": {
                **asdict(frame),
                "snapshots_per_second": frame.snapshots_per_second,
                "cpu_ms_per_second": frame.cpu_ms_per_second,
            },
            "view": asdict(view),
            "ratio_websocket": view.ratio("websocket"),
            "ratio_browser": view.ratio("browser"),
        }
        print(json.dumps(out, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
