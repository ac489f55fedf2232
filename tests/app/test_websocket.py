"""The game websocket: every client message, every refusal, and the game left as it was."""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Iterator
from typing import Any

import chess
import chess.pgn
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.main import create_app
from app.settings import Settings
from tests.app.conftest import Socket, game_state, new_game

SLOW = 5_000  # ms: an engine that is still thinking while a test pokes at the game


def is_idle(frame: dict[str, Any]) -> bool:
    return frame["search"]["status"] == "idle"


def unchanged(client: TestClient, game: dict[str, Any], before: dict[str, Any]) -> None:
    """The game's state (including its version counter) is exactly what it was."""
    after = game_state(client, game["id"])
    assert after == before


# ---------------------------------------------------------------- connecting


def test_connecting_sends_the_state_first_with_the_players_role(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    first = ws.recv()
    assert first["type"] == "state"
    assert first["role"] == "player"
    assert first["fen"] == chess.STARTING_FEN and first["turn"] == "white"
    assert sorted(first["legal"]) == sorted(m.uci() for m in chess.Board().legal_moves)


@pytest.mark.parametrize("token", [False, "wrong-token", ""])
def test_without_a_valid_token_the_socket_is_read_only(client, connect, token) -> None:
    game = new_game(client, human="white")
    ws = connect(game, token=token)
    assert ws.recv()["role"] == "spectator"
    before = game_state(client, game["id"])
    writes = [
        {"type": "move", "uci": "e2e4"},
        {"type": "search", "action": "start"},
        {"type": "settings", "algorithm": "bfms"},
        {"type": "undo"},
        {"type": "setup", "fen": None},
        {"type": "go"},
    ]
    for frame in writes:
        ws.send(frame)
        error = ws.error()
        assert error["code"] == "forbidden", frame
        assert error["request"] == frame["type"]
        assert "read-only" in error["message"]
    unchanged(client, game, before)
    ws.send({"type": "ping", "t": 1})  # reading is allowed
    assert ws.until(lambda f: f["type"] == "pong")["t"] == 1


def test_an_unknown_game_gets_an_error_and_close_code_4404(client) -> None:
    with client.websocket_connect("/ws/games/doesnotexist") as raw:
        ws = Socket(raw)
        error = ws.recv()
        assert error["code"] == "not_found"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.recv()
        assert closed.value.code == 4404


def test_spectators_see_the_players_moves(client, connect) -> None:
    game = new_game(client, human="both")
    player, spectator = connect(game), connect(game, token=False)
    player.recv(), spectator.recv()
    player.send({"type": "move", "uci": "d2d4"})
    seen = spectator.state(lambda f: f["moves"] == ["d2d4"])
    assert seen["role"] == "spectator" and seen["last_move"] == "d2d4"


# ---------------------------------------------------------------- moves


def test_a_human_move_is_answered_by_the_engine(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "e2e4"})
    mine = ws.state(lambda f: f["moves"] == ["e2e4"])
    assert mine["turn"] == "black" and mine["history"][0]["by"] == "human"
    reply = ws.state(lambda f: len(f["moves"]) == 2, timeout=20)
    engine_move = reply["history"][1]
    assert engine_move["by"] == "engine" and engine_move["n"] > 0
    assert 0.0 <= engine_move["q"] <= 1.0
    assert reply["turn"] == "white" and reply["legal"]
    pgn = client.get(f"/api/games/{game['id']}/pgn").text
    nodes = list(chess.pgn.read_game(io.StringIO(pgn)).mainline())
    assert f"N={engine_move['n']}" in nodes[1].comment


def test_the_engine_moves_first_when_the_human_plays_black(client, connect) -> None:
    game = new_game(client, human="black")
    ws = connect(game)
    state = ws.state(lambda f: len(f["moves"]) == 1, timeout=20)
    assert state["history"][0]["by"] == "engine" and state["turn"] == "black"


