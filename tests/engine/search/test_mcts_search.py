"""``mcts`` as a whole: known answers at a fixed iteration budget (every position checked with
Stockfish or, in knight chess, by exhaustive search), proofs backed up and kept across moves,
root-parallel threads, every technique switchable, the final choice."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from engine.eval.evaluate import WIN
from engine.explain.step import step_trace
from engine.rules.convert import move_to_uci
from engine.search.algorithm import (
    NOT_PROVEN,
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    ChildStats,
)
from engine.search.algorithms.mcts import MCTS
from engine.search.controller import SearchController
from engine.search.parts.implicit import implicit_value
from engine.search.tree import EVALUATED, NONE, OUTCOME, PROVEN, ROOT
from engine.uci.score import move_score

# Stockfish 15.1, depth 22: #1, #1, #2 (Qd8+ Bxd8 Re8#), #2 (Kc7 Ka7 Ra1#).
SCHOLARS_MATE = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 4"
BACK_RANK_MATE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
QUEEN_SACRIFICE_MATE = "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 0"
QUIET_MATE_IN_TWO = "k7/8/2K5/8/8/8/8/1R6 w - - 0 1"
# Stockfish: +6.3 Bxg5 (the queen), +7.5 Nxd5 (the queen, the pin on c6 holding).
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1"
PINNED_QUEEN = "2kr3r/ppp2ppp/2n5/1B1q4/8/2N5/PPP2PPP/R2QR1K1 w - - 0 1"
# Knight chess: Nxd5 takes the last knight; Black's last knight on a8 can only jump to
# b6 or c7, both covered by Nd5, so any waiting move of the other knight (Nf2, Ng3) wins
# on the third ply — our alphabeta proves exactly these two (10000 − 30, the rest bounds).
LAST_KNIGHT = "8/8/8/3n4/8/4N3/8/N7 w - - 0 1"
KNIGHT_MATE_IN_TWO = "n7/8/8/3N4/8/8/8/7N w - - 0 1"
SCHOLARS_DEFENCE = ("e2e4", "a7a6", "f1c4", "g8f6", "d1h5")  # Stockfish: ...Nxh5, −6.5
# Nxd5 takes the queen and exd5 takes the knight back: an exchange on d5.
QUEEN_FOR_KNIGHT = "r1b1kbnr/pppp1ppp/2n1p3/3q4/8/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 0 1"

BUDGET = 3000


def search(game: str, fen: str | None, moves: tuple[str, ...] = (), **kw: object) -> tuple:
    params = kw.pop("params", {})
    controller = SearchController(
        game, fen, moves=moves, algorithm="mcts", params=params, seed=1, **kw
    )
    return controller, controller.search(iterations=BUDGET)


@pytest.mark.parametrize(
    ("game", "fen", "mate", "plies"),
    [
        ("chess", SCHOLARS_MATE, {"h5f7"}, 1),
        ("chess", BACK_RANK_MATE, {"a1a8"}, 1),
        ("knight", LAST_KNIGHT, {"e3d5"}, 1),
        ("chess", QUEEN_SACRIFICE_MATE, {"d5d8"}, 3),
        ("chess", QUIET_MATE_IN_TWO, {"c6c7"}, 3),
        ("knight", KNIGHT_MATE_IN_TWO, {"h1f2", "h1g3"}, 3),
    ],
)
def test_mates_in_one_and_two_are_found_and_proven(
    game: str, fen: str, mate: set[str], plies: int
) -> None:
    _, info = search(game, fen)
    best = info.moves[0]
    assert info.bestmove in mate
    assert best.proof == PROVEN_WIN and best.mate == plies
    assert best.eval == WIN - 10 * plies
    assert info.stop_reason == "proven"  # nothing left to search once the root is proven
    assert len(info.pv) == plies


@pytest.mark.parametrize(("fen", "capture"), [(HANGING_QUEEN, "c1g5"), (PINNED_QUEEN, "c3d5")])
def test_winning_captures_are_taken(fen: str, capture: str) -> None:
    _, info = search("chess", fen)
    assert info.bestmove == capture
    assert info.moves[0].q > 0.9


def test_scholars_mate_is_defended_by_taking_the_queen() -> None:
    _, info = search("chess", None, SCHOLARS_DEFENCE)
    assert info.bestmove == "f6h5"
    assert info.moves[0].q > 0.9  # a queen up, and the search knows it


def test_the_same_seed_and_budget_repeat_exactly() -> None:
    runs = [search("chess", None)[1] for _ in range(2)]
    assert [(m.move, m.visits, m.q) for m in runs[0].moves] == [
        (m.move, m.visits, m.q) for m in runs[1].moves
    ]


def test_every_interior_value_is_the_negamax_of_its_evaluated_children() -> None:
    controller, _ = search(
        "chess", "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    )
    tree = controller.workers[0].tree
    checked = 0
    for node in range(tree.used):
        if tree.first_child[node] == NONE or tree.flags[node] & PROVEN:
            continue
        before = float(tree.value[node])
        implicit_value(tree.arrays, node)  # recomputed from the children as they stand
        assert tree.value[node] == before
        kids = [k for k in tree.children(node) if tree.flags[k] & EVALUATED]
        playable = [k for k in kids if not (tree.flags[k] & PROVEN and tree.outcome[k] < 0)]
        if playable:
            assert before == pytest.approx(-max(float(tree.value[k]) for k in playable))
            checked += 1
    assert checked > 100


def test_proofs_back_up_consistently_through_the_tree() -> None:
    controller, _ = search("chess", QUEEN_SACRIFICE_MATE)
    tree = controller.workers[0].tree
    for node in range(tree.used):
        if not tree.flags[node] & PROVEN or tree.first_child[node] == NONE:
            continue
        outcomes = [int(tree.outcome[k]) for k in tree.children(node) if tree.flags[k] & PROVEN]
        if tree.outcome[node] < 0:
            assert 1 in outcomes  # lost: the side to move has a proven win
        else:
            assert (
                len(outcomes) == len(tree.children(node)) and max(outcomes) == -tree.outcome[node]
            )


def test_tree_reuse_keeps_proofs_and_priors() -> None:
    controller, info = search("chess", QUIET_MATE_IN_TWO)
    assert info.bestmove == "c6c7"
    tree = controller.workers[0].tree
    after = next(k for k in tree.children(ROOT) if move_to_uci(int(tree.move[k])) == "c6c7")
    reply = next(k for k in tree.children(after) if move_to_uci(int(tree.move[k])) == "a8a7")
    priors = sorted(float(tree.prior[k]) for k in tree.children(reply))
    assert tree.flags[reply] & PROVEN and tree.outcome[reply] == -1
    controller.play("c6c7")
    controller.play("a8a7")
    tree = controller.workers[0].tree
    assert tree.flags[ROOT] & PROVEN and tree.arrays[OUTCOME][ROOT] == -1
    assert sorted(float(tree.prior[k]) for k in tree.children(ROOT)) == priors
    info = controller.search(iterations=100)
    assert info.stop_reason == "proven" and info.iterations == 0
    assert info.bestmove == "b1a1"
    assert info.moves[0].proof == PROVEN_WIN and info.moves[0].mate == 1
    assert info.moves[0].eval == WIN - 10  # the distance counts from the new root


def test_root_parallel_threads_merge_their_root_moves() -> None:
    controller = SearchController("chess", HANGING_QUEEN, algorithm="mcts", threads=2, seed=3)
    info = controller.search(iterations=2000)
    assert info.bestmove == "c1g5"
    assert len(info.thread_stats) == 2
    for move in info.moves:
        split = [m.visits for t in info.thread_stats for m in t.moves if m.move == move.move]
        assert sum(split) == move.visits
    info = SearchController("chess", BACK_RANK_MATE, algorithm="mcts", threads=2).search(
        iterations=500
    )
    assert info.bestmove == "a1a8" and info.moves[0].proof == PROVEN_WIN


@pytest.mark.parametrize("threads", [1, 2])
def test_the_root_table_carries_each_moves_prior(threads: int) -> None:
    """Each root move's PUCT prior reaches the table (the app's P column), the same in every
    thread's own table and in the merged one; an algorithm without priors sends none."""
    controller = SearchController("chess", HANGING_QUEEN, algorithm="mcts", threads=threads, seed=3)
    info = controller.search(iterations=600)
    priors = {m.move: m.prior for m in info.moves}
    assert all(p is not None and 0.0 < p < 1.0 for p in priors.values())
    assert sum(p for p in priors.values() if p is not None) == pytest.approx(1.0, abs=1e-6)
    # what the search itself holds for the root's children
    held = {
        move_to_uci(c.move): c.prior
        for _, c in controller.workers[0].root_children()
        if c.prior is not None
    }
    assert held == pytest.approx(priors)
    for table in info.thread_stats:
        assert {m.move: m.prior for m in table.moves} == pytest.approx(priors)
    plain = SearchController("chess", HANGING_QUEEN, algorithm="uct", seed=3)
    assert all(m.prior is None for m in plain.search(iterations=300).moves)


