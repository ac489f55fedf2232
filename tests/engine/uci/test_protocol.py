"""Protocol behaviour of the UCI engine, driven in-process line by line."""

from __future__ import annotations

import threading
import time

import chess
import pytest

from engine.uci.engine import LineWriter, UciEngine
from tests.timing import limits


class Session:
    """An engine with its output captured; ``send`` feeds one line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self.engine = UciEngine(LineWriter(self._sink))

    def _sink(self, line: str) -> None:
        with self._lock:
            self.lines.append(line)

    def send(self, *lines: str) -> None:
        for line in lines:
            self.engine.handle(line)

    def wait(self, prefix: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if line.startswith(prefix):
                    return line
            time.sleep(0.005)
        raise AssertionError(f"no {prefix!r}; last lines: {self.lines[-5:]}")

    def bestmove(self, timeout: float = 20.0) -> tuple[str, float]:
        start = time.perf_counter()
        line = self.wait("bestmove", timeout)
        return line.split()[1], time.perf_counter() - start

    def clear(self) -> None:
        with self._lock:
            self.lines.clear()


@pytest.fixture
def uci() -> Session:
    session = Session()
    yield session
    session.send("quit")


def root_visits(line: str) -> int:
    """Sum of N= in an ``info string <algo> visits:`` line."""
    return sum(int(part.split("N=")[1].split()[0]) for part in line.split("|"))


def test_tree_reuse_keeps_the_subtree_of_the_moves_played(uci: Session) -> None:
    uci.send("setoption name Algorithm value uct", "position startpos", "isready")
    uci.send("go nodes 8000")
    best, _ = uci.bestmove()
    ponder = next(line for line in uci.lines if line.startswith("bestmove")).split()[3]
    uci.clear()
    uci.send(f"position startpos moves {best} {ponder}", "go nodes 1")
    uci.bestmove()
    visits = next(line for line in uci.lines if line.startswith("info string uct visits"))
    assert root_visits(visits) >= 5, "the second search starts from the kept subtree"
    uci.clear()
    uci.send("setoption name TreeReuse value false", f"position startpos moves {best}")
    uci.send("go nodes 1")
    uci.bestmove()
    visits = next(line for line in uci.lines if line.startswith("info string uct visits"))
    assert root_visits(visits) <= 1


@limits(0.05, 1.0, name="ready_s")
@limits(0.3, 2.0, name="stop_s")
def test_isready_is_answered_at_once_during_a_search_and_stop_is_prompt(
    uci: Session, ready_s: float, stop_s: float
) -> None:
    uci.send("setoption name Algorithm value bfms", "position startpos", "isready")
    uci.clear()
    uci.send("go infinite")
    time.sleep(0.3)
    begin = time.perf_counter()
    uci.send("isready")
    assert "readyok" in uci.lines and time.perf_counter() - begin < ready_s
    assert not any(line.startswith("bestmove") for line in uci.lines)
    begin = time.perf_counter()
    uci.send("stop")
    assert time.perf_counter() - begin < stop_s
    assert uci.lines[-1].startswith("bestmove ")


@limits(1.3, 3.0)
def test_ponder_search_waits_for_ponderhit_then_plays_on_its_clock(
    uci: Session, limit: float
) -> None:
    uci.send("setoption name Algorithm value uct", "position startpos moves e2e4 e7e5", "isready")
    uci.send("go ponder wtime 2000 btime 2000")
    time.sleep(0.4)
    assert not any(line.startswith("bestmove") for line in uci.lines)
    uci.send("ponderhit")
    move, seconds = uci.bestmove()
    assert seconds < limit and len(move) >= 4


@limits(0.8, 3.0)
def test_clock_search_spends_a_sensible_share_of_the_time(uci: Session, limit: float) -> None:
    uci.send("setoption name Algorithm value alphabeta", "position startpos", "isready")
    start = time.perf_counter()
    uci.send("go wtime 3000 btime 3000 winc 0 binc 0")
    uci.wait("bestmove")
    spent = time.perf_counter() - start
    assert 0.02 < spent < 3000 * 0.6 / 1000  # well within the hard limit
    uci.clear()
    start = time.perf_counter()
    uci.send("position startpos moves e2e4", "go movetime 300")
    uci.wait("bestmove")
    assert 0.28 < time.perf_counter() - start < limit  # never early; late only under load


@limits(0.5, 1.0)  # a search on that clock would think for 1.3 s
def test_a_single_legal_reply_is_played_without_thinking_on_a_clock(
    uci: Session, limit: float
) -> None:
    uci.send("position fen 7k/8/8/8/8/8/6q1/7K w - - 0 1")  # Kxg2 is the only move
    start = time.perf_counter()
    uci.send("go wtime 60000 btime 60000")
    move, _ = uci.bestmove()
    assert move == "h1g2" and time.perf_counter() - start < limit


def test_depth_limit_for_alphabeta_and_for_mcts(uci: Session) -> None:
    uci.send("setoption name Algorithm value alphabeta", "position startpos", "go depth 4")
    uci.bestmove()
    depths = [int(line.split()[2]) for line in uci.lines if line.startswith("info depth")]
    assert depths and depths[-1] == 4 and max(depths) == 4
    uci.clear()
    uci.send("setoption name Algorithm value bfms", "go depth 3")
    uci.bestmove()
    final = [line for line in uci.lines if line.startswith("info depth")][-1]
    assert int(final.split()[2]) >= 3


def test_algorithm_parameters_reach_the_search(uci: Session) -> None:
    uci.send(
        "setoption name Algorithm value alphabeta",
        "setoption name alphabeta.max_depth value 2",
        "position startpos",
        "go infinite",
    )
    time.sleep(0.3)
    uci.send("stop")
    depths = {int(line.split()[2]) for line in uci.lines if line.startswith("info depth")}
    assert depths and max(depths) <= 2


def test_searchmoves_restricts_the_move_played(uci: Session) -> None:
    uci.send("setoption name Algorithm value bfms", "position startpos")
    uci.send("go nodes 500 searchmoves a2a3 h2h3")
    move, _ = uci.bestmove()
    assert move in ("a2a3", "h2h3")


def test_multipv_prints_one_line_per_move(uci: Session) -> None:
    uci.send("setoption name MultiPV value 3", "setoption name Algorithm value uct")
    uci.send("position startpos", "go nodes 2000")
    uci.bestmove()
    final = [line for line in uci.lines if line.startswith("info depth")][-3:]
    assert [line.split()[6] for line in final] == ["1", "2", "3"]


def test_variant_switch_resets_the_position_to_the_knight_start(uci: Session) -> None:
    uci.send("position startpos moves e2e4", "setoption name UCI_Variant value knightchess", "d")
    assert any(
        line.startswith("Fen: nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w") for line in uci.lines
    )
    uci.send("position startpos", "go nodes 200")
    move, _ = uci.bestmove()
    assert move[:2] in {f"{f}{r}" for f in "abcdefgh" for r in "12"}


def test_a_claimable_draw_still_gets_a_move(uci: Session) -> None:
    moves = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8"  # threefold repetition, not claimed
    uci.send("setoption name Algorithm value alphabeta", f"position startpos moves {moves}")
    uci.send("go nodes 2000")
    move, _ = uci.bestmove()
    assert move != "(none)"
    assert any("a draw can be claimed here" in line for line in uci.lines)


def test_info_lines_are_throttled(uci: Session) -> None:
    uci.send("setoption name Algorithm value uct", "position startpos", "isready")
    uci.clear()
    uci.send("go movetime 1500")
    uci.bestmove(timeout=10)
    infos = [line for line in uci.lines if line.startswith("info depth")]
    assert 2 <= len(infos) <= 16  # a few a second, not one per snapshot


def info_field(line: str, name: str) -> int:
    """The number after ``name`` in an ``info`` line."""
    tokens = line.split()
    return int(tokens[tokens.index(name) + 1])


def last_info(uci: Session) -> str:
    return [line for line in uci.lines if line.startswith("info depth")][-1]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_go_depth_on_alphabeta_ends_right_after_that_depth(uci: Session, depth: int) -> None:
    # A shallow iteration takes well under a snapshot interval, so a limit watched on
    # snapshots overshot (go depth 2 reported depth 4); deepening must end at N itself.
    uci.send("setoption name Algorithm value alphabeta", "position startpos", "isready")
    uci.send(f"go depth {depth}")
    best, _ = uci.bestmove()
    infos = [line for line in uci.lines if line.startswith("info depth")]
    assert [info_field(line, "depth") for line in infos][-1] == depth
    assert max(info_field(line, "depth") for line in infos) == depth
    assert infos[-1].split(" pv ")[1].split()[0] == best, "bestmove is depth N's best move"


def test_go_depth_after_a_deeper_search_of_the_same_position_reports_that_depth(
    uci: Session,
) -> None:
    uci.send("setoption name Algorithm value alphabeta", "position startpos", "isready")
    uci.send("go movetime 150")
    uci.bestmove()
    assert info_field(last_info(uci), "depth") > 2
    uci.clear()
    uci.send("position startpos", "go depth 2")
    uci.bestmove()
    assert info_field(last_info(uci), "depth") == 2
    uci.clear()
    uci.send("position startpos", "go movetime 100")  # the cap is for one search only
    uci.bestmove()
    assert info_field(last_info(uci), "depth") > 2


def test_a_lower_max_depth_option_wins_over_go_depth(uci: Session) -> None:
    uci.send(
        "setoption name Algorithm value alphabeta",
        "setoption name alphabeta.max_depth value 2",
        "position startpos",
        "go depth 5",
    )
    uci.bestmove()
    assert info_field(last_info(uci), "depth") == 2


@pytest.mark.parametrize("nodes", [50, 500, 1500, 5000])
def test_go_nodes_on_alphabeta_searches_exactly_that_many_nodes(uci: Session, nodes: int) -> None:
    # The kernel once looked at its node limit only every 1024 nodes: go nodes 500 searched 1,132.
    uci.send("setoption name Algorithm value alphabeta", "position startpos", "isready")
    uci.send(f"go nodes {nodes}")
    best, _ = uci.bestmove()
    assert info_field(last_info(uci), "nodes") == nodes
    assert best != "(none)"


@pytest.mark.parametrize(("algorithm", "threads"), [("uct", 1), ("uct", 2), ("bfms", 2)])
def test_go_nodes_on_mcts_runs_exactly_that_many_iterations(
    uci: Session, algorithm: str, threads: int
) -> None:
    uci.send(
        f"setoption name Algorithm value {algorithm}",
        f"setoption name Threads value {threads}",
        "position startpos",
        "isready",
    )
    uci.send("go nodes 501")
    uci.bestmove()
    assert info_field(last_info(uci), "nodes") == 501


def test_infinite_search_that_reaches_its_depth_shows_it_before_stop(uci: Session) -> None:
    uci.send("setoption name Algorithm value alphabeta", "position startpos", "isready")
    uci.send("go infinite depth 3")
    line = uci.wait("info depth")
    assert info_field(line, "depth") == 3
    time.sleep(0.1)
    assert not any(line.startswith("bestmove") for line in uci.lines), "infinite waits for stop"
    uci.send("stop")
    assert uci.lines[-1].startswith("bestmove ")
    assert info_field(last_info(uci), "depth") == 3


@pytest.mark.parametrize("algorithm", ["uct", "mcts"])
def test_infinite_analysis_goes_on_past_the_node_budget_until_stop(
    uci: Session, algorithm: str
) -> None:
    """A tree of 1,000 nodes fills in a fraction of a second: the search says so once and
    goes on (its tree folded to make room) until ``stop``, which gets a best move."""
    uci.send(
        f"setoption name Algorithm value {algorithm}",
        "setoption name NodeBudget value 1000",
        "position startpos",
        "isready",
    )
    uci.clear()
    uci.send("go infinite")
    full = uci.wait("info string the tree is full")
    deadline = time.monotonic() + 20
    nodes: list[int] = []
    while len(set(nodes)) < 3 and time.monotonic() < deadline:  # three counts since
        after = list(uci.lines)[uci.lines.index(full) :]
        nodes = [info_field(line, "nodes") for line in after if line.startswith("info depth")]
        time.sleep(0.05)
    assert len(set(nodes)) >= 3 and nodes == sorted(nodes)
    assert not any(line.startswith("bestmove") for line in uci.lines), "infinite waits for stop"
    uci.send("stop")
    best = uci.lines[-1].split()
    assert best[0] == "bestmove" and chess.Move.from_uci(best[1]) in chess.Board().legal_moves
    said = [line for line in uci.lines if line.startswith("info string the tree is full")]
    assert len(said) == 1 and "folded" in said[0]
