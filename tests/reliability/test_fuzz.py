"""Hostile input: ≥ 1,000 generated malformed websocket messages and HTTP bodies.

Every one must be answered with an error (an ``error`` frame; a 4xx JSON body),
the server must stay up, and the game must be exactly as it was. The
generators only make messages that are wrong in some way (each strategy
says how), so "answered with an error" is the one correct reply.
Hypothesis runs derandomised: the same examples on every run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import chess
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.main import create_app
from app.settings import Settings
from engine.search.registry import ALGORITHMS as REGISTERED
from tests.app.conftest import Socket, game_state, new_game

WS_EXAMPLES = 700
HTTP_EXAMPLES = 350
RUN = settings(
    max_examples=WS_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
TYPES = ["move", "search", "settings", "undo", "setup", "go", "subscribe", "ping"]
ALGORITHMS = list(REGISTERED)  # every registered name is valid, so never "hostile"
HUMANS = ("white", "black", "none", "both")
FEN_LIKE = r"[rnbqkpRNBQKP1-8/]{10,64} [wb] [KQkq-]{1,4} [-a-h1-8]{1,2} \d \d"

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
not_a_string = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.lists(st.integers(), max_size=3)
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
)


def _not_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def _bad_fen(text: str) -> bool:
    try:
        chess.Board(text)
    except ValueError:
        return True
    return False


@st.composite
def hostile_frame(draw: st.DrawFn, legal: list[str]) -> str:
    """One malformed or hostile client message (as the text sent on the socket)."""
    kind = draw(st.sampled_from(
        ["text", "scalar", "no_type", "type_not_str", "unknown_type", "extra_field",
         "bad_move", "move_not_str", "bad_action", "bad_settings", "bad_fen", "bad_subscribe",
         "deep", "nonfinite", "huge_string"]
    ))  # fmt: skip
    if kind == "text":
        text = draw(st.text(max_size=60))
        assume(_not_json(text))
        return text
    if kind == "scalar":  # valid JSON, but not an object
        return json.dumps(draw(json_scalars | st.lists(json_values, max_size=4)))
    if kind == "no_type":
        obj = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=4))
        obj.pop("type", None)
        return json.dumps(obj)
    if kind == "type_not_str":
        return json.dumps({"type": draw(not_a_string), "uci": "e2e4"})
    if kind == "unknown_type":
        name = draw(st.text(max_size=20))
        assume(name not in TYPES and name not in ("race", "node"))
        return json.dumps({"type": name})
    if kind == "extra_field":
        extra = draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in (
            "type", "uci", "action", "fen", "t", "tree", "hz", "algorithm", "params",
            "threads", "budget", "movetime_ms", "iterations", "seed", "human")))  # fmt: skip
        base = draw(st.sampled_from([
            {"type": "ping"}, {"type": "undo"}, {"type": "go"}, {"type": "move", "uci": "e2e4"},
            {"type": "search", "action": "stop"}, {"type": "subscribe"}]))  # fmt: skip
        return json.dumps({**base, extra: draw(json_values)})
    if kind == "bad_move":
        uci = draw(
            st.text(max_size=8) | st.from_regex(r"[a-i][0-9][a-i][0-9][qrbnkx]?", fullmatch=True)
        )
        assume(uci.strip() not in legal)
        return json.dumps({"type": "move", "uci": uci})
    if kind == "move_not_str":
        return json.dumps({"type": "move", "uci": draw(not_a_string)})
    if kind == "bad_action":
        action = draw(json_values)
        assume(action not in ("start", "stop", "step"))
        return json.dumps({"type": "search", "action": action})
    if kind == "bad_settings":
        field = draw(st.sampled_from(["threads", "movetime_ms", "iterations", "algorithm",
                                      "params", "budget", "seed", "human"]))  # fmt: skip
        bad: dict[str, Any] = {
            "threads": st.integers(max_value=0) | st.integers(min_value=3) | st.text(max_size=3),
            "movetime_ms": st.integers(max_value=9) | st.integers(min_value=5_001) | st.floats(),
            "iterations": st.integers(max_value=0) | st.integers(min_value=1_000_001),
            # "" included: it is no algorithm, not "keep the current one" (that is null)
            "algorithm": st.text(max_size=45).filter(lambda a: a not in ALGORITHMS),
            "params": st.dictionaries(
                st.text(min_size=1, max_size=8).filter(lambda k: k not in ("c", "hash_mb")),
                json_values, min_size=1, max_size=3) | st.lists(st.integers(), max_size=2),
            "budget": st.text(max_size=10).filter(lambda b: b not in ("time", "iterations")),
            "seed": st.integers(max_value=-1) | st.integers(min_value=2**63),
            "human": json_values.filter(lambda h: h not in (*HUMANS, None)),
        }  # fmt: skip
        return json.dumps({"type": "settings", field: draw(bad[field])})
    if kind == "bad_fen":
        fen = draw(st.text(min_size=1, max_size=120) | st.from_regex(FEN_LIKE, fullmatch=True))
        assume(_bad_fen(fen))
        return json.dumps({"type": "setup", "fen": fen})
    if kind == "bad_subscribe":
        return json.dumps(
            {"type": "subscribe", "hz": draw(st.integers(max_value=0) | st.text(max_size=4))}
        )
    if kind == "deep":
        depth = draw(st.integers(min_value=1_000, max_value=20_000))
        return "[" * depth + "]" * depth
    if kind == "nonfinite":
        value = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e999"]))
        return '{"type": "ping", "t": ' + value + "}"
    # huge_string: a frame just under the size limit, of the wrong shape
    return json.dumps(
        {"type": "move", "uci": "x" * draw(st.integers(min_value=9, max_value=60_000))}
    )


@st.composite
def hostile_body(draw: st.DrawFn) -> tuple[bytes, str]:
    """A POST /api/games body that must be refused, with the content type sent."""
    kind = draw(st.sampled_from(["bytes", "scalar", "unknown_field", "bad_field", "bad_fen"]))
    ctype = draw(
        st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded"])
    )
    if kind == "bytes":
        raw = draw(st.binary(min_size=1, max_size=200))
        assume(_not_json(raw.decode("utf-8", "replace")))
        return raw, ctype
    if kind == "scalar":
        return json.dumps(
            draw(json_scalars | st.lists(json_values, max_size=3))
        ).encode(), "application/json"
    if kind == "unknown_field":
        key = draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in (
            "game", "fen", "human", "name", "algorithm", "params", "threads", "budget",
            "movetime_ms", "iterations", "seed")))  # fmt: skip
        return json.dumps({key: draw(json_values)}).encode(), "application/json"
    if kind == "bad_field":
        field = draw(
            st.sampled_from(["game", "human", "name", "threads", "movetime_ms", "algorithm"])
        )
        bad = {
            "game": json_values.filter(lambda g: g not in ("chess", "knight")),
            "human": json_values.filter(lambda h: h not in ("white", "black", "none", "both")),
            "name": st.text(min_size=81, max_size=200)
            | st.text(max_size=5).map(lambda t: t + "\x00")
            | st.integers(),
            "threads": st.integers(max_value=0) | st.integers(min_value=3),
            "movetime_ms": st.integers(min_value=5_001) | st.integers(max_value=0),
            "algorithm": st.text(max_size=30).filter(lambda a: a not in ALGORITHMS),
        }[field]  # fmt: skip
        return json.dumps({field: draw(bad)}).encode(), "application/json"
    fen = draw(st.text(min_size=1, max_size=120))
    assume(_bad_fen(fen))
    return json.dumps({"fen": fen}).encode(), "application/json"


@pytest.fixture
def fuzz_client(tmp_path) -> Iterator[TestClient]:
    settings_ = Settings(
        data_dir=tmp_path, warmup=False, ws_rate=1e6, ws_burst=1_000_000, games_per_minute=10_000,
        max_think_ms=5_000, max_threads=2, max_iterations=1_000_000, think_ms=100,
    )  # fmt: skip
    with TestClient(create_app(settings_), raise_server_exceptions=True) as client:
        yield client


def test_a_thousand_hostile_messages_and_bodies_each_get_an_error_and_change_nothing(
    fuzz_client: TestClient,
) -> None:
    client = fuzz_client
    game = new_game(client, human="white")
    counts = {"ws": 0, "http": 0}
    with client.websocket_connect(game["ws"]) as raw:
        ws = Socket(raw)
        first = ws.recv()
        legal = first["legal"]
        before = game_state(client, game["id"])

        @RUN
        @given(hostile_frame(legal))
        def one_frame(text: str) -> None:
            ws.send(text)
            reply = ws.until(lambda f: f["type"] in ("error", "pong", "state"), timeout=10)
            assert reply["type"] == "error", (text[:200], reply)
            assert reply["code"] and reply["message"]
            counts["ws"] += 1

        one_frame()
        ws.send({"type": "ping", "t": "alive"})  # the same socket still works
        assert ws.until(lambda f: f["type"] == "pong")["t"] == "alive"
        assert game_state(client, game["id"]) == before

    games_before = len(client.get("/api/games").json()["games"])

    @settings(RUN, max_examples=HTTP_EXAMPLES)
    @given(hostile_body())
    def one_body(body: tuple[bytes, str]) -> None:
        data, ctype = body
        response = client.post("/api/games", content=data, headers={"Content-Type": ctype})
        assert 400 <= response.status_code < 500, (data[:200], response.status_code, response.text)
        payload = response.json()
        assert payload["code"] and payload["message"]
        counts["http"] += 1

    one_body()
    assert len(client.get("/api/games").json()["games"]) == games_before  # nothing created
    assert client.get("/api/health").json()["status"] == "ok"
    assert game_state(client, game["id"]) == before
    assert counts["ws"] + counts["http"] >= 1_000, counts
    print(f"fuzz: {counts['ws']} websocket messages and {counts['http']} HTTP bodies refused")


def test_an_empty_algorithm_is_refused_naming_the_field_while_null_keeps_the_current_one(
    fuzz_client: TestClient,
) -> None:
    client = fuzz_client
    assert client.post("/api/games", json={"algorithm": ""}).json()["code"] == "bad_request"
    game = new_game(client, human="white", algorithm="bfms")
    with client.websocket_connect(game["ws"]) as raw:
        ws = Socket(raw)
        ws.recv()
        ws.send({"type": "settings", "algorithm": ""})
        refused = ws.until(lambda f: f["type"] in ("error", "state"))
        assert refused["type"] == "error" and refused["code"] == "bad_request"
        assert "algorithm" in refused["message"]
        ws.send({"type": "settings", "algorithm": None, "human": "black"})
        state = ws.until(lambda f: f["type"] == "state" and f["human"] == "black")
        assert state["settings"]["algorithm"] == "bfms"
