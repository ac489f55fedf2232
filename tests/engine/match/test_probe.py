"""The move-quality probe: which positions it takes, how a move's loss is counted, and a
real run against Stockfish where Stockfish is installed."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from engine.match.probe import (
    LOSS_CAP,
    ProbePosition,
    ProbeResult,
    UciReferee,
    centipawn_loss,
    chosen_moves,
    lost_positions,
    paired_difference,
    probe_positions,
    read_pgn,
    score_moves,
)

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
ROOT = Path(__file__).resolve().parents[3]
#: A Ruy Lopez of 30 plies: long enough for positions from ply 16 on.
MOVES = [
    "e4",
    "e5",
    "Nf3",
    "Nc6",
    "Bb5",
    "a6",
    "Ba4",
    "Nf6",
    "O-O",
    "Be7",
    "Re1",
    "b5",
    "Bb3",
    "d6",
    "c3",
    "O-O",
    "h3",
    "Nb8",
    "d4",
    "Nbd7",
    "c4",
    "c6",
    "cxb5",
    "axb5",
    "Nc3",
    "Bb7",
    "Bg5",
    "b4",
    "Nb1",
    "h6",
]
#: White to move can take a queen left en prise on d5.
HANGING_QUEEN = "rnb1kbnr/ppp1pppp/8/3q4/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 3"


def ruy_lopez() -> chess.pgn.Game:
    game = chess.pgn.Game()
    node: chess.pgn.GameNode = game
    for san in MOVES:
        node = node.add_variation(node.board().parse_san(san))
    return game


def board_after(plies: int) -> str:
    board = chess.Board()
    for san in MOVES[:plies]:
        board.push_san(san)
    return board.fen()


class TableReferee:
    """A referee that answers from a table: the probe's arithmetic without an engine."""

    def __init__(self, best: dict[str, int], after: dict[tuple[str, str], int]) -> None:
        self.best_scores, self.after_scores = best, after

    def best(self, fen: str) -> int:
        return self.best_scores[fen]

    def after(self, fen: str, move: str) -> int:
        return self.after_scores[(fen, move)]


def test_positions_are_every_nth_of_each_game_between_the_plies() -> None:
    found = probe_positions([ruy_lopez(), ruy_lopez()], every=5, first_ply=16, last_ply=26)
    assert [p.fen for p in found] == [board_after(20), board_after(25)] * 2
    assert found[0].earlier == board_after(18) and found[0].line == ("d2d4", "b8d7")


def test_positions_stop_at_the_limit_and_reject_a_zero_stride() -> None:
    found = probe_positions([ruy_lopez()], every=1, first_ply=16, limit=3, lead=0)
    assert [p.fen for p in found] == [board_after(16), board_after(17), board_after(18)]
    assert all(p.earlier == p.fen and p.line == () for p in found)
    with pytest.raises(ValueError, match="every must be at least 1"):
        probe_positions([ruy_lopez()], every=0)


class LossReferee:
    """Every position scores 0 and every move 0, but for the moves given their loss."""

    def __init__(self, losses: dict[tuple[str, str], int]) -> None:
        self.losses = losses
        self.asked: list[tuple[str, str]] = []

    def best(self, fen: str) -> int:
        return 0

    def after(self, fen: str, move: str) -> int:
        self.asked.append((fen, move))
        return -self.losses.get((fen, move), 0)