REFUSALS = [
    ("{not json", "bad_json"),
    ("[1, 2]", "bad_request"),
    ('"move"', "bad_request"),
    ({"uci": "e2e4"}, "bad_request"),
    ({"type": 7}, "bad_request"),
    ({"type": "castle"}, "unknown_type"),
    ({"type": "move"}, "bad_request"),
    ({"type": "move", "uci": 1234}, "bad_request"),
    ({"type": "move", "uci": "e2e4", "promo": "q"}, "bad_request"),
    ({"type": "move", "uci": "e2e5"}, "illegal_move"),
    ({"type": "move", "uci": "hello"}, "illegal_move"),
    ({"type": "search", "action": "faster"}, "bad_request"),
    ({"type": "settings", "threads": "two"}, "bad_request"),
    ({"type": "settings", "algorithm": "nope"}, "unknown_algorithm"),
    ({"type": "settings", "params": {"c": 99}}, "bad_params"),
    ({"type": "settings", "params": {"wat": 1}}, "bad_params"),
    ({"type": "settings", "threads": 64}, "bad_params"),
    ({"type": "settings", "algorithm": "alphabeta", "threads": 2}, "bad_params"),
    ({"type": "settings", "movetime_ms": 1}, "bad_params"),
    ({"type": "settings", "human": "martian"}, "bad_request"),
    ({"type": "setup", "fen": "rnbqkbnr/pppppppp/8/8 w"}, "invalid_fen"),
    ({"type": "setup", "fen": 5}, "bad_request"),
    ({"type": "undo"}, "nothing_to_undo"),
    ({"type": "subscribe", "hz": -1}, "bad_request"),
]


@pytest.mark.parametrize(("frame", "code"), REFUSALS)
def test_bad_input_gets_an_error_frame_and_leaves_the_game_as_it_was(
    client, connect, frame, code
) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    before = game_state(client, game["id"])
    ws.send(frame if isinstance(frame, str) else json.dumps(frame))
    error = ws.error()
    assert error["code"] == code, error
    assert error["message"] and isinstance(error["message"], str)
    unchanged(client, game, before)
    ws.send({"type": "move", "uci": "e2e4"})  # and the socket still works
    ws.state(lambda f: f["moves"][:1] == ["e2e4"])


@pytest.mark.parametrize(
    ("frame", "field"),
    [
        ({"type": "move"}, "uci"),
        ({"type": "move", "uci": 1234}, "uci"),
        ({"type": "move", "uci": "e2e4", "promo": "q"}, "promo"),
        ({"type": "settings", "threads": "two"}, "threads"),
        ({"type": "search"}, "action"),
    ],
)
def test_field_errors_name_the_field(client, connect, frame, field) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    ws.send(frame)
    assert f"'{field}'" in ws.error()["message"]


def test_a_move_on_the_engines_turn_is_not_your_turn(client, connect) -> None:
    game = new_game(client, human="white", movetime_ms=SLOW)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "e2e4"})
    ws.state(lambda f: f["search"]["status"] == "running")
    before = game_state(client, game["id"])
    ws.send({"type": "move", "uci": "e7e5"})
    error = ws.error()
    assert error["code"] == "not_your_turn" and error["request"] == "move"
    unchanged(client, game, before)


def test_in_an_engine_game_a_human_move_is_not_your_turn(client, connect) -> None:
    game = new_game(client, human="none", movetime_ms=SLOW)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "e2e4"})
    assert ws.error()["code"] == "not_your_turn"


def test_moves_after_the_end_are_refused_as_game_over(client, connect) -> None:
    mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    game = new_game(client, human="both", fen=mate)
    ws = connect(game)
    state = ws.recv()
    assert (state["result"], state["reason"], state["legal"]) == ("0-1", "checkmate", [])
    for frame in ({"type": "move", "uci": "a2a3"}, {"type": "search", "action": "start"}):
        ws.send(frame)
        assert ws.error()["code"] in ("game_over", "illegal_move")
    ws.send({"type": "go"})
    assert ws.error()["code"] == "game_over"


