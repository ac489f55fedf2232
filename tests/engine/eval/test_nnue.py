"""The NNUE's arithmetic: incrementally updated accumulators equal fresh ones, exactly, on
random games walked like a search (down and back up its line), and the output layer."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.core.games import legal_moves, make_move, status
from engine.core.state import MAX_MOVES, ONGOING, STATE_SIZE, TURN
from engine.core.walk import random_line
from engine.eval.nnue import (
    QO,
    accumulate,
    changes,
    kernel_arrays,
    logit_with,
    refresh_with,
    update_with,
)
from engine.rules.convert import state_from_fen
from tests.networks import large_network

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# Castling both ways, en passant and promotions within a few random plies.
BUSY = "r3k2r/1P3ppp/8/3pP3/8/8/p4PPP/R3K2R w KQkq d6 0 1"


def fresh(s: np.ndarray, ft: np.ndarray, bias: np.ndarray) -> np.ndarray:
    acc = np.zeros((2, ft.shape[1]), dtype=np.int32)
    refresh_with(s, acc, ft, bias)
    return acc


def line_from(fen: str, plies: int, rng: np.random.Generator) -> list[np.ndarray]:
    return random_line(state_from_fen(fen, "chess"), plies, rng)


@pytest.mark.parametrize("fen", [START, BUSY])
def test_an_updated_accumulator_equals_a_fresh_one_along_random_games(fen: str) -> None:
    ft, bias, *_ = kernel_arrays(large_network())
    rng = np.random.default_rng(7)
    for _ in range(20):
        line = line_from(fen, 60, rng)
        acc = fresh(line[0], ft, bias)
        for before, after in itertools.pairwise(line):
            update_with(before, after, acc, ft)
            assert np.array_equal(acc, fresh(after, ft, bias))


def test_a_search_line_walked_down_and_back_up_keeps_every_row_exact() -> None:
    """The search's own use (:func:`accumulate`): rows made from the nearest row above that
    holds its position, rows left behind by a backtrack reused, a new root reached from
    whatever the row held before."""
    ft, bias, *_ = kernel_arrays(large_network(hidden=8))
    rng = np.random.default_rng(11)
    rows = 24
    states = np.zeros((rows, STATE_SIZE), dtype=np.uint64)
    acc = np.zeros((rows, 2, ft.shape[1]), dtype=np.int32)
    boards = np.full((rows, 8), np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    checked = 0
    for root in line_from(START, 40, rng)[::5]:
        states[0] = root
        ply = 0
        for _ in range(200):
            if ply + 1 < rows and rng.random() < 0.6:
                s = states[ply]
                n = legal_moves(s, moves)
                if status(s, n) == ONGOING:
                    states[ply + 1] = s
                    make_move(states[ply + 1], int(moves[rng.integers(n)]))
                    ply += 1
            elif ply > 0:
                ply -= int(rng.integers(1, ply + 1))
            if rng.random() < 0.5:  # the search evaluates some nodes, not all
                accumulate(states, ply, acc, boards, ft, bias)
                assert np.array_equal(acc[ply], fresh(states[ply], ft, bias))
                checked += 1
    assert checked > 300


def test_changes_counts_the_inputs_a_move_touches() -> None:
    s = state_from_fen(START, "chess")
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    n = legal_moves(s, moves)
    child = s.copy()
    make_move(child, int(moves[0]))
    assert changes(s, child) == 2  # a quiet move: one piece off a square, on another
    assert n == 20
    busy = state_from_fen(BUSY, "chess")
    capture = busy.copy()
    make_move(capture, _move(busy, "b7a8q"))  # a promotion that captures: pawn, rook, queen
    assert changes(busy, capture) == 3


def _move(s: np.ndarray, uci: str) -> int:
    from engine.rules.convert import uci_to_move

    return uci_to_move(s, uci)


def test_the_logit_is_the_side_to_moves_and_mirrors_between_colours() -> None:
    """A position and its colour-flipped mirror score the same for their side to move."""
    w = large_network()
    ft, bias, out, out_bias, qa, qp = kernel_arrays(w)
    white = state_from_fen("4k3/pp6/8/8/8/8/5PPP/R3K3 w - - 0 1", "chess")
    black = state_from_fen("r3k3/5ppp/8/8/8/8/PP6/4K3 b - - 0 1", "chess")
    zw = logit_with(fresh(white, ft, bias), int(white[TURN]), out, out_bias, qa, qp)
    zb = logit_with(fresh(black, ft, bias), int(black[TURN]), out, out_bias, qa, qp)
    assert zw == pytest.approx(zb, abs=1e-9)
    h = w.hidden
    a = fresh(white, ft, bias).astype(np.float64)
    x = np.concatenate([np.clip(a[0, :h], 0, qa), np.clip(a[1, :h], 0, qa)]) / qa
    psqt = (a[0, h] - a[1, h]) / (2 * qp)
    # The kernels' integer output weights, as the formula says ...
    assert zw == pytest.approx(x @ (out / QO) + out_bias + psqt, abs=1e-12)
    # ... and within their rounding (half of 1/QO each) of the file's float weights.
    assert abs(zw - (x @ w.out_weight.astype(np.float64) + out_bias + psqt)) <= x.sum() / (2 * QO)
