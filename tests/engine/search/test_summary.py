"""summarize: the record of a search kept with a move (top moves, short lines, proofs)."""

from __future__ import annotations

import chess

from engine.play import GameSession
from engine.play.review import review_plies
from engine.search.info import MoveStats, SearchInfo
from engine.search.summary import SearchSummary, summarize

START = chess.STARTING_FEN


def _row(uci: str, visits: int, q: float, **kw: object) -> MoveStats:
    board = chess.Board()
    move = chess.Move.from_uci(uci)
    return MoveStats(
        move=uci,
        san=board.san(move),
        visits=visits,
        share=visits / 100,
        q=q,
        score=0.0,
        eval=2 * q - 1,
        pv=(uci, "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6"),
        pv_san=("x",) * 10,
        **kw,  # type: ignore[arg-type]
    )


def _info(moves: list[MoveStats], fen: str = START, turn: str = "white") -> SearchInfo:
    return SearchInfo(
        algorithm="uct",
        game="chess",
        fen=fen,
        turn=turn,
        params={"c": 1.4},
        threads=1,
        seed=0,
        iterations=100,
        nodes=500,
        elapsed_ms=123.44,
        nps=810.0,
        max_depth=9,
        mean_depth=3.2,
        memory_bytes=1000,
        bytes_per_node=2.0,
        moves=tuple(moves),
        bestmove=moves[0].move if moves else None,
        pv=(),
        pv_san=(),
        extra={"reused_visits": 7},
    )


LEGAL = [m.uci() for m in chess.Board().legal_moves]


def test_the_top_twelve_moves_are_kept_with_lines_cut_to_eight_plies() -> None:
    rows = [_row(uci, 20 - i, 0.5) for i, uci in enumerate(LEGAL[:15])]
    s = summarize(_info(rows))
    assert [m.uci for m in s.moves] == LEGAL[:12]
    assert all(len(m.pv) == 8 and len(m.pv_san) == 8 for m in s.moves)
    assert s.iterations == 100 and s.reused == 7 and s.ms == 123.4 and s.nodes == 500


def test_the_move_played_is_kept_even_when_it_ranked_below_the_top() -> None:
    rows = [_row(uci, 20 - i, 0.5) for i, uci in enumerate(LEGAL[:15])]
    s = summarize(_info(rows), played=LEGAL[14])
    assert len(s.moves) == 13 and s.moves[-1].uci == LEGAL[14]


def test_a_line_end_position_is_kept_for_previews_and_a_broken_line_has_none() -> None:
    good = _row("e2e4", 60, 0.55)
    s = summarize(_info([good]))
    board = chess.Board()
    for uci in good.pv[:8]:
        board.push_uci(uci)
    assert s.moves[0].pv_fen == board.fen()
    bad = MoveStats("d2d4", "d4", 5, 0.05, 0.5, 0.0, 0.0, pv=("d2d4", "e2e4"))
    assert summarize(_info([bad])).moves[0].pv_fen is None


def test_proofs_and_mates_are_kept_for_the_side_choosing() -> None:
    s = summarize(_info([_row("e2e4", 60, 1.0, proof=1, mate=3)]))
    assert (s.moves[0].proof, s.moves[0].mate) == (1, 3)


def test_white_score_turns_the_choosers_q_into_whites() -> None:
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    row = MoveStats("e7e5", "e5", 40, 0.4, 0.7, 0.0, 0.4, pv=("e7e5",), pv_san=("e5",))
    s = summarize(_info([row], fen=fen, turn="black"))
    assert s.white_score("e7e5") == 0.3
    assert s.white_score("d7d5") is None  # no row: no opinion


def test_a_summary_survives_the_round_trip_through_a_session() -> None:
    session = GameSession("chess", human="none")
    kept = summarize(_info([_row("e2e4", 60, 0.55), _row("d2d4", 40, 0.52)]), played="e2e4")
    session.play("e2e4", by="engine", search=kept)
    again = GameSession.from_dict(session.to_dict())
    assert again.history[0].search == kept
    assert SearchSummary.from_dict(kept.to_dict()) == kept


def test_a_human_ply_is_scored_by_the_search_that_answered_it() -> None:
    session = GameSession("chess", human="white")
    session.play("e2e4")
    answer = MoveStats("e7e5", "e5", 40, 0.4, 0.7, 0.0, 0.4, pv=("e7e5",), pv_san=("e5",))
    fen = session.fen
    session.play("e7e5", by="engine", search=summarize(_info([answer], fen=fen, turn="black")))
    human, engine = review_plies(session)
    assert engine["eval"] == 0.3 and engine["search"]["bestmove"] == "e7e5"
    assert human["search"] is None and human["eval"] == 0.3  # the engine's view after e4
    assert review_plies(session, 2) == [engine]
