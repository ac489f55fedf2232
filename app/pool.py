"""Admission control for searches: at most ``capacity`` run at once, the rest queue.

Each game's search runs in its controller's own background thread; this pool
only decides *when* a game may start one, so a classroom of thirty boards on
a two-core server gets two searches at full speed and a visible queue instead
of thirty searches crawling. Used from the event loop only (no locks needed).

Two kinds of job share the slots. A game's search may wait, so it *requests*
a slot and, when queued, is told when it is admitted (:class:`Waiter`). A
race is refused rather than queued (a teacher wants to know at once), so it
only *acquires* a free slot or gets nothing; it never sits in the queue and
needs no callbacks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from typing import Any, Protocol


class Waiter(Protocol):
    """A job that may wait in the queue: told when it moves up and when it is admitted."""

    @property
    def id(self) -> str:
        """Names the job in logs (a game id)."""
        ...

    def __hash__(self) -> int: ...

    async def admitted(self) -> None:
        """The pool gave it a slot (another job released one)."""
        ...

    def queue_moved(self) -> None:
        """Its place in the queue may have changed (announce it)."""
        ...


class SearchPool:
    """FIFO admission: ``request`` runs a job now or queues it; ``release`` admits the next."""

    def __init__(self, capacity: int, on_change: Callable[[], None] | None = None) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self._running: dict[Hashable, None] = {}  # insertion-ordered set
        self._queue: deque[Waiter] = deque()
        self._on_change = on_change

    def request(self, job: Waiter) -> bool:
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

    def acquire(self, job: Hashable) -> bool:
        """Take a free slot for ``job`` now (True) or nothing at all (False): never queues.

        Nobody queued is overtaken: a free slot and a non-empty queue cannot
        coexist, because :meth:`release` admits the queue before anything else.
        """
        if job in self._running:
            return True
        if len(self._running) >= self.capacity:
            return False
        self._running[job] = None
        self._changed()
        return True

    def release(self, job: Hashable) -> list[Waiter]:
        """Forget ``job`` (running or queued); return the jobs admitted in its place."""
        changed = False
        if job in self._running:
            del self._running[job]
            changed = True
        elif job in self._queue:
            self._queue.remove(job)  # type: ignore[arg-type]  # found by equality
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
            return self._queue.index(job) + 1  # type: ignore[arg-type]  # found by equality
        except ValueError:
            return None

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def queued(self) -> int:
        return len(self._queue)

    def queued_jobs(self) -> list[Waiter]:
        return list(self._queue)

    def status(self) -> dict[str, Any]:
        return {"capacity": self.capacity, "running": self.running, "queued": self.queued}

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
