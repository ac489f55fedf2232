"""Analysing a game played elsewhere: reading its PGN, searching its positions, marking its moves.

The PGN reader keeps the main line of the first game and names the line of the
first problem; the marks follow the expected score each move lost, checked
from the same side to move; a planted blunder (a queen left en prise) is marked
and the engine's better move named.
"""

from __future__ import annotations

import math
from dataclasses import replace

import chess
import pytest

from engine.errors import CanopyError
from engine.explain.summary import SearchSummary
from engine.play import EngineSettings, GameSession
from engine.play.analysis import (
    MIN_ITERATIONS,
    THRESHOLDS,
    AnalysisSettings,
    Check,
    analyse,
    analysis_plies,
    game_session,
    mark_for,
    side_summary,
)
from engine.play.errors import PgnError, TooManyPliesError
from engine.play.pgnread import read_pgn
from engine.rules.games import KNIGHT_GAME
from engine.search.info import MoveStats

START = chess.STARTING_FEN
#: 2...Qh4?? leaves the queen to 3.Nxh4.
QUEEN_HANG = "1. e4 e5 2. Nf3 Qh4 3. Nxh4 Nc6 *"


# ---------------------------------------------------------------- reading PGN


def test_comments_variations_nags_and_glyphs_are_skipped_on_the_main_line() -> None:
    text = (
        '[Event "Club"]\n[White "Ann"]\n\n'
        "1. e4 {best by test} e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3! $1 Nc6?! ; a comment\n"
        "% an escape line\n3. Bb5 a6 $6 1-0\n"
    )
    game = read_pgn(text)
    assert game.sans == ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6")
    assert game.result == "1-0" and game.headers["White"] == "Ann"
    assert game.games == 1 and game.notes == []


def test_several_games_read_the_first_and_say_how_many() -> None:
    text = '[Event "1"]\n\n1. e4 e5 *\n\n[Event "2"]\n\n1. d4 d5 *\n\n[Event "3"]\n\n1. c4 *\n'
    game = read_pgn(text)
    assert game.moves == ("e2e4", "e7e5") and game.games == 3
    assert game.notes == ["The PGN holds 3 games; the first is analysed."]


def test_a_fen_tag_sets_the_start_and_a_fen_line_takes_uci_moves() -> None:
    fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 40"
    tagged = read_pgn(f'[SetUp "1"]\n[FEN "{fen}"]\n\n40. O-O Kd7 *')
    assert tagged.start_fen == fen and tagged.sans == ("O-O", "Kd7")
    bare = read_pgn(f"{fen}\ne1g1 e8d7")
    assert bare.start_fen == fen and bare.moves == ("e1g1", "e8d7")


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_canopys_own_pgn_export_reads_back_with_its_game_and_moves(game: str) -> None:
    session = GameSession(game, human="both")
    for uci in session.legal_moves()[:1]:
        session.play(uci)
    session.play(session.legal_moves()[3])
    read = read_pgn(session.pgn())
    assert read.game.name == session.game.name
    assert read.moves == tuple(session.moves) and read.start_fen == session.start_fen


@pytest.mark.parametrize("name", ["knight chess", "Knightchess", "knight-chess", "Knights"])
def test_a_variant_tag_naming_knight_chess_in_any_spelling_reads_knight_chess(name: str) -> None:
    assert read_pgn(f'[Variant "{name}"]\n\n1. Nb1c3 Nb8c6 *').game is KNIGHT_GAME


def test_a_start_position_of_knights_alone_is_knight_chess_without_a_variant_tag() -> None:
    assert read_pgn(f"{KNIGHT_GAME.start_fen}\nb1c3").game is KNIGHT_GAME


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('[Event "x"]\n\n1. e4 e5\n2. Qh7 *', 4, "'Qh7' (White's move 2) is not legal after e5"),
        ('[Event "x"\n\n1. e4', 1, "malformed tag pair"),
        ("1. e4 e5\n2. Nf3 {never closed\n", 2, "comment '{' opened here is never closed"),
        ("1. e4 (1. d4 d5\n2. c4", 1, "variation '(' opened here is never closed"),
        ("1. e4 e5 )", 1, "')' closes no variation"),
        ("1. d4 d5 2. Nf3 Nf6\n3. Nd2", 2, "'Nd2' (White's move 3) is ambiguous"),
        ("1. e4 e5 2. Nf3x", 1, "is not a move"),
        ("1. f3 e5 2. g4 Qh4#\n3. a3", 2, "after the end of the game (0-1, checkmate)"),
        ("1. e4 --", 1, "null move"),
        ('[Variant "Crazyhouse"]\n\n1. e4', 1, "not one Canopy plays"),
        ('[Event "x"]\n[FEN "8/8/8/8 w - - 0 1"]\n\n1. e4', 2, "the start position (FEN)"),
        ('[Event "x"]\n\n*', 3, "no moves"),
    ],
)
def test_a_bad_pgn_is_refused_naming_its_line_and_reason(text: str, line: int, words: str) -> None:
    with pytest.raises(PgnError) as refused:
        read_pgn(text)
    assert refused.value.line == line
    assert str(refused.value).startswith(f"line {line}: ") and words in str(refused.value)