def test_a_promotion_needs_the_piece_and_plays_it(client, connect) -> None:
    game = new_game(client, human="both", fen="4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    ws = connect(game)
    state = ws.recv()
    assert {"b7b8q", "b7b8n"} <= set(state["legal"])
    ws.send({"type": "move", "uci": "b7b8"})
    assert ws.error()["code"] == "illegal_move"
    ws.send({"type": "move", "uci": "b7b8n"})
    assert ws.state(lambda f: f["moves"] == ["b7b8n"])["history"][0]["san"] == "b8=N"


# ---------------------------------------------------------------- frame size


def test_a_frame_over_the_limit_closes_the_socket_with_1009(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    before = game_state(client, game["id"])
    ws.send(json.dumps({"type": "ping", "t": "x" * 70_000}))
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.until(lambda f: False)
    assert closed.value.code == 1009
    unchanged(client, game, before)


def test_binary_frames_are_refused_as_bad_json(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    ws.ws.send_bytes(b'{"type": "ping"}')
    assert ws.error()["code"] == "bad_json"


# ---------------------------------------------------------------- search


def test_an_analysis_search_streams_growing_stats_until_stopped(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    ws.send({"type": "search", "action": "start"})
    running = ws.state(lambda f: f["search"]["status"] == "running")
    assert running["search"]["purpose"] == "analysis"
    totals = []
    while len(totals) < 4:
        stats = ws.until(lambda f: f["type"] == "stats")
        totals.append(sum(m["visits"] for m in stats["moves"]))
    assert totals == sorted(totals) and totals[-1] > totals[0]
    assert stats["fen"] == chess.STARTING_FEN and stats["running"]
    ws.send({"type": "search", "action": "stop"})
    stopped = ws.state(is_idle)
    assert stopped["moves"] == []  # analysis never moves for the human


@pytest.mark.parametrize("algorithm", ["uct", "mcts"])
def test_an_analysis_past_the_node_budget_streams_on_and_says_the_tree_is_folded(
    settings: Settings, algorithm: str
) -> None:
    """The server's smallest budget, 1,000 nodes a tree, fills within a second: the
    analysis goes on, its stats say so (``extra.full``) and its iterations keep rising."""
    small = settings.model_copy(update={"node_budget": 1_000})
    with TestClient(create_app(small)) as client:
        game = new_game(client, human="white", algorithm=algorithm)
        with client.websocket_connect(game["ws"]) as raw:
            ws = Socket(raw)
            ws.recv()
            ws.send({"type": "search", "action": "start"})
            full = ws.until(lambda f: f["type"] == "stats" and "full" in f["extra"], 30.0)
            assert full["extra"]["full"] == "recycling" and full["running"]
            later = [ws.until(lambda f: f["type"] == "stats") for _ in range(5)]
            counts = [full["iterations"], *(f["iterations"] for f in later)]
            assert all(f["running"] for f in later) and counts == sorted(counts)
            assert counts[-1] > counts[0] and max(f["nodes"] for f in later) <= 1_000
            ws.send({"type": "search", "action": "stop"})
            ws.state(is_idle)


def test_stats_frames_have_the_contract_fields_and_stay_under_the_limit(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    ws.send({"type": "search", "action": "start"})
    stats = ws.until(lambda f: f["type"] == "stats" and f["iterations"] > 0 and f["tree"])
    for key in ("iterations", "nps", "elapsed_ms", "moves", "pv", "tree", "pool", "search"):
        assert key in stats
    row = stats["moves"][0]
    for key in ("move", "san", "visits", "share", "q", "uct", "eval", "pv", "pv_san", "pv_fen"):
        assert key in row
    assert row["pv"][0] == row["move"]
    node = stats["tree"][0]
    assert {"id", "parent", "move", "visits", "q"} <= set(node)
    assert node["parent"] == -1
    ids = {n["id"] for n in stats["tree"]}
    assert all(n["parent"] in ids for n in stats["tree"][1:])  # a connected tree
    assert stats["pool"]["running"] >= 1
    assert all(f["_bytes"] < 65536 for f in ws.seen)


def test_the_engine_plays_when_its_budget_is_spent(client, connect) -> None:
    game = new_game(client, human="white", budget="iterations", iterations=300)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "g1f3"})
    reply = ws.state(lambda f: len(f["moves"]) == 2, timeout=20)
    assert reply["history"][1]["by"] == "engine"
    # The search's last stats frame may never be sent: once the engine has moved, unsent
    # stats of the old root are dropped. The search kept with the move says what it spent.
    plies = client.get(f"/api/games/{game['id']}/review").json()["plies"]
    assert plies[1]["by"] == "engine" and plies[1]["search"]["iterations"] >= 300


def test_stop_pauses_the_engine_and_start_resumes_it(client, connect) -> None:
    game = new_game(client, human="white", movetime_ms=SLOW)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "e2e4"})
    ws.state(lambda f: f["search"]["status"] == "running")
    ws.send({"type": "search", "action": "stop"})
    paused = ws.state(lambda f: is_idle(f) and f["search"]["paused"])
    assert paused["moves"] == ["e2e4"]
    ws.send({"type": "search", "action": "start"})
    resumed = ws.state(lambda f: f["search"]["status"] == "running")
    assert not resumed["search"]["paused"] and resumed["search"]["purpose"] == "move"


def test_step_runs_one_iteration_and_sends_its_trace(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    ws.send({"type": "search", "action": "step"})
    step = ws.until(lambda f: f["type"] == "step")
    for key in ("selection", "expansion", "simulation", "backpropagation"):
        assert key in step
    stats = ws.until(lambda f: f["type"] == "stats")
    assert stats["iterations"] == 1 and not stats["running"]
    ws.send({"type": "search", "action": "step"})
    ws.until(lambda f: f["type"] == "step")
    assert ws.until(lambda f: f["type"] == "stats")["iterations"] == 2


def test_go_plays_the_best_move_so_far(client, connect) -> None:
    game = new_game(client, human="white", movetime_ms=SLOW)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "d2d4"})
    ws.until(lambda f: f["type"] == "stats" and sum(m["visits"] for m in f["moves"]) > 50)
    ws.send({"type": "go"})
    state = ws.state(lambda f: len(f["moves"]) == 2, timeout=5)
    assert state["history"][1]["by"] == "engine"


