"""One arena game, played in this process: two bots, an opening, a referee.

Each bot has its own :class:`~engine.search.controller.SearchController` (its own
tree, seed, algorithm and parameters). Every move is played on both controllers, so
each keeps the subtree of the position it will search next: its own tree reused
between its moves, as a game against the engine reuses it. With an iterations budget
the game is a pure function of its arguments (each search is seeded and runs on one
thread); with a think time it depends on the machine's speed, as any timed game does.

The referee is :func:`engine.rules.games.outcome` (mate, stalemate, the draws an
engine always claims, knight chess's own ends) plus the arena's move limit: a game
still going after ``max_plies`` plies (counted from the standard start, opening
included) is a draw.

Each move keeps its search in the shape a game keeps an engine move's search
(:func:`engine.explain.summary.summarize`), so the server stores it with the move and
``/api/games/{id}/review`` shows what each bot thought.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import chess

from engine.arena.rules import ArenaRules, Bot
from engine.errors import CanopyError
from engine.explain.summary import summarize
from engine.match.openings import default_openings_path, load_openings
from engine.rules.games import Game, get_game, outcome

if TYPE_CHECKING:  # the numba core loads on the first game, not at import
    from engine.search.controller import SearchController
    from engine.search.info import SearchInfo

#: How often a search waiting for its end looks at the ``stop`` event (seconds).
STOP_POLL = 0.05
MAX_PLIES_REASON = "max plies"


@dataclass(frozen=True)
class ArenaMove:
    uci: str
    san: str
    by: str  # "white" or "black": the side (and so the bot) that played it
    search: dict[str, Any]  # SearchSummary.to_dict() of the search that chose it


@dataclass(frozen=True)
class ArenaGame:
    moves: list[ArenaMove]  # the bots' moves, after the opening
    result: str  # "1-0", "0-1" or "1/2-1/2"
    reason: str  # the referee's words: "checkmate", "threefold repetition", "max plies", ...
    start_fen: str = ""  # where the opening starts (opening_moves)
    opening: tuple[str, ...] = ()  # the opening's moves (UCI) before ``moves``


@functools.cache
def _book(game: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The match openings of ``game`` as (start FEN, moves): from the standard start with
    the moves each line records (``c1 "moves ..."``) when they lead to its position, else
    from the position itself."""
    g = get_game(game)
    openings = load_openings(None, g.name)
    text = default_openings_path(g.name).read_text()
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    return tuple(
        _from_start(g, opening.fen, line) for opening, line in zip(openings, lines, strict=True)
    )


def _from_start(g: Game, fen: str, line: str) -> tuple[str, tuple[str, ...]]:
    _, ops = g.board_class.from_epd(line)
    recorded = ops.get("c1")
    words = recorded.split() if isinstance(recorded, str) else []
    if words[:1] != ["moves"]:
        return fen, ()
    board = g.board()
    try:
        for uci in words[1:]:
            board.push(board.parse_uci(uci))
    except ValueError:
        return fen, ()
    if board.epd() != g.board(fen).epd():
        return fen, ()
    return g.start_fen, tuple(words[1:])


def opening_count(game: str) -> int:
    """How many openings the book of ``game`` holds (``openings`` for the pairings)."""
    return len(_book(get_game(game).name))


def opening_moves(game: str, index: int) -> tuple[str, list[str]]:
    """The start FEN and the moves (UCI) of opening ``index`` (modulo the book's length)
    of the match openings of ``game``, the balanced book ``canopy match`` plays."""
    book = _book(get_game(game).name)
    fen, moves = book[index % len(book)]
    return fen, list(moves)


def play_game(
    rules: ArenaRules,
    white: Bot,
    black: Bot,
    opening: int,
    seed: int,
    on_move: Callable[[ArenaMove, chess.Board], None] | None = None,
    stop: threading.Event | None = None,
    controller_factory: Callable[..., SearchController] | None = None,
) -> ArenaGame | None:
    """Play ``white`` against ``black`` from ``opening`` (module doc); None when ``stop``
    is set before the game ends.

    ``on_move(move, board)`` is called after every move with the position after it.
    ``controller_factory`` makes each bot's controller (default SearchController) and is
    called as ``factory(game, fen, moves=..., algorithm=..., params=..., seed=...,
    tree_size=0, info_interval=...)``; a server passes one that adds its own settings.
    """
    from engine.search.controller import SearchController

    factory = controller_factory or SearchController
    fen, moves = opening_moves(rules.game, opening)
    board = get_game(rules.game).board(fen)
    for uci in moves:
        board.push_uci(uci)
    stop = stop or threading.Event()
    sides = {chess.WHITE: white, chess.BLACK: black}
    controllers: dict[chess.Color, SearchController] = {}
    try:
        for color, bot in sides.items():
            controllers[color] = factory(
                rules.game, fen, moves=moves, algorithm=bot.algorithm, params=bot.params,
                seed=2 * seed + (0 if color == chess.WHITE else 1),
                tree_size=0, info_interval=3600.0,
            )  # fmt: skip
        played: list[ArenaMove] = []
        while True:
            result, reason = outcome(board)
            if result is None and board.ply() >= rules.max_plies:
                result, reason = "1/2-1/2", MAX_PLIES_REASON
            if result is not None:
                return ArenaGame(played, result, str(reason), fen, tuple(moves))
            if stop.is_set():
                return None
            info = _think(controllers[board.turn], rules, stop)
            if info is None:
                return None
            best = info.bestmove
            if best is None:
                raise CanopyError(f"the search found no move in {board.fen()}")
            move = ArenaMove(
                uci=best,
                san=board.san(chess.Move.from_uci(best)),
                by="white" if board.turn == chess.WHITE else "black",
                search=summarize(info, played=best).to_dict(),
            )
            board.push_uci(best)
            played.append(move)
            if on_move is not None:
                on_move(move, board.copy())
            if outcome(board)[0] is None:
                for controller in controllers.values():
                    controller.play(best)
    finally:
        for controller in controllers.values():
            controller.close()


def _think(
    controller: SearchController, rules: ArenaRules, stop: threading.Event
) -> SearchInfo | None:
    """The final snapshot of one search at the arena's budget; None if ``stop`` came first."""
    finished: list[SearchInfo] = []
    done = threading.Event()

    def publish(info: SearchInfo) -> None:
        if not info.running:
            finished.append(info)
            done.set()

    controller.on_info = publish
    controller.start(iterations=rules.iterations, movetime_ms=rules.movetime_ms)
    while not done.wait(STOP_POLL):
        if stop.is_set():
            controller.stop()
            return None
    return finished[-1]