def test_an_empty_pgn_is_refused() -> None:
    with pytest.raises(PgnError, match="empty"):
        read_pgn(" \n\n")


def test_a_game_longer_than_the_limit_is_refused() -> None:
    with pytest.raises(TooManyPliesError, match="longer than 4 plies"):
        read_pgn("1. e4 e5 2. Nf3 Nc6 3. Bb5", max_plies=4)
    assert len(read_pgn("1. e4 e5 2. Nf3 Nc6", max_plies=4).moves) == 4


def test_moves_after_a_draw_the_players_could_claim_are_kept() -> None:
    shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 e5 *"
    read = read_pgn(shuffle)
    session = game_session(read, EngineSettings())
    assert session.moves == list(read.moves) and session.ply == 10
    assert session.human == "both" and all(m.by == "human" for m in session.history)


# ---------------------------------------------------------------- marks


def test_marks_start_at_their_thresholds() -> None:
    steps = dict(THRESHOLDS)
    assert mark_for(None) is None and mark_for(0.0) is None
    assert mark_for(steps["inaccuracy"] - 0.001) is None
    assert mark_for(steps["inaccuracy"]) == "inaccuracy"
    assert mark_for(steps["mistake"]) == "mistake"
    assert mark_for(steps["blunder"]) == "blunder" and mark_for(1.0) == "blunder"


def summary(fen: str, rows: list[tuple[str, int, float]]) -> SearchSummary:
    """A search of ``fen`` whose root moves are (uci, visits, q for the side to move)."""
    board = chess.Board(fen)
    return SearchSummary(
        algorithm="mcts",
        params={},
        threads=1,
        iterations=sum(v for _, v, _ in rows),
        reused=0,
        ms=100.0,
        nodes=100,
        depth=3,
        fen=fen,
        turn="white" if board.turn else "black",
        bestmove=rows[0][0],
        stop_reason="iterations",
        moves=tuple(
            MoveStats(
                move=uci,
                san=board.san(chess.Move.from_uci(uci)),
                visits=v,
                share=0.5,
                q=q,
                score=math.nan,
                eval=0.0,
                pv=(uci,),
            )
            for uci, v, q in rows
        ),
    )


def two_ply_game(
    first: SearchSummary, second: SearchSummary, final: SearchSummary | None
) -> tuple[GameSession, SearchSummary | None]:
    session = GameSession("chess", human="both")
    session.play("e2e4")
    session.play("g7g5")
    session.history = [
        replace(session.history[0], search=first),
        replace(session.history[1], search=second),
    ]
    return session, final


def test_a_ply_loses_what_the_neighbouring_searches_say_it_lost() -> None:
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    after_g5 = "rnbqkbnr/pppppp1p/8/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    session, final = two_ply_game(
        summary(START, [("e2e4", 90, 0.55), ("d2d4", 10, 0.54)]),  # White's best: e4, 0.55
        summary(after_e4, [("e7e5", 80, 0.47), ("g7g5", 5, 0.30)]),  # Black's best: e5, 0.47
        summary(after_g5, [("d2d4", 99, 0.65)]),  # after 1...g5 White scores 0.65
    )
    plies = analysis_plies(session, final, done=3)
    e4, g5 = plies
    assert e4["loss"] == 0.0 and e4["mark"] is None and e4["best"] == "e2e4"  # the best move
    assert g5["eval"] == 0.65 and e4["eval"] == 0.53  # White's expected score after each
    assert g5["loss"] == pytest.approx(0.47 - 0.35) and g5["mark"] == "inaccuracy"
    assert g5["best"] == "e7e5" and g5["best_san"] == "e5"
    sides = side_summary(plies)
    assert sides["black"]["inaccuracy"] == 1 and sides["black"]["average_loss"] == 0.12
    assert sides["white"]["average_loss"] == 0.0 and sides["white"]["blunder"] == 0


