"""The controller's latest snapshot: one built on demand never hides a newer published one.

UCI's supervisor asks ``controller.wait(poll)`` (hence ``info()``) right after starting a
search; with no snapshot published yet, ``info()`` builds one from the counters of the
search's start. A short search (``go nodes 501`` on two threads) could end and publish its
final snapshot while that one was being built, and the stale one then replaced it: the
last ``info`` line read ``nodes 0``. The events below force that interleaving every time.
"""

from __future__ import annotations

import threading

from engine.search.controller import SearchController
from engine.search.info import SearchInfo


def test_a_snapshot_built_while_the_search_ends_does_not_replace_the_final_one() -> None:
    controller = SearchController("chess", algorithm="bfms", threads=2, seed=3, tree_size=0)
    built = threading.Event()  # the on-demand snapshot has read its numbers
    published = threading.Event()  # the search's final snapshot is out
    main = threading.current_thread()
    snapshot, publish = controller._snapshot, controller._publish

    def slow_snapshot(running: bool) -> SearchInfo:
        info = snapshot(running)
        if threading.current_thread() is main and not built.is_set():
            built.set()
            assert published.wait(60), "the search never published its final snapshot"
        return info

    def ordered_publish(running: bool) -> None:
        if running:
            return  # only the final snapshot, so the one built on demand is the first
        assert built.wait(60), "info() never built a snapshot"
        publish(running)
        published.set()

    controller._snapshot = slow_snapshot  # type: ignore[method-assign]
    controller._publish = ordered_publish  # type: ignore[method-assign]
    controller.start(iterations=501)
    info = controller.info()
    controller.wait()
    assert not info.running
    assert info.iterations == 501
    assert info.stop_reason == "iterations"
    assert controller.info().iterations == 501
