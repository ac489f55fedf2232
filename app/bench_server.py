"""The benchmarks' harness: the real app on loopback, and the same search with nobody watching.

The streaming and tree-view benchmarks (``app.bench``, ``app.bench_tree``)
both compare a search someone watches over a websocket with the same search
run headless; this module holds what they share, so neither imports the other.
"""

from __future__ import annotations

import json
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import uvicorn

from app.main import create_app
from app.settings import Settings


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class BenchServer:
    """The real app under uvicorn in a background thread of this process.

    Its games go to a temporary store, removed afterwards, whatever ``settings`` or
    the environment say: a benchmark's throwaway games must never show up in
    the /games list of the user's own server (``./data``, ``CANOPY_DATABASE_URL``).
    """

    def __init__(self, settings: Settings) -> None:
        self._data = tempfile.TemporaryDirectory(prefix="canopy-bench-")
        settings = settings.model_copy(
            update={"data_dir": Path(self._data.name), "database_url": None}
        )
        self.settings = settings
        self.app = create_app(settings)
        self.port = _free_port()
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws_max_size=settings.ws_max_frame,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="bench-server", daemon=True)

    def __enter__(self) -> BenchServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the benchmark server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self._data.cleanup()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def create(self, **body: Any) -> dict[str, Any]:
        req = urllib.request.Request(
            self.base + "/api/games",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req) as r:
            return dict(json.load(r))


def headless_nps(game: str, algorithm: str, seconds: float, seed: int, nice: int = 0) -> float:
    """Iterations per second of one search of the start position with nobody watching.

    ``nice``: the niceness the app gives its search threads (``Settings.search_nice``),
    so the comparison with a watched search is like for like: on a machine busy with
    other work a search at nice 5 gets less of a core than one at 0 (measured with two
    matches running: 0.52 of the headless speed at nice 5 against nice 0, 0.99 at the
    same niceness), which is the scheduler's doing, not the cost of watching."""
    from engine.search.controller import SearchController

    ctl = SearchController(game, algorithm=algorithm, seed=seed, nice=nice)
    try:
        info = ctl.search(movetime_ms=seconds * 1000)
    finally:
        ctl.close()
    return info.iterations / (info.elapsed_ms / 1000.0)
