"""A progress line for the long commands (``canopy train``), on a terminal or in a log."""

from __future__ import annotations

import time
from typing import Any


class Bar:
    """One progress line on a terminal (redrawn in place); a line per phase otherwise."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.phase = ""

    def __call__(self, phase: str, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.start
        clock = f"{int(elapsed // 60)}m{int(elapsed % 60):02d}s"
        if self.tty:
            width = 24
            filled = width * done // max(total, 1)
            bar = "#" * filled + "-" * (width - filled)
            print(f"\r{phase:<22} [{bar}] {done}/{total} {clock}  ", end="",
                  file=self.stream, flush=True)  # fmt: skip
            if done >= total:
                print(file=self.stream, flush=True)
        elif (done >= total or phase != self.phase) and done >= total:
            print(f"{phase}: {done}/{total} ({clock})", file=self.stream, flush=True)
        self.phase = phase
