"""Plain python-chess implementations of the work the numba core does, for benchmarks.

They follow the same rules and parameters as the fast path (same termination
conditions, same UCT formula, same playout policy), so ``canopy bench`` can
report honest ratios measured in the same run.
"""

from __future__ import annotations

import math
import random

import chess

from engine.rules.knight import KnightChessBoard


def perft(board: chess.Board, depth: int) -> int:
    """Perft with python-chess, leaves counted at the last ply like ours."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


#: Material in centipawns by python-chess piece type (pawn … king), for :func:`evaluate`.
MATERIAL = (0, 100, 320, 330, 500, 950, 0)


def evaluate(board: chess.Board) -> float:
    """A static evaluation in python-chess for the benchmark: material, a centralisation
    bonus per piece and mobility (the legal moves of the side to move), for the side to
    move — a fraction of what the hand evaluation counts, and already far slower."""
    score = 0.0
    for square, piece in board.piece_map().items():
        f, r = chess.square_file(square), chess.square_rank(square)
        centre = 3.5 - max(abs(f - 3.5), abs(r - 3.5))
        value = MATERIAL[piece.piece_type] + 4.0 * centre
        score += value if piece.color == chess.WHITE else -value
    score += 2.0 * board.legal_moves.count() * (1 if board.turn == chess.WHITE else -1)
    return score if board.turn == chess.WHITE else -score


def playout(board: chess.Board, rng: random.Random, ply_cap: int, capture_first: bool) -> int:
    """Random playout in place; +1 / 0 / -1 for White, ending on the numba core's rules."""
    knight = isinstance(board, KnightChessBoard)
    for _ in range(ply_cap):
        moves = list(board.legal_moves)  # empty once a knight-chess game has ended
        if not moves:
            break
        if not knight and (board.is_insufficient_material() or board.halfmove_clock >= 100):
            return 0
        if capture_first:
            captures = [m for m in moves if board.is_capture(m)]
            moves = captures or moves
        board.push(rng.choice(moves))
    if knight:
        white = chess.popcount(board.occupied_co[chess.WHITE])
        black = chess.popcount(board.occupied_co[chess.BLACK])
        return (white > black) - (white < black)
    if board.is_checkmate():
        return -1 if board.turn == chess.WHITE else 1
    return 0


class _Node:
    __slots__ = ("children", "move", "parent", "untried", "value", "visits")

    def __init__(self, parent: _Node | None, move: chess.Move | None, board: chess.Board) -> None:
        self.parent = parent
        self.move = move
        self.children: list[_Node] = []
        self.untried = list(board.legal_moves)
        self.visits = 0
        self.value = 0.0  # rewards for the side that moved into this node


class PyChessUCT:
    """UCT on python-chess with one object per node: the baseline for ``uct``."""

    def __init__(self, board: chess.Board, c: float, ply_cap: int, capture_first: bool, seed: int):
        self.board = board.copy()
        self.root = _Node(None, None, self.board)
        self.c = c
        self.ply_cap = ply_cap
        self.capture_first = capture_first
        self.rng = random.Random(seed)

    def iterate(self) -> None:
        board = self.board.copy(stack=False)
        node = self.root
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            node = max(
                node.children,
                key=lambda k: k.value / k.visits + self.c * math.sqrt(2 * log_n / k.visits),
            )
            board.push(node.move)  # type: ignore[arg-type]
        if node.untried:
            move = node.untried.pop(self.rng.randrange(len(node.untried)))
            board.push(move)
            child = _Node(node, move, board)
            node.children.append(child)
            node = child
        mover_white = board.turn == chess.BLACK
        white = playout(board, self.rng, self.ply_cap, self.capture_first)
        reward = 0.5 * (1 + (white if mover_white else -white))
        while node is not None:
            node.visits += 1
            node.value += reward
            reward = 1.0 - reward
            node = node.parent  # type: ignore[assignment]
