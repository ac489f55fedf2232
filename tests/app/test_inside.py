"""Inside the search over the websocket and HTTP: tree subscriptions (size, compact
format), node details, step frames with positions, the tree and step-log exports,
and algorithm races."""

from __future__ import annotations

import json
import math

import chess
import pytest

from app.streaming import TREE_FIELDS
from tests.app.conftest import Frame, Socket, new_game


def _steps(ws, n: int) -> list[Frame]:
    """``n`` steps; returns their step frames (the stats after each is received too)."""
    out = []
    for _ in range(n):
        ws.send({"type": "search", "action": "step"})
        out.append(ws.until(lambda f: f["type"] == "step"))
        ws.until(lambda f: f["type"] == "stats")
    return out


def _search(ws, iterations_at_least: int) -> Frame:
    """Analyse until the stats pass ``iterations_at_least``, stop, and return the final stats."""
    ws.send({"type": "search", "action": "start"})
    ws.until(lambda f: f["type"] == "stats" and f["iterations"] >= iterations_at_least, timeout=30)
    ws.send({"type": "search", "action": "stop"})
    return ws.until(lambda f: f["type"] == "stats" and not f["running"])


def _decode(stats: Frame) -> list[dict]:
    fields = stats.get("tree_fields")
    if not fields:
        return stats["tree"]
    return [dict(zip(fields, row, strict=True)) for row in stats["tree"]]


# ---------------------------------------------------------------- tree subscriptions


def test_a_client_can_ask_for_500_compact_nodes_under_the_frame_limit(client, connect) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    ws.send({"type": "subscribe", "tree_nodes": 500, "tree_format": "compact"})
    stats = _search(ws, 4000)
    assert stats["tree_fields"] == list(TREE_FIELDS)
    nodes = _decode(stats)
    assert len(nodes) == 500 and not stats["tree_trimmed"]
    assert stats["_bytes"] < 65536
    ids = {n["id"] for n in nodes}
    assert nodes[0]["parent"] == -1 and all(n["parent"] in ids for n in nodes[1:])
    root = nodes[0]
    assert root["visits"] == stats["iterations"]
    for n in nodes[1:]:  # q_white is q seen by White: the mover alternates with depth
        white_moved = n["depth"] % 2 == 1  # White is to move at the root
        assert n["q_white"] == pytest.approx(n["q"] if white_moved else 1 - n["q"], abs=2e-4)
    assert stats["depth_histogram"][0] == 1 and sum(stats["depth_histogram"]) == stats["nodes"]
    assert stats["branching_factor"] > 1


def test_each_connection_gets_its_own_tree_size(client, connect) -> None:
    game = new_game(client, human="both")
    small, big = connect(game), connect(game, token=False)
    small.recv()
    big.recv()
    small.send({"type": "subscribe", "tree_nodes": 50})
    big.send({"type": "subscribe", "tree_nodes": 300, "tree_format": "compact"})
    big.send({"type": "ping", "t": 1})
    big.until(lambda f: f["type"] == "pong")
    final = _search(small, 3000)
    assert len(final["tree"]) == 50 and "tree_fields" not in final
    assert isinstance(final["tree"][0], dict) and "q_white" in final["tree"][0]
    seen = big.until(lambda f: f["type"] == "stats" and not f["running"])
    assert len(seen["tree"]) == 300 and isinstance(seen["tree"][0], list)


def test_tree_sizes_outside_50_to_500_are_refused(client, connect) -> None:
    game = new_game(client)
    ws = connect(game)
    ws.recv()
    for size in (49, 501, 0):
        ws.send({"type": "subscribe", "tree_nodes": size})
        err = ws.error()
        assert err["code"] == "bad_request" and "tree_nodes" in err["message"], size
    for size in (50, 500):  # the ends of the range are sizes the tree view offers
        ws.send({"type": "subscribe", "tree_nodes": size, "tree_format": "compact"})
    ws.send({"type": "subscribe", "tree_format": "columns"})
    err = ws.error()  # the next error is this one: 50 and 500 were accepted
    assert err["code"] == "bad_request" and "tree_format" in err["message"]
    assert "tree_nodes" not in err["message"]


# ---------------------------------------------------------------- node details


