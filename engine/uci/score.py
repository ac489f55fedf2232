"""Turning a search's numbers into UCI ``score``, ``wdl``, ``depth`` and ``nodes`` fields.

Every number here is from the point of view of the side to move at the root,
which is what UCI asks for.

* Algorithms whose ``value_kind`` is ``"q"`` (``uct``, ``uct-minimax``) rank moves
  by averaged rewards, so their score is the best move's **Q** (an expected score
  in [0, 1]) read through the same logistic the evaluation uses:
  ``cp = 400·log10(Q / (1 − Q))``. A Q of 0.64 is +100 cp, 0.91 is +400 cp.
* Those whose ``value_kind`` is ``"eval"`` (``bfms``, ``alphabeta``) rank moves by a
  backed-up evaluation in [-1, 1]; their score is that value unsquashed
  (:func:`engine.eval.evaluate.unsquash`), which is the same formula with
  ``Q = (1 + eval) / 2``.
* A proven result — a mate score (``|eval| > 1``, ``WIN − 10·ply``) or a move the
  search proved (``MoveStats.proof``) with a known distance (``MoveStats.mate``) —
  is ``score mate N`` with N in moves, negative when the side to move is the one
  being mated. A proof without a distance reads as the largest cp score.
* ``wdl`` is a model, not a count: the searches keep expected scores, not
  separate draw rates. With ``Q`` the expected score we report
  ``W = Q², D = 2Q(1 − Q), L = (1 − Q)²`` (per mille) — the only split that is
  symmetric, keeps ``W + D/2 = Q`` and gives the most draws at Q = ½.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.eval.evaluate import is_mate_score, mate_plies, unsquash
from engine.search.algorithm import PROVEN_LOSS, PROVEN_WIN
from engine.search.info import MoveStats, SearchInfo
from engine.search.registry import get_algorithm

CP_LIMIT = 3000  # the largest |cp| we announce; anything beyond is "winning"
Q_EPSILON = 1e-4


@dataclass(frozen=True)
class Score:
    """A UCI score: ``cp`` or ``mate`` (exactly one is set) plus the expected score."""

    cp: int | None
    mate: int | None
    expected: float  # in [0, 1] for the side to move
    bound: str = "exact"  # "exact", "upper" or "lower"

    def uci(self) -> str:
        """The text after ``score`` in an ``info`` line."""
        text = f"mate {self.mate}" if self.mate is not None else f"cp {self.cp}"
        if self.bound == "upper":
            text += " upperbound"
        elif self.bound == "lower":
            text += " lowerbound"
        return text

    def wdl(self) -> tuple[int, int, int]:
        return wdl_from_expected(self.expected)


def q_to_cp(q: float) -> int:
    """Expected score → centipawns through the evaluation's logistic (clamped)."""
    q = min(1.0 - Q_EPSILON, max(Q_EPSILON, q))
    cp = 400.0 * math.log10(q / (1.0 - q))
    return round(max(-CP_LIMIT, min(CP_LIMIT, cp)))


def mate_moves(value: float) -> int:
    """A mate score as UCI's ``mate N``: moves (not plies), negative when being mated."""
    return plies_to_moves(mate_plies(value), value > 0)


def wdl_from_expected(q: float) -> tuple[int, int, int]:
    """Per-mille win/draw/loss with W = Q², D = 2Q(1−Q), L = (1−Q)²; sums to 1000."""
    q = min(1.0, max(0.0, q))
    win = round(1000 * q * q)
    loss = round(1000 * (1.0 - q) * (1.0 - q))
    return win, 1000 - win - loss, loss


def plies_to_moves(plies: int, win: bool) -> int:
    """Plies to the end of a proven game as UCI's ``mate N``: moves, negative when lost."""
    moves = (plies + 1) // 2
    return moves if win else -moves


def move_score(algorithm: str, move: MoveStats) -> Score:
    """The UCI score of one root move of ``algorithm``'s search (see the module
    docstring for the rules; its ``value_kind`` says how to read the move's value)."""
    if is_mate_score(move.eval):
        return Score(None, mate_moves(move.eval), 1.0 if move.eval > 0 else 0.0, move.bound)
    if move.proof in (PROVEN_WIN, PROVEN_LOSS):
        win = move.proof == PROVEN_WIN
        if move.mate is not None:
            return Score(None, plies_to_moves(move.mate, win), 1.0 if win else 0.0, move.bound)
        return Score(CP_LIMIT if win else -CP_LIMIT, None, 1.0 if win else 0.0, move.bound)
    if get_algorithm(algorithm).value_kind == "q":
        return Score(q_to_cp(move.q), None, move.q, move.bound)
    value = max(-1.0, min(1.0, move.eval))
    expected = 0.5 * (1.0 + value)
    return Score(round(unsquash(value)), None, expected, move.bound)


def uci_depth(info: SearchInfo) -> int:
    """UCI ``depth``: the last completed depth of a search that deepens step by step
    (``alphabeta``), else the tree's mean node depth, rounded (at least 1)."""
    if get_algorithm(info.algorithm).stepping == "depth":
        return max(1, info.depth)
    return max(1, round(info.mean_depth))


def uci_nodes(info: SearchInfo) -> int:
    """UCI ``nodes``: the positions an iterative-deepening search visited, or a tree
    search's iterations (each one a walk from the root)."""
    if get_algorithm(info.algorithm).stepping == "depth":
        return info.nodes
    return info.iterations
