"""NNUE: an efficiently updatable network over the pieces on their squares (chess).

The inputs are the 768 (colour, piece type, square) facts of a position, seen from one
side: its own pieces first, squares mirrored top to bottom for Black, so one set of
weights serves both colours. A position has two **accumulators**, one per side::

    a_c = ft_bias + Σ_{inputs i on, seen from c} ft_weight[i]        (H integers)
    p_c = Σ_{inputs i on, seen from c} psqt[i]                        (a piece-square sum)

and the logit for the side to move ``us`` (against ``them``) is::

    z = out_weight · (clip(a_us) ‖ clip(a_them)) / qa + out_bias + (p_us − p_them) / (2 qp)

with ``clip`` to [0, qa] (a clipped ReLU), and the evaluation ``2 · sigmoid(z) − 1`` in
[-1, 1], the hand evaluation's scale (:func:`engine.eval.evaluate.squash`).

A move changes two to four inputs, so an accumulator is **updated**, not recomputed: the
difference between two positions' bitboards names the inputs that went off and on, and
each costs one H-wide add or subtract (:func:`update_with`). The searches keep an accumulator
per ply of their line (:func:`accumulate`): a position's is made from the nearest
ancestor on the line that has one — unmaking a move costs nothing, the parent's row is
still there — or, for the first position of a new search, from whatever position the
row held last (in ``mcts`` the previous leaf, a few moves away), whichever touches fewer
inputs than a fresh sum. The integers make the updated accumulator equal to the fresh
one exactly (a test checks it on random games), and the output layer's integer weights
make the evaluation the same bit for bit whichever kernel computes it.

The weights (:mod:`engine.eval.nnue_weights`) are loaded at import and baked into the
kernels as constants; the ``*_with`` kernels take them as arguments for training, tests
and the Learning page.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import popcount
from engine.core.state import KING, TURN, WHITE_BB
from engine.eval.learned_knight import logit_to_eval
from engine.eval.nnue_weights import INPUTS, NNUEWeights, shipped

#: The output layer's scale in the kernels: its float32 weights are rounded to multiples of
#: 1/QO when loaded, so its sum is an exact integer one. The logits move by less than 1e-4
#: (3,144 positions of random games with the shipped network: 4e-5 on average).
QO = 1 << 16
#: Marks an accumulator row that holds no position (no position has a pawn on every square).
NO_BOARD = np.uint64(0xFFFFFFFFFFFFFFFF)
#: The bitboards an accumulator depends on: the six piece types and the two colours.
BOARDS = 8


def kernel_arrays(w: NNUEWeights) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int, int]:
    """``(ft, bias, out, out_bias, qa, qp)`` as the kernels take them: the feature
    transformer and the piece-square term as one int16 matrix (768, H + 1) — the last
    column is the piece-square term, summed in the accumulator's last slot — and the
    bias as int32 (H + 1); the output layer's weights as integers, × :data:`QO`."""
    h = w.hidden
    ft = np.zeros((INPUTS, h + 1), dtype=np.int16)
    ft[:, :h] = w.ft_weight
    ft[:, h] = w.psqt
    bias = np.zeros(h + 1, dtype=np.int32)
    bias[:h] = w.ft_bias
    out = np.rint(w.out_weight.astype(np.float64) * QO).astype(np.int64)
    return ft, bias, out, float(w.out_bias), w.qa, w.qp


_LOADED, WHY_UNAVAILABLE = shipped()
AVAILABLE = _LOADED is not None
if _LOADED is not None:
    FT, BIAS, OUT, OUT_BIAS, QA, QP = kernel_arrays(_LOADED)
else:  # zero-sized stand-ins of the right types, so every kernel compiles
    FT, BIAS = np.zeros((INPUTS, 1), dtype=np.int16), np.zeros(1, dtype=np.int32)
    OUT, OUT_BIAS, QA, QP = np.zeros(0, dtype=np.int64), 0.0, 255, 512
#: Width of an accumulator row (H hidden units and the piece-square sum).
WIDTH = FT.shape[1]


@njit(cache=True, nogil=True, inline="always")
def input_index(view: int, colour: int, piece: int, sq: int) -> int:
    """The input of a ``colour`` ``piece`` on ``sq`` as side ``view`` sees it."""
    own = 0 if colour == view else 6
    return (own + piece) * 64 + (sq if view == 0 else sq ^ 56)


@njit(cache=True, nogil=True)
def refresh_with(s: np.ndarray, acc: np.ndarray, ft: np.ndarray, bias: np.ndarray) -> None:
    """Both accumulators of ``s`` (``acc``: int32 (2, H + 1)) summed afresh."""
    width = bias.shape[0]
    for view in range(2):
        for j in range(width):
            acc[view, j] = bias[j]
    for piece in range(KING + 1):
        for colour in range(2):
            bb = s[piece] & s[WHITE_BB + colour]
            while bb:
                low = bb & (~bb + np.uint64(1))
                sq = popcount(low - np.uint64(1))
                bb ^= low
                for view in range(2):
                    row = ft[input_index(view, colour, piece, sq)]
                    for j in range(width):
                        acc[view, j] += row[j]


@njit(cache=True, nogil=True)
def changes(before: np.ndarray, s: np.ndarray) -> int:
    """How many inputs differ between the position whose bitboards are ``before`` and ``s``."""
    n = 0
    for piece in range(KING + 1):
        for colour in range(2):
            a = before[piece] & before[WHITE_BB + colour]
            b = s[piece] & s[WHITE_BB + colour]
            n += popcount(a ^ b)
    return n


