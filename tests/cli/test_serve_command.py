"""``canopy serve``: ``--lan`` binds every interface and prints the links students type once
up; a port already taken is refused on one line that says how to pick another."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

import app.lan as lan
import app.server
from canopy.cli import main


def _fake_serve(calls: list[dict[str, Any]]) -> Callable[..., None]:
    def serve(
        host: str, port: int, settings: Any = None, on_started: Callable[[], None] | None = None
    ) -> None:
        calls.append({"host": host, "port": port})
        if on_started is not None:
            on_started()  # as the real server does once it listens

    return serve


def test_lan_binds_every_interface_and_prints_the_links(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(app.server, "serve", _fake_serve(calls))
    monkeypatch.setattr(lan, "lan_addresses", lambda: ["192.168.1.20"])
    assert main(["serve", "--lan", "--port", "8123"]) == 0
    assert calls == [{"host": "0.0.0.0", "port": 8123}]
    out = capsys.readouterr().out
    assert "    http://192.168.1.20:8123" in out.splitlines()
    assert "http://127.0.0.1:8123" in out


def test_a_loopback_server_prints_no_room_links(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(app.server, "serve", _fake_serve(calls))
    assert main(["serve", "--port", "8124"]) == 0
    assert calls == [{"host": "127.0.0.1", "port": 8124}]
    assert "Students open" not in capsys.readouterr().out


def test_host_and_lan_together_are_refused_on_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--lan", "--host", "10.0.0.1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--lan" in err and len(err.splitlines()) == 1


def test_a_taken_port_is_named_on_one_line_with_how_to_pick_another() -> None:
    """A second ``canopy serve`` (``make run``) on a port something holds: one line naming
    the port and the way out, a non-zero status, no traceback, and no server started."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "canopy", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"canopy serve: error: port {port} on 127.0.0.1 is already in use (is Canopy already "
        f"running?); pick another: canopy serve --port {port + 1}, or make run PORT={port + 1}"
    ]
