"""GameSession: turns, undo (a move pair against the engine), FEN setup, results and PGN."""

from __future__ import annotations

import io
from dataclasses import replace

import chess
import chess.pgn
import pytest

from engine.errors import GameOverError, IllegalMoveError, InvalidFenError
from engine.play import (
    EngineNote,
    EngineSettings,
    GameSession,
    InvalidSettingError,
    NothingToUndoError,
    NotYourTurnError,
    Player,
)
from engine.rules.knight import KnightChessBoard

NOTE = EngineNote(visits=321, q=0.5625, iterations=1000, elapsed_ms=99.6, algorithm="uct")


def snapshot(s: GameSession) -> tuple:
    return (s.fen, s.moves, s.result, s.reason, s.start_fen, s.human, s.engine)


def test_human_moves_on_their_turn_and_the_engine_on_its_own() -> None:
    s = GameSession("chess", human="white")
    assert s.human_to_move and not s.engine_to_move
    s.play("e2e4")
    assert s.turn == "black" and s.engine_to_move
    with pytest.raises(NotYourTurnError):
        s.play("e7e5")  # a human move on the engine's turn
    s.play("e7e5", by="engine", note=NOTE)
    assert s.moves == ["e2e4", "e7e5"]
    assert [m.san for m in s.history] == ["e4", "e5"]


def test_in_an_engine_game_every_human_move_is_refused() -> None:
    s = GameSession("chess", human="none")
    with pytest.raises(NotYourTurnError):
        s.play("e2e4")
    assert s.moves == []


def test_both_sides_human_may_move_either_colour() -> None:
    s = GameSession("chess", human="both")
    s.play("e2e4")
    s.play("e7e5")
    assert not s.engine_to_move


@pytest.mark.parametrize("bad", ["e2e5", "zz", "", "e7e5", "e1g1"])
def test_refused_moves_leave_the_session_unchanged(bad: str) -> None:
    s = GameSession("chess", human="white")
    before = snapshot(s)
    with pytest.raises(IllegalMoveError):
        s.play(bad)
    assert snapshot(s) == before


def test_undo_against_the_engine_takes_back_the_move_pair() -> None:
    s = GameSession("chess", human="white")
    s.play("e2e4")
    s.play("e7e5", by="engine", note=NOTE)
    s.play("g1f3")
    s.play("b8c6", by="engine", note=NOTE)
    removed = s.undo()
    assert [m.uci for m in removed] == ["g1f3", "b8c6"]
    assert s.moves == ["e2e4", "e7e5"] and s.turn == "white"


def test_undo_while_the_engine_thinks_takes_back_only_the_human_move() -> None:
    s = GameSession("chess", human="white")
    s.play("e2e4")
    assert [m.uci for m in s.undo()] == ["e2e4"]
    assert s.moves == [] and s.human_to_move


def test_undo_without_a_human_move_is_refused_and_changes_nothing() -> None:
    s = GameSession("chess", human="black")
    s.play("e2e4", by="engine", note=NOTE)  # the engine opened; nothing of ours to undo
    before = snapshot(s)
    with pytest.raises(NothingToUndoError):
        s.undo()
    assert snapshot(s) == before
    with pytest.raises(NothingToUndoError):
        GameSession("chess").undo()


def test_undo_in_engine_and_analysis_games_takes_back_one_ply() -> None:
    for human in ("none", "both"):
        s = GameSession("chess", human=human)
        s.play("e2e4", by="engine", note=NOTE)
        s.play("e7e5", by="engine", note=NOTE)
        s.undo()
        assert s.moves == ["e2e4"]


def test_checkmate_ends_the_game_and_refuses_further_moves() -> None:
    s = GameSession("chess", human="both")
    for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):
        s.play(uci)
    assert (s.result, s.reason) == ("0-1", "checkmate")
    assert s.legal_moves() == [] and not s.engine_to_move and s.check
    with pytest.raises(GameOverError):
        s.play("a2a3")
    s.undo()  # taking back a finished game reopens it
    assert s.result is None and s.legal_moves()


