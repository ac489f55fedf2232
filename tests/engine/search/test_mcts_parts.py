"""The parts ``mcts`` is built from, one at a time: the proof rules (MCTS-Solver), the implicit
minimax value, the move-ordering prior, the quiescence leaf."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.games import make_move
from engine.core.state import MAX_MOVES
from engine.eval.evaluate import WIN, evaluate
from engine.explain.step import step_trace
from engine.rules.convert import move_to_uci, state_from_fen, uci_to_move
from engine.search.controller import SearchController
from engine.search.parts.alphabeta import SearchContext
from engine.search.parts.expand import expand_with_priors
from engine.search.parts.implicit import best_evaluated, implicit_value
from engine.search.parts.leaf import LeafCache, leaf_score
from engine.search.parts.select import select_puct
from engine.search.parts.solver import prove
from engine.search.tree import EVALUATED, NONE, NUM_LEGAL, PROVEN, ROOT, Tree, add_child
from tests.positions import random_positions


def small_tree(children: int) -> Tree:
    """A root with ``children`` children, every legal move created (nothing else set)."""
    tree = Tree(capacity=64)
    for move in range(children):
        add_child(tree.arrays, ROOT, move)
    tree.arrays[NUM_LEGAL][ROOT] = children
    return tree


def set_proven(tree: Tree, node: int, outcome: int, plies: int) -> None:
    tree.flags[node] |= PROVEN | EVALUATED
    tree.outcome[node] = outcome
    tree.value[node] = np.sign(outcome) * (WIN - 10 * plies)


def set_evaluated(tree: Tree, node: int, value: float) -> None:
    tree.flags[node] |= EVALUATED
    tree.value[node] = value


# ---------------------------------------------------------------- proofs


def test_a_node_with_a_child_proven_won_for_its_chooser_is_proven_lost() -> None:
    tree = small_tree(3)
    a, b, c = tree.children(ROOT)
    set_evaluated(tree, a, 0.4)
    set_proven(tree, b, +1, 5)  # the side to move at the root mates in 5 plies this way
    set_proven(tree, c, +1, 3)  # ... and in 3 this way
    assert prove(tree.arrays, ROOT)
    assert tree.flags[ROOT] & PROVEN
    assert tree.outcome[ROOT] == -1  # lost for the side that moved into the root
    assert tree.value[ROOT] == -(WIN - 30)  # the shortest win decides


def test_a_node_whose_children_are_all_proven_lost_for_the_chooser_is_proven_won() -> None:
    tree = small_tree(2)
    a, b = tree.children(ROOT)
    set_proven(tree, a, -1, 2)
    set_proven(tree, b, -1, 6)
    assert prove(tree.arrays, ROOT)
    assert tree.outcome[ROOT] == +1
    assert tree.value[ROOT] == WIN - 60  # the longest defence


def test_all_children_proven_with_a_draw_at_best_is_a_proven_draw() -> None:
    tree = small_tree(3)
    a, b, c = tree.children(ROOT)
    set_proven(tree, a, -1, 2)
    set_proven(tree, b, 0, 4)
    set_proven(tree, c, -1, 4)
    assert prove(tree.arrays, ROOT)
    assert tree.outcome[ROOT] == 0 and tree.value[ROOT] == 0.0


def test_one_unproven_child_without_a_winning_one_proves_nothing() -> None:
    tree = small_tree(3)
    a, b, c = tree.children(ROOT)
    set_proven(tree, a, -1, 2)
    set_proven(tree, b, 0, 4)
    set_evaluated(tree, c, -0.9)
    assert not prove(tree.arrays, ROOT)
    assert not tree.flags[ROOT] & PROVEN


def test_losses_everywhere_prove_nothing_while_some_moves_have_no_child_yet() -> None:
    tree = small_tree(2)
    tree.arrays[NUM_LEGAL][ROOT] = 5  # three legal moves were never created
    for child in tree.children(ROOT):
        set_proven(tree, child, -1, 2)
    assert not prove(tree.arrays, ROOT)


def favoured_but_proven_lost(tree: Tree) -> int:
    """Make the root's first child the one PUCT would pick by far — the best mean reward
    of its earlier visits and nearly all the prior — and then prove it lost for the
    chooser, as a deeper visit can: only the solver's rule keeps selection out of it."""
    root_kids = tree.children(ROOT)
    favoured = root_kids[0]
    tree.visits[ROOT] = 20
    for child in root_kids:
        set_evaluated(tree, child, -0.2)
        tree.visits[child] = 5
        tree.value_sum[child] = 2.0
        tree.prior[child] = 0.05
    tree.value_sum[favoured] = 4.9
    tree.prior[favoured] = 0.9
    set_proven(tree, favoured, -1, 4)
    return favoured