def test_a_check_from_the_same_side_to_move_overrides_the_neighbouring_searches() -> None:
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    after_g5 = "rnbqkbnr/pppppp1p/8/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    session, final = two_ply_game(
        summary(START, [("e2e4", 90, 0.55)]),
        summary(after_e4, [("e7e5", 80, 0.47)]),  # Black's own search leans to Black…
        summary(after_g5, [("d2d4", 99, 0.80)]),  # …White's leans to White: looks like 0.27
    )
    looks = analysis_plies(session, final, done=3)[1]
    assert looks["mark"] == "blunder"
    # Both lines searched with White to move: after 1...e5 2.Nf3 White 0.60, after
    # 1...g5 2.d4 White 0.63: 1...g5 cost Black 0.03, no mark.
    check = Check("e7e5", "g1f3", 0.60, "d2d4", 0.63)
    checked = analysis_plies(session, final, done=3, checks={2: check})[1]
    assert checked["loss"] == pytest.approx(0.03) and checked["mark"] is None
    assert Check.from_dict(check.to_dict()) == check


def test_a_checkmate_ends_the_values_with_the_result() -> None:
    session = GameSession("chess", human="both")
    for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):
        session.play(uci)
    plies = analysis_plies(session, None, done=5)
    assert plies[-1]["eval"] == 0.0  # Black has mated: White's expected score is 0
    assert analysis_plies(session, None, done=4)[-1]["eval"] is None  # not analysed yet


# ---------------------------------------------------------------- searching


def test_a_queen_left_en_prise_is_a_blunder_and_the_better_move_is_named() -> None:
    read = read_pgn(QUEEN_HANG)
    settings = AnalysisSettings(algorithm="mcts", iterations=3000, seed=1)
    results = list(analyse(read.game, read.start_fen, read.moves, settings))
    assert [r.index for r in results] == list(range(len(read.moves) + 1))
    session = game_session(read, EngineSettings())
    session.history = [replace(m, search=results[i].search) for i, m in enumerate(session.history)]
    checks = {r.index: r.check for r in results if r.check is not None}
    plies = analysis_plies(session, results[-1].search, len(results), checks)
    hang = plies[3]
    assert hang["san"] == "Qh4" and hang["mark"] == "blunder", plies
    assert hang["best"] not in (None, "d8h4") and hang["best_san"]
    assert checks[4].best == hang["best"] and checks[4].played_reply == "f3h4"  # Nxh4
    assert hang["loss"] >= dict(THRESHOLDS)["blunder"]
    assert plies[4]["san"] == "Nxh4" and plies[4]["mark"] is None  # taking it is no mistake
    assert all(p["search"] is not None and p["search"]["iterations"] > 0 for p in plies)
    assert side_summary(plies)["black"]["blunder"] >= 1


def test_a_finished_game_leaves_its_last_position_unsearched() -> None:
    read = read_pgn("1. f3 e5 2. g4 Qh4# 0-1")
    settings = AnalysisSettings(algorithm="uct", iterations=200)
    results = list(analyse(read.game, read.start_fen, read.moves, settings))
    assert results[-1].search is None and all(r.search is not None for r in results[:-1])


def test_analysis_resumes_from_any_position_with_the_previous_search() -> None:
    read = read_pgn(QUEEN_HANG)
    settings = AnalysisSettings(algorithm="uct", iterations=300, seed=3)
    whole = list(analyse(read.game, read.start_fen, read.moves, settings))
    rest = list(
        analyse(read.game, read.start_fen, read.moves, settings, first=4, previous=whole[3].search)
    )
    assert [r.index for r in rest] == [4, 5, 6]
    fens = [r.search.fen if r.search is not None else None for r in rest]
    assert fens == [w.search.fen if w.search is not None else None for w in whole[4:]]
    assert None not in fens


def test_an_unknown_algorithm_is_refused_before_any_search() -> None:
    read = read_pgn(QUEEN_HANG)
    with pytest.raises(CanopyError):
        next(analyse(read.game, read.start_fen, read.moves, AnalysisSettings(algorithm="zz")))


def test_every_position_gets_a_value_however_short_the_think_time() -> None:
    read = read_pgn(QUEEN_HANG)
    settings = AnalysisSettings(algorithm="mcts", movetime_ms=1)
    for result in analyse(read.game, read.start_fen, read.moves, settings):
        assert result.search is not None and result.search.iterations >= MIN_ITERATIONS
        assert result.search.bestmove is not None
        assert result.search.white_score(result.search.bestmove) is not None