def test_setup_validates_the_fen_first() -> None:
    s = GameSession("chess", human="white")
    s.play("e2e4")
    before = snapshot(s)
    with pytest.raises(InvalidFenError, match="king"):
        s.setup("8/8/8/8/8/8/8/8 w - - 0 1")
    assert snapshot(s) == before
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    s.setup(fen)
    assert s.fen == fen and s.start_fen == fen and s.moves == []
    s.setup(None)
    assert s.fen == chess.STARTING_FEN


def test_knight_chess_ends_at_the_ply_limit_and_counts_knights() -> None:
    s = GameSession("knight", "7n/8/8/8/8/8/8/N6N b - - 0 100", human="both")
    s.play("h8g6")
    assert (s.result, s.reason) == ("1-0", "200-ply limit")


def test_pgn_carries_the_search_settings_and_engine_notes() -> None:
    engine = EngineSettings(algorithm="uct", params={"c": 1.4}, threads=2, movetime_ms=250)
    s = GameSession("chess", human="white", engine=engine)
    s.play("e2e4")
    s.play("e7e5", by="engine", note=NOTE)
    game = chess.pgn.read_game(io.StringIO(s.pgn()))
    assert game is not None
    h = game.headers
    assert (h["White"], h["Black"]) == ("Human", "Canopy uct")
    assert (h["Algorithm"], h["AlgorithmParams"], h["Threads"]) == ("uct", "c=1.4", "2")
    assert h["ThinkTime"] == "250ms" and h["Result"] == "*"
    nodes = list(game.mainline())
    assert [n.move.uci() for n in nodes] == ["e2e4", "e7e5"]
    assert nodes[0].comment == ""
    assert "N=321" in nodes[1].comment and "Q=0.562" in nodes[1].comment


def test_knight_chess_pgn_reads_back_as_the_variant_from_a_set_up_position() -> None:
    fen = "n7/8/8/8/8/8/8/6NN w - - 0 1"
    s = GameSession("knight", fen, human="none", engine=EngineSettings(budget="iterations"))
    s.play("g1f3", by="engine", note=NOTE)
    game = chess.pgn.read_game(io.StringIO(s.pgn()))
    assert game is not None
    assert game.headers["Variant"] == "Knight Chess" and game.headers["FEN"] == fen
    assert game.headers["Iterations"] == "10000"
    board = game.board()
    assert isinstance(board, KnightChessBoard)
    assert [m.uci() for m in game.mainline_moves()] == ["g1f3"]


def test_finished_game_pgn_has_result_and_reason() -> None:
    s = GameSession("chess", human="both")
    for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):
        s.play(uci)
    game = chess.pgn.read_game(io.StringIO(s.pgn()))
    assert game is not None
    assert game.headers["Result"] == "0-1" and game.headers["EndReason"] == "checkmate"
    assert game.end().comment.endswith("checkmate.")


def test_games_round_trip_through_plain_data() -> None:
    s = GameSession("chess", human="white", engine=EngineSettings(params={"c_puct": 2.0}))
    s.play("d2d4")
    s.play("d7d5", by="engine", note=NOTE)
    copy = GameSession.from_dict(s.to_dict())
    assert snapshot(copy) == snapshot(s)
    assert copy.history == s.history
    assert copy.pgn() == s.pgn()


def arena_game() -> GameSession:
    """Two named engines, each with its own settings, played by an arena."""
    fast = EngineSettings(algorithm="uct", params={"c": 0.7}, budget="iterations", iterations=50)
    wide = EngineSettings(algorithm="mcts", params={"c_puct": 2.0}, budget="iterations")
    players = {
        "white": Player("Ada", fast, label="uct c=0.7", id="a1"),
        "black": Player("Bob", wide, label="mcts c_puct=2", id="b2"),
    }
    s = GameSession("chess", human="none", engine=fast, players=players, played_by="arena")
    s.play("e2e4", by="engine", note=NOTE)
    s.play("e7e5", by="engine", note=replace(NOTE, algorithm="mcts"))
    return s


def test_an_adjudicated_game_is_over_with_the_referees_result_everywhere() -> None:
    s = arena_game()
    s.adjudicate("1/2-1/2", "max plies")
    assert (s.result, s.reason, s.is_over) == ("1/2-1/2", "max plies", True)
    assert s.legal_moves() == [] and not s.engine_to_move
    with pytest.raises(GameOverError):
        s.play("g1f3", by="engine")
    game = chess.pgn.read_game(io.StringIO(s.pgn()))
    assert game is not None
    h = game.headers
    assert (h["Result"], h["EndReason"], h["Termination"]) == (
        "1/2-1/2",
        "max plies",
        "adjudication",
    )
    assert game.end().comment.endswith("max plies.")


