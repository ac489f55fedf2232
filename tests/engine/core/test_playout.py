"""Playout kernels: seeded, policy-respecting, scored from White's point of view."""

from __future__ import annotations

import numpy as np

from engine.core.bits import new_rng
from engine.core.games import legal_moves
from engine.core.playout import CAPTURE_FIRST, UNIFORM, choose_move, playout, playouts
from engine.core.state import CHECKMATE, FLAG_CAPTURE, MAX_MOVES, NO_KNIGHTS, PLY_CAP
from engine.rules.convert import legal_move_array, move_to_uci, state_from_fen
from engine.rules.games import CHESS_GAME, KNIGHT_GAME, outcome


def _run(fen: str | None, game: str, seed: int, cap: int = 200, policy: int = UNIFORM):
    s = state_from_fen(fen, game)
    record = np.full(cap, -1, dtype=np.int32)
    hist = np.empty(cap + 1, dtype=np.uint64)
    code, res, plies = playout(
        s, new_rng(seed), cap, policy, np.empty(MAX_MOVES, np.int32), hist, record
    )
    return code, res, plies, [move_to_uci(int(m)) for m in record[:plies]]


def test_same_seed_gives_the_same_playout() -> None:
    assert _run(None, "chess", 42) == _run(None, "chess", 42)
    assert _run(None, "chess", 42) != _run(None, "chess", 43)


def test_recorded_playout_replays_legally_to_the_reported_result() -> None:
    for game, g in (("chess", CHESS_GAME), ("knight", KNIGHT_GAME)):
        for seed in range(20):
            code, res, _plies, moves = _run(None, game, seed, policy=CAPTURE_FIRST)
            board = g.board()
            for uci in moves:
                board.push_uci(uci)  # raises if the core played an illegal move
            if code != PLY_CAP or game == "knight":
                text, _ = outcome(board)
                assert text == {1: "1-0", 0: "1/2-1/2", -1: "0-1"}[res]


def test_mate_in_the_start_position_is_scored_for_white() -> None:
    # Black to move is already checkmated: the playout ends at once, White has won.
    code, res, plies, _ = _run(
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "chess", 1
    )
    assert (code, res, plies) == (CHECKMATE, -1, 0)


def test_ply_cap_stops_the_playout_and_knight_chess_scores_by_count() -> None:
    fen = "8/8/8/3n4/8/8/1N6/N7 w - - 0 1"  # White has two knights, Black one
    code, res, plies, _ = _run(fen, "knight", 3, cap=1, policy=UNIFORM)
    assert code == PLY_CAP and plies == 1
    assert res == 1


def test_capture_first_only_captures_when_a_capture_exists() -> None:
    s = state_from_fen("8/8/8/3n4/8/4N3/8/N7 w - - 0 1", "knight")  # Ne3xd5 is the only capture
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    n = legal_moves(s, moves)
    rng = new_rng(5)
    picks = {move_to_uci(int(choose_move(moves, n, CAPTURE_FIRST, rng))) for _ in range(50)}
    assert picks == {"e3d5"}
    uniform = {move_to_uci(int(choose_move(moves, n, UNIFORM, rng))) for _ in range(400)}
    assert uniform == {move_to_uci(int(m)) for m in legal_move_array(s)}
    assert all(not (int(m) & FLAG_CAPTURE) or move_to_uci(int(m)) == "e3d5" for m in moves[:n])


def test_capture_first_knight_playouts_end_by_extinction_or_ply_limit() -> None:
    s = state_from_fen(None, "knight")
    white, draws, black, plies = playouts(s, 200, new_rng(9), 200, CAPTURE_FIRST)
    assert white + draws + black == 200
    assert 0 < plies <= 200 * 200
    code, _, _, _ = _run("8/8/8/3n4/8/4N3/8/8 w - - 0 1", "knight", 1, policy=CAPTURE_FIRST)
    assert code == NO_KNIGHTS  # White takes the last black knight