def test_go_on_the_humans_turn_makes_the_engine_move_for_them(client, connect) -> None:
    game = new_game(client, human="both", budget="iterations", iterations=200)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "go"})
    state = ws.state(lambda f: len(f["moves"]) == 1, timeout=20)
    assert state["history"][0]["by"] == "engine" and state["turn"] == "black"


def test_engine_against_engine_plays_on_until_paused(client, connect) -> None:
    game = new_game(client, human="none", budget="iterations", iterations=100)
    ws = connect(game)
    ws.state(lambda f: len(f["moves"]) >= 3, timeout=30)
    ws.send({"type": "search", "action": "stop"})
    paused = ws.state(lambda f: f["search"]["paused"] and is_idle(f))
    before = game_state(client, game["id"])
    assert before["moves"] == paused["moves"]
    ws.send({"type": "ping"})
    ws.until(lambda f: f["type"] == "pong")
    assert game_state(client, game["id"])["moves"] == paused["moves"]


def test_the_tree_is_reused_after_each_move(client, connect) -> None:
    game = new_game(client, human="white", movetime_ms=300)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "e2e4"})
    reply = ws.state(lambda f: len(f["moves"]) == 2 and is_idle(f), timeout=20)
    # One more iteration on White's turn: the counters start again, but the
    # root already holds the visits the engine's own search gave this position.
    ws.send({"type": "search", "action": "step"})
    stats = ws.until(lambda f: f["type"] == "stats" and f["fen"] == reply["fen"])
    assert stats["iterations"] == 1
    assert sum(m["visits"] for m in stats["moves"]) > 1