def test_an_adjudication_is_refused_when_bad_or_after_the_end_and_undo_clears_it() -> None:
    s = arena_game()
    with pytest.raises(InvalidSettingError, match="result"):
        s.adjudicate("2-0", "max plies")
    with pytest.raises(InvalidSettingError, match="reason"):
        s.adjudicate("1-0", " ")
    assert s.result is None
    s.adjudicate("1-0", "max plies")
    with pytest.raises(GameOverError):
        s.adjudicate("0-1", "max plies")
    s.undo()
    assert (s.result, s.adjudication) == (None, None)
    mate = GameSession("chess", human="both")
    for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):
        mate.play(uci)
    with pytest.raises(GameOverError):
        mate.adjudicate("1/2-1/2", "max plies")
    assert mate.result == "0-1"


def test_players_adjudication_and_who_plays_round_trip_through_plain_data() -> None:
    s = arena_game()
    s.adjudicate("1/2-1/2", "max plies")
    data = s.to_dict()
    assert data["adjudication"] == {"result": "1/2-1/2", "reason": "max plies"}
    copy = GameSession.from_dict(data)
    assert snapshot(copy) == snapshot(s)
    assert (copy.players, copy.played_by, copy.adjudication) == (s.players, "arena", s.adjudication)
    assert copy.pgn() == s.pgn()
    plain = GameSession("chess").to_dict()
    assert not {"players", "played_by", "adjudication"} & set(plain)


def test_a_game_of_two_players_names_each_side_and_its_settings_in_the_pgn() -> None:
    s = arena_game()
    assert (s.player_name("white"), s.player_name("black")) == ("Ada", "Bob")
    assert s.players["black"].describe() == "Bob (mcts c_puct=2)"
    game = chess.pgn.read_game(io.StringIO(s.pgn(event="Period 3", round="2")))
    assert game is not None
    h = game.headers
    assert (h["White"], h["Black"], h["Event"], h["Round"]) == ("Ada", "Bob", "Period 3", "2")
    assert (h["WhiteEngine"], h["BlackEngine"]) == ("uct c=0.7", "mcts c_puct=2")
    assert "Algorithm" not in h and "Seed" not in h and h["Iterations"] == "50"
    # each engine note names no other algorithm: every move was its own side's
    assert "algo=" not in s.pgn()


def test_stored_settings_leave_out_a_parameter_their_algorithm_no_longer_has() -> None:
    """A game stored before one of its algorithm's settings was retired still loads, with
    the settings the algorithm has; the search would refuse the retired name."""
    stored = EngineSettings(algorithm="mcts", params={"c_puct": 2.0, "centre": 1.0}).to_dict()
    assert EngineSettings.from_dict(stored).params == {"c_puct": 2.0}
    uct = EngineSettings(algorithm="uct", params={"c": 1.4, "centre": 1.0}).to_dict()
    assert EngineSettings.from_dict(uct).params == {"c": 1.4}


def test_engine_settings_reject_bad_budgets_naming_the_field() -> None:
    with pytest.raises(InvalidSettingError, match="threads"):
        EngineSettings(threads=0)
    with pytest.raises(InvalidSettingError, match="budget"):
        EngineSettings(budget="forever")  # type: ignore[arg-type]
    with pytest.raises(InvalidSettingError, match="human"):
        GameSession("chess", human="robot")
    assert EngineSettings(budget="iterations", iterations=7).limits() == {"iterations": 7}
    assert EngineSettings(movetime_ms=300).limits() == {"movetime_ms": 300}


def test_fen_at_and_fen_after_give_positions_along_the_game() -> None:
    s = GameSession("chess", human="both")
    s.play("e2e4")
    assert s.fen_at(0) == chess.STARTING_FEN
    assert s.fen_at(1) == s.fen
    with pytest.raises(IndexError):
        s.fen_at(2)
    assert s.fen_after(["e7e5", "g1f3"]).startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/")
    assert s.fen == s.fen_at(1)  # previews do not move the game