def test_selection_never_enters_a_child_proven_lost_for_the_chooser() -> None:
    tree = small_tree(3)
    favoured = favoured_but_proven_lost(tree)
    # alpha = 0: the mean reward alone, which still remembers the good visits
    chosen = select_puct(tree.arrays, ROOT, 1.0, 0.0, 0.0, True)
    assert chosen != NONE and chosen != favoured
    assert select_puct(tree.arrays, ROOT, 1.0, 0.0, 0.0, False) == favoured  # no solver


def test_selection_returns_none_when_every_child_is_proven_lost() -> None:
    tree = small_tree(2)
    for child in tree.children(ROOT):
        set_proven(tree, child, -1, 2)
    assert select_puct(tree.arrays, ROOT, 1.0, 1.0, 0.0, True) == NONE


# ---------------------------------------------------------------- implicit minimax


def test_the_implicit_minimax_value_is_minus_the_best_evaluated_child() -> None:
    tree = small_tree(4)
    a, b, c, _d = tree.children(ROOT)
    set_evaluated(tree, a, 0.25)
    set_evaluated(tree, b, -0.5)
    set_evaluated(tree, c, 0.75)  # d is not evaluated: it does not count
    implicit_value(tree.arrays, ROOT)
    assert tree.value[ROOT] == pytest.approx(-0.75)


def test_a_child_proven_lost_for_its_chooser_does_not_set_the_minimax_value() -> None:
    tree = small_tree(2)
    a, b = tree.children(ROOT)
    set_proven(tree, a, -1, 2)
    set_evaluated(tree, b, -0.3)
    implicit_value(tree.arrays, ROOT)
    assert tree.value[ROOT] == pytest.approx(0.3)


def test_the_best_evaluated_child_is_the_one_the_minimax_value_comes_from() -> None:
    """The child the step view names as the best reply: the highest value among the
    evaluated children, never one proven lost for its chooser."""
    tree = small_tree(4)
    a, b, c, d = tree.children(ROOT)
    for node, value in ((a, 0.2), (b, 0.5), (c, 0.1)):  # d not evaluated yet
        set_evaluated(tree, node, value)
    assert best_evaluated(tree.arrays, ROOT) == b
    tree.value[d] = 0.9  # a value, but not evaluated: it does not count
    assert best_evaluated(tree.arrays, ROOT) == b
    set_proven(tree, b, -1, 2)  # proven lost for its chooser: left out, as implicit minimax does
    assert best_evaluated(tree.arrays, ROOT) == a


# ---------------------------------------------------------------- prior


def priors_of(fen: str, game: str = "chess") -> dict[str, float]:
    s = state_from_fen(fen, game)
    tree = Tree(capacity=512)
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    child_moves = np.zeros(MAX_MOVES, dtype=np.int32)
    n = expand_with_priors(tree.arrays, ROOT, s, moves, s.copy(), child_moves, 100.0, False, 0.0)
    kids = tree.children(ROOT)
    assert len(kids) == n
    return {move_to_uci(int(tree.move[k])): float(tree.prior[k]) for k in kids}


def test_the_step_view_says_a_lazy_expansion_creates_every_child_with_its_prior() -> None:
    controller = SearchController(
        "chess", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        algorithm="mcts", params={"expand": "lazy"}, seed=3,
    )  # fmt: skip
    notes = []
    for _ in range(12):
        levels = step_trace(controller).selection
        notes += [level["note"] for level in levels if level.get("rule") == "expand"]
    assert notes
    for note in notes:
        assert note.startswith("all ") and "children created with their priors;" in note