def test_lost_positions_are_the_named_sides_moves_that_lost_enough() -> None:
    game = ruy_lopez()
    game.headers["White"], game.headers["Black"] = "mcts", "stockfish"
    # White's 10th move d4 (ply 18) gives away 150 cp, Black's reply Nbd7 500
    referee = LossReferee({(board_after(18), "d2d4"): 150, (board_after(19), "b8d7"): 500})
    (white,) = lost_positions([game], referee, "mcts")
    assert (white.fen, white.played) == (board_after(18), "d2d4")
    assert white.earlier == board_after(16) and white.line == ("h2h3", "c6b8")
    assert {fen for fen, _ in referee.asked} == {board_after(n) for n in range(0, 30, 2)}
    (black,) = lost_positions([game], referee, "stockfish", lead=0)
    assert (black.fen, black.played, black.line) == (board_after(19), "b8d7", ())
    assert lost_positions([game], referee, "mcts", min_loss=151) == []
    assert lost_positions([game], referee, "nobody") == []
    both = ruy_lopez()
    both.headers["White"] = both.headers["Black"] = "mcts"  # self-play: both sides' moves
    assert [p.played for p in lost_positions([both], referee, "mcts")] == ["d2d4", "b8d7"]
    assert [p.played for p in lost_positions([both], referee, "mcts", limit=1)] == ["d2d4"]
    with pytest.raises(ValueError, match="min_loss must be at least 1"):
        lost_positions([game], referee, "mcts", min_loss=0)


def test_probe_positions_carry_the_games_move() -> None:
    found = probe_positions([ruy_lopez()], every=5, first_ply=16, last_ply=26)
    assert [p.played for p in found] == ["c3c4", "c8b7"]


def test_pgn_files_plain_and_gzipped_read_the_same_games(tmp_path: Path) -> None:
    text = str(ruy_lopez()) + "\n\n" + str(ruy_lopez()) + "\n"
    plain, packed = tmp_path / "a.pgn", tmp_path / "a.pgn.gz"
    plain.write_text(text)
    with gzip.open(packed, "wt") as handle:
        handle.write(text)
    for path in (plain, packed):
        games = list(read_pgn(path))
        assert len(games) == 2
        assert [m.uci() for m in games[1].mainline_moves()][:2] == ["e2e4", "e7e5"]


def test_a_loss_is_never_negative_and_capped() -> None:
    assert centipawn_loss(50, 20) == 30
    assert centipawn_loss(20, 50) == 0  # the move scored above the reference's best
    assert centipawn_loss(3000, -3000) == LOSS_CAP
    assert centipawn_loss(300, 0, cap=100) == 100


def test_result_counts_mistakes_and_blunders_from_the_referees_scores() -> None:
    fens = ["a", "b", "c", "d"]
    moves = ["m1", "m2", "m3", "m4"]
    referee = TableReferee(
        {"a": 40, "b": 0, "c": 500, "d": -100},
        {("a", "m1"): 40, ("b", "m2"): -150, ("c", "m3"): 100, ("d", "m4"): -120},
    )
    result = score_moves(fens, moves, referee)
    assert result.losses == (0, 150, 400, 20)
    assert result.average == pytest.approx(142.5)
    assert (result.mistakes, result.blunders) == (2, 1)
    assert result.as_dict()["average_loss"] == 142.5
    with pytest.raises(ValueError):
        score_moves(fens, moves[:3], referee)


def test_paired_difference_and_its_standard_error() -> None:
    a, b = ProbeResult((10, 20, 30, 40)), ProbeResult((0, 20, 20, 40))
    diff, se = paired_difference(a, b)
    assert diff == pytest.approx(5.0)  # differences 10, 0, 10, 0
    assert se == pytest.approx((100 / 3 / 4) ** 0.5)
    with pytest.raises(ValueError, match="same positions"):
        paired_difference(a, ProbeResult((1, 2)))


def test_chosen_moves_search_fresh_or_after_the_line_into_the_position() -> None:
    fresh = ProbePosition(HANGING_QUEEN, HANGING_QUEEN, ())
    assert chosen_moves([fresh, fresh], "mcts", {}, iterations=300) == ["c3d5", "c3d5"]
    # the queen came to d5 from d8 and the knight went back to c3 from b1
    before = "rnbqkbnr/ppp1pppp/8/8/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"
    line = ProbePosition(HANGING_QUEEN, before, ("b1c3", "d8d5"))
    assert chosen_moves([line], "mcts", {}, iterations=300, reuse=True) == ["c3d5"]


