"""``canopy uci`` driven by python-chess's ``chess.engine`` — a client we did not write."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import chess
import chess.engine
import pytest

from engine.rules.games import outcome
from engine.rules.knight import KnightChessBoard

ALGORITHMS = ("uct", "uct-minimax", "bfms", "alphabeta", "mcts")


@pytest.fixture(scope="module")
def engine() -> Iterator[chess.engine.SimpleEngine]:
    eng = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "canopy", "uci"], timeout=60)
    try:
        yield eng
    finally:
        eng.quit()


def test_handshake_names_the_engine_and_announces_every_algorithm_parameter(
    engine: chess.engine.SimpleEngine,
) -> None:
    assert engine.id["name"].startswith("Canopy")
    options = engine.options
    assert set(options["Algorithm"].var) == set(ALGORITHMS)
    assert set(options["UCI_Variant"].var) == {"chess", "knightchess"}
    assert options["uct.c"].type == "string" and options["uct-minimax.depth"].type == "spin"
    assert options["uct.policy"].default == "auto"  # chess and knight chess differ
    assert options["alphabeta.quiescence"].type == "check"
    assert options["Threads"].max == 64


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_analyse_reports_score_pv_depth_nodes_and_wdl(
    engine: chess.engine.SimpleEngine, algorithm: str
) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    engine.configure({"Algorithm": algorithm})
    info = engine.analyse(board, chess.engine.Limit(time=0.25))
    assert info["depth"] >= 1 and info["seldepth"] >= info["depth"]
    assert info["nodes"] > 0 and info["time"] > 0
    assert isinstance(info["score"].relative, chess.engine.Cp)
    wdl = info["wdl"].relative
    assert wdl.wins + wdl.draws + wdl.losses == 1000
    pv = info["pv"]
    assert pv, "a principal variation"
    replay = board.copy()
    for move in pv:  # python-chess already rejects illegal pv moves; check it is all there
        assert move in replay.legal_moves
        replay.push(move)
    assert info["string"].startswith(f"{algorithm} visits:")


@pytest.mark.parametrize(
    ("algorithm", "limit"),
    [("alphabeta", chess.engine.Limit(depth=3)), ("mcts", chess.engine.Limit(time=0.5))],
)
def test_analyse_finds_a_mate_in_one_and_reports_it_as_mate(
    engine: chess.engine.SimpleEngine, algorithm: str, limit: chess.engine.Limit
) -> None:
    """``mcts`` reports its MCTS-Solver proof as ``score mate n`` through the protocol."""
    engine.configure({"Algorithm": algorithm})
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    info = engine.analyse(board, limit)
    assert info["pv"][0] == chess.Move.from_uci("a1a8")
    assert info["score"].relative == chess.engine.Mate(1)


def test_mcts_reports_a_proven_mate_in_two_as_mate_2(engine: chess.engine.SimpleEngine) -> None:
    """A proof two moves deep (the suite's mate2-01, confirmed by Stockfish), on a fixed
    number of iterations (``go nodes`` counts them for the tree searches), not a clock."""
    engine.configure({"Algorithm": "mcts"})
    board = chess.Board("r1b1r1k1/1p3pp1/p1n5/2p2P1p/P1PpB2q/NP3Rb1/1B2P3/RN1Q2K1 b - - 1 18")
    info = engine.analyse(board, chess.engine.Limit(nodes=3000))
    assert info["pv"][0] == chess.Move.from_uci("h4h2")
    assert info["score"].relative == chess.engine.Mate(2)


def test_multipv_gives_the_best_moves_in_order(engine: chess.engine.SimpleEngine) -> None:
    engine.configure({"Algorithm": "bfms"})
    infos = engine.analyse(chess.Board(), chess.engine.Limit(nodes=2000), multipv=3)
    assert [i["multipv"] for i in infos] == [1, 2, 3]
    assert len({i["pv"][0] for i in infos}) == 3


def test_plays_a_short_game_against_itself_with_clocks(
    engine: chess.engine.SimpleEngine,
) -> None:
    engine.configure({"Algorithm": "bfms"})
    board = chess.Board()
    clock = {chess.WHITE: 3.0, chess.BLACK: 3.0}
    for _ in range(8):
        start = time.perf_counter()
        limit = chess.engine.Limit(
            white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
            white_inc=0.02, black_inc=0.02,
        )  # fmt: skip
        result = engine.play(board, limit)
        spent = time.perf_counter() - start
        assert result.move in board.legal_moves
        clock[board.turn] += 0.02 - spent
        assert clock[board.turn] > 0, "lost on time"
        board.push(result.move)
    assert board.ply() == 8


def test_switches_to_knight_chess_through_uci_variant(
    engine: chess.engine.SimpleEngine,
) -> None:
    board = KnightChessBoard()
    for algorithm in ("uct", "bfms", "alphabeta"):
        engine.configure({"Algorithm": algorithm})
        result = engine.play(board, chess.engine.Limit(nodes=300))
        assert result.move in board.legal_moves
        board.push(result.move)
    info = engine.analyse(board, chess.engine.Limit(nodes=300))
    assert all(board.piece_type_at(m.from_square) in (chess.KNIGHT, None) for m in info["pv"])
    # and back to chess: the same process plays a chess move
    result = engine.play(chess.Board(), chess.engine.Limit(nodes=300))
    assert result.move in chess.Board().legal_moves


def test_knight_chess_game_near_the_ply_limit_finishes_by_the_rules(
    engine: chess.engine.SimpleEngine,
) -> None:
    # fullmove 100, White to move: ply 198, two plies before the 200-ply limit
    board = KnightChessBoard("n6n/8/8/3n4/8/2N5/8/N6N w - - 0 100")
    engine.configure({"Algorithm": "uct"})
    while outcome(board)[0] is None:
        board.push(engine.play(board, chess.engine.Limit(nodes=200)).move)
    assert board.ply() == 200 and outcome(board)[1] == "200-ply limit"


def test_infinite_analysis_runs_until_stopped(engine: chess.engine.SimpleEngine) -> None:
    engine.configure({"Algorithm": "uct"})
    with engine.analysis(chess.Board()) as analysis:
        time.sleep(0.4)
        assert analysis.info.get("nodes", 0) > 0
        analysis.stop()
        best = analysis.wait()
    assert best.move in chess.Board().legal_moves