# ---------------------------------------------------------------- settings, undo, setup


def test_settings_change_the_engine_between_moves(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    ws.send(
        {
            "type": "settings",
            "algorithm": "bfms",
            "threads": 1,
            "budget": "iterations",
            "iterations": 250,
            "seed": 3,
        }
    )
    s = ws.state(lambda f: f["settings"]["algorithm"] == "bfms")["settings"]
    assert (s["budget"], s["iterations"], s["seed"]) == ("iterations", 250, 3)
    assert s["params"]  # the new algorithm's defaults
    ws.send({"type": "settings", "params": {"c": 0.5}, "threads": 2, "algorithm": "uct"})
    s = ws.state(lambda f: f["settings"]["algorithm"] == "uct")["settings"]
    assert s["params"]["c"] == 0.5 and s["threads"] == 2


def test_switching_sides_hands_the_move_to_the_engine(client, connect) -> None:
    game = new_game(client, human="white", budget="iterations", iterations=200)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "settings", "human": "black"})
    state = ws.state(lambda f: len(f["moves"]) == 1, timeout=20)
    assert state["human"] == "black" and state["history"][0]["by"] == "engine"


def test_undo_against_the_engine_takes_back_the_move_pair(client, connect) -> None:
    game = new_game(client, human="white", budget="iterations", iterations=200)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "e2e4"})
    ws.state(lambda f: len(f["moves"]) == 2 and is_idle(f), timeout=20)
    ws.send({"type": "undo"})
    state = ws.state(lambda f: f["moves"] == [])
    assert state["fen"] == chess.STARTING_FEN and state["turn"] == "white"
    ws.send({"type": "undo"})
    assert ws.error()["code"] == "nothing_to_undo"


def test_undo_while_the_engine_thinks_stops_it_and_takes_back_the_human_move(
    client, connect
) -> None:
    game = new_game(client, human="white", movetime_ms=SLOW)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "e2e4"})
    ws.state(lambda f: f["search"]["status"] == "running")
    ws.send({"type": "undo"})
    state = ws.state(lambda f: f["moves"] == [] and is_idle(f))
    assert state["turn"] == "white"


def test_setup_from_fen_replaces_the_position(client, connect) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    ws.send({"type": "move", "uci": "e2e4"})
    ws.state(lambda f: f["moves"] == ["e2e4"])
    fen = "8/8/8/4k3/8/8/3QK3/8 w - - 0 40"
    ws.send({"type": "setup", "fen": fen})
    state = ws.state(lambda f: f["fen"] == fen)
    assert state["moves"] == [] and state["start_fen"] == fen
    ws.send({"type": "setup", "fen": None})
    assert ws.state(lambda f: f["moves"] == [])["fen"] == chess.STARTING_FEN


def test_setup_hands_the_move_to_the_engine_when_it_is_to_move(client, connect) -> None:
    game = new_game(client, human="white", budget="iterations", iterations=100)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "setup", "fen": "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"})
    state = ws.state(lambda f: len(f["moves"]) == 1, timeout=20)
    assert state["history"][0]["by"] == "engine"


# ---------------------------------------------------------------- stream options


def test_subscribe_can_drop_the_tree_from_stats(client, connect) -> None:
    game = new_game(client, human="white")
    ws = connect(game)
    ws.recv()
    ws.send({"type": "subscribe", "tree": False, "hz": 5})
    ws.send({"type": "search", "action": "start"})
    stats = ws.until(lambda f: f["type"] == "stats" and f["iterations"] > 0)
    assert stats["tree"] == [] and stats["moves"]