@pytest.mark.skipif(STOCKFISH is None, reason="stockfish not installed (Debian package stockfish)")
def test_stockfish_referee_scores_a_hanging_queen_and_keeps_its_cache(tmp_path: Path) -> None:
    assert STOCKFISH is not None
    cache = tmp_path / "cache.json"
    referee = UciReferee(STOCKFISH, 8, cache)
    try:
        result = score_moves([HANGING_QUEEN] * 2, ["c3d5", "a2a3"], referee)
    finally:
        referee.close()
    assert result.losses[0] < 50  # taking the queen is (near) Stockfish's best
    assert result.losses[1] >= 500  # leaving it is a blunder
    kept = json.loads(cache.read_text())
    assert f"8 {HANGING_QUEEN} a2a3" in kept
    again = UciReferee(STOCKFISH, 8, cache)
    try:
        assert again.scores == kept
    finally:
        again.close()
    with pytest.raises(ValueError, match="depth must be at least 1"):
        UciReferee(STOCKFISH, 0)


@pytest.mark.skipif(STOCKFISH is None, reason="stockfish not installed (Debian package stockfish)")
def test_probe_script_reports_and_compares_two_runs(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(str(ruy_lopez()) + "\n")
    base = [sys.executable, str(ROOT / "scripts" / "probe_moves.py"), "--pgn", str(pgn)]
    # 200 ms: on a busy machine a 30 ms search could end before its first iteration
    base += ["--positions", "2", "--movetime", "200", "--depth", "6", "--out", str(tmp_path)]
    first = subprocess.run([*base, "--label", "one"], capture_output=True, text=True, check=True)
    assert "one: 2 positions, average loss" in first.stdout
    second = subprocess.run(
        [*base, "--algo", "alphabeta", "--label", "two", "--compare", "one"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "two minus one:" in second.stdout
    missing = subprocess.run([*base, "--compare", "three"], capture_output=True, text=True)
    assert missing.returncode == 2 and "no run 'three'" in missing.stderr
    record = json.loads((tmp_path / "two.json").read_text())
    assert record["algorithm"] == "alphabeta" and len(record["moves"]) == 2
    assert (tmp_path / "referee-cache.json").exists()


@pytest.mark.skipif(STOCKFISH is None, reason="stockfish not installed (Debian package stockfish)")
def test_probe_script_replays_the_moves_a_game_was_lost_on(tmp_path: Path) -> None:
    game = chess.pgn.Game()
    game.headers["White"], game.headers["Black"] = "stockfish", "mcts"
    node: chess.pgn.GameNode = game
    for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]:  # 3...Nf6?? allows mate
        node = node.add_variation(node.board().parse_san(san))
    pgn = tmp_path / "lost.pgn"
    pgn.write_text(str(game) + "\n")
    base = [sys.executable, str(ROOT / "scripts" / "probe_moves.py"), "--pgn", str(pgn)]
    base += ["--movetime", "100", "--depth", "6", "--out", str(tmp_path), "--label", "again"]
    # 500 cp: far above a shallow referee's noise (tens of centipawns), far below a mate
    lost = ["--lost", "mcts", "--min-loss", "500"]
    run = subprocess.run([*base, *lost], capture_output=True, text=True, check=True)
    assert "again: 1 positions" in run.stdout
    assert "plays the game's move again in 0 of 1 positions" in run.stdout
    record = json.loads((tmp_path / "again.json").read_text())
    assert record["played"] == ["g8f6"] and record["moves"] != ["g8f6"]
    assert (record["lost"], record["min_loss"]) == ("mcts", 500)
    nobody = subprocess.run([*base, "--lost", "nobody"], capture_output=True, text=True)
    assert nobody.returncode == 2
    assert "no move of 'nobody' lost 100 cp or more in those games" in nobody.stderr
    zero = subprocess.run(
        [*base, "--lost", "mcts", "--min-loss", "0"], capture_output=True, text=True
    )
    assert zero.returncode == 2 and "--min-loss must be at least 1" in zero.stderr