def test_node_details_match_the_tree_and_recompute_ucb1(client, connect) -> None:
    game = new_game(client, human="both", algorithm="uct", params={"c": 1.1})
    ws = connect(game)
    ws.recv()
    stats = _search(ws, 2000)
    nodes = _decode(stats)
    target = next(n for n in nodes if n["depth"] == 2 and n["visits"] >= 3)
    parent = next(n for n in nodes if n["id"] == target["parent"])
    ws.send({"type": "node", "id": target["id"]})
    node = ws.until(lambda f: f["type"] == "node")
    assert node["id"] == target["id"] and node["visits"] == target["visits"]
    assert node["q"] == pytest.approx(target["q"], abs=1e-4)
    assert node["path_san"][-1] == target["san"] and len(node["path"]) == 2
    board = chess.Board()
    for uci in node["path"]:
        board.push_uci(uci)
    assert node["fen"] == board.fen()
    sel = node["selection"]
    assert sel["parent_visits"] == parent["visits"]
    expected = target["q"] + 1.1 * math.sqrt(2 * math.log(parent["visits"]) / target["visits"])
    assert sel["score"] == pytest.approx(expected, abs=1e-3)
    assert sel["exploit"] + sel["explore"] == pytest.approx(sel["score"], abs=1e-4)
    assert sum(c["visits"] for c in node["children"]) <= node["visits"]
    if node["pv"]:  # the PV starts with the most visited child
        assert node["pv"][0] == node["children"][0]["move"]
    assert node["scoring"] is None  # uct keeps no leaf scores: the card adds nothing


def _mcts_child_card(client, connect) -> tuple[Socket, Frame]:
    """A searched ``mcts`` game's socket and the node frame of a visited child of the
    root: what the node card shows when a student clicks a move."""
    game = new_game(client, human="both", algorithm="mcts")
    ws = connect(game)
    ws.recv()
    nodes = _decode(_search(ws, 300))
    target = next(n for n in nodes if n["depth"] == 1 and n["visits"] >= 3)
    ws.send({"type": "node", "id": target["id"]})
    return ws, ws.until(lambda f: f["type"] == "node")


def test_an_mcts_node_card_carries_its_prior_and_puct_terms(client, connect) -> None:
    """The node card shows what PUCT weighs: the prior of the move into the node (the
    children's priors sum to 1), its minimax value, and the terms adding up to its score."""
    ws, node = _mcts_child_card(client, connect)
    sel = node["selection"]
    assert 0.0 < sel["prior"] <= 1.0 and sel["minimax"] is not None
    assert sel["exploit"] + sel["explore"] == pytest.approx(sel["score"], abs=1e-4)
    ws.send({"type": "node", "id": 0})
    root = ws.until(lambda f: f["type"] == "node")
    siblings = [c["prior"] for c in root["children"]]
    assert all(p is not None and p > 0 for p in siblings) and sum(siblings) <= 1.0 + 1e-4


def test_an_mcts_node_frame_says_how_the_node_and_its_children_were_scored(client, connect) -> None:
    """``scoring`` (the schema checks every field): a visited child of the root has its
    own quiescence score, the depth of its search and of its children's, all of whom
    chess's defaults score when it is expanded, and a 16-digit key for the leaf table."""
    _ws, node = _mcts_child_card(client, connect)
    sc = node["scoring"]
    assert sc["scored_by"] == "quiescence" and -1.0 <= sc["score"] <= 1.0
    assert 0 <= sc["depth"] <= sc["depth_max"] and sc["expand"] == "evaluate"
    assert sc["children"] == node["children_total"] > 0
    assert sc["children_scored"] == sc["children"] and not sc["partial"]
    assert sc["children_depth"] >= sc["rescore_plies"] >= 0
    assert len(sc["key"]) == 16 and sc["tt"]
    assert (sc["table_score"] is None) != sc["in_table"]


def test_spectators_may_inspect_nodes_and_bad_ids_are_refused(client, connect) -> None:
    game = new_game(client, human="both")
    player, watcher = connect(game), connect(game, token=False)
    player.recv()
    watcher.recv()
    watcher.send({"type": "node", "id": 0})
    assert watcher.error()["code"] == "no_tree"  # nothing searched yet
    _steps(player, 5)
    watcher.send({"type": "node", "id": 0})
    root = watcher.until(lambda f: f["type"] == "node")
    assert root["visits"] == 5 and root["selection"] is None and root["mover"] is None
    watcher.send({"type": "node", "id": 10_000_000})
    err = watcher.error()
    assert err["code"] == "unknown_node" and err["request"] == "node"


