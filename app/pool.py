"""Admission control for searches: at most ``capacity`` run at once, the rest queue.

Each game's search runs in its controller's own background thread; this pool
only decides *when* a game may start one, so a classroom of thirty boards on
a two-core server gets two searches at full speed and a visible queue instead
of thirty searches crawling. Used from the event loop only (no locks needed).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from typing import Any


class SearchPool:
    """FIFO admission: ``request`` runs a job now or queues it; ``release`` admits the next."""

    def __init__(self, capacity: int, on_change: Callable[[], None] | None = None) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self._running: dict[Hashable, None] = {}  # insertion-ordered set
        self._queue: deque[Hashable] = deque()
        self._on_change = on_change

    def request(self, job: Hashable) -> bool:
        """Admit ``job`` (True: it may start now) or queue it (False). Idempotent."""
        if job in self._running:
            return True
        if job in self._queue:
            return False
        if len(self._running) < self.capacity:
            self._running[job] = None
            self._changed()
            return True
        self._queue.append(job)
        self._changed()
        return False

    def release(self, job: Hashable) -> list[Hashable]:
        """Forget ``job`` (running or queued); return the jobs admitted in its place."""
        changed = False
        if job in self._running:
            del self._running[job]
            changed = True
        elif job in self._queue:
            self._queue.remove(job)
            changed = True
        admitted = []
        while self._queue and len(self._running) < self.capacity:
            nxt = self._queue.popleft()
            self._running[nxt] = None
            admitted.append(nxt)
        if changed or admitted:
            self._changed()
        return admitted

    def is_running(self, job: Hashable) -> bool:
        return job in self._running

    def position(self, job: Hashable) -> int | None:
        """1-based place in the queue (1 = next to run), or None when not queued."""
        try:
            return self._queue.index(job) + 1
        except ValueError:
            return None

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def queued(self) -> int:
        return len(self._queue)

    def queued_jobs(self) -> list[Hashable]:
        return list(self._queue)

    def status(self) -> dict[str, Any]:
        return {"capacity": self.capacity, "running": self.running, "queued": self.queued}

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
