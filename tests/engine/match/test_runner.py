"""The match runner: scheduling, the referee, PGN, and games against real engines."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from engine.match.openings import Opening, load_openings
from engine.match.runner import Match, MatchConfig, TimeControl
from engine.match.spec import parse_spec
from engine.rules.knight import KnightChessBoard
from tests.conftest import shared_file

FAKE = Path(__file__).with_name("fake_engine.py")
STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
# Knight chess at fullmove 99, White to move: ply 196, four plies before the limit.
LATE_KNIGHT = Opening("late", "nn4nn/8/8/3n4/4N3/8/8/NN4NN w - - 0 99")


def fake(mode: str) -> str:
    return f"uci:{sys.executable} {FAKE} {mode}"


def config(game: str, a: str, b: str, games: int, tmp_path: Path, **kw: object) -> MatchConfig:
    openings = kw.pop("openings", None) or load_openings(None, game)
    return MatchConfig(
        game=game,
        engines=(parse_spec(a, game), parse_spec(b, game)),
        games=games,
        openings=openings,  # type: ignore[arg-type]
        pgn=tmp_path / "games.pgn",
        **kw,  # type: ignore[arg-type]
    )


def read_pgn(path: Path) -> list[chess.pgn.Game]:
    games = []
    with path.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def test_tiny_match_between_two_algorithms_alternates_colours_on_one_opening(
    tmp_path: Path,
) -> None:
    cfg = config(
        "chess", "uct:iterations=150", "bfms:iterations=150,name=BFMS", 2, tmp_path,
        max_plies=16, concurrency=2,
    )  # fmt: skip
    state = Match(cfg).run()
    records = sorted(state.records, key=lambda r: r.round)
    assert [r.white for r in records] == [0, 1]
    assert records[0].opening == records[1].opening
    assert state.score.games == 2
    assert state.score.wins + 0.5 * state.score.draws == sum(r.points(0) for r in records)
    games = sorted(read_pgn(cfg.pgn), key=lambda g: int(g.headers["Round"]))  # type: ignore[arg-type]
    assert [g.headers["White"] for g in games] == ["uct:iterations=150", "BFMS"]
    assert [g.headers["Black"] for g in games] == ["BFMS", "uct:iterations=150"]
    for game, record in zip(games, records, strict=True):
        assert game.headers["Result"] == record.result
        assert game.headers["FEN"] == record.opening.fen
        assert [m.uci() for m in game.mainline_moves()] == record.moves
        assert len(record.moves) <= 16
    assert all(s.moves > 0 for s in state.stats)


def test_knight_chess_games_end_at_the_200_ply_limit_and_pgn_reads_back(tmp_path: Path) -> None:
    cfg = config(
        "knight", "uct:iterations=100", "alphabeta:iterations=2000", 2, tmp_path,
        openings=[LATE_KNIGHT],
    )  # fmt: skip
    state = Match(cfg).run()
    for record in state.records:
        assert len(record.moves) == 4 and record.reason == "200-ply limit"
    games = read_pgn(cfg.pgn)  # type: ignore[arg-type]
    assert len(games) == 2
    for game in games:
        assert game.headers["Variant"] == "Knight Chess"
        board = game.end().board()
        assert isinstance(board, KnightChessBoard) and board.ply() == 200


def test_an_engine_that_plays_an_illegal_move_loses(tmp_path: Path) -> None:
    cfg = config("chess", fake("illegal"), fake("first"), 2, tmp_path)
    state = Match(cfg).run()
    assert (state.score.wins, state.score.draws, state.score.losses) == (0, 0, 2)
    assert all(r.termination == "rules infraction" for r in state.records)


def test_an_engine_that_crashes_loses_and_is_restarted_for_the_next_game(tmp_path: Path) -> None:
    cfg = config("chess", fake("crash"), fake("first"), 2, tmp_path)
    state = Match(cfg).run()
    assert state.score.losses == 2
    assert all(r.termination == "abandoned" for r in state.records)


def test_a_clock_flag_fall_is_a_loss(tmp_path: Path) -> None:
    cfg = config(
        "chess", fake("silent"), fake("first"), 1, tmp_path,
        tc=TimeControl(None, 300, 0), timemargin_ms=0,
    )  # fmt: skip
    state = Match(cfg).run()
    assert state.records[0].result == "0-1"
    assert state.records[0].termination == "time forfeit"


def test_openings_are_each_played_with_both_colours_in_a_seeded_order(tmp_path: Path) -> None:
    cfg = config("chess", fake("first"), fake("first"), 6, tmp_path, max_plies=2, seed=7)
    match = Match(cfg)
    pairs = [match._opening(r) for r in range(1, 7)]
    assert [w for _, w in pairs] == [0, 1, 0, 1, 0, 1]
    assert pairs[0][0] == pairs[1][0] and pairs[2][0] == pairs[3][0]
    assert len({p[0].id for p in pairs}) == 3
    again = Match(cfg)
    assert [again._opening(r) for r in range(1, 7)] == pairs


@pytest.mark.skipif(STOCKFISH is None, reason="stockfish not installed (Debian package stockfish)")
def test_match_against_stockfish_at_skill_level_zero(tmp_path: Path) -> None:
    cfg = config(
        "chess", "alphabeta", f"uci:{STOCKFISH}:Skill Level=0,name=sf0", 2, tmp_path,
        tc=TimeControl(50), max_plies=20,
    )  # fmt: skip
    state = Match(cfg).run()
    assert state.score.games == 2
    games = read_pgn(cfg.pgn)  # type: ignore[arg-type]
    assert {g.headers["White"] for g in games} == {"alphabeta", "sf0"}
    assert all(r.termination in ("normal", "adjudication") for r in state.records)


@pytest.mark.skipif(FAIRY is None, reason="fairy-stockfish not installed (Debian fairy-stockfish)")
def test_fairy_stockfish_is_adjudicated_by_our_200_ply_rule(tmp_path: Path) -> None:
    ini = shared_file("tools/fairy-stockfish-knightchess.ini")
    cfg = config(
        "knight", "bfms:iterations=300", f"uci:{FAIRY}:VariantPath={ini},name=fsf", 2, tmp_path,
        openings=[LATE_KNIGHT], tc=TimeControl(50),
    )  # fmt: skip
    state = Match(cfg).run()
    for record in state.records:
        assert record.termination == "normal" and record.reason == "200-ply limit"
        assert len(record.moves) == 4


def test_pgn_text_is_one_game_per_round(tmp_path: Path) -> None:
    cfg = config("chess", fake("first"), fake("first"), 3, tmp_path, max_plies=4)
    Match(cfg).run()
    text = cfg.pgn.read_text()  # type: ignore[union-attr]
    assert text.count("[Event ") == 3
    assert chess.pgn.read_game(io.StringIO(text)) is not None


def test_ci_target_stops_the_match_but_not_before_min_games(tmp_path: Path) -> None:
    # all draws (adjudicated at 2 plies): the Wilson interval after 4 games is about ±300 Elo
    cfg = config(
        "chess", fake("first"), fake("first"), 10, tmp_path,
        max_plies=2, ci_target=400.0, min_games=4, concurrency=1,
    )  # fmt: skip
    state = Match(cfg).run()
    assert state.score.games == 4 and state.stop_reason == "95% interval within ±400 Elo"


def test_decided_stops_a_lopsided_match_once_the_interval_is_beyond_the_bound(
    tmp_path: Path,
) -> None:
    # an engine that only plays illegal moves forfeits every game. Wilson's upper end for 0/n
    # is 3.84/(n + 3.84): at n = 12 that is -198 Elo, at n = 13 -214 Elo, so ±200 is decided
    # at the 13th game (well after min_games) and not a game earlier
    cfg = config(
        "chess", fake("illegal"), fake("first"), 20, tmp_path,
        decided=200.0, min_games=6, concurrency=1,
    )  # fmt: skip
    state = Match(cfg).run()
    assert state.score.losses == state.score.games == 13
    assert state.stop_reason == "95% interval beyond ±200 Elo"