@pytest.mark.parametrize(
    "params",
    [
        {"solver": False},
        {"alpha": 0.0},
        {"prior": "none"},
        {"leaf": "static"},
        {"tt": False},
    ],
)
def test_each_technique_can_be_switched_off(params: dict) -> None:
    controller, info = search("chess", HANGING_QUEEN, params=params)
    assert info.bestmove == "c1g5"
    tree = controller.workers[0].tree
    if params.get("solver") is False:
        assert not any(tree.flags[: tree.used] & PROVEN)
    if params.get("prior") == "none":
        kids = tree.children(ROOT)
        assert all(tree.prior[k] == pytest.approx(1 / len(kids)) for k in kids)


def test_without_the_solver_a_mate_in_one_is_still_played() -> None:
    _, info = search("chess", BACK_RANK_MATE, params={"solver": False})
    assert info.bestmove == "a1a8"
    assert info.stop_reason == "iterations"


def child(move: int, visits: int, q: float, proof: int = NOT_PROVEN, mate: int | None = None):
    value = 0.0 if mate is None else (1 if proof == PROVEN_WIN else -1) * (WIN - 10 * mate)
    return ChildStats(
        move, visits, q * visits, value, 0.0, False, 0, proof=proof, mate=mate, prior=0.0
    )


def test_the_final_choice_takes_the_shortest_proven_win_and_avoids_proven_losses() -> None:
    params = MCTS.validate({}, "chess")

    def best(kids: list) -> int:
        return max(kids, key=lambda c: MCTS.final_rank(c, params, 1)).move

    kids = [child(1, 900, 0.7), child(2, 5, 0.9, PROVEN_WIN, 5), child(3, 1, 1.0, PROVEN_WIN, 3)]
    assert best(kids) == 3
    kids = [child(1, 900, 0.2, PROVEN_LOSS, 4), child(2, 10, 0.1), child(3, 2, 0.5, PROVEN_DRAW)]
    assert best(kids) == 2  # most visits among the moves not proven lost
    kids = [child(1, 900, 0.0, PROVEN_LOSS, 2), child(2, 3, 0.0, PROVEN_LOSS, 6)]
    assert best(kids) == 2  # every move loses: the longest defence