@njit(cache=True, nogil=True)
def update_with(before: np.ndarray, s: np.ndarray, acc: np.ndarray, ft: np.ndarray) -> None:
    """``acc``, the accumulators of the position whose bitboards are ``before``, turned
    into those of ``s`` in place: each input that went off subtracted, each that came on
    added."""
    width = ft.shape[1]
    for piece in range(KING + 1):
        for colour in range(2):
            a = before[piece] & before[WHITE_BB + colour]
            b = s[piece] & s[WHITE_BB + colour]
            diff = a ^ b
            while diff:
                low = diff & (~diff + np.uint64(1))
                sq = popcount(low - np.uint64(1))
                diff ^= low
                sign = 1 if b & low else -1
                for view in range(2):
                    row = ft[input_index(view, colour, piece, sq)]
                    if sign > 0:
                        for j in range(width):
                            acc[view, j] += row[j]
                    else:
                        for j in range(width):
                            acc[view, j] -= row[j]


@njit(cache=True, nogil=True)
def logit_with(
    acc: np.ndarray, us: int, out: np.ndarray, out_bias: float, qa: int, qp: int
) -> float:
    """The network's logit for side ``us`` from both accumulators. The output layer's
    weights are integers (:data:`QO`, :func:`kernel_arrays`), so its sum is an integer
    sum: exact in any order, which lets the compiler vectorise the loop (the clip is a
    min and a max, no branch) and keeps the logit the same bit for bit in every kernel
    that inlines it. Summed in floats strictly in order it cost about three times as much;
    in floats in any order, two kernels could disagree in the last bits."""
    h = out.shape[0] // 2
    a = acc[us]
    b = acc[1 - us]
    total = 0
    for j in range(h):
        x = min(max(a[j], 0), qa)
        y = min(max(b[j], 0), qa)
        total += out[j] * x + out[h + j] * y
    return total / (qa * QO) + out_bias + (a[h] - b[h]) / (2.0 * qp)


@njit(cache=True, nogil=True)
def nnue_fresh(s: np.ndarray) -> float:
    """The evaluation in [-1, 1] of ``s`` for its side to move, summed afresh (the
    searches that keep no accumulators: playouts, tree expansions, one-off calls)."""
    acc = np.empty((2, FT.shape[1]), dtype=np.int32)
    refresh_with(s, acc, FT, BIAS)
    return logit_to_eval(logit_with(acc, int(s[TURN]), OUT, OUT_BIAS, QA, QP))


@njit(cache=True, nogil=True)
def _holds(boards: np.ndarray, s: np.ndarray) -> bool:
    """Whether an accumulator row recorded as ``boards`` holds the position ``s``."""
    for k in range(BOARDS):  # noqa: SIM110 (numba compiles no generator expression)
        if boards[k] != s[k]:
            return False
    return True


@njit(cache=True, nogil=True)
def accumulate(
    states: np.ndarray,
    ply: int,
    acc: np.ndarray,
    boards: np.ndarray,
    ft: np.ndarray,
    bias: np.ndarray,
) -> None:
    """Make ``acc[ply]`` hold the accumulators of ``states[ply]``, the search's line.

    ``boards[r]`` records which position row ``r`` holds (:data:`NO_BOARD`: none). The
    row is made from the nearest row above it on the line that holds its own position,
    one move at a time; with none, from the row's previous position or afresh, whichever
    costs fewer inputs (``ft``, ``bias``: the network's, as :func:`kernel_arrays` gives
    them)."""
    if _holds(boards[ply], states[ply]):
        return
    q = ply - 1
    while q >= 0 and not _holds(boards[q], states[q]):
        q -= 1
    if q < 0:
        if boards[ply, 0] == NO_BOARD or changes(boards[ply], states[ply]) > 32:
            refresh_with(states[ply], acc[ply], ft, bias)
        else:
            update_with(boards[ply], states[ply], acc[ply], ft)
        boards[ply, :] = states[ply, :BOARDS]
        return
    for r in range(q + 1, ply + 1):
        acc[r] = acc[r - 1]
        update_with(states[r - 1], states[r], acc[r], ft)
        boards[r, :] = states[r, :BOARDS]


@njit(cache=True, nogil=True)
def nnue_at(states: np.ndarray, ply: int, acc: np.ndarray, boards: np.ndarray) -> float:
    """The evaluation in [-1, 1] of ``states[ply]`` for its side to move, its accumulators
    updated incrementally (:func:`accumulate`)."""
    accumulate(states, ply, acc, boards, FT, BIAS)
    return logit_to_eval(logit_with(acc[ply], int(states[ply, TURN]), OUT, OUT_BIAS, QA, QP))


def new_rows(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Accumulator rows for a search's line and their board records, holding nothing."""
    acc = np.zeros((rows, 2, WIDTH), dtype=np.int32)
    boards = np.full((rows, BOARDS), NO_BOARD, dtype=np.uint64)
    return acc, boards


@njit(cache=True, nogil=True)
def line_logits_with(
    line: np.ndarray,
    incremental: bool,
    ft: np.ndarray,
    bias: np.ndarray,
    out: np.ndarray,
    out_bias: float,
    qa: int,
    qp: int,
) -> float:
    """The sum of the logits of the positions of ``line`` (each a move after the one
    before), each accumulator updated from the previous position's or summed afresh: what
    ``canopy bench`` times, so the two costs are measured on the same positions."""
    acc = np.empty((2, ft.shape[1]), dtype=np.int32)
    total = 0.0
    for i in range(line.shape[0]):
        if incremental and i > 0:
            update_with(line[i - 1], line[i], acc, ft)
        else:
            refresh_with(line[i], acc, ft, bias)
        total += logit_with(acc, int(line[i, TURN]), out, out_bias, qa, qp)
    return total