def test_ping_is_answered_with_pong(client, connect) -> None:
    game = new_game(client)
    ws = connect(game)
    ws.recv()
    ws.send({"type": "ping", "t": "abc"})
    pong = ws.until(lambda f: f["type"] == "pong")
    assert pong["t"] == "abc"


# ---------------------------------------------------------------- the pool


@contextlib.contextmanager
def socket(client: TestClient, url: str) -> Iterator[Socket]:
    with client.websocket_connect(url) as raw:
        yield Socket(raw)


def test_searches_beyond_capacity_wait_in_a_visible_queue(settings: Settings) -> None:
    app = create_app(settings.model_copy(update={"max_searches": 1}))
    with TestClient(app) as client:
        a, b = new_game(client, human="white"), new_game(client, human="white")
        with socket(client, a["ws"]) as wa, socket(client, b["ws"]) as wb:
            wa.recv(), wb.recv()
            wa.send({"type": "search", "action": "start"})
            wa.state(lambda f: f["search"]["status"] == "running")
            wb.send({"type": "search", "action": "start"})
            queued = wb.state(lambda f: f["search"]["status"] == "queued")
            assert queued["search"]["queue_position"] == 1
            assert client.get("/api/server").json()["pool"] == {
                "capacity": 1,
                "running": 1,
                "queued": 1,
            }
            stats = wa.until(lambda f: f["type"] == "stats")
            assert stats["pool"]["queued"] == 1
            wa.send({"type": "search", "action": "stop"})
            wa.state(is_idle)
            running = wb.state(lambda f: f["search"]["status"] == "running")
            assert running["search"]["queue_position"] is None
            wb.send({"type": "search", "action": "stop"})
            wb.state(is_idle)


# ---------------------------------------------------------------- whole games


def test_a_whole_knight_chess_game_over_the_websocket_reaches_a_result(client, connect) -> None:
    rng = random.Random(7)
    game = new_game(client, game="knight", human="white", budget="iterations", iterations=40)
    ws = connect(game)
    state = ws.recv()
    while not state["result"]:
        if state["turn"] == "white" and is_idle(state) and state["legal"]:
            board = chess.Board(state["fen"])
            captures = [u for u in state["legal"] if board.piece_at(chess.parse_square(u[2:4]))]
            ws.send({"type": "move", "uci": rng.choice(captures or state["legal"])})
            ply = state["ply"]
            state = ws.state(lambda f, ply=ply: f["ply"] > ply + 1 or bool(f["result"]), 30)
        else:
            state = ws.state(timeout=30)
    assert state["result"] in ("1-0", "0-1", "1/2-1/2"), state
    assert state["reason"] in ("no knights left", "200-ply limit", "no legal move")
    pgn = client.get(f"/api/games/{game['id']}/pgn").text
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert parsed.headers["Result"] == state["result"]
    assert len(list(parsed.mainline_moves())) == state["ply"]


def test_long_games_keep_state_frames_under_the_limit_by_dropping_old_fens(
    settings: Settings,
) -> None:
    app = create_app(settings.model_copy(update={"ws_max_frame": 6000}))
    rng = random.Random(3)
    with TestClient(app) as client:
        game = new_game(client, human="both")
        with socket(client, game["ws"]) as ws:
            state = ws.recv()
            while state["ply"] < 60 and not state["result"]:
                ws.send({"type": "move", "uci": rng.choice(state["legal"])})
                ply = state["ply"]
                state = ws.state(lambda f, ply=ply: f["ply"] > ply)
            assert state["_bytes"] < 6000
            assert len(state["moves"]) == state["ply"]  # the UCI list stays whole
            start = state["history_start"]
            assert start > 0 and start + len(state["history"]) == state["ply"]
            fens = [h["fen"] for h in state["history"]]
            assert fens[0] is None and fens[-1] is not None  # the oldest go first
            full = client.get(f"/api/games/{game['id']}/positions").json()["fens"]
            assert len(full) == state["ply"] + 1
            assert full[-1] == state["fen"]
