"""The engine's warm-up at startup, and how far it is, for the page to show.

On a fresh clone the numba kernels compile for tens of seconds after the server is
already answering; a first search started meanwhile waits for its compile with every
statistic blank. The page asks ``GET /api/warmup`` and, until ``ready``, says
"warming up the engine…" with this progress instead of leaving the class in silence.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("canopy.app")


@dataclass
class Warmup:
    """Progress of the kernel warm-up; written by its thread, read by requests.

    ``done``/``total`` count the parts of :func:`engine.warm.warm`; ``label`` names the
    part being compiled and ``compiled`` the parts done ("chess: mcts"), so the page of
    a game whose algorithm is compiled can play while the others compile. A warm-up
    that is switched off, or has finished or failed, is ``ready`` (a failed one only
    costs the first search a compile of its own, off its clock).
    """

    ready: bool = True
    done: int = 0
    total: int = 0
    label: str = ""
    seconds: float | None = None
    failed: bool = False
    compiled: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def progress(self, done: int, total: int, label: str) -> None:
        """A part starts (``label``); the one before it is compiled. The terminal hears
        of each part too, so a cold ``make run`` is never silent."""
        with self._lock:
            if self.total and self.label and self.done < done:
                self.compiled.append(self.label)
            self.done, self.total, self.label = done, total, label
        if done < total:
            log.info("compiling the engine: %s (%d/%d)", label, done + 1, total)

    def finish(self, seconds: float | None, failed: bool = False) -> None:
        with self._lock:
            self.ready, self.seconds, self.failed = True, seconds, failed
            self.done = self.total

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "ready": self.ready,
                "done": self.done,
                "total": self.total,
                "label": self.label,
                "elapsed_s": round(
                    self.seconds if self.seconds is not None else time.monotonic() - self.started,
                    1,
                ),
                "failed": self.failed,
                "compiled": list(self.compiled),
            }


def start_warmup(on_ready: Callable[[], None] | None = None) -> Warmup:
    """Compile the search kernels of both games in a daemon thread (never blocks startup).

    ``on_ready()`` runs when it ends, however it ends.
    """
    status = Warmup(ready=False, label="loading the engine")  # imports take seconds too

    def run() -> None:
        try:
            from engine.warm import warm as warm_kernels

            seconds = warm_kernels(status.progress)
            status.finish(seconds)
            log.info("search kernels ready in %.1f s", seconds)
        except Exception:  # a failed warm-up only costs the first search a compile
            status.finish(None, failed=True)
            log.exception("warming the search kernels failed")
        finally:
            if on_ready is not None:
                on_ready()

    threading.Thread(target=run, name="canopy-warmup", daemon=True).start()
    return status