# ---------------------------------------------------------------- steps


def test_step_frames_carry_the_positions_along_the_iteration(client, connect) -> None:
    game = new_game(client, human="both", algorithm="uct")  # a playout to follow
    ws = connect(game)
    ws.recv()
    steps = _steps(ws, 12)
    last = steps[-1]
    assert last["fen"] == chess.STARTING_FEN
    back = [r["move"] for r in reversed(last["backpropagation"]) if r["move"]]
    assert last["path"] == back
    board = chess.Board()
    for uci in last["path"]:
        board.push_uci(uci)
    assert last["leaf_fen"] == board.fen()
    sim = last["simulation"]
    assert sim["kind"] == "playout"
    for uci in sim["moves"]:
        board.push_uci(uci)
    assert last["end_fen"] == board.fen()


def test_bfms_steps_show_the_negamax_overwrite(client, connect) -> None:
    game = new_game(client, human="both", algorithm="bfms")
    ws = connect(game)
    ws.recv()
    step = _steps(ws, 6)[-1]
    rows = step["backpropagation"]
    assert rows and all(r["rule"] == "negamax" for r in rows)
    for r in rows:
        if "max_child" in r:
            assert r["value_after"] == pytest.approx(-r["max_child"]["value"], abs=1e-3)
    assert step["selection"][0]["rule"] == "bfms"


def test_the_step_log_exports_every_step_as_json(client, connect) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    steps = _steps(ws, 4)
    response = client.get(f"/api/games/{game['id']}/steps?download=1")
    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith("attachment")
    log = json.loads(response.text)
    assert log["format"] == "canopy-steps" and log["count"] == 4
    assert [s["iteration"] for s in log["steps"]] == [s["iteration"] for s in steps] == [0, 1, 2, 3]
    assert log["steps"][-1]["backpropagation"][0]["visits_after"] >= 1
    assert all("at" in s and s["fen"] == chess.STARTING_FEN for s in log["steps"])


# ---------------------------------------------------------------- tree export


def test_the_tree_export_matches_the_search_totals(client, connect) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    ws.send({"type": "subscribe", "tree_nodes": 200, "tree_format": "compact"})
    stats = _search(ws, 1500)
    response = client.get(f"/api/games/{game['id']}/tree", params={"nodes": 300})
    assert response.status_code == 200
    tree = response.json()
    assert tree["format"] == "canopy-tree" and tree["version"] == 1
    nodes = tree["nodes"]
    assert tree["exported"] == len(nodes) == 300
    assert tree["iterations"] == stats["iterations"] == tree["root_visits"] == nodes[0]["visits"]
    assert tree["tree_nodes"] == stats["nodes"]
    ids = set()
    for n in nodes:  # parents first: rebuildable in one pass
        assert n["parent"] == -1 or n["parent"] in ids
        ids.add(n["id"])
    children_of_root = [n for n in nodes if n["parent"] == 0]
    assert sum(n["visits"] for n in children_of_root) <= nodes[0]["visits"]
    drawn = {n["id"]: n for n in _decode(stats)}
    for n in nodes[:200]:  # the same numbers as the last stats frame
        assert drawn[n["id"]]["visits"] == n["visits"]


def test_the_tree_export_before_any_search_is_empty(client) -> None:
    game = new_game(client, human="white")
    tree = client.get(f"/api/games/{game['id']}/tree").json()
    assert tree["nodes"] == [] and tree["iterations"] == 0
    assert client.get(f"/api/games/{game['id']}/tree?nodes=0").status_code == 422
    assert client.get("/api/games/ffffffffffff/tree").status_code == 404


# ---------------------------------------------------------------- races

RACE = {
    "type": "race",
    "action": "start",
    "a": {"algorithm": "uct"},
    "b": {"algorithm": "bfms"},
    "sync": "iterations",
    "iterations": 2000,
}


