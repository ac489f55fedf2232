"""Moves named as people read them: the SAN of UCI moves from a position, and of a search
tree's nodes.

Naming is the rules' business (python-chess knows SAN), so it sits below both the search,
whose snapshots name the top of the tree, and the explanations, which name every line they
show.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import chess

from engine.rules.convert import move_to_uci


def san_line(board: chess.Board, moves: Iterable[str]) -> tuple[chess.Board, list[str]]:
    """SAN of the UCI ``moves`` from ``board`` and the position they reach (a copy is
    advanced; it stops at the first move that does not parse or is not legal)."""
    b = board.copy(stack=False)
    out = []
    for uci in moves:
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            break
        if move not in b.legal_moves:
            break
        out.append(b.san(move))
        b.push(move)
    return b, out


class SanCache:
    """SAN of a search tree's nodes by id, computed once per node (ids are stable until
    re-rooting); ``board`` is the tree's root position."""

    def __init__(self, board: chess.Board) -> None:
        self.board = board
        self.by_node: dict[int, str] = {}

    def line(self, moves: Sequence[str], board: chess.Board | None = None) -> tuple[str, ...]:
        """SAN of a line of UCI moves from the root, or from ``board`` (stops at the first
        illegal one)."""
        return tuple(san_line(board or self.board, moves)[1])

    def node(self, tree: Any, node: int) -> str:
        """SAN of the move into ``node`` (replaying its path from the root; "" for the
        root, which no move reaches)."""
        cached = self.by_node.get(node)
        if cached is not None:
            return cached
        path = [move_to_uci(int(tree.move[n])) for n in tree.path(node)]
        if not path:
            return ""
        sans = self.line(path)
        san = sans[-1] if len(sans) == len(path) else path[-1]
        self.by_node[node] = san
        return san
