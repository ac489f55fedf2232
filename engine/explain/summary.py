"""What a search thought, kept: a small, JSON-ready record built from its final snapshot.

A live :class:`~engine.search.info.SearchInfo` is large (the tree, every root
move, per-thread tables) and dies with the position. When the engine plays a
move, the game keeps a :class:`SearchSummary` with it instead, so that the
move can be reviewed later ("why did it play …Nc6?"): the settings, the
effort, and the top root moves (:class:`~engine.search.info.MoveStats`, rounded,
their lines cut short) with their statistics, lines and proofs. The
web app stores it with the move (:meth:`SearchSummary.to_dict`) and sends it in
``GET /api/games/{id}/review``;
the CLI or a UCI front end can build the same record from the same snapshot.

Points of view are those of :class:`~engine.search.info.MoveStats`: each
move's ``q`` (expected score in [0, 1]), ``eval`` and ``proof`` are for the
side to move at the root, i.e. the side that was choosing (``turn``).

Tree reuse: after a move the engine keeps the subtree of the move played, so
the root's children start the next search with visits they earned before it.
``iterations`` counts only this search's own iterations and ``reused`` the
root visits it inherited, so the visits in the table add up to at most
``iterations + reused`` (exactly ``iterations`` for a fresh tree).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import chess

from engine.explain.words import rounded
from engine.rules.games import get_game
from engine.search.info import MoveStats, SearchInfo

#: Root moves kept per search (the most visited / best ranked first).
TOP_MOVES = 12
#: Plies of each move's principal variation kept.
PV_PLIES = 8


@dataclass(frozen=True)
class SearchSummary:
    """A finished (or stopped) search of one position, small enough to keep with a move."""

    algorithm: str
    params: Mapping[str, Any]
    threads: int
    iterations: int  # this search's own iterations (alphabeta: nodes searched)
    reused: int  # root visits inherited from the previous search's subtree (tree reuse)
    ms: float  # wall time of the search in milliseconds
    nodes: int  # tree size (alphabeta: nodes searched)
    depth: int
    fen: str  # the root position (before the move it chose)
    turn: str  # "white" or "black": the side choosing
    bestmove: str | None
    stop_reason: str | None
    moves: tuple[MoveStats, ...]

    def move(self, uci: str) -> MoveStats | None:
        """The row of ``uci``, if the search kept one."""
        return next((m for m in self.moves if m.move == uci), None)

    def white_score(self, uci: str) -> float | None:
        """White's expected score after ``uci`` by this search (None: no visited row for it)."""
        row = self.move(uci)
        if row is None or not math.isfinite(row.q) or (row.visits == 0 and not row.proof):
            return None
        return row.q if self.turn == "white" else round(1.0 - row.q, 4)

    def to_dict(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "params": dict(self.params),
            "threads": self.threads,
            "iterations": self.iterations,
            "reused": self.reused,
            "ms": self.ms,
            "nodes": self.nodes,
            "depth": self.depth,
            "fen": self.fen,
            "turn": self.turn,
            "bestmove": self.bestmove,
            "stop_reason": self.stop_reason,
            "moves": [m.to_dict() for m in self.moves],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchSummary:
        return cls(
            algorithm=str(data["algorithm"]),
            params=dict(data.get("params") or {}),
            threads=int(data.get("threads", 1)),
            iterations=int(data.get("iterations", 0)),
            reused=int(data.get("reused", 0)),
            ms=float(data.get("ms", 0.0)),
            nodes=int(data.get("nodes", 0)),
            depth=int(data.get("depth", 0)),
            fen=str(data.get("fen", "")),
            turn=str(data.get("turn", "white")),
            bestmove=data.get("bestmove"),
            stop_reason=data.get("stop_reason"),
            moves=tuple(MoveStats.from_dict(m) for m in data.get("moves") or ()),
        )


def summarize(
    info: SearchInfo,
    *,
    played: str | None = None,
    top: int = TOP_MOVES,
    pv_plies: int = PV_PLIES,
) -> SearchSummary:
    """The summary of ``info`` (a final snapshot): its ``top`` root moves, each PV cut to
    ``pv_plies``. ``played`` (UCI), when given and not among them, is kept as well, so a
    review can always show the row of the move that was made."""
    kept = list(info.moves[:top])
    if played is not None and all(m.move != played for m in kept):
        extra = next((m for m in info.moves if m.move == played), None)
        if extra is not None:
            kept.append(extra)
    root = get_game(info.game).board(info.fen)
    return SearchSummary(
        algorithm=info.algorithm,
        params=dict(info.params),
        threads=int(info.threads),
        iterations=int(info.iterations),
        reused=int(info.extra.get("reused_visits", 0) or 0),
        ms=round(float(info.elapsed_ms), 1),
        nodes=int(info.nodes),
        depth=int(info.depth),
        fen=info.fen,
        turn=info.turn,
        bestmove=info.bestmove,
        stop_reason=info.stop_reason,
        moves=tuple(_move(m, root, pv_plies) for m in kept),
    )


def _move(m: MoveStats, root: chess.Board, plies: int) -> MoveStats:
    """``m`` as a game keeps it: numbers rounded as shown, the line cut to ``plies`` and
    its end position, the selection score and the prior left out."""
    pv = tuple(m.pv[:plies])
    return MoveStats(
        move=m.move,
        san=m.san,
        visits=int(m.visits),
        share=_kept(m.share),
        q=_kept(m.q),
        score=math.nan,
        eval=_kept(m.eval),
        pv=pv,
        pv_san=tuple(m.pv_san[:plies]),
        proof=int(m.proof),
        mate=None if m.mate is None else int(m.mate),
        pv_fen=_line_end(root, pv),
    )


def _kept(x: float) -> float:
    """A number as a kept move holds it: rounded as shown, NaN when not finite."""
    value = rounded(x)
    return math.nan if value is None else value


def _line_end(root: chess.Board, pv: tuple[str, ...]) -> str | None:
    """The FEN after playing ``pv`` from ``root`` (None if a move does not parse or fit)."""
    if not pv:
        return None
    board = root.copy(stack=False)
    try:
        for uci in pv:
            move = chess.Move.from_uci(uci)
            if not board.is_legal(move):
                return None
            board.push(move)
    except ValueError:
        return None
    return board.fen()