def test_priors_are_normalised() -> None:
    for fen, game in [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "chess"),
        ("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 4", "chess"),
        ("nnnnnnnn/nnnnnnnn/8/8/8/8/NNNNNNNN/NNNNNNNN w - - 0 1", "knight"),
    ]:
        assert sum(priors_of(fen, game).values()) == pytest.approx(1.0, abs=1e-5)


def test_a_capture_of_a_bigger_piece_by_a_smaller_one_ranks_first() -> None:
    # Bxg5 takes a queen with a bishop; Qxg5 takes it with the queen (defended by
    # nothing, so also good); Qd3 is a quiet queen move.
    priors = priors_of("rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1")
    best = max(priors, key=priors.__getitem__)
    assert best == "c1g5"
    assert priors["c1g5"] > 0.5
    assert priors["c1g5"] > 10 * priors["d1d3"]


def test_a_capture_that_loses_the_capturer_ranks_below_quiet_moves() -> None:
    # Qxd5 takes a pawn that c6 defends: the queen is lost for a pawn.
    priors = priors_of("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1")
    assert priors["d1d5"] < priors["d1d2"] / 10


def test_promotion_to_a_queen_ranks_above_quiet_moves() -> None:
    priors = priors_of("8/4P3/8/8/8/8/k7/6K1 w - - 0 1")
    assert max(priors, key=priors.__getitem__) == "e7e8q"
    assert priors["e7e8q"] > priors["g1h1"] * 100


def test_in_knight_chess_taking_an_undefended_knight_ranks_first() -> None:
    priors = priors_of("8/8/8/3n4/8/4N3/8/N7 w - - 0 1", "knight")
    assert max(priors, key=priors.__getitem__) == "e3d5"


# ---------------------------------------------------------------- quiescence leaf


def score_of(fen: str, quiesce: bool, game: str = "chess", depth: int = 0) -> float:
    cache = LeafCache(1)
    ctx = SearchContext(tt_bits=8)
    s = state_from_fen(fen, game)
    args = (cache.keys, cache.scores, True, 0)
    score, cached = leaf_score(ctx.arrays, s, quiesce, depth, *args)
    assert not cached
    again, cached = leaf_score(ctx.arrays, s, quiesce, depth, *args)
    assert cached and again == pytest.approx(score)
    return score


def played(fen: str | None, moves: str, game: str = "chess") -> np.ndarray:
    s = state_from_fen(fen, game)
    for uci in moves.split():
        make_move(s, uci_to_move(s, uci))
    return s


def test_two_move_orders_to_one_position_share_its_leaf_score() -> None:
    """The transposition part of ``mcts``: the leaf table is keyed by the position's
    Zobrist key, so a position reached by another move order is answered from it, and a
    position only one ply away, or with castling rights lost on the way, is not."""
    cache, ctx = LeafCache(1), SearchContext(tt_bits=8)
    args = (cache.keys, cache.scores, True, 0)
    first = played(None, "g1f3 g8f6 b1c3 b8c6")
    score, cached = leaf_score(ctx.arrays, first, True, 0, *args)
    assert not cached
    again, cached = leaf_score(ctx.arrays, played(None, "b1c3 b8c6 g1f3 g8f6"), True, 0, *args)
    assert cached and again == pytest.approx(score, abs=1e-6)  # the table keeps float32
    # every knight out and back: the start position again, though never scored as such
    assert not leaf_score(ctx.arrays, played(None, "g1f3 g8f6 f3g1"), True, 0, *args)[1]
    leaf_score(ctx.arrays, state_from_fen(None, "chess"), True, 0, *args)
    assert leaf_score(ctx.arrays, played(None, "g1f3 g8f6 f3g1 f6g8"), True, 0, *args)[1]
    # the king went out and came back: the same squares without White's castling rights
    kings = "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1"
    leaf_score(ctx.arrays, played(kings, "e1d1 e8d8 d1e1 d8e8"), True, 0, *args)
    assert not leaf_score(ctx.arrays, played(kings, ""), True, 0, *args)[1]
    assert leaf_score(ctx.arrays, played(kings, "e1d1 e8d8 d1e1 d8e8"), True, 0, *args)[1]


