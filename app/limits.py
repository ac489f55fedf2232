"""Rate limits: a token bucket per websocket, a sliding window per client address.

Both are plain objects used from the event loop only (no locks). The clock is
injectable so tests pin the arithmetic without sleeping.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable

from starlette.requests import HTTPConnection

Clock = Callable[[], float]


class TokenBucket:
    """``rate`` messages per second on average, bursts of up to ``burst`` at once."""

    __slots__ = ("_clock", "_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int, clock: Clock = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"rate must be > 0 and burst >= 1, not {rate}, {burst}")
        self.rate = rate
        self.burst = float(burst)
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def allow(self) -> bool:
        """Take one token if there is one (True), else refuse (False)."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class WindowLimiter:
    """At most ``limit`` events per ``window`` seconds per key; remembers ``max_keys`` keys."""

    def __init__(
        self,
        limit: int,
        window: float = 60.0,
        max_keys: int = 10_000,
        clock: Clock = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self.max_keys = max_keys
        self._clock = clock
        self._events: OrderedDict[str, deque[float]] = OrderedDict()

    def allow(self, key: str) -> bool:
        now = self._clock()
        events = self._events.pop(key, None) or deque()
        while events and now - events[0] >= self.window:
            events.popleft()
        allowed = len(events) < self.limit
        if allowed:
            events.append(now)
        self._events[key] = events  # most recently seen last
        while len(self._events) > self.max_keys:  # forget the least recently seen
            self._events.popitem(last=False)
        return allowed


def client_address(conn: HTTPConnection) -> str:
    """The peer's address (uvicorn's ``--forwarded-allow-ips`` makes it the real client's)."""
    client = conn.client
    return client.host if client is not None else "unknown"
