"""Load on loopback: many clients with games and searches; connect/disconnect cycles.

The full benchmark (50 clients for 60 s) is ``-m slow``; the default suite runs a
short one with the same checks. Figures: docs/reliability.md.
"""

from __future__ import annotations

import pytest

from tests.reliability.load import run_cycles, run_load


def _check_load(report, clients: int, p99_ms: float) -> None:
    assert report.errors == 0, report.error_samples
    assert report.health_failures == 0
    assert report.health_ms["p99"] < p99_ms, report.health_ms
    assert report.moves_human >= clients  # every client played
    assert report.moves_engine >= clients // 2  # and the engine answered through the pool
    assert report.queued_seen > 0  # more searches asked for than run at once: a queue
    assert report.rss_mb["peak"] < report.rss_mb["before"] + 800, report.rss_mb


def test_a_short_load_has_no_errors_and_a_responsive_health_check() -> None:
    report = run_load(clients=12, seconds=10, think_ms=200)
    # The 250 ms goal is the benchmark's (below, docs/reliability.md); here the check is only
    # that health keeps answering, with room for a machine busy with other work.
    _check_load(report, 12, p99_ms=2000)


@pytest.mark.slow
def test_fifty_clients_for_a_minute_have_no_errors_and_health_p99_under_250ms() -> None:
    report = run_load(clients=50, seconds=60, think_ms=300)
    print(report)
    _check_load(report, 50, p99_ms=250)


def test_a_thousand_connect_disconnect_cycles_during_searches_leak_nothing() -> None:
    report = run_cycles(cycles=1000, concurrency=10, searches=2)
    assert report.failures == 0
    assert report.searches_running == {"start": 2, "end": 2}  # searching all along
    assert report.threads["end"] <= report.threads["start"] + 1, report.threads
    # A leak of a socket's worth (its outbox, its game's watcher entry) per cycle would
    # show as hundreds of MB; allocator noise on a busy machine stays well under this.
    assert report.rss_mb["end"] - report.rss_mb["start"] < 48, report.rss_mb
