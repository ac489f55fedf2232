"""The class quiz over the websocket: questions opened by the player, votes from anyone
watching, the tally broadcast, the answer at the reveal, and every refused vote
answered with a clear error while the game stays exactly as it was."""

from __future__ import annotations

from typing import Any

import pytest

from app.quiz import PREDICT_BURST, PREDICT_RATE, Choice, Quiz, QuizError
from tests.app.conftest import Frame, Socket, game_state, new_game


def _quiz(ws: Socket, pred: Any = lambda f: True) -> Frame:
    return ws.until(lambda f: f["type"] == "quiz" and pred(f))


def _step(ws: Socket) -> Frame:
    ws.send({"type": "search", "action": "step"})
    step = ws.until(lambda f: f["type"] == "step", timeout=180)  # a cold start compiles
    ws.until(lambda f: f["type"] == "stats")
    return step


def _selection_question(client: Any, connect: Any) -> tuple[dict[str, Any], Socket, Socket, Frame]:
    """A bfms game stepped once (every root move is then in the tree), a player and a
    spectator connected, and a selection question open."""
    game = new_game(client, human="both", algorithm="bfms")
    player, watcher = connect(game), connect(game, token=False)
    player.recv()
    watcher.recv()
    _step(player)
    player.send({"type": "quiz", "action": "ask", "kind": "selection"})
    question = _quiz(player)
    assert _quiz(watcher)["id"] == question["id"]
    return game, player, watcher, question


def test_a_selection_question_counts_everyone_and_closes_with_the_steps_choice(
    client, connect
) -> None:
    game, player, watcher, question = _selection_question(client, connect)
    assert question["kind"] == "selection" and question["open"] and question["votes"] == 0
    assert len(question["choices"]) == 20 and all("node" in c for c in question["choices"])
    by_move = {c["move"]: c for c in question["choices"]}
    nf3, e4 = by_move["g1f3"], by_move["e2e4"]

    player.send({"type": "predict", "question": question["id"], "move": "g1f3"})
    tally = _quiz(watcher, lambda f: f["votes"] == 1)
    assert tally["text"] == "Nf3 1" and tally["open"]
    watcher.send({"type": "predict", "question": question["id"], "node": e4["node"]})
    tally = _quiz(player, lambda f: f["votes"] == 2)
    assert sorted(tally["tally"], key=lambda r: r["move"]) == [
        {"move": "e2e4", "san": "e4", "votes": 1},
        {"move": "g1f3", "san": "Nf3", "votes": 1},
    ]
    third = connect(game, token=False)
    assert _quiz(third)["votes"] == 2  # a late arrival (the projector) gets the tally at once
    third.send({"type": "predict", "question": question["id"], "node": nf3["node"]})
    assert _quiz(watcher, lambda f: f["votes"] == 3)["text"] == "Nf3 2 · e4 1"

    step = _step(player)
    closed = _quiz(watcher, lambda f: not f["open"])
    chosen = step["selection"][0]["chosen"]
    assert closed["state"] == "closed" and closed["answer"]["move"] == chosen["move"]
    assert closed["right"] == {"g1f3": 2, "e2e4": 1}.get(chosen["move"], 0)
    assert closed["text"] == "Nf3 2 · e4 1"


def test_refused_votes_say_why_and_leave_the_game_alone(client, connect) -> None:
    game, player, watcher, question = _selection_question(client, connect)
    qid = question["id"]
    before = game_state(client, game["id"])
    nodes = {c["node"] for c in question["choices"]}
    bad_node = max(nodes) + 1000
    watcher.send({"type": "predict", "question": qid, "node": bad_node})
    err = watcher.error()
    assert err["code"] == "unknown_choice" and str(bad_node) in err["message"]
    assert err["request"] == "predict"
    watcher.send({"type": "predict", "question": qid, "move": "e2e5"})
    err = watcher.error()
    assert err["code"] == "unknown_choice" and "e2e5" in err["message"]
    watcher.send({"type": "predict", "question": qid + 7, "move": "e2e4"})
    assert watcher.error()["code"] == "unknown_question"
    watcher.send({"type": "predict", "question": qid, "move": "e2e4"})
    assert _quiz(watcher, lambda f: f["votes"] == 1)["text"] == "e4 1"
    watcher.send({"type": "predict", "question": qid, "move": "d2d4"})
    err = watcher.error()
    assert err["code"] == "already_voted" and str(qid) in err["message"]

    _step(player)
    assert _quiz(watcher, lambda f: not f["open"])["votes"] == 1
    after_reveal = game_state(client, game["id"])
    player.send({"type": "predict", "question": qid, "move": "d2d4"})
    err = player.error()
    assert err["code"] == "question_closed" and "reveal" in err["message"]

    # Only the step changed the game (its tree); the refused votes changed nothing.
    assert game_state(client, game["id"]) == after_reveal
    for key in ("fen", "moves", "settings", "human", "result"):
        assert after_reveal[key] == before[key]