def test_proven_flags_match_the_reported_proof() -> None:
    controller, _info = search("chess", QUIET_MATE_IN_TWO)
    worker = controller.workers[0]
    for node, stats in worker.root_children():
        proven = bool(worker.tree.flags[node] & PROVEN)
        assert proven == (stats.proof != NOT_PROVEN)
        if worker.tree.flags[node] & EVALUATED and not proven:
            assert -1.0 <= stats.value <= 1.0


def leaf_board(controller: SearchController, leaf: int) -> chess.Board:
    """The position at tree node ``leaf``, replayed from the root with python-chess."""
    tree = controller.workers[0].tree
    moves = []
    while leaf != ROOT:
        moves.append(move_to_uci(int(tree.move[leaf])))
        leaf = int(tree.parent[leaf])
    board = controller.board.copy()
    for uci in reversed(moves):
        board.push_uci(uci)
    return board


def assert_deciding_line(controller: SearchController, sim: dict) -> None:
    """An expanded leaf's trace shows the line that decided its new value: it starts with
    the leaf's child whose value is the leaf's minimax value negated (the best reply for
    the side to move there), then that child's search line, legal from the leaf."""
    tree = controller.workers[0].tree
    leaf = sim["leaf"]["node"]
    assert sim["moves"] and len(sim["san"]) == len(sim["moves"])
    children = {move_to_uci(int(tree.move[k])): k for k in tree.children(leaf)}
    best = children[sim["moves"][0]]
    assert sim["best"]["node"] == best and sim["best"]["san"] == sim["san"][0]
    assert float(tree.value[best]) == pytest.approx(-float(tree.value[leaf]))
    assert sim["line_score"] == pytest.approx(-sim["score"])
    evaluated = [
        float(tree.value[k])
        for k in children.values()
        if tree.flags[k] & EVALUATED and not (tree.flags[k] & PROVEN and tree.outcome[k] < 0)
    ]
    assert float(tree.value[best]) == max(evaluated)
    board = leaf_board(controller, leaf)
    for uci, san in zip(sim["moves"], sim["san"], strict=True):
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves
        assert board.san(move) == san
        board.push(move)
    assert 0 <= sim["searched_plies"] <= len(sim["moves"]) - 1


