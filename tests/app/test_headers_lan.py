"""Headers are right on a class's plain-http network, not only on localhost and https.

A browser ignores Cross-Origin-Opener-Policy on an untrustworthy origin (plain http on a
LAN address or name) and logs a warning on every page load, so it is sent only where it
is honoured.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.middleware import trustworthy_origin


@pytest.mark.parametrize(
    "host", ["192.168.1.20:8000", "classroom-pc:8000", "10.0.0.5", "canopy.school.lan"]
)
def test_plain_http_on_a_lan_host_gets_no_opener_policy(client: TestClient, host: str) -> None:
    response = client.get("/", headers={"Host": host})
    assert response.status_code == 200
    assert "cross-origin-opener-policy" not in response.headers
    assert response.headers["x-frame-options"] == "DENY"  # the rest stays
    assert "content-security-policy" in response.headers


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "a.localhost"])
def test_loopback_hosts_keep_the_opener_policy(client: TestClient, host: str) -> None:
    response = client.get("/", headers={"Host": host})
    assert response.headers["cross-origin-opener-policy"] == "same-origin"


def test_https_keeps_the_opener_policy_on_any_host() -> None:
    scope = {"type": "http", "scheme": "https", "headers": [(b"host", b"192.168.1.20")]}
    assert trustworthy_origin(scope)


def test_a_host_that_only_starts_like_loopback_is_not_trusted() -> None:
    for host in (b"127.0.0.1.example.com", b"localhost.example.com:80", b"1127.0.0.1"):
        assert not trustworthy_origin(
            {"type": "http", "scheme": "http", "headers": [(b"host", host)]}
        )
