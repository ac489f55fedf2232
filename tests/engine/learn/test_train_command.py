"""``canopy train``: bad input is one line on stderr, exit status 2, and nothing written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from canopy.cli import main
from engine.eval.learned_weights import save_weights
from engine.learn.chessnet import ChessModel
from engine.learn.ntuple import Model, tuple_squares


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["train", *args])
    err = capsys.readouterr().err.strip()
    return code, err


@pytest.mark.parametrize(
    ("game", "args", "needle"),
    [
        ("knight", ["--games", "0"], "argument --games: must be at least 1, got 0"),
        ("knight", ["--games", "-3"], "argument --games: must be at least 1, got -3"),
        ("knight", ["--games", "many"], "argument --games: expected a whole number, got 'many'"),
        ("knight", ["--generations", "0"], "argument --generations: must be at least 1, got 0"),
        ("knight", ["--threads", "0"], "argument --threads: must be at least 1, got 0"),
        ("knight", ["--gate-games", "3"], "gate_games must be even, >= 2; got 3"),
        ("knight", ["--hidden", "8"], "--hidden is for the chess network"),
        ("chess", ["--games", "0"], "argument --games: must be at least 1, got 0"),
        ("chess", ["--tuples", "pst"], "--tuples is for knight chess's N-tuple network"),
        ("chess", ["--fit-contact"], "--fit-contact is for knight chess's N-tuple network"),
        ("chess", ["--hidden", "0"], "argument --hidden: must be at least 1, got 0"),
        ("chess", ["--hidden", "65"], "hidden must be 1..64; got 65"),
        ("chess", ["--gate-games", "5"], "gate_games must be even, >= 2; got 5"),
        ("chess", ["--target", "outcome"], "argument --target: invalid choice: 'outcome'"),
        ("chess", ["--lam", "1.5"], "lam must be 0..1; got 1.5"),
        ("knight", ["--gate-algo", "minimax"], "argument --gate-algo: invalid choice: 'minimax'"),
        ("knight", ["--gate-budget", "-1"], "argument --gate-budget: must not be negative, got -1"),
        ("knight", ["--model", "nnue"], "the NNUE is chess's network; use --game chess"),
        ("chess", ["--model", "nnue", "--hidden", "2000"], "hidden must be 1..1024; got 2000"),
        ("chess", ["--model", "nnue", "--gate-games", "3"], "gate_games must be even, >= 2"),
        ("chess", ["--model", "nnue", "--lam", "-1"], "lam must be 0..1; got -1"),
        ("chess", ["--model", "nnue", "--init", "x.npz"], "--init is not an NNUE setting"),
        ("chess", ["--epochs", "3"], "--epochs is for --model nnue"),
        ("chess", ["--distill", "10"], "--distill is for --model nnue"),
        ("chess", ["--model", "mlp"], "argument --model: invalid choice: 'mlp'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line_and_write_nothing(
    game: str, args: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code, err = run(["--game", game, "--out", str(out), *args], capsys)
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("canopy train: error: ")
    assert needle in err
    assert not out.exists()


@pytest.mark.parametrize("game", ["knight", "chess"])
def test_an_output_directory_that_cannot_be_written_is_refused(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    code, err = run(["--game", game, "--out", str(blocker / "run")], capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert "cannot write to the output directory" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only directories")
@pytest.mark.parametrize("game", ["knight", "chess"])
def test_a_read_only_output_directory_is_refused_and_left_empty(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    out.chmod(0o500)
    try:
        code, err = run(["--game", game, "--out", str(out)], capsys)
    finally:
        out.chmod(0o700)
    assert code == 2 and "cannot write to the output directory" in err
    assert os.listdir(out) == []


def _init_file(path: Path) -> Path:
    model = Model(tuple_squares("pst"))
    save_weights(path, model.unpack(model.start(), "test", {}))
    return path


def test_weights_with_other_tuples_are_refused_as_a_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    init = _init_file(tmp_path / "pst.npz")
    out = tmp_path / "run"
    code, err = run(
        ["--game", "knight", "--out", str(out), "--init", str(init), "--tuples", "blocks"], capsys
    )
    assert code == 2 and "use other tuples (64 tuples of 1 squares)" in err
    assert "they do not fit --tuples blocks" in err
    assert not out.exists()


def _chess_init(path: Path, hidden: int = 8) -> Path:
    model = ChessModel(hidden)
    save_weights(path, model.unpack(model.start(), "test", {}))
    return path


@pytest.mark.parametrize(
    ("game", "make", "needle"),
    [
        ("knight", lambda p: p / "missing.npz", "missing.npz is missing"),
        ("knight", lambda p: (p / "bad.npz").write_bytes(b"junk") and p / "bad.npz", "unreadable"),
        ("knight", lambda p: _chess_init(p / "chess.npz"), "is for 'chess', not 'knight'"),
        ("chess", lambda p: p / "missing.npz", "missing.npz is missing"),
        ("chess", lambda p: (p / "bad.npz").write_bytes(b"junk") and p / "bad.npz", "unreadable"),
        ("chess", lambda p: _init_file(p / "knight.npz"), "is for 'knight', not 'chess'"),
        ("chess", lambda p: _chess_init(p / "h4.npz", 4), "have 4 hidden units, not 8"),
    ],
    ids=[
        "missing",
        "corrupt",
        "wrong-game",
        "chess-missing",
        "chess-corrupt",
        "chess-wrong-game",
        "chess-other-size",
    ],
)
def test_bad_starting_weights_exit_2_with_one_line_and_write_nothing(
    game: str,
    make: Callable[[Path], Path],
    needle: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    init = make(tmp_path)
    out = tmp_path / "run"
    code, err = run(["--game", game, "--out", str(out), "--init", str(init)], capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert needle in err
    assert not out.exists()
