"""Engine SPECs and the shipped opening files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import chess
import pytest

from engine.errors import CanopyError
from engine.match.openings import load_openings, parse_line
from engine.match.spec import SpecError, parse_spec
from engine.rules.games import get_game


def test_algorithm_spec_becomes_uci_options_and_limits() -> None:
    spec = parse_spec("uct:c=1.4,policy=capture_first,threads=2,iterations=20000,name=ref")
    assert spec.internal and spec.name == "ref" and spec.threads == 2
    assert spec.argv[-3:] == ("-m", "canopy", "uci") and spec.argv[0] == sys.executable
    options = dict(spec.options)
    assert options["Algorithm"] == "uct" and options["Threads"] == "2"
    assert options["uct.c"] == "1.4" and options["uct.policy"] == "capture_first"
    assert spec.limits.go() == "go nodes 20000"


def test_bare_algorithm_name_is_a_spec_with_defaults() -> None:
    spec = parse_spec("alphabeta")
    assert dict(spec.options) == {"Algorithm": "alphabeta", "Threads": "1"}
    assert spec.limits.go() is None and spec.name == "alphabeta"


def test_external_spec_keeps_option_order_and_spaces() -> None:
    text = "uci:/usr/games/fairy-stockfish:VariantPath=/x.ini,Skill Level=-5,movetime=50"
    spec = parse_spec(text)
    assert spec.argv == ("/usr/games/fairy-stockfish",)
    assert spec.options == (("VariantPath", "/x.ini"), ("Skill Level", "-5"))
    assert spec.limits.go() == "go movetime 50" and not spec.internal


def test_external_command_is_split_like_a_shell_line() -> None:
    spec = parse_spec("uci:python3 -m canopy uci:Algorithm=bfms")
    assert spec.argv == ("python3", "-m", "canopy", "uci")
    assert spec.options == (("Algorithm", "bfms"),)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("minimax", "unknown algorithm"),
        ("uct:c=99", "between 0 and 10"),
        ("uct:zeta=1", "unknown parameter"),
        ("alphabeta:threads=2", "threads applies to the MCTS"),
        ("bfms:threads=0", "must be positive"),
        ("uct:iterations=lots", "whole number"),
        ("uct:c", "KEY=VALUE"),
        ("uci:", "needs a command"),
        ("", "empty"),
    ],
)
def test_bad_specs_are_refused_with_the_reason(text: str, needle: str) -> None:
    with pytest.raises(CanopyError, match=needle):
        parse_spec(text)


def test_knight_defaults_are_checked_per_game() -> None:
    spec = parse_spec("uct:policy=uniform", "knight")
    assert dict(spec.options)["uct.policy"] == "uniform"


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_shipped_openings_are_distinct_playable_positions(game: str) -> None:
    openings = load_openings(None, game)
    assert len(openings) >= 50
    assert len({" ".join(o.fen.split()[:4]) for o in openings}) == len(openings)
    for opening in openings:
        board = get_game(game).board(opening.fen)
        assert board.turn == chess.WHITE and any(board.legal_moves)


def test_knight_openings_count_their_plies_for_the_200_ply_rule() -> None:
    for opening in load_openings(None, "knight"):
        board = get_game("knight").board(opening.fen)
        assert board.ply() == 6  # six plies from the start: fullmove 4, White to move
        assert chess.popcount(board.occupied_co[chess.WHITE]) == chess.popcount(
            board.occupied_co[chess.BLACK]
        )


def test_openings_file_accepts_fens_epd_and_comments(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mine.epd"
    path.write_text(
        "# a comment\n\n"
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
        'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2; id "e4e5";\n'
    )
    openings = load_openings(path, "chess")
    assert [o.id for o in openings] == ["mine-3", "e4e5"]
    assert openings[1].fen.endswith("w KQkq - 0 2")
    board, opening_id = parse_line('8/8/8/8/8/8/8/N6n w - - hmvc 3; fmvn 40; id "x";', "knight")
    assert board.ply() == 78 and opening_id == "x"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("not a position\n", "line 1"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n", ""),
        ("", "holds no positions"),
        ("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1\n", "already over"),
    ],
)
def test_bad_openings_files_are_refused(tmp_path, text: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.epd"
    path.write_text(text)
    if needle == "":
        assert len(load_openings(path, "chess")) == 1
        with pytest.raises(CanopyError):
            load_openings(path, "knight")  # a chess position is not knight chess
        return
    with pytest.raises(CanopyError, match=needle):
        load_openings(path, "chess")
    with pytest.raises(CanopyError, match="cannot read"):
        load_openings(tmp_path / "missing.epd", "chess")


def test_an_engine_with_its_own_network_gets_it_in_its_environment(tmp_path: Path) -> None:
    from engine.eval.nnue_weights import ENV_VAR, save
    from engine.learn.nnue_fit import random_network

    net = tmp_path / "gen-002.npz"
    save(net, random_network(8))
    spec = parse_spec(f"alphabeta:eval=nnue,nnue={net},name=gen-2")
    env = dict(spec.env)
    assert env[ENV_VAR] == str(net.resolve())
    # never this process's kernel cache, where another network is baked into the kernels
    assert env["NUMBA_CACHE_DIR"] != os.environ.get("NUMBA_CACHE_DIR")
    assert ("alphabeta.eval", "nnue") in spec.options
    assert spec.name == "gen-2"


@pytest.mark.parametrize(
    ("tail", "needle"),
    [
        ("eval=nnue,nnue={missing}", "nope.npz is missing"),
        ("eval=hand,nnue={net}", "nnue=FILE is for eval=nnue"),
    ],
)
def test_a_bad_network_file_is_refused_before_any_game(
    tmp_path: Path, tail: str, needle: str
) -> None:
    from engine.eval.nnue_weights import save
    from engine.learn.nnue_fit import random_network

    net = tmp_path / "net.npz"
    save(net, random_network(8))
    text = "alphabeta:" + tail.format(missing=tmp_path / "nope.npz", net=net)
    with pytest.raises(SpecError, match=needle):
        parse_spec(text)
