"""The arena's API before the start: creating, joining, editing, removing, and every
refusal (each names its field or limit and changes nothing)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings


def new_arena(client: TestClient, **body: Any) -> dict[str, Any]:
    body = {"game": "chess", "iterations": 50, "algorithms": ["uct"], "max_plies": 20, **body}
    response = client.post("/api/arenas", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def join(client: TestClient, aid: str, name: str, **body: Any) -> dict[str, Any]:
    response = client.post(
        f"/api/arenas/{aid}/bots", json={"name": name, "algorithm": "uct", **body}
    )
    assert response.status_code == 201, response.text
    return response.json()


def arena(client: TestClient, aid: str) -> dict[str, Any]:
    response = client.get(f"/api/arenas/{aid}")
    assert response.status_code == 200, response.text
    return response.json()


def refused(response: Any, status: int, code: str, *words: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code and body["error"]["code"] == code
    for word in words:
        assert word in body["message"], body["message"]


def test_a_new_arena_is_open_with_its_rules_and_links(client: TestClient) -> None:
    made = new_arena(client, name="Period 3", free={"uct": ["c"]})
    assert made["url"] == f"/arena/{made['id']}"
    assert made["projector"] == f"/arena/{made['id']}/projector"
    view = arena(client, made["id"])
    assert view["state"] == "open" and view["name"] == "Period 3"
    assert view["iterations"] == 50 and view["movetime_ms"] is None
    assert view["algorithms"] == ["uct"] and view["free"] == {"uct": ["c"]}
    assert view["format"] == "round-robin" and view["rounds"] == 1 and view["max_plies"] == 20
    assert view["bots"] == [] and view["games"] == [] and view["playing"] == []


def test_a_bot_joins_with_its_full_params_and_label(client: TestClient) -> None:
    aid = new_arena(client, free={"uct": ["c"]})["id"]
    made = join(client, aid, "  Ada  ", params={"c": 0.7})
    view = arena(client, aid)
    (bot,) = view["bots"]
    assert bot["id"] == made["bot_id"] and bot["name"] == "Ada"
    assert bot["params"]["c"] == 0.7 and len(bot["params"]) > 1  # defaults filled
    assert bot["label"] == "Ada (uct c=0.7)"
    assert "bot_token" not in bot and "token" not in str(view["bots"])
    assert view["standings"][0]["bot_id"] == made["bot_id"]


def test_the_owner_edits_the_bot_until_the_start(client: TestClient) -> None:
    made = new_arena(client, free={"uct": ["c"]})
    aid = made["id"]
    bot = join(client, aid, "Ada", params={"c": 0.7})
    url = f"/api/arenas/{aid}/bots/{bot['bot_id']}"
    response = client.patch(url, params={"bot_token": bot["bot_token"]}, json={"name": "Bea"})
    assert response.status_code == 200, response.text
    (row,) = response.json()["bots"]
    assert row["name"] == "Bea" and row["params"]["c"] == 0.7  # the change kept
    response = client.patch(url, params={"bot_token": "nope"}, json={"name": "Eve"})
    refused(response, 403, "forbidden", "bot token")
    join(client, aid, "Bob")
    client.post(f"/api/arenas/{aid}/start", params={"token": made["token"]})
    response = client.patch(url, params={"bot_token": bot["bot_token"]}, json={"name": "Eve"})
    refused(response, 409, "arena_closed", "before the start")
    assert [b["name"] for b in arena(client, aid)["bots"]] == ["Bea", "Bob"]
    client.post(f"/api/arenas/{aid}/end", params={"token": made["token"]})


def test_the_owner_or_the_teacher_removes_a_bot(client: TestClient) -> None:
    made = new_arena(client)
    aid = made["id"]
    a, b = join(client, aid, "Ada"), join(client, aid, "Bob")
    url = f"/api/arenas/{aid}/bots/{a['bot_id']}"
    refused(client.delete(url, params={"bot_token": b["bot_token"]}), 403, "forbidden")
    assert client.delete(url, params={"bot_token": a["bot_token"]}).status_code == 200
    url = f"/api/arenas/{aid}/bots/{b['bot_id']}"
    assert client.delete(url, params={"token": made["token"]}).status_code == 200
    assert arena(client, aid)["bots"] == []


@pytest.mark.parametrize(
    ("body", "code", "words"),
    [
        ({"name": ""}, "bad_name", ["name", "40"]),
        ({"name": "x" * 41}, "bad_name", ["name"]),
        ({"name": "a\u0007b"}, "bad_name", ["printable"]),
        ({"algorithm": "alphabeta"}, "algorithm_not_allowed", ["alphabeta", "uct"]),
        ({"params": {"c": -5}}, "bad_params", ["c"]),
        ({"params": {"policy": "capture_first"}}, "param_locked", ["policy"]),
    ],
)
def test_a_bad_bot_is_refused_by_name_and_nothing_joins(
    client: TestClient, body: dict[str, Any], code: str, words: list[str]
) -> None:
    aid = new_arena(client, free={"uct": ["c"]})["id"]
    response = client.post(
        f"/api/arenas/{aid}/bots", json={"name": "Ada", "algorithm": "uct", **body}
    )
    refused(response, 400, code, *words)
    assert arena(client, aid)["bots"] == []


def test_a_malformed_body_is_refused_naming_the_field(client: TestClient) -> None:
    aid = new_arena(client)["id"]
    response = client.post(f"/api/arenas/{aid}/bots", json={"name": "Ada", "algo": "uct"})
    refused(response, 422, "bad_request", "algo")
    refused(client.post("/api/arenas", json={"game": "go", "iterations": 50}), 422, "bad_request")
    response = client.post("/api/arenas", json={"game": "chess", "iterations": 50, "rounds": 0})
    refused(response, 400, "bad_request", "rounds")
    response = client.post("/api/arenas", json={"game": "chess"})
    refused(response, 400, "bad_request", "movetime_ms", "iterations")


def test_teacher_actions_need_the_teachers_token(client: TestClient) -> None:
    made = new_arena(client)
    aid = made["id"]
    join(client, aid, "Ada")
    bob = join(client, aid, "Bob")
    for action in ("start", "pause", "end"):
        response = client.post(f"/api/arenas/{aid}/{action}", params={"token": bob["bot_token"]})
        refused(response, 403, "forbidden", "teacher")
    assert arena(client, aid)["state"] == "open"


def test_a_start_needs_two_bots(client: TestClient) -> None:
    made = new_arena(client)
    join(client, made["id"], "Ada")
    response = client.post(f"/api/arenas/{made['id']}/start", params={"token": made["token"]})
    refused(response, 409, "too_few_bots", "2")
    assert arena(client, made["id"])["state"] == "open"


def test_no_bot_joins_once_the_arena_started(client: TestClient) -> None:
    made = new_arena(client)
    aid = made["id"]
    join(client, aid, "Ada")
    join(client, aid, "Bob")
    client.post(f"/api/arenas/{aid}/end", params={"token": made["token"]})
    response = client.post(f"/api/arenas/{aid}/bots", json={"name": "Cy", "algorithm": "uct"})
    refused(response, 409, "arena_closed", "finished")
    assert len(arena(client, aid)["bots"]) == 2


def test_unknown_arenas_and_bots_are_not_found(client: TestClient) -> None:
    refused(client.get("/api/arenas/0123456789ab"), 404, "not_found", "0123456789ab")
    refused(client.get("/api/arenas/<script>"), 404, "not_found")
    aid = new_arena(client)["id"]
    response = client.patch(f"/api/arenas/{aid}/bots/abc", params={"bot_token": "x"}, json={})
    refused(response, 404, "not_found", "bot")
    assert client.get("/arena/0123456789ab").status_code == 404


def _limited_client(tmp_path: Any, **limits: Any) -> TestClient:
    settings = Settings(data_dir=tmp_path, warmup=False, max_searches=2, **limits)
    return TestClient(create_app(settings))


def test_bots_per_arena_and_per_address_are_limited(tmp_path: Any) -> None:
    with _limited_client(tmp_path, arena_max_bots=3, arena_bots_per_client=2) as client:
        aid = new_arena(client)["id"]
        join(client, aid, "Ada")
        join(client, aid, "Bob")
        response = client.post(f"/api/arenas/{aid}/bots", json={"name": "Cy", "algorithm": "uct"})
        refused(response, 409, "too_many_bots", "CANOPY_ARENA_BOTS_PER_CLIENT=2")
        client.app.state.arenas.settings.arena_bots_per_client = 5  # type: ignore[attr-defined]
        join(client, aid, "Cy")
        response = client.post(f"/api/arenas/{aid}/bots", json={"name": "Dee", "algorithm": "uct"})
        refused(response, 409, "too_many_bots", "CANOPY_ARENA_MAX_BOTS=3")
        assert len(arena(client, aid)["bots"]) == 3


def test_arenas_on_a_server_are_limited(tmp_path: Any) -> None:
    with _limited_client(tmp_path, max_arenas=2) as client:
        first = new_arena(client)
        new_arena(client)
        response = client.post("/api/arenas", json={"game": "chess", "iterations": 50})
        refused(response, 503, "too_many_arenas", "CANOPY_MAX_ARENAS=2")
        client.post(f"/api/arenas/{first['id']}/end", params={"token": first["token"]})
        new_arena(client)  # a finished arena frees its place


def test_creating_arenas_and_bots_is_rate_limited(tmp_path: Any) -> None:
    with _limited_client(tmp_path, games_per_minute=2) as client:
        aid = new_arena(client)["id"]
        join(client, aid, "Ada")
        response = client.post(f"/api/arenas/{aid}/bots", json={"name": "Bob", "algorithm": "uct"})
        refused(response, 429, "rate_limited")
        assert len(arena(client, aid)["bots"]) == 1


def test_names_are_escaped_on_the_pages(client: TestClient) -> None:
    made = new_arena(client, name="<b>x</b>")
    page = client.get(f"/arena/{made['id']}")
    assert page.status_code == 200
    assert "<b>x</b>" not in page.text and "&lt;b&gt;x&lt;/b&gt;" in page.text
    assert client.get(f"/arena/{made['id']}/projector").status_code == 200


def test_the_new_arena_page_is_the_teachers_form_not_an_arena_id(client: TestClient) -> None:
    page = client.get("/arena/new")
    assert page.status_code == 200
    assert 'id="arena-form"' in page.text and "arena-new.js" in page.text
    assert 'href="/arena/new"' in client.get("/").text  # the header's Arena link