@pytest.mark.parametrize(
    "params", [{}, {"expand": "lazy", "alpha": 0.3}], ids=["chess-defaults", "lazy"]
)
def test_the_step_trace_recomputes_the_kernels_own_choice_and_shows_the_quiescence_line(
    params: dict,
) -> None:
    controller = SearchController("chess", HANGING_QUEEN, algorithm="mcts", params=params, seed=1)
    kinds = set()
    lines = []  # (an expanded leaf's) the line that decided its value
    for _ in range(40):
        step = step_trace(controller)
        assert step.iterations == 1
        for level in step.selection:
            if level["rule"] != "puct":
                continue
            winners = [row for row in level["children"] if row["winner"]]
            assert len(winners) == 1 and winners[0]["chosen"], level["level"]
            for row in level["children"]:
                assert row["score"] == pytest.approx(row["q"] + row["explore"])
        sim = step.simulation
        kinds.add(sim["kind"])
        if sim["kind"] == "quiescence" and not sim["cached"]:
            assert len(sim["san"]) == len(sim["moves"])
            assert sim["reward"] == pytest.approx(0.5 * (1 + sim["score"]))
        if sim.get("expanded"):
            assert_deciding_line(controller, sim)
            lines.append(sim)
        rows = step.backpropagation
        assert [r["node"] for r in rows][-1] == ROOT
        for row in rows:
            assert row["visits_after"] == row["visits_before"] + 1
            assert "minimax_after" in row and "proof" in row
    assert "quiescence" in kinds
    if params.get("expand") != "lazy":  # (chess's default: every leaf's children scored)
        assert lines and any(len(sim["san"]) > 1 for sim in lines)
        assert any(sim["best_how"] == "searched" for sim in lines)
        # The root's expansion: the capture of the queen decided its value.
        assert lines[0]["leaf"]["node"] == ROOT and lines[0]["san"][0] == "Bxg5"
    # The capture of the queen shows its line: Bxg5 scored a queen up.
    info = controller.info()
    assert info.bestmove == "c1g5"


@pytest.mark.parametrize(
    ("params", "searched"), [({}, 2), ({"root_depth": 0}, 0)], ids=["chess-defaults", "quiescence"]
)
def test_an_expansion_step_shows_the_exchange_that_decided_the_leaf(
    params: dict, searched: int
) -> None:
    # The root's children are scored when it is expanded (its second step): Nxd5 is
    # the best of them, and its line goes on with the recapture exd5 — by the 2-ply
    # alpha-beta search near the root by default, by the quiescence search alone with
    # root_depth = 0 (the recapture is then in the line's quiescence part).
    controller = SearchController(
        "chess", QUEEN_FOR_KNIGHT, algorithm="mcts", params=params, seed=1
    )
    controller.step()  # the root's own leaf search
    sim = step_trace(controller).simulation
    assert sim["expanded"] and sim["leaf"]["node"] == ROOT
    assert_deciding_line(controller, sim)
    assert sim["best_how"] == "searched" and sim["depth"] == searched
    assert sim["san"][:2] == ["Nxd5", "exd5"]
    assert "The best reply, Nxd5, was scored exactly" in sim["note"]
    if searched:
        assert sim["searched_plies"] >= 1  # exd5: the alpha-beta part
    else:
        assert sim["searched_plies"] == 0  # exd5: the quiescence part


def test_a_proven_child_reads_as_its_result_in_the_table_and_the_tree_view() -> None:
    assert MCTS.q(child(1, 0, 0.0, PROVEN_WIN, 1)) == 1.0
    assert MCTS.q(child(2, 4, 0.75, PROVEN_LOSS, 2)) == 0.0
    assert MCTS.q(child(3, 4, 0.75)) == 0.75
    q = MCTS.q_array(
        np.array([0, 4, 4, 0]),
        np.array([0.0, 3.0, 1.0, 0.0]),
        np.array([WIN - 30, 0.2, -(WIN - 20), 0.0], dtype=np.float32),
    )
    assert q.tolist() == [1.0, 0.75, 0.0, 0.5]


def test_uci_reports_a_proven_mate_in_two_as_score_mate_2() -> None:
    _, info = search("chess", QUIET_MATE_IN_TWO)
    assert move_score("mcts", info.moves[0]).uci() == "mate 2"


def test_a_proven_node_reached_by_selection_is_not_called_a_finished_game() -> None:
    """Once a move of the mate in two is proven, the search may walk into it again: the
    step trace says its result is proven by its children, not that its game is over."""
    controller = SearchController("chess", QUIET_MATE_IN_TWO, algorithm="mcts", seed=1)
    notes = []
    for _ in range(400):
        if controller.workers[0].tree.flags[0] & PROVEN:
            break
        sim = step_trace(controller).simulation
        if sim.get("kind") == "terminal":
            notes.append((sim["finished"], sim["note"]))
    assert any(not finished for finished, _ in notes)
    for finished, note in notes:
        assert ("game is over" in note) == finished and ("proven" in note) != finished
