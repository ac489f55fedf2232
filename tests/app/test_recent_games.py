"""``/games``: each game says who played whom, its result, its opening and its date, and
the list filters by kind, result and text, with every name and filter value escaped."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.app.conftest import Socket, game_state, new_game


def _rows(html: str) -> dict[str, str]:
    """Each listed game's id → its row's text (tags dropped, spaces squeezed)."""
    rows = re.findall(r'<tr data-game-id="([0-9a-f]+)"[^>]*>(.*?)</tr>', html, flags=re.S)
    return {gid: " ".join(re.sub(r"<[^>]+>", " ", body).split()) for gid, body in rows}


def _play(connect: Callable[..., Socket], game: dict[str, Any], moves: list[str]) -> None:
    ws = connect(game)
    ws.state()
    for ply, uci in enumerate(moves, start=1):
        ws.send({"type": "move", "uci": uci})
        ws.state(lambda f, ply=ply: len(f["moves"]) == ply)


def test_each_game_shows_its_players_result_opening_and_date(
    client: TestClient, connect: Callable[..., Socket]
) -> None:
    mine = new_game(client, human="white", algorithm="uct", name="Alpha")
    both = new_game(client, human="both", game="knight")
    watched = new_game(client, human="black", algorithm="bfms")
    _play(connect, both, ["b1c3", "g8f6", "c3d5"])
    rows = _rows(client.get("/games").text)
    assert "player (White) vs Canopy · uct (Black)" in rows[mine["id"]]
    assert "Alpha" in rows[mine["id"]] and "in progress" in rows[mine["id"]]
    assert "Canopy · bfms (White) vs player (Black)" in rows[watched["id"]]
    assert "player (both sides), Canopy · mcts analyses" in rows[both["id"]]
    sans = [m["san"] for m in game_state(client, both["id"])["history"]]
    assert "Knight chess" in rows[both["id"]]
    assert f"1.{sans[0]} {sans[1]} 2.{sans[2]}" in rows[both["id"]]
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", rows[mine["id"]])


def test_the_list_filters_by_kind_result_and_text(client: TestClient) -> None:
    chess = new_game(client, human="both", name="Lesson one")
    knight = new_game(client, human="both", game="knight", name="Lesson two")
    assert set(_rows(client.get("/games").text)) == {chess["id"], knight["id"]}
    assert set(_rows(client.get("/games?kind=knight").text)) == {knight["id"]}
    assert set(_rows(client.get("/games?result=ongoing").text)) == {chess["id"], knight["id"]}
    finished = client.get("/games?result=finished").text
    assert _rows(finished) == {} and "No game matches" in finished
    assert set(_rows(client.get("/games?q=lesson+ONE").text)) == {chess["id"]}
    assert set(_rows(client.get("/games?q=knight").text)) == {knight["id"]}
    # A value the page does not offer filters nothing (no error page for a hand-made URL).
    assert set(_rows(client.get("/games?kind=go&result=won").text)) == {chess["id"], knight["id"]}


def test_the_text_filter_is_shown_back_escaped(client: TestClient) -> None:
    html = client.get("/games", params={"q": '"><script>alert(1)</script>'}).text
    assert "<script>alert(1)" not in html
    assert 'value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in html
