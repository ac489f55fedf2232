"""The random-ply walker: legal plies, the start untouched, a stop where the game ends,
and the same positions from the same seed."""

from __future__ import annotations

import itertools

import chess
import numpy as np

from engine.core.walk import random_line
from engine.rules.convert import state_from_fen, state_to_fen


def test_each_position_follows_the_last_by_a_legal_move_and_the_start_is_untouched() -> None:
    start = state_from_fen("startpos", "chess")
    kept = start.copy()
    line = random_line(start, 12, np.random.default_rng(0))
    assert np.array_equal(start, kept) and np.array_equal(line[0], start)
    assert len(line) == 13
    for before, after in itertools.pairwise(line):
        board = chess.Board(state_to_fen(before))
        successors = set()
        for move in board.legal_moves:
            board.push(move)
            successors.add(board.board_fen() + (" w" if board.turn else " b"))
            board.pop()
        assert " ".join(state_to_fen(after).split()[:2]) in successors


def test_the_line_stops_where_the_rules_end_the_game() -> None:
    mated = state_from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "chess")
    assert len(random_line(mated, 10, np.random.default_rng(0))) == 1
    mate_in_one = state_from_fen("7k/8/6K1/8/8/8/8/6Q1 w - - 0 1", "chess")
    lines = [random_line(mate_in_one, 40, np.random.default_rng(seed)) for seed in range(60)]
    ended = [line for line in lines if len(line) < 41]
    assert ended  # a random queen mates or is lost now and then
    for line in ended:
        assert chess.Board(state_to_fen(line[-1])).is_game_over()
        assert not chess.Board(state_to_fen(line[-2])).is_game_over()


def test_a_seed_names_the_same_positions() -> None:
    start = state_from_fen("startpos", "knight")
    a = random_line(start, 30, np.random.default_rng(7))
    b = random_line(start, 30, np.random.default_rng(7))
    c = random_line(start, 30, np.random.default_rng(8))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=False))
