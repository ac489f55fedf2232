"""A real Canopy server in a subprocess (uvicorn via ``app.server.serve``) for tests and benchmarks.

Tests that kill, restart or signal the server need a real process: an
in-process TestClient cannot be ``kill -9``-ed. Each :class:`ServerProcess`
gets a free port and a data directory; restarting on the same directory is
how the restart tests find out what was durable.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    def __init__(self, data_dir: Path, env: dict[str, str] | None = None, port: int | None = None):
        self.data_dir = data_dir
        self.port = port or free_port()
        self.env = {
            **os.environ,
            "CANOPY_DATA_DIR": str(data_dir),
            "CANOPY_WARMUP": "true",  # compile/load the numba kernels before the test runs
            "CANOPY_LOG_FORMAT": "json",
            "CANOPY_SHUTDOWN_GRACE_S": "2",
            **(env or {}),
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir / f"server-{self.port}.out"
        self.starts = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 300.0, warm: bool = True) -> ServerProcess:
        """Start and wait for /api/health (and, with ``warm``, for the kernels to be ready)."""
        self.starts += 1
        out = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", f"from app.server import serve; serve(port={self.port})"],
            cwd=REPO,
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        out.close()
        deadline = time.monotonic() + timeout
        while True:
            try:
                health = self.get("/api/health", timeout=1.0)
                if health["status"] == "ok" and (health["warm"] or not warm):
                    return self
            except (OSError, ValueError, KeyError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{self.log()[-4000:]}")
            time.sleep(0.1)

    def get(self, path: str, timeout: float = 10.0) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=timeout) as r:
            return json.load(r)

    def post(self, path: str, body: Any, timeout: float = 10.0) -> Any:
        req = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.load(r)

    def kill(self) -> None:
        """``kill -9``: no shutdown code runs at all."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self, timeout: float = 15.0) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid


def proc_status(pid: int) -> dict[str, int]:
    """Threads and resident memory (kB) of a process, from /proc."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("Threads", "VmRSS"):
                out[key] = int(value.split()[0])
    return out