def test_a_hanging_queen_is_scored_as_lost_by_the_quiescence_leaf() -> None:
    # Black's queen stands en prise to the bishop on c1: statically about even, but White
    # wins the queen.
    fen = "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1"
    assert abs(evaluate(state_from_fen(fen, "chess"))) < 0.3
    assert score_of(fen, quiesce=True) > 0.8
    assert score_of(fen, quiesce=False) == pytest.approx(evaluate(state_from_fen(fen, "chess")))


def test_the_quiescence_leaf_answers_a_check_instead_of_standing_pat() -> None:
    # Nd6+ forks the king on e8 and the queen on b7: statically Black is a queen for a
    # knight up, but in check it may not stand pat, and every evasion drops the queen.
    fen = "4k3/1q6/3N4/8/8/8/7P/K7 b - - 0 1"
    assert evaluate(state_from_fen(fen, "chess")) > 0.8
    assert score_of(fen, quiesce=True) < -0.3


def test_an_alpha_beta_leaf_search_finds_a_quiet_fork_the_quiescence_search_cannot() -> None:
    # Nc7+ forks the king and the rook on a8: a quiet move, invisible to captures alone.
    fen = "r3k3/7p/8/3N4/8/8/7P/4K3 w - - 0 1"
    assert score_of(fen, quiesce=True) < 0  # a knight against a rook
    assert score_of(fen, quiesce=True, depth=2) > 0.3  # ... until Nc7+ and Nxa8


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_a_null_window_leaf_search_that_stands_pat_at_once_equals_the_quiescence_search(
    game: str,
) -> None:
    # window_score skips the first node's move generation when the side to move stands
    # pat at or above beta; the score must be the quiescence search's own, whichever
    # window, in every position with a legal move (the walk's positions all have one; a
    # stalemate is the one exception, and expansion marks it as finished first).
    from engine.search.parts.alphabeta import QCHECKS, qsearch
    from engine.search.parts.leaf import window_score

    ctx = SearchContext(tt_bits=8)
    ctx.stats[QCHECKS] = 2 if game == "chess" else 0
    shortcuts = 0
    for s in random_positions(game, 400, seed=11):
        stand = evaluate(s)
        for beta in (stand - 0.2, stand - 1e-7, stand, stand + 1e-7, stand + 0.2):
            alpha = beta - 1e-7
            ctx.states[0] = s
            expected = qsearch(ctx.arrays, 0, alpha, beta, 3, 0)
            got = window_score(ctx.arrays, s.copy(), True, 0, alpha, beta, 3)
            assert got == expected
            shortcuts += stand >= beta
    assert shortcuts > 400  # the shortcut was taken, and agreed


def quiescence(s: np.ndarray, prune: bool) -> tuple[float, int]:
    from engine.search.parts.alphabeta import INF, NODES, QCHECKS, QPRUNE, qsearch

    ctx = SearchContext(tt_bits=8)
    ctx.stats[QCHECKS] = 2
    ctx.stats[QPRUNE] = prune
    ctx.states[0] = s
    return qsearch(ctx.arrays, 0, -INF, INF, 0, 0), int(ctx.stats[NODES])


def test_qprune_still_takes_a_hanging_queen_and_skips_a_losing_capture() -> None:
    hanging = state_from_fen("rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1")
    assert quiescence(hanging, True)[0] == quiescence(hanging, False)[0] > 0.8
    # Qxd5 loses the queen to the pawn on c6: skipped, the same score in fewer nodes.
    defended = state_from_fen("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1")
    (pruned, fewer), (full, more) = quiescence(defended, True), quiescence(defended, False)
    assert pruned == full and fewer < more


def test_qprune_searches_fewer_nodes_over_many_positions() -> None:
    pruned = full = 0
    for s in random_positions("chess", 300, seed=3):
        pruned += quiescence(s, True)[1]
        full += quiescence(s, False)[1]
    assert pruned < 0.9 * full