def test_malformed_predict_frames_are_refused_by_the_schema(client, connect) -> None:
    game, _player, watcher, question = _selection_question(client, connect)
    qid = question["id"]
    for frame, words in (
        ({"type": "predict", "question": qid}, "names a 'move'"),
        ({"type": "predict", "question": str(qid), "move": "e2e4"}, "question"),
        ({"type": "predict", "question": qid, "move": "e2e4", "who": "me"}, "unknown field"),
        ({"type": "predict", "question": qid, "node": -1}, "node"),
        ({"type": "predict", "question": qid, "move": "e2e4e2e4e2"}, "move"),
    ):
        watcher.send(frame)
        err = watcher.error()
        assert err["code"] == "bad_request" and words in err["message"], (frame, err)
    watcher.send({"type": "quiz", "action": "ask", "kind": "bestmove"})
    assert watcher.error()["code"] == "forbidden"  # asking is the player's
    assert game_state(client, game["id"])["moves"] == []


def test_a_flood_of_votes_is_rate_limited_and_counts_once(client, connect) -> None:
    _game, _player, watcher, question = _selection_question(client, connect)
    for _ in range(20):
        watcher.send({"type": "predict", "question": question["id"], "move": "e2e4"})
    answers = [watcher.until(lambda f: f["type"] in ("quiz", "error")) for _ in range(20)]
    tallies = [f for f in answers if f["type"] == "quiz"]
    codes = [f["code"] for f in answers if f["type"] == "error"]
    assert [t["votes"] for t in tallies] == [1]  # the first vote counts, and only it
    assert codes.count("rate_limited") >= 10
    assert set(codes) == {"already_voted", "rate_limited"}


def test_a_selection_question_needs_a_fully_expanded_root(client, connect) -> None:
    game = new_game(client, human="both", algorithm="uct")
    player = connect(game)
    player.recv()
    player.send({"type": "quiz", "action": "ask", "kind": "selection"})
    err = player.error()
    assert err["code"] == "quiz_unavailable" and "step" in err["message"]
    _step(player)
    player.send({"type": "quiz", "action": "ask", "kind": "selection"})
    err = player.error()
    assert err["code"] == "quiz_unavailable" and "1 of its 20 moves" in err["message"]
    player.send({"type": "quiz", "action": "ask", "kind": "bestmove"})
    err = player.error()
    assert err["code"] == "quiz_unavailable" and "engine's move" in err["message"]


def test_an_algorithm_without_a_tree_has_no_selection_to_predict(client, connect) -> None:
    game = new_game(client, human="both", algorithm="alphabeta")
    player = connect(game)
    player.recv()
    player.send({"type": "quiz", "action": "ask", "kind": "selection"})
    err = player.error()
    assert err["code"] == "quiz_unavailable" and "keeps no search tree" in err["message"]


def test_a_bestmove_question_holds_the_engines_move_until_the_reveal(client, connect) -> None:
    # The engine thinks as soon as the game exists; its think time must outlast two
    # connections and a stop on a loaded machine (at 200 ms it had moved before the stop).
    game = new_game(client, human="black", algorithm="uct", movetime_ms=3000)
    player, watcher = connect(game), connect(game, token=False)
    player.send({"type": "search", "action": "stop"})  # the engine, on its move, pauses
    player.state(lambda f: f["search"]["paused"] and f["search"]["status"] == "idle")
    player.send({"type": "quiz", "action": "ask", "kind": "bestmove"})
    question = _quiz(watcher)
    assert question["kind"] == "bestmove" and len(question["choices"]) == 20
    assert "node" not in question["choices"][0]
    watcher.send({"type": "predict", "question": question["id"], "move": "e2e4"})
    _quiz(player, lambda f: f["votes"] == 1)

    player.send({"type": "search", "action": "start"})  # it thinks, the room watches
    player.state(lambda f: f["search"]["status"] == "running")
    held = player.state(lambda f: f["search"]["status"] == "idle", timeout=60)
    assert held["ply"] == 0 and held["search"]["paused"]  # spent its budget, and waits
    assert game_state(client, game["id"])["moves"] == []

    player.send({"type": "go"})  # Move now: the reveal
    closed = _quiz(watcher, lambda f: not f["open"])
    played = watcher.state(lambda f: f["ply"] == 1)["last_move"]
    assert closed["answer"]["move"] == played
    assert closed["right"] == (1 if played == "e2e4" else 0)


