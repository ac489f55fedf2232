"""Garbage in, ``info string`` out: the engine answers ``isready`` after every bad line."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from engine.uci.engine import LineWriter, UciEngine

BAD_LINES = [
    "",
    "   ",
    "hello world",
    "xyzzy 42",
    "position",
    "position sideways",
    "position fen",
    "position fen not/a/fen w - - 0 1",
    "position fen 8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
    "position startpos moves e2e5",  # illegal
    "position startpos moves zz99",  # not a move
    "position startpos junk moves e2e4",
    "setoption",
    "setoption name",
    "setoption name Nonexistent value 3",
    "setoption name Threads value many",
    "setoption name Threads value 0",
    "setoption name Hash value -5",
    "setoption name uct.c value -1",
    "setoption name bfms.C value nan",
    "setoption name UCI_Variant value crazyhouse",
    "setoption name Algorithm value minimax",
    "setoption name alphabeta.quiescence value maybe",
    "go wtime",
    "go movetime soon",
    "go depth -3",
    "go nodes 1e999",
    "ponderhit",
    "stop",
    "debug",
    "register later",
    "\x00\x01\x02 position \x7f",
    "x" * 10_000,
    "go searchmoves a1a1",
]


def collect() -> tuple[UciEngine, list[str]]:
    lines: list[str] = []
    lock = threading.Lock()

    def sink(line: str) -> None:
        with lock:
            lines.append(line)

    return UciEngine(LineWriter(sink)), lines


def wait_for(lines: list[str], prefix: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in list(lines):
            if line.startswith(prefix):
                return line
        time.sleep(0.01)
    raise AssertionError(f"no {prefix!r} in {lines[-10:]}")


@pytest.mark.parametrize("bad", BAD_LINES, ids=lambda s: repr(s[:30]))
def test_bad_line_leaves_the_engine_answering_isready(bad: str) -> None:
    engine, lines = collect()
    engine.handle("setoption name Algorithm value uct")
    assert engine.handle(bad) is True
    searching = engine.searching  # a bad go may still have started a search
    engine.handle("isready")  # answered at once, even mid-search
    assert "readyok" in lines
    engine.handle("stop")
    if searching:
        assert lines[-1].startswith("bestmove ")
    lines.clear()
    engine.handle("isready")
    assert lines == ["readyok"]
    engine.handle("quit")


def test_unknown_commands_and_bad_options_are_reported_in_info_strings() -> None:
    engine, lines = collect()
    engine.handle("flibbertigibbet")
    engine.handle("setoption name Threads value 99")
    engine.handle("setoption name uct.c value 11")
    text = "\n".join(lines)
    assert "info string unknown command: flibbertigibbet" in text
    assert "Threads must be between 1 and 64" in text
    assert "between 0 and 10" in text
    assert not any(line.startswith(("bestmove", "readyok")) for line in lines)


def test_unknown_leading_token_is_skipped_as_the_uci_spec_says() -> None:
    engine, lines = collect()
    engine.handle("joho isready")
    assert lines == ["readyok"]


def test_bad_option_value_keeps_the_previous_value() -> None:
    engine, _ = collect()
    engine.handle("setoption name Threads value 2")
    engine.handle("setoption name Threads value lots")
    assert engine.options["Threads"] == 2
    engine.handle("setoption name uct.c value 1.25")
    engine.handle("setoption name uct.c value -3")
    assert engine.options["uct.c"] == pytest.approx(1.25)


def test_go_after_an_invalid_position_answers_bestmove_none() -> None:
    engine, lines = collect()
    engine.handle("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1")
    engine.handle("go nodes 100")
    assert lines[-1] == "bestmove (none)"
    assert any("malformed FEN" in line for line in lines)
    # a good position afterwards works again
    lines.clear()
    engine.handle("position startpos")
    engine.handle("go nodes 100")
    assert wait_for(lines, "bestmove ") != "bestmove (none)"
    engine.handle("quit")


def test_go_in_a_finished_game_answers_bestmove_none_with_a_mate_score() -> None:
    engine, lines = collect()
    engine.handle("position startpos moves f2f3 e7e5 g2g4 d8h4")  # fool's mate
    engine.handle("go movetime 100")
    assert lines[-2:] == ["info string the game is over: 0-1 (checkmate)", "bestmove (none)"]
    assert "info depth 0 score mate 0" in lines


def test_bad_go_arguments_are_ignored_but_the_search_still_answers() -> None:
    engine, lines = collect()
    engine.handle("setoption name Algorithm value uct")
    engine.handle("position startpos")
    engine.handle("go movetime banana nodes 300 frobnicate")
    best = wait_for(lines, "bestmove ")
    assert best.split()[1] != "(none)"
    assert any("bad value 'banana'" in line for line in lines)
    assert any("unknown token 'frobnicate'" in line for line in lines)


def test_real_process_survives_garbage_bytes_and_keeps_answering() -> None:
    garbage = b"\xff\xfe\xfd not utf-8\n\x00\x00\nposition fen \xc3\x28\ngo depth x\n"
    script = (
        b"uci\n" + garbage + b"isready\nsetoption name Algorithm value uct\n"
        b"position startpos moves e2e4\ngo nodes 200\nisready\nquit\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "canopy", "uci"],
        input=script,
        capture_output=True,
        timeout=120,
    )
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()
    assert out.count("readyok") == 2 and "uciok" in out
    assert "\nbestmove " in out