def test_a_race_keeps_two_algorithms_in_step_by_iterations(client, connect) -> None:
    game = new_game(client, human="both")
    ws, watcher = connect(game), connect(game, token=False)
    ws.recv()
    watcher.recv()
    ws.send(RACE)
    final = ws.until(lambda f: f["type"] == "race" and not f["running"], timeout=60)
    assert final["labels"] == ["uct", "bfms"] and final["sync"] == "iterations"
    a, b = final["a"], final["b"]
    assert a["iterations"] == b["iterations"] == 2000
    assert final["progress"] == 1.0
    assert final["agree"] == (a["bestmove"] == b["bestmove"])
    assert a["moves"][0]["move"] == a["bestmove"]
    b_ranks = {m["move"]: m["rank"] for m in b["moves"]}
    for row in a["moves"]:
        if row["move"] in b_ranks:
            assert row["other_rank"] == b_ranks[row["move"]]
    seen = watcher.until(lambda f: f["type"] == "race" and not f["running"], timeout=10)
    assert seen["seq"] == final["seq"]
    watcher.send(RACE)
    assert watcher.error()["code"] == "forbidden"


def test_a_race_by_time_and_a_move_that_ends_it(client, connect) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    race = {**RACE, "b": {"algorithm": "uct", "params": {"c": 2.0}}, "sync": "time"}
    ws.send({**race, "iterations": None, "movetime_ms": 4_000})
    running = ws.until(lambda f: f["type"] == "race" and f["running"] and f["round"] >= 2)
    assert running["budget"] == {"movetime_ms": 4_000}
    assert running["labels"] == ["uct", "uct (c=2)"]
    ws.send({"type": "move", "uci": "e2e4"})
    stopped = ws.until(lambda f: f["type"] == "race" and not f["running"], timeout=10)
    assert stopped["fen"] == chess.STARTING_FEN  # it was about the position it started in
    assert stopped["a"]["elapsed_ms"] < 4_000


def test_stopping_a_race_keeps_its_last_frame_and_only_the_owner_may(client, connect) -> None:
    game = new_game(client, human="both")
    ws, watcher = connect(game), connect(game, token=False)
    ws.recv()
    watcher.recv()
    ws.send({**RACE, "iterations": None, "sync": "time", "movetime_ms": 5_000})
    ws.until(lambda f: f["type"] == "race" and f["running"] and f["round"] >= 1)
    watcher.send({"type": "race", "action": "stop"})
    assert watcher.error()["code"] == "forbidden"
    ws.send({"type": "race", "action": "stop"})
    stopped = ws.until(lambda f: f["type"] == "race" and not f["running"], timeout=10)
    assert stopped["a"]["elapsed_ms"] < 5_000 and stopped["a"]["iterations"] > 0
    assert stopped["labels"] == ["uct", "bfms"]
    seen = watcher.until(lambda f: f["type"] == "race" and not f["running"], timeout=10)
    assert seen["seq"] == stopped["seq"]
    ws.send({"type": "race", "action": "stop"})  # nothing left to stop: no harm, no frame
    ws.send({"type": "ping", "t": 7})
    assert ws.until(lambda f: f["type"] in ("pong", "race", "error"))["type"] == "pong"


def test_a_refused_request_leaves_a_running_race_alone(client, connect) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    ws.send({**RACE, "iterations": None, "sync": "time", "movetime_ms": 5_000})
    ws.until(lambda f: f["type"] == "race" and f["running"])
    for frame, code in (
        ({"type": "move", "uci": "e2e5"}, "illegal_move"),
        ({"type": "undo"}, "nothing_to_undo"),
        ({"type": "settings", "algorithm": "uct", "params": {"c": -1}}, "bad_params"),
        ({"type": "setup", "fen": "not a fen"}, "invalid_fen"),
    ):
        ws.send(frame)
        assert ws.error()["code"] == code
    ws.send({"type": "ping", "t": 1})
    ws.until(lambda f: f["type"] == "pong")
    later = ws.until(lambda f: f["type"] == "race")  # still racing after all four refusals
    assert later["running"]
    ws.send({"type": "move", "uci": "e2e4"})  # an accepted change ends it
    assert not ws.until(lambda f: f["type"] == "race" and not f["running"])["running"]


def test_race_requests_are_checked_first(client, connect) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    ws.send({**RACE, "a": {"algorithm": "nope"}})
    assert ws.error()["code"] == "unknown_algorithm"
    ws.send({**RACE, "b": {"algorithm": "uct", "params": {"c": -1}}})
    assert ws.error()["code"] == "bad_params"
    ws.send({**RACE, "b": {"algorithm": "uct", "threads": 99}})
    assert ws.error()["code"] == "bad_params"
    ws.send({"type": "race", "action": "start", "a": {"algorithm": "uct"}})
    assert ws.error()["code"] == "bad_params"
    ws.send({**RACE, "iterations": 10**12})
    assert ws.error()["code"] == "bad_params"


