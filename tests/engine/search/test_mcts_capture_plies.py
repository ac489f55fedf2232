"""``mcts``'s optional capture-first plies (``capture_plies``): a leaf scored on its own
first plays up to that many moves at random — a capture whenever there is one, the
reference controller's playout policy — and then runs its quiescence search, so the
leaf's score is a sample of where those plies led."""

from __future__ import annotations

import chess
import pytest

from engine.core.games import make_move
from engine.rules.convert import state_from_fen, uci_to_move
from engine.rules.knight import KnightChessBoard
from engine.search.controller import SearchController
from tests.engine.search.test_mcts_deeper import exact

OPEN_POSITION = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
KNIGHTS_IN_CONTACT = "8/8/3n4/8/2N1N3/8/8/8 w - - 0 1"


def traces(game: str, fen: str, params: dict, steps: int, seed: int = 1) -> list:
    controller = SearchController(game, fen, algorithm="mcts", params=params, seed=seed)
    return [controller.step() for _ in range(steps)]


def board_of(game: str, fen: str | None) -> chess.Board:
    if game == "knight":
        return KnightChessBoard(fen) if fen else KnightChessBoard()
    return chess.Board(fen) if fen else chess.Board()


def path_moves(trace) -> list[str]:
    """The moves the selection walked from the root to the leaf."""
    return [level["chosen"]["move"] for level in trace.selection]


@pytest.mark.parametrize(("game", "fen"), [("chess", OPEN_POSITION), ("knight", None)])
def test_the_random_plies_take_a_capture_whenever_one_exists(game: str, fen: str | None) -> None:
    params = {"expand": "lazy", "capture_plies": 3}
    seen = 0
    for trace in traces(game, fen, params, 40):
        sim = trace.simulation
        if sim.get("kind") not in ("quiescence", "evaluation") or sim.get("cached"):
            continue
        board = board_of(game, fen)
        for uci in path_moves(trace):
            board.push_uci(uci)
        assert sim["random_plies"] <= 3
        for uci in sim["moves"][: sim["random_plies"]]:
            move = chess.Move.from_uci(uci)
            assert move in board.legal_moves
            if any(board.is_capture(m) for m in board.legal_moves):
                assert board.is_capture(move), f"{uci} is quiet beside a capture in {board.fen()}"
            board.push(move)
            seen += 1
    assert seen > 20


def test_the_leaf_score_is_the_quiescence_search_where_the_random_plies_stopped() -> None:
    controller = SearchController(
        "chess", OPEN_POSITION, algorithm="mcts", seed=3,
        params={"expand": "lazy", "capture_plies": 2, "tt": False, "root_depth": 0},
    )  # fmt: skip
    checked = 0
    for _ in range(30):
        trace = controller.step()
        sim = trace.simulation
        if sim.get("kind") != "quiescence" or sim["random_plies"] != 2:
            continue
        s = state_from_fen(OPEN_POSITION, "chess")
        for uci in path_moves(trace) + sim["moves"][:2]:
            make_move(s, uci_to_move(s, uci))
        # two plies on, the side to move is the leaf's again: the score's sign is its own
        assert sim["score"] == pytest.approx(-exact(s, 0), abs=1e-6)
        checked += 1
    assert checked >= 5


def test_the_same_seed_plays_the_same_random_plies() -> None:
    params = {"expand": "lazy", "capture_plies": 4}
    first = [t.simulation.get("moves") for t in traces("knight", None, params, 25, seed=9)]
    again = [t.simulation.get("moves") for t in traces("knight", None, params, 25, seed=9)]
    other = [t.simulation.get("moves") for t in traces("knight", None, params, 25, seed=10)]
    assert first == again
    assert first != other


def test_without_capture_plies_the_leaf_is_the_quiescence_search_alone() -> None:
    for trace in traces("chess", OPEN_POSITION, {"expand": "lazy"}, 20):
        assert trace.simulation.get("random_plies", 0) == 0
        assert "at random" not in trace.simulation.get("note", "")


def test_the_step_view_names_the_random_plies() -> None:
    notes = [
        t.simulation["note"]
        for t in traces("chess", OPEN_POSITION, {"expand": "lazy", "capture_plies": 1}, 20)
        if t.simulation.get("random_plies")
    ]
    assert notes and all("1 ply at random, captures first" in note for note in notes)


def test_a_capture_first_ply_finds_the_knight_a_quiescence_search_would_also_take() -> None:
    """Knight chess, two white knights attacking one black one: whatever the random ply,
    the leaf sees White a knight up or better — the search plays Nxd6."""
    info = SearchController(
        "knight", KNIGHTS_IN_CONTACT, algorithm="mcts", seed=1,
        params={"expand": "lazy", "capture_plies": 2},
    ).search(iterations=300)  # fmt: skip
    assert info.bestmove in ("c4d6", "e4d6")
