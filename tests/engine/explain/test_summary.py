"""summarize: the record of a search kept with a move (top moves, short lines, proofs)."""

from __future__ import annotations

import chess

from engine.explain.summary import SearchSummary, summarize
from engine.play import GameSession
from engine.play.review import review_plies
from engine.search.info import MoveStats, SearchInfo

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
    assert [m.move for m in s.moves] == LEGAL[:12]
    assert all(len(m.pv) == 8 and len(m.pv_san) == 8 for m in s.moves)
    assert s.iterations == 100 and s.reused == 7 and s.ms == 123.4 and s.nodes == 500


def test_the_move_played_is_kept_even_when_it_ranked_below_the_top() -> None:
    rows = [_row(uci, 20 - i, 0.5) for i, uci in enumerate(LEGAL[:15])]
    s = summarize(_info(rows), played=LEGAL[14])
    assert len(s.moves) == 13 and s.moves[-1].move == LEGAL[14]


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


#: An engine move's search as the games database holds it (``SearchSummary.to_dict`` of an
#: ``mcts`` search of a mate in one, made by the code of commit 3572a9c), with a row added
#: whose numbers were not kept (null).
STORED = {
    "algorithm": "mcts",
    "params": {"c_puct": 0.25, "c_root": 1.0, "alpha": 1.0, "expand": "evaluate", "eval": "hand"},
    "threads": 1,
    "iterations": 2,
    "reused": 0,
    "ms": 1.0,
    "nodes": 21,
    "depth": 1,
    "fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "turn": "white",
    "bestmove": "d1d8",
    "stop_reason": "proven",
    "moves": [
        {
            "uci": "d1d8",
            "san": "Rd8#",
            "visits": 0,
            "share": 0.0,
            "q": 1.0,
            "eval": 9990.0,
            "pv": ["d1d8"],
            "pv_san": ["Rd8#"],
            "pv_fen": "3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1",
            "proof": 1,
            "mate": 1,
        },
        {
            "uci": "h2h4",
            "san": "h4",
            "visits": 0,
            "share": 0.0,
            "q": 0.5,
            "eval": 1.0,
            "pv": ["h2h4"],
            "pv_san": ["h4"],
            "pv_fen": "6k1/5ppp/8/8/7P/8/5PP1/3R2K1 b - - 0 1",
            "proof": 0,
            "mate": None,
        },
        {
            "uci": "g2g3",
            "san": "g3",
            "visits": 3,
            "share": None,
            "q": None,
            "eval": None,
            "pv": [],
            "pv_san": [],
            "pv_fen": None,
            "proof": 0,
            "mate": None,
        },
    ],
}


def test_a_stored_search_loads_and_is_stored_again_unchanged() -> None:
    kept = SearchSummary.from_dict(STORED)
    assert kept.to_dict() == STORED
    row = kept.move("d1d8")
    assert row is not None and (row.san, row.proof, row.mate, row.eval) == ("Rd8#", 1, 1, 9990.0)
    assert kept.white_score("d1d8") == 1.0  # proven at once: no visits, still an opinion
    assert kept.white_score("g2g3") is None  # its Q was not kept


def test_an_older_row_with_only_its_move_loads_with_nothing_known() -> None:
    kept = SearchSummary.from_dict({**STORED, "moves": [{"uci": "d1d8"}]})
    row = kept.moves[0]
    assert (row.move, row.san, row.visits, row.proof, row.pv) == ("d1d8", "d1d8", 0, 0, ())
    assert kept.white_score("d1d8") is None