def test_a_race_is_refused_when_every_search_slot_is_busy(client, connect) -> None:
    busy = [new_game(client, human="both") for _ in range(2)]  # max_searches is 2
    sockets = [connect(g) for g in busy]
    for ws in sockets:
        ws.recv()
        ws.send({"type": "search", "action": "start"})
        ws.until(lambda f: f["type"] == "state" and f["search"]["status"] == "running")
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    ws.send(RACE)
    err = ws.error()
    assert err["code"] == "busy" and "slots" in err["message"]


# ---------------------------------------------------------------- the compact encoding


def test_compact_trees_hold_the_same_numbers_in_fewer_bytes() -> None:
    from app.streaming import Snapshot
    from tests.app.test_streaming import STATUS, make_info

    snap = Snapshot(make_info(tree=400), seq=1, root=chess.Board(), status=lambda: STATUS)
    rows = json.loads(snap.encode(tree=True, max_bytes=1 << 20, nodes=300))
    compact = json.loads(snap.encode(tree=True, max_bytes=1 << 20, nodes=300, compact=True))
    assert len(rows["tree"]) == len(compact["tree"]) == 300
    decoded = _decode(compact)
    for row, node in zip(rows["tree"], decoded, strict=True):
        assert {**row, "terminal": int(row["terminal"])} == node
    size_rows = len(snap.encode(tree=True, max_bytes=1 << 20, nodes=300))
    size_compact = len(snap.encode(tree=True, max_bytes=1 << 20, nodes=300, compact=True))
    assert size_compact < 0.6 * size_rows
    assert snap.encode(tree=True, max_bytes=1 << 20, nodes=300, compact=True) is snap.encode(
        tree=True, max_bytes=1 << 20, nodes=300, compact=True
    )  # each variant encoded once per snapshot


def test_each_thread_reports_the_merged_top_moves_and_they_add_up(client, connect) -> None:
    game = new_game(client, human="both", algorithm="uct", threads=2)
    ws = connect(game)
    ws.recv()
    stats = _search(ws, 3000)
    threads = stats["thread_stats"]
    assert [t["thread"] for t in threads] == [0, 1]
    assert sum(t["iterations"] for t in threads) == stats["iterations"]
    for row in stats["moves"][:16]:
        per_thread = [
            next((m["visits"] for m in t["moves"] if m["move"] == row["move"]), 0) for t in threads
        ]
        assert sum(per_thread) == row["visits"]  # the merge adds the threads' visits
    for t in threads:  # each thread's own best comes first
        assert t["moves"][0]["visits"] == max(m["visits"] for m in t["moves"])


def test_big_trees_slow_the_snapshot_rate_while_someone_watches_them(client, connect) -> None:
    game = new_game(client, human="both")
    ws = connect(game)
    ws.recv()
    _steps(ws, 1)  # the game now has its controller
    live = client.app.state.service.store.get(game["id"])
    base = 1.0 / live.settings.stats_hz
    assert live.controller.info_interval == pytest.approx(base)
    ws.send({"type": "subscribe", "tree_nodes": 500, "tree_format": "compact"})
    ws.send({"type": "ping"})
    ws.until(lambda f: f["type"] == "pong")
    assert live.controller.tree_size == 500
    assert live.controller.info_interval == pytest.approx(base * 2.5)
    ws.send({"type": "subscribe", "tree_nodes": 100})
    ws.send({"type": "ping"})
    ws.until(lambda f: f["type"] == "pong")
    assert live.controller.tree_size == live.settings.tree_nodes  # never below the default
    assert live.controller.info_interval == pytest.approx(base)


def test_a_slow_step_is_logged_with_its_algorithm(client, connect, monkeypatch, caplog) -> None:
    """A step is milliseconds; one slower than ``SLOW_STEP_S`` leaves a warning (here every
    step is "slow"), so a page left waiting has a trace in the server's log."""
    from app import handlers

    game = new_game(client, human="both", algorithm="uct")
    ws = connect(game)
    ws.recv()
    monkeypatch.setattr(handlers, "SLOW_STEP_S", 0.0)
    with caplog.at_level("WARNING", logger="canopy.app"):
        _steps(ws, 1)
    (record,) = [r for r in caplog.records if "a step took" in r.getMessage()]
    assert record.levelname == "WARNING" and record.getMessage().endswith(" s (uct)")
