"""Analysing a game played elsewhere: every position searched, every move marked by what it lost.

A game of ``n`` plies has ``n + 1`` positions: the start (index 0) and the
one after each ply. :class:`Analyser` searches them one at a time at a fixed
budget with one :class:`~engine.search.controller.SearchController` (the
subtree of the move played is kept for the next position, as in a game); a
position where the game is over (Canopy's rules: an engine claims every
draw it may) is not searched. The caller decides when each position is
analysed (the web app fits them between live games' searches) and keeps the
results: the search of position ``i`` goes with ply ``i + 1``, the move made
there, as a search runs in the position of a player's move in a game.

A position's *value* is White's expected score in it: the Q of its search's
best move (from the side to move's point of view, turned to White's), or the
result where the game is over. A ply's *loss* is, for the side that moved,
its expected score with the engine's best move less its expected score after
the move played, never below 0, and 0 when the move played *is* the best:

1. First, as the two neighbouring searches say: the best move's Q in the
   search before the move, against the value of the position after it.
2. Those two searches are made from opposite sides, and a root's best Q
   leans towards the side to move (it is the best of several noisy
   averages); in a sharp position the opponent's search may also fancy a
   reply that does not work. So in a lopsided or sharp position the first
   figure can show a loss on every move of both sides. When it reaches a
   mark, the move is *checked* (:class:`Check`): each of the two moves, the
   best and the one played, is followed by the reply the opponent's search
   of the position after it prefers, and both positions reached, the mover
   to move in each, are searched with the same budget; the loss is the
   difference of their values. What leans one way leans both ways and
   cancels, and a reply that does not work is found out by the search from
   the other side.

The loss marks the move (:data:`THRESHOLDS`): an inaccuracy from 0.07, a
mistake from 0.14, a blunder from 0.25 of an expected score (a result counted
1, ½, 0). On this scale a pawn is worth about 0.12 to 0.15 and a knight about
0.3 near equality (``mcts`` at 1 s: a knight up scores 0.84, a pawn up 0.65).
lichess marks by the same kind of measure at 0.05, 0.10 and 0.15 (its "winning
chances" are twice an expected score less one); a one-second MCTS search is
noisier than Stockfish, hence the higher steps (measurements: docs/analysis.md).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import chess

from engine.explain.summary import SearchSummary, summarize
from engine.play.game import EngineSettings, GameSession, color_name
from engine.play.pgnread import PgnGame
from engine.play.review import review_ply
from engine.rules.games import Game, get_game, outcome
from engine.search.registry import DEFAULT_ALGORITHM

if TYPE_CHECKING:  # the numba core loads on the first search, not at import
    from engine.search.controller import SearchController

#: Expected-score loss (for the side that moved) from which a move gets each mark,
#: worst first; the glyph is how a move list writes it.
THRESHOLDS: tuple[tuple[str, float], ...] = (
    ("blunder", 0.25),
    ("mistake", 0.14),
    ("inaccuracy", 0.07),
)
GLYPHS: dict[str, str] = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}
MARKS: tuple[str, ...] = tuple(name for name, _ in reversed(THRESHOLDS))
#: The smallest loss that marks a move: from here on a ply's loss is checked (module doc).
FIRST_MARK = min(at for _, at in THRESHOLDS)
#: Iterations every search makes, whatever its think time: a think time of a few
#: milliseconds, or a machine too busy to give it one, would leave a position unscored.
MIN_ITERATIONS = 64


def mark_for(loss: float | None) -> str | None:
    """The mark of a move that lost ``loss`` of an expected score (None: no mark)."""
    if loss is None:
        return None
    return next((name for name, at in THRESHOLDS if loss >= at - 1e-9), None)


@dataclass(frozen=True)
class AnalysisSettings:
    """How each position is searched: one algorithm, its parameters, one budget."""

    algorithm: str = DEFAULT_ALGORITHM
    params: Mapping[str, Any] = field(default_factory=dict)
    movetime_ms: int | None = 1000
    iterations: int | None = None  # instead of ``movetime_ms``: a repeatable budget (tests)
    seed: int = 0

    def limits(self) -> dict[str, int]:
        if self.iterations is not None:
            return {"iterations": self.iterations}
        return {"movetime_ms": int(self.movetime_ms or 1000)}


@dataclass(frozen=True)
class Check:
    """The check of a ply that looked like a mark (module doc): each line, the best move or
    the move played followed by the opponent's preferred reply, and White's expected score
    where it ends (None: not known). A reply is None where the game ended before it."""

    best: str
    best_reply: str | None
    best_value: float | None
    played_reply: str | None
    played_value: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "best": self.best,
            "best_reply": self.best_reply,
            "best_value": self.best_value,
            "played_reply": self.played_reply,
            "played_value": self.played_value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Check:
        return cls(
            best=str(data["best"]),
            best_reply=data.get("best_reply"),
            best_value=data.get("best_value"),
            played_reply=data.get("played_reply"),
            played_value=data.get("played_value"),
        )


@dataclass(frozen=True)
class PositionResult:
    """What analysing position ``index`` found: its search, and the check of the ply that
    led there (when that ply looked like a mark)."""

    index: int
    search: SearchSummary | None  # None: the game is over in this position
    check: Check | None = None


class Analyser:
    """Analyses the positions of one game, one call at a time (blocking; thread-safe stop)."""

    def __init__(
        self,
        game: str | Game,
        start_fen: str,
        moves: Sequence[str],
        settings: AnalysisSettings,
        *,
        node_budget: int = 2_000_000,
        nice: int = 0,
    ) -> None:
        self.game = get_game(game) if isinstance(game, str) else game
        self.start_fen = start_fen
        self.moves = list(moves)
        self.settings = settings
        self.node_budget = node_budget
        self.nice = nice
        self._controller: SearchController | None = None
        self._at: tuple[str, ...] | None = None  # the moves to the controller's root
        self._closed = False

    @property
    def positions(self) -> int:
        """Positions of the game: the start and the one after each ply."""
        return len(self.moves) + 1

    def analyse(self, index: int, previous: SearchSummary | None) -> PositionResult:
        """Search position ``index``; ``previous`` is the search of position ``index - 1``
        (None at the start, or where the game was over), to check the ply between them."""
        if not 0 <= index < self.positions:
            raise IndexError(f"position {index} is outside 0..{self.positions - 1}")
        moves = tuple(self.moves[:index])
        played = self.moves[index] if index < len(self.moves) else None
        search = self._search(moves, played)
        value = _value(search, self._board(moves))
        check = None
        if index > 0 and previous is not None and previous.bestmove is not None:
            mover = _mover(self._white_first, index - 1)
            ply = self.moves[index - 1]
            loss = _loss(_value(previous, None), value, mover)
            if previous.bestmove != ply and loss is not None and loss >= FIRST_MARK - 1e-9:
                played_reply, played_value = self._line(moves, search)
                instead = (*moves[:-1], previous.bestmove)
                best_reply, best_value = self._line(instead, self._search(instead, None))
                check = Check(previous.bestmove, best_reply, best_value, played_reply, played_value)
        return PositionResult(index, search, check)

    def _line(
        self, moves: tuple[str, ...], search: SearchSummary | None
    ) -> tuple[str | None, float | None]:
        """The reply ``search`` (of the position after ``moves``) prefers, and White's
        expected score once it is played (a search of that position, or the result)."""
        if search is None or search.bestmove is None:
            return None, _value(search, self._board(moves))
        after = (*moves, search.bestmove)
        return search.bestmove, _value(self._search(after, None), self._board(after))

    @property
    def _white_first(self) -> bool:
        return self.start_fen.split(" ")[1] == "w"

    def _board(self, moves: Sequence[str]) -> chess.Board:
        board = self.game.board(self.start_fen)
        for uci in moves:
            board.push(chess.Move.from_uci(uci))
        return board

    def _search(self, moves: tuple[str, ...], played: str | None) -> SearchSummary | None:
        if outcome(self._board(moves))[0] is not None:
            return None
        controller = self._controller_for(moves)
        info = controller.search(**self.settings.limits())
        short = MIN_ITERATIONS - info.iterations
        if short > 0 and info.stop_reason == "time" and not self._closed:
            info = controller.search(iterations=short)  # the same tree, a few more iterations
        return summarize(info, played=played)

    def stop(self) -> None:
        """Stop the search running in another thread (it returns what it has) and any later."""
        self._closed = True
        if self._controller is not None:
            self._controller.close()

    def _controller_for(self, moves: tuple[str, ...]) -> SearchController:
        from engine.search.controller import SearchController

        if self._closed:
            raise RuntimeError("the analyser was stopped")
        ctl = self._controller
        if ctl is None:
            s = self.settings
            ctl = SearchController(
                game=self.game.name,
                fen=self.start_fen,
                moves=moves,
                algorithm=s.algorithm,
                params=dict(s.params),
                seed=s.seed,
                node_budget=self.node_budget,
                tree_size=0,
                info_interval=3600.0,  # nobody watches: only the final snapshot is built
                nice=self.nice,
            )
            self._controller = ctl
        elif self._at is not None and moves[:-1] == self._at and moves:
            ctl.play(moves[-1])  # keeps the subtree of the move played
        elif moves != self._at:
            ctl.set_position(self.start_fen, moves)
        self._at = moves
        return ctl


def analyse(
    game: str | Game,
    start_fen: str,
    moves: Sequence[str],
    settings: AnalysisSettings,
    *,
    first: int = 0,
    previous: SearchSummary | None = None,
    node_budget: int = 2_000_000,
) -> Iterator[PositionResult]:
    """Each position from ``first`` on, analysed (a generator: the caller may stop early)."""
    analyser = Analyser(game, start_fen, moves, settings, node_budget=node_budget)
    try:
        for index in range(first, analyser.positions):
            result = analyser.analyse(index, previous)
            previous = result.search
            yield result
    finally:
        analyser.stop()


# ---------------------------------------------------------------- reading the results


def _value(search: SearchSummary | None, board: chess.Board | None) -> float | None:
    """White's expected score in a position: its search's best Q, or the result there."""
    if search is not None and search.bestmove is not None:
        return search.white_score(search.bestmove)
    if board is not None:
        return {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(outcome(board)[0] or "")
    return None


def _mover(white_first: bool, ply_index: int) -> str:
    """The side that makes ply ``ply_index`` (0: the first ply of the game)."""
    return "white" if (ply_index % 2 == 0) == white_first else "black"


def _loss(before: float | None, after: float | None, mover: str) -> float | None:
    """Expected score the mover lost (White's values in, the mover's loss out)."""
    if before is None or after is None:
        return None
    drop = before - after if mover == "white" else after - before
    return round(max(0.0, drop), 4)


def position_values(
    session: GameSession, final: SearchSummary | None, done: int
) -> list[float | None]:
    """White's expected score in each position, None where not known (yet).

    ``done`` positions (from the start) have been analysed, so a position among
    them without a search is one where the game was over: its result counts.
    """
    history = session.history
    searches = [m.search for m in history] + [final]
    values: list[float | None] = []
    board = session.game.board(session.start_fen)
    for index, search in enumerate(searches):
        values.append(_value(search, board if index < done else None))
        if index < len(history):
            board.push(chess.Move.from_uci(history[index].uci))
    return values


def analysis_plies(
    session: GameSession,
    final: SearchSummary | None,
    done: int,
    checks: Mapping[int, Check] | None = None,
) -> list[dict[str, Any]]:
    """Every ply in the shape of a game review (``engine.play.review``), each with ``eval``
    (White's expected score after it), ``loss``, ``mark`` (None or one of :data:`MARKS`),
    ``best`` (the search's best move, UCI) and ``best_san``. ``checks`` are the
    :class:`Check` of the plies that have one, by ply (1: the first)."""
    checks = checks or {}
    values = position_values(session, final, done)
    out: list[dict[str, Any]] = []
    for index, m in enumerate(session.history):
        search = m.search
        best = search.bestmove if search is not None else None
        row = search.move(best) if search is not None and best is not None else None
        after = values[index + 1]
        check = checks.get(index + 1)
        if best is not None and best == m.uci and after is not None:
            loss: float | None = 0.0
        elif check is not None and check.best == best:
            loss = _loss(check.best_value, check.played_value, m.color)
        else:
            loss = _loss(values[index], after, m.color)
        out.append(
            {
                **review_ply(index + 1, m, after),
                "loss": loss,
                "mark": mark_for(loss),
                "best": best,
                "best_san": row.san if row is not None else None,
            }
        )
    return out


def side_summary(plies: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per side: how many moves got each mark, and the average loss over its scored moves."""
    out: dict[str, dict[str, Any]] = {}
    for side in ("white", "black"):
        mine = [p for p in plies if p["color"] == side]
        losses = [float(p["loss"]) for p in mine if p.get("loss") is not None]
        out[side] = {
            **{name: sum(1 for p in mine if p.get("mark") == name) for name in MARKS},
            "moves": len(mine),
            "scored": len(losses),
            "average_loss": round(sum(losses) / len(losses), 4) if losses else None,
        }
    return out


# ---------------------------------------------------------------- the game as a session


def game_session(read: PgnGame, engine: EngineSettings) -> GameSession:
    """The game read from a PGN as a session of two players (``human="both"``), its moves
    all kept, even after a draw the players could have claimed and did not."""
    board = read.game.board(read.start_fen)
    history = []
    for uci, san in zip(read.moves, read.sans, strict=True):
        color = color_name(board.turn)
        board.push(chess.Move.from_uci(uci))
        history.append(
            {
                "uci": uci,
                "san": san,
                "color": color,
                "by": "human",
                "fen": board.fen(),
                "check": board.is_check(),
            }
        )
    return GameSession.from_dict(
        {
            "game": read.game.name,
            "start_fen": read.start_fen,
            "human": "both",
            "engine": engine.to_dict(),
            "created": _dt.datetime.now(_dt.UTC).isoformat(),
            "history": history,
        }
    )
