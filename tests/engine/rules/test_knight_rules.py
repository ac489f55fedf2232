"""Knight chess as a python-chess variant: notation, legality and the three end rules."""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest

from engine.errors import InvalidFenError
from engine.rules.games import KNIGHT_GAME, get_game, outcome
from engine.rules.knight import KnightChessBoard


def test_start_position_has_forty_moves_and_round_trips_fen() -> None:
    board = KnightChessBoard()
    assert board.fen() == KnightChessBoard.starting_fen
    assert board.legal_moves.count() == 40
    assert KnightChessBoard(board.fen()).board_fen() == board.board_fen()


def test_san_uci_and_illegal_moves_use_python_chess_machinery() -> None:
    board = KnightChessBoard()
    assert board.san(chess.Move.from_uci("b2c4")) == "Nbc4"  # d2 could go there too
    board.push_san("Nbc4")
    with pytest.raises(chess.IllegalMoveError):
        board.push_uci("e2e4")  # not a knight jump
    with pytest.raises(chess.IllegalMoveError):
        board.push_san("Nce5")  # White's knight cannot move for Black


def test_capture_is_optional() -> None:
    board = KnightChessBoard("8/8/8/3n4/8/4N3/8/N7 w - - 0 1")
    moves = {m.uci() for m in board.legal_moves}
    assert "e3d5" in moves and "e3c2" in moves


def test_losing_every_knight_loses() -> None:
    board = KnightChessBoard("8/8/8/3n4/8/4N3/8/8 w - - 0 1")
    board.push_uci("e3d5")
    assert outcome(board) == ("1-0", "no knights left")
    assert not list(board.legal_moves)


def test_two_hundred_ply_rule_scores_by_knight_count() -> None:
    more_white = KnightChessBoard("7n/8/8/8/8/8/8/N6N b - - 0 100")  # ply 199, Black to move
    assert outcome(more_white) == (None, None)
    more_white.push_uci("h8g6")
    assert more_white.ply() == 200
    assert outcome(more_white) == ("1-0", "200-ply limit")
    level = KnightChessBoard("7n/8/8/8/8/8/8/7N w - - 0 101")
    assert outcome(level) == ("1/2-1/2", "200-ply limit")


def test_no_legal_move_rule_scores_by_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule 3 cannot arise from real play: the knight graph is connected, so a
    side whose every jump lands on its own knights would need all 64 squares.
    The hook is still pinned, by taking the moves away."""
    board = KnightChessBoard("8/8/8/3n4/8/4N3/8/N7 b - - 0 1")
    assert outcome(board) == (None, None)
    monkeypatch.setattr(KnightChessBoard, "generate_pseudo_legal_moves", lambda self, *a: iter(()))
    assert outcome(board) == ("1-0", "no legal move")
    from engine.core.knight_core import result, status
    from engine.core.state import NO_MOVES
    from engine.rules.convert import state_from_board

    s = state_from_board(board)
    assert status(s, 0) == NO_MOVES and result(s, NO_MOVES) == 1


def test_pgn_round_trip_with_variant_header() -> None:
    board = KnightChessBoard()
    for uci in ("b2c4", "b7c5", "c4d6", "e7d5", "d6c8"):
        board.push_uci(uci)
    assert board.san(chess.Move.from_uci("b8c6")) in {"Nbc6", "Nb8c6"}
    game = chess.pgn.Game.from_board(board)
    text = str(game)
    assert '[Variant "Knight Chess"]' in text
    parsed = chess.pgn.read_game(io.StringIO(text))
    assert parsed is not None
    assert isinstance(parsed.board(), KnightChessBoard)
    assert parsed.end().board().fen() == board.fen()


def test_game_board_rejects_malformed_and_impossible_fens() -> None:
    with pytest.raises(InvalidFenError, match="only knights"):
        KNIGHT_GAME.board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    with pytest.raises(InvalidFenError, match="malformed"):
        KNIGHT_GAME.board("nnnn/8 w - - 0 1")
    with pytest.raises(InvalidFenError, match="no king"):
        get_game("chess").board("8/8/8/8/8/8/8/N7 w - - 0 1")
    assert get_game("knightchess") is KNIGHT_GAME


def test_capturing_the_last_knight_is_written_without_a_mate_sign() -> None:
    board = KnightChessBoard("8/8/8/8/8/4n3/8/3N3N w - - 0 1")
    move = chess.Move.from_uci("d1e3")
    assert board.san(move) == "Nxe3"
    assert board.san_and_push(move) == "Nxe3" and board.is_variant_win() is False
    assert board.is_variant_loss()  # the side to move (Black) has lost
