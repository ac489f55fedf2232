"""One arena game in this process: each bot searches with its own settings and tree,
the referee ends the game, and at a fixed iteration budget the game repeats exactly."""

from __future__ import annotations

import threading

import chess
import pytest

from engine.arena.play import ArenaGame, ArenaMove, opening_count, opening_moves, play_game
from engine.arena.rules import ArenaRules, Bot
from engine.explain.summary import SearchSummary
from engine.match.openings import load_openings
from engine.play.game import PlayedMove
from engine.rules.games import get_game
from engine.search.registry import ALGORITHMS

RULES = ArenaRules("chess", iterations=80, max_plies=30)


def bot(bot_id: str, algorithm: str = "uct", game: str = "chess", **params: object) -> Bot:
    return Bot(bot_id, bot_id.title(), algorithm, ALGORITHMS[algorithm].validate(params, game))


ADA, BOB = bot("ada", c=0.5), bot("bob", c=1.5)


def without_times(game: ArenaGame) -> list[tuple[str, str, str, dict]]:
    return [(m.uci, m.san, m.by, {**m.search, "ms": 0}) for m in game.moves]


def test_a_game_at_fixed_iterations_is_a_pure_function_of_its_arguments() -> None:
    first = play_game(RULES, ADA, BOB, opening=3, seed=7)
    again = play_game(RULES, ADA, BOB, opening=3, seed=7)
    assert first is not None and again is not None
    assert (first.result, first.reason) == (again.result, again.reason)
    assert without_times(first) == without_times(again)
    other = play_game(RULES, ADA, BOB, opening=3, seed=8)
    assert other is not None and [m.uci for m in other.moves] != [m.uci for m in first.moves]


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_a_game_still_going_at_max_plies_is_a_draw(game: str) -> None:
    rules = ArenaRules(game, iterations=50, max_plies=12)
    fen, moves = opening_moves(game, 0)
    played = play_game(rules, bot("a", game=game), bot("b", game=game), opening=0, seed=1)
    assert played is not None
    assert (played.result, played.reason) == ("1/2-1/2", "max plies")
    assert len(moves) + len(played.moves) == 12
    assert (played.start_fen, list(played.opening)) == (fen, moves)


def test_each_side_searches_with_its_own_bot_and_reuses_its_own_tree() -> None:
    white, black = bot("w", "uct", c=0.3), bot("b", "mcts")
    game = play_game(RULES, white, black, opening=0, seed=2)
    assert game is not None and len(game.moves) > 4
    for m in game.moves:
        mine = white if m.by == "white" else black
        assert (m.search["algorithm"], m.search["params"]) == (mine.algorithm, mine.params)
        assert m.search["iterations"] == RULES.iterations
    assert [m.by for m in game.moves[:2]] == ["white", "black"]
    later = [m for m in game.moves if m.by == "black"][1:]
    assert any(m.search["reused"] > 0 for m in later)  # the subtree its tree kept


def test_a_moves_search_is_what_a_game_stores_for_review() -> None:
    game = play_game(RULES, ADA, BOB, opening=1, seed=3)
    assert game is not None
    board = get_game("chess").board(game.start_fen)
    for uci in game.opening:
        board.push_uci(uci)
    for m in game.moves:
        summary = SearchSummary.from_dict(m.search)
        assert summary.fen == board.fen() and summary.bestmove == m.uci
        assert summary.move(m.uci) is not None
        assert SearchSummary.from_dict(summary.to_dict()) == summary
        assert m.san == board.san(chess.Move.from_uci(m.uci))
        board.push_uci(m.uci)
        stored = PlayedMove.from_dict(
            {"uci": m.uci, "san": m.san, "color": m.by, "by": "engine", "fen": board.fen(),
             "search": m.search}
        )  # fmt: skip
        assert stored.search == summary


def test_on_move_sees_every_move_with_the_position_after_it() -> None:
    seen: list[tuple[ArenaMove, str]] = []
    game = play_game(
        RULES, ADA, BOB, opening=2, seed=4, on_move=lambda m, b: seen.append((m, b.fen()))
    )
    assert game is not None and [m for m, _ in seen] == game.moves
    board = get_game("chess").board(game.start_fen)
    for uci in game.opening:
        board.push_uci(uci)
    for m, fen in seen:
        board.push_uci(m.uci)
        assert fen == board.fen()


def test_stop_ends_the_game_without_a_result() -> None:
    stop = threading.Event()
    calls: list[str] = []

    def after(move: ArenaMove, board: chess.Board) -> None:
        calls.append(move.uci)
        if len(calls) == 3:
            stop.set()

    assert play_game(RULES, ADA, BOB, opening=0, seed=5, on_move=after, stop=stop) is None
    assert len(calls) == 3
    stop_now = threading.Event()
    stop_now.set()
    assert play_game(RULES, ADA, BOB, opening=0, seed=5, stop=stop_now) is None


def test_stop_interrupts_a_long_think() -> None:
    slow = ArenaRules("chess", movetime_ms=60_000, max_plies=30)
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    assert play_game(slow, ADA, BOB, opening=0, seed=5, stop=stop) is None


def test_a_think_time_game_plays_to_its_end() -> None:
    rules = ArenaRules("knight", movetime_ms=20, max_plies=14)
    game = play_game(rules, bot("a", game="knight"), bot("b", game="knight"), opening=5, seed=1)
    assert game is not None and game.result in ("1-0", "0-1", "1/2-1/2") and game.moves


def test_a_controller_factory_makes_each_bots_controller() -> None:
    from engine.search.controller import SearchController

    made: list[dict] = []

    def factory(*args: object, **kwargs: object) -> SearchController:
        made.append(dict(kwargs))
        return SearchController(*args, **kwargs)  # type: ignore[arg-type]

    play_game(ArenaRules("chess", iterations=20, max_plies=10), ADA, BOB, 0, 1,
              controller_factory=factory)  # fmt: skip
    assert [k["algorithm"] for k in made] == ["uct", "uct"]
    assert [k["params"] for k in made] == [ADA.params, BOB.params]


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_openings_are_the_match_book_from_the_standard_start_modulo_its_length(game: str) -> None:
    book = load_openings(None, game)
    assert opening_count(game) == len(book)
    for index in (0, 17, len(book) - 1):
        fen, moves = opening_moves(game, index)
        assert fen == get_game(game).start_fen and moves
        board = get_game(game).board(fen)
        for uci in moves:
            board.push_uci(uci)
        assert board.fen() == book[index].fen
    assert opening_moves(game, len(book) + 2) == opening_moves(game, 2)