def test_a_new_position_withdraws_the_open_question(client, connect) -> None:
    game, player, watcher, question = _selection_question(client, connect)
    player.send({"type": "move", "uci": "e2e4"})
    withdrawn = _quiz(watcher, lambda f: f["state"] == "withdrawn")
    assert withdrawn["id"] == question["id"] and "position" in withdrawn["reason"]
    watcher.send({"type": "predict", "question": question["id"], "move": "e2e4"})
    err = watcher.error()
    assert err["code"] == "question_closed" and "withdrawn" in err["message"]
    assert game_state(client, game["id"])["moves"] == ["e2e4"]


def test_a_search_withdraws_a_selection_question(client, connect) -> None:
    _game, player, watcher, question = _selection_question(client, connect)
    player.send({"type": "search", "action": "start"})
    withdrawn = _quiz(watcher, lambda f: f["state"] == "withdrawn")
    assert withdrawn["id"] == question["id"] and "tree" in withdrawn["reason"]
    player.send({"type": "search", "action": "stop"})


# ---------------------------------------------------------------- the quiz on its own


class _Conn:
    """A stand-in for a connection: the quiz only tells voters apart."""


def _quiz_with(choices: list[tuple[str, str]]) -> tuple[Quiz, list[dict[str, Any]], list[float]]:
    sent: list[dict[str, Any]] = []
    now = [0.0]
    quiz = Quiz(sent.append, clock=lambda: now[0])
    quiz.open("bestmove", "8/8/8/8/8/8/8/8 w - - 0 1", [Choice(m, s) for m, s in choices])
    return quiz, sent, now


def test_the_tally_counts_votes_most_first_and_names_no_voter() -> None:
    quiz, sent, _now = _quiz_with([("d2d4", "d4"), ("e2e4", "e4"), ("g1f3", "Nf3")])
    qid = sent[-1]["id"]
    for move in ("g1f3", "e2e4", "g1f3", "d2d4", "g1f3", "e2e4"):
        quiz.vote(_Conn(), qid, move, None)  # type: ignore[arg-type]
    frame = sent[-1]
    assert frame["text"] == "Nf3 3 · e4 2 · d4 1" and frame["votes"] == 6
    assert all(set(row) == {"move", "san", "votes"} for row in frame["tally"])
    quiz.reveal("bestmove", "e2e4")
    assert sent[-1]["answer"] == {"move": "e2e4", "san": "e4"} and sent[-1]["right"] == 2
    assert quiz.reveal("bestmove", "d2d4") is None  # a closed question stays as it closed


def test_the_predict_bucket_refuses_a_burst_and_refills_with_time() -> None:
    quiz, sent, now = _quiz_with([("e2e4", "e4")])
    conn = _Conn()
    codes = []
    for _ in range(PREDICT_BURST + 1):
        try:
            quiz.vote(conn, sent[-1]["id"], "e2e4", None)  # type: ignore[arg-type]
            codes.append("ok")
        except QuizError as exc:
            codes.append(exc.code)
    assert codes == ["ok"] + ["already_voted"] * (PREDICT_BURST - 1) + ["rate_limited"]
    now[0] += 1.0 / PREDICT_RATE  # one more token
    with pytest.raises(QuizError) as refused:
        quiz.vote(conn, sent[-1]["id"], "e2e4", None)  # type: ignore[arg-type]
    assert refused.value.code == "already_voted"


def test_a_vote_naming_a_node_and_another_move_is_refused() -> None:
    sent: list[dict[str, Any]] = []
    quiz = Quiz(sent.append)
    quiz.open("selection", "fen", [Choice("e2e4", "e4", 3), Choice("g1f3", "Nf3", 5)])
    with pytest.raises(QuizError, match="node 3 is e2e4, not g1f3"):
        quiz.vote(_Conn(), 1, "g1f3", 3)  # type: ignore[arg-type]
    assert sent[-1]["votes"] == 0
