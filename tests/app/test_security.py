"""Security headers on every response, pages without inline script or style, and every
user-supplied string rendered escaped (HTML pages, the PGN's tags)."""

from __future__ import annotations

import io
from html.parser import HTMLParser

import chess.pgn
import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import new_game

HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(2)>'


class PageAudit(HTMLParser):
    """Collects what a strict CSP would block: inline scripts, style attributes, handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {k for k, _ in attrs}
        if tag == "script":
            self._in_script = True
            if "src" not in names:
                self.problems.append("inline <script>")
        if tag == "style":
            self.problems.append("inline <style>")
        if "style" in names:
            self.problems.append(f"style= on <{tag}>")
        self.problems += [f"{n}= on <{tag}>" for n in names if n.startswith("on")]
        for key, value in attrs:
            if value and value.strip().lower().startswith("javascript:"):
                self.problems.append(f"javascript: URL in {key}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.problems.append("script content")


def audit(html: str) -> list[str]:
    parser = PageAudit()
    parser.feed(html)
    return parser.problems


@pytest.mark.parametrize("path", ["/", "/api/health", "/games", "/static/js/main.js"])
def test_every_response_carries_the_security_headers(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    h = response.headers
    csp = h["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["script-src"] == "'self'"  # no inline script, no eval
    assert directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert "unsafe" not in csp
    assert h["x-content-type-options"] == "nosniff"
    assert h["referrer-policy"] == "no-referrer"
    assert h["x-frame-options"] == "DENY"
    assert len(h["x-request-id"]) >= 8


def test_a_request_id_is_echoed_when_it_looks_like_one(client: TestClient) -> None:
    assert (
        client.get("/api/health", headers={"X-Request-ID": "abc-123"}).headers["x-request-id"]
        == "abc-123"
    )
    odd = client.get("/api/health", headers={"X-Request-ID": "<bad> id"}).headers
    assert "<" not in odd["x-request-id"] and len(odd["x-request-id"]) == 16


def test_pages_have_no_inline_scripts_styles_or_handlers(client: TestClient) -> None:
    game = new_game(client, human="white", name=HOSTILE)
    for path in ("/", f"/games/{game['id']}", f"/games/{game['id']}/watch", "/games"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert audit(response.text) == [], path


def test_game_names_are_escaped_on_the_recent_games_page(client: TestClient) -> None:
    game = new_game(client, human="white", name=HOSTILE)
    html = client.get("/games").text
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert f'href="/games/{game["id"]}/watch"' in html


def test_unknown_ids_in_the_url_are_escaped_on_the_not_found_page(client: TestClient) -> None:
    response = client.get("/games/%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert response.status_code == 404
    assert "<script>alert(1)" not in response.text
    assert audit(response.text) == []


def test_the_projector_view_is_read_only_and_large(client: TestClient) -> None:
    game = new_game(client, human="white")
    html = client.get(f"/games/{game['id']}/watch").text
    assert 'class="projector large"' in html and 'data-view="projector"' in html


def test_a_name_cannot_inject_pgn_tags(client: TestClient) -> None:
    game = new_game(client, human="white", name='x"] [White "Mallory')
    pgn = client.get(f"/api/games/{game['id']}/pgn").text
    tags = [line for line in pgn.splitlines() if line.startswith("[")]
    assert '[Event "x\\"] [White \\"Mallory"]' in tags  # quotes escaped as the standard says
    assert [t for t in tags if t.startswith("[White ")] == ['[White "Human"]']
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert parsed is not None and parsed.headers["White"] == "Human"
    assert (
        client.get(f"/api/games/{game['id']}/pgn")
        .headers["content-type"]
        .startswith("application/x-chess-pgn")
    )


@pytest.mark.parametrize("name", ["a\nb", "tab\there", "zero\u200bwidth", "bell\x07", "x" * 81])
def test_names_with_control_characters_or_too_long_are_refused(
    client: TestClient, name: str
) -> None:
    response = client.post("/api/games", json={"name": name})
    assert response.status_code == 422
    assert "name" in response.json()["message"]
