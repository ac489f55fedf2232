"""``mcts`` with its default parameters finds the answer of every position in the tactics
suite (``tests/data/tactics.epd``: mates in one and in two and winning captures from
Canopy's own match games, confirmed by Stockfish; see docs/tactics.md).

The issue asks for every one at 1 s; a unit test never asserts on the clock, so this is
that check made deterministic: one thread, a fixed seed and a fixed iteration budget
(about a third of what ``mcts`` reaches in 1 s here, so a slower machine that reaches
less in 1 s is still covered). ``scripts/check_tactics.py`` is the timed check.
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from engine.explain.tactics import KINDS, Tactic, found, load_tactics, search_fresh

SUITE = Path(__file__).resolve().parents[2] / "data" / "tactics.epd"
TACTICS = load_tactics(SUITE)
#: Iterations per position. In 1 s ``mcts`` ran 2,800-70,000 (median 7,900) on the
#: captures on the loaded 2-core machine the suite was made on, so this is about the median
#: over three; the hardest position, mate2-13 (a quiet first move in a position already won
#: by a mile), is proven at 1,254 (docs/tactics.md).
BUDGET = 3000
SEED = 1


def test_the_suite_holds_every_kind_from_many_games() -> None:
    for kind in KINDS:
        of_kind = [t for t in TACTICS if t.kind == kind]
        assert len(of_kind) >= 20, kind
        assert len({t.fen for t in of_kind}) == len(of_kind), kind


@pytest.mark.parametrize("tactic", TACTICS, ids=lambda t: t.id)
def test_every_accepted_move_is_legal_and_mates_where_it_should(tactic: Tactic) -> None:
    board = chess.Board(tactic.fen)
    for uci in tactic.bm:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, uci
        assert board.is_capture(move) or tactic.kind != "capture", uci
        board.push(move)
        mates = board.is_checkmate()
        board.pop()
        assert mates == (tactic.kind == "mate1"), uci


@pytest.mark.parametrize("tactic", TACTICS, ids=lambda t: t.id)
def test_mcts_finds_the_answer_at_a_fixed_budget(tactic: Tactic) -> None:
    info = search_fresh(tactic.fen, "mcts", iterations=BUDGET, seed=SEED)
    top = [(m.move, m.visits, round(m.q, 3), m.proof) for m in info.moves[:3]]
    assert found(tactic, info), (tactic.id, sorted(tactic.bm), info.bestmove, top)
