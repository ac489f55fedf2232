"""A class in a room: the links students can open, and the warm-up's progress."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

import app.lan as lan
import engine.warm
from app.lan import lan_addresses, room_urls
from app.warmup import Warmup, start_warmup


def test_a_server_on_every_interface_offers_one_link_per_lan_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lan, "lan_addresses", lambda: ["192.168.1.20", "10.0.0.7"])
    assert room_urls("0.0.0.0", 8000) == ["http://192.168.1.20:8000", "http://10.0.0.7:8000"]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.1.1"])
def test_a_server_on_loopback_offers_no_link_for_other_machines(host: str) -> None:
    assert room_urls(host, 8000) == []


def test_a_server_on_one_address_offers_that_address() -> None:
    assert room_urls("192.168.1.20", 9000) == ["http://192.168.1.20:9000"]


def test_lan_addresses_skip_loopback_and_link_local_and_list_bridges_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = [
        ("lo", "127.0.0.1"),
        ("docker0", "172.17.0.1"),
        ("wlan0", "192.168.1.20"),
        ("eth1", "169.254.3.4"),
        ("eth0", "192.168.1.20"),
    ]
    monkeypatch.setattr(lan.sys, "platform", "linux")
    monkeypatch.setattr(lan, "_linux_addresses", lambda: found)
    assert lan_addresses() == ["192.168.1.20", "172.17.0.1"]


def test_lan_addresses_of_this_machine_are_ipv4_and_never_loopback() -> None:
    for address in lan_addresses():
        assert not address.startswith("127.")
        assert address.count(".") == 3


def test_the_room_route_lists_the_links_of_the_address_served(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert client.get("/api/room").json() == {"urls": [], "bind": None}  # not via canopy serve
    monkeypatch.setattr(lan, "lan_addresses", lambda: ["192.168.1.20"])
    client.app.state.bind = ("0.0.0.0", 8123)  # type: ignore[attr-defined]
    assert client.get("/api/room").json() == {
        "urls": ["http://192.168.1.20:8123"],
        "bind": "0.0.0.0",
    }


def test_warmup_is_reported_ready_when_switched_off(client: TestClient) -> None:
    body = client.get("/api/warmup").json()
    assert body["ready"] is True and body["failed"] is False


def test_the_warmup_reports_each_part_then_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    reached = threading.Event()
    release = threading.Event()
    finished = threading.Event()

    def fake_warm(progress: Any) -> float:
        progress(0, 3, "chess: move generation and playouts")
        progress(2, 3, "chess: uct")
        reached.set()
        release.wait(10)
        progress(3, 3, "ready")
        return 1.5

    monkeypatch.setattr(engine.warm, "warm", fake_warm)
    status = start_warmup(on_ready=finished.set)
    assert reached.wait(10)
    midway = status.to_dict()
    assert midway["ready"] is False
    assert (midway["done"], midway["total"], midway["label"]) == (2, 3, "chess: uct")
    # the part before the one compiling is done: a game with it need not wait
    assert midway["compiled"] == ["chess: move generation and playouts"]
    release.set()
    assert finished.wait(10)
    done = status.to_dict()
    assert done["ready"] is True and done["done"] == 3 and done["elapsed_s"] == 1.5


def test_the_terminal_hears_of_each_part_as_it_compiles(
    caplog: pytest.LogCaptureFixture,
) -> None:
    status = Warmup(ready=False)
    with caplog.at_level(logging.INFO, logger="canopy.app"):
        status.progress(0, 14, "chess: mcts")
        status.progress(1, 14, "knight: mcts")
        status.progress(14, 14, "ready")
    assert [r.getMessage() for r in caplog.records] == [
        "compiling the engine: chess: mcts (1/14)",
        "compiling the engine: knight: mcts (2/14)",
    ]
    assert status.to_dict()["compiled"] == ["chess: mcts", "knight: mcts"]


def test_a_failed_warmup_is_ready_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(progress: Any) -> float:
        raise RuntimeError("no compiler")

    finished = threading.Event()
    monkeypatch.setattr(engine.warm, "warm", broken)
    status = start_warmup(on_ready=finished.set)
    assert finished.wait(10)
    assert status.to_dict()["ready"] is True and status.to_dict()["failed"] is True
    assert Warmup().to_dict()["ready"] is True
