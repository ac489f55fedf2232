"""``mcts``'s two ways of searching deeper where the tree returns: an expansion that scores
every child at once (``expand=evaluate``, a principal-variation search over the children)
and a leaf scored again, one ply deeper, each time it is visited before its expansion
(``deepen``). Each keeps the known answers, and each value in the tree is what the search
it names returns."""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine.core.convert import move_to_uci, state_from_fen
from engine.core.games import make_move
from engine.core.state import MAX_MOVES
from engine.search.algorithm import PROVEN_LOSS, PROVEN_WIN
from engine.search.algorithms.mcts import ENDGAME_ROOT_PLIES, FULL_TREE_PLIES, pieces
from engine.search.alphabeta_core import QCHECKS, QPRUNE, SearchContext
from engine.search.controller import SearchController
from engine.search.evaluation import PLY_PENALTY, WIN
from engine.search.parts.implicit import implicit_value
from engine.search.parts.leaf import LeafCache, leaf_score
from engine.search.tree import EVALUATED, NONE, PARTIAL, PROVEN, ROOT, TERMINAL
from tests.engine.search.test_mcts_search import (
    HANGING_QUEEN,
    PINNED_QUEEN,
    QUIET_MATE_IN_TWO,
    SCHOLARS_DEFENCE,
    SCHOLARS_MATE,
)

MODES = [
    {"expand": "evaluate", "alpha": 1.0},
    {"expand": "evaluate", "leaf_depth": 1},
    {"deepen": 2},
    {"expand": "evaluate", "alpha": 1.0, "cut": True},
    {"expand": "evaluate", "alpha": 1.0, "root_depth": 3},
]
RESEARCH_NOTE = re.compile(r"visit (\d+) of a leaf not yet expanded, its (\d+)\w\w scoring")
ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def search(fen: str | None, params: dict, iterations: int, moves: tuple[str, ...] = ()):
    """``params`` on top of the defaults, but with ``root_depth = 0`` unless they name it
    (the chess default is 2): each test names the depths it checks."""
    params = {"root_depth": 0, **params}
    controller = SearchController(
        "chess", fen, moves=moves, algorithm="mcts", params=params, seed=1
    )
    return controller, controller.search(iterations=iterations)


def root_visits(fen: str, params: dict, iterations: int = 300) -> list[int]:
    """The visits of the root's children after a search of ``fen`` with ``params``: what
    an exploration weight changes."""
    controller, _ = search(fen, params, iterations)
    tree = controller.workers[0].tree
    return [int(tree.visits[k]) for k in tree.children(ROOT)]


def exact(state: np.ndarray, depth: int, qchecks: int = 2, qprune: bool = True) -> float:
    """The leaf search's own score of ``state`` for its side to move, full window, no table
    (with the chess defaults' quiet checks and exchange pruning unless told)."""
    ctx = SearchContext(tt_bits=12)
    ctx.stats[QCHECKS] = qchecks
    ctx.stats[QPRUNE] = qprune
    cache = LeafCache(1)
    score, _ = leaf_score(ctx.arrays, state, True, depth, cache.keys, cache.scores, False, 1)
    return min(1.0, max(-1.0, score))


def position(tree, root_state: np.ndarray, node: int) -> np.ndarray:
    moves = []
    while node != ROOT:
        moves.append(int(tree.move[node]))
        node = int(tree.parent[node])
    s = root_state.copy()
    for m in reversed(moves):
        make_move(s, m)
    return s


@pytest.mark.parametrize("params", MODES)
@pytest.mark.parametrize(("fen", "answer"), [(HANGING_QUEEN, "c1g5"), (PINNED_QUEEN, "c3d5")])
def test_winning_captures_are_taken(params: dict, fen: str, answer: str) -> None:
    assert search(fen, params, 600)[1].bestmove == answer


@pytest.mark.parametrize("params", MODES)
def test_mates_are_proven_and_the_scholars_mate_defended(params: dict) -> None:
    for fen, mate in ((SCHOLARS_MATE, "h5f7"), (QUIET_MATE_IN_TWO, "c6c7")):
        info = search(fen, params, 3000)[1]
        assert info.bestmove == mate and info.moves[0].proof == PROVEN_WIN
    assert search(None, params, 600, SCHOLARS_DEFENCE)[1].bestmove == "f6h5"


@pytest.mark.parametrize("leaf_depth", [0, 1])
def test_an_evaluating_expansion_scores_the_best_child_exactly_and_bounds_the_rest(
    leaf_depth: int,
) -> None:
    params = {"expand": "evaluate", "leaf_depth": leaf_depth, "tt": False}
    controller, _ = search(ITALIAN, params, 2)  # the root's evaluation, then its expansion
    tree = controller.workers[0].tree
    root_state = state_from_fen(ITALIAN, "chess")
    kids = tree.children(ROOT)
    assert len(kids) == 33 and all(tree.flags[k] & EVALUATED for k in kids)
    truth = {k: -exact(position(tree, root_state, k), leaf_depth) for k in kids}
    best = max(truth.values())
    assert float(tree.value[ROOT]) == pytest.approx(-best, abs=1e-6)
    for k in kids:  # a move shown worse than the best keeps an upper bound on its score
        assert float(tree.value[k]) >= truth[k] - 1e-6
        if truth[k] == best:
            assert float(tree.value[k]) == pytest.approx(best, abs=1e-6)
    assert sum(float(tree.prior[k]) for k in kids) == pytest.approx(1.0)
    top = max(kids, key=lambda k: tree.prior[k])
    assert float(tree.value[top]) == pytest.approx(best, abs=1e-6)  # the prior follows scores


def assert_scored_as_pvs(tree, root_state: np.ndarray, node: int, depth: int) -> None:
    """``node``'s children were scored by searches of ``depth`` plies (``eval``, the
    score they got then): the best exactly, the others no lower than their true score
    (a null window's upper bound)."""
    kids = tree.children(node)
    assert kids and all(tree.flags[k] & EVALUATED for k in kids)
    truth = {k: -exact(position(tree, root_state, k), depth) for k in kids}
    best = max(truth.values())
    for k in kids:
        assert float(tree.eval[k]) >= truth[k] - 1e-6
        if truth[k] == best:
            assert float(tree.eval[k]) == pytest.approx(best, abs=1e-6)


def test_with_root_depth_the_search_depth_flows_down_the_tree() -> None:
    """``root_depth = 3``: the root's children are scored by searches of 2 plies, their
    children by searches of 1, and from the third ply on ``leaf_depth`` (0) holds."""
    # c_root = 0: a narrow root, so 30 iterations reach the fourth ply
    params = {"expand": "evaluate", "alpha": 1.0, "root_depth": 3, "tt": False, "c_root": 0.0}
    controller, _ = search(ITALIAN, params, 30)
    tree = controller.workers[0].tree
    root_state = state_from_fen(ITALIAN, "chess")
    assert_scored_as_pvs(tree, root_state, ROOT, 2)
    seen = set()
    for node in range(1, tree.used):
        if tree.first_child[node] != NONE:
            ply = int(tree.depth[node]) + 1
            assert_scored_as_pvs(tree, root_state, node, max(0, 3 - ply))
            seen.add(ply)
    assert {2, 3, 4} <= seen  # children at plies 2 and 3 (depths 1 and 0), and beyond


def test_with_root_depth_a_lazy_leaf_is_searched_deeper_near_the_root() -> None:
    params = {"expand": "lazy", "root_depth": 2, "tt": False}
    controller, _ = search(ITALIAN, params, 60)
    tree = controller.workers[0].tree
    root_state = state_from_fen(ITALIAN, "chess")
    depths = set()
    for node in range(1, tree.used):
        if tree.flags[node] & EVALUATED and not tree.flags[node] & TERMINAL:
            depth = max(0, 2 - int(tree.depth[node]))
            s = position(tree, root_state, node)
            assert float(tree.eval[node]) == pytest.approx(-exact(s, depth), abs=1e-6)
            depths.add(depth)
    assert depths == {0, 1}


ROOK_ENDING = "8/3R1k2/2p3p1/5p2/1Pr2P2/8/4K3/8 b - - 1 49"  # two pieces: the rooks


@pytest.mark.parametrize(("fen", "depth"), [(ROOK_ENDING, 2), (ITALIAN, 0)])
def test_endgame_searches_deeper_when_few_pieces_remain(fen: str, depth: int) -> None:
    """``endgame = 4`` adds 4 − pieces plies: the rook ending's two rooks give children
    scored by searches of 2 plies; the Italian game's twelve pieces give none."""
    params = {"expand": "evaluate", "alpha": 1.0, "endgame": 4, "tt": False}
    controller, _ = search(fen, params, 2)  # the root's evaluation, then its expansion
    tree = controller.workers[0].tree
    assert_scored_as_pvs(tree, state_from_fen(fen, "chess"), ROOT, depth)


def test_endgame_root_adds_plies_that_flow_down_from_the_root() -> None:
    """``endgame_root = 4`` adds 4 − pieces plies (at most ``ENDGAME_ROOT_PLIES``) to
    ``root_depth`` (here 0), and they flow down the tree as ``root_depth``'s do: in the
    rook ending (two rooks) a node ``p`` plies below the root has its children scored by
    searches of ``2 − p − 1`` plies, ``leaf_depth``'s 0 from the second ply on. The
    Italian game's twelve pieces add nothing."""
    params = {"expand": "evaluate", "alpha": 1.0, "endgame_root": 4, "tt": False}
    controller, _ = search(ROOK_ENDING, params, 30)
    tree = controller.workers[0].tree
    root_state = state_from_fen(ROOK_ENDING, "chess")
    depths = set()
    for node in range(tree.used):
        if tree.first_child[node] != NONE:
            s = position(tree, root_state, node)
            extra = min(ENDGAME_ROOT_PLIES, 4 - pieces(s))
            depth = max(0, extra - int(tree.depth[node]) - 1)
            assert_scored_as_pvs(tree, root_state, node, depth)
            depths.add(depth)
    assert {1, 0} <= depths
    controller, _ = search(ITALIAN, params, 2)
    assert_scored_as_pvs(controller.workers[0].tree, state_from_fen(ITALIAN, "chess"), ROOT, 0)


def reused_tree(refresh: bool):
    """A 400-iteration ``root_depth = 3`` search of the Italian game, then its principal
    variation's first two moves played (the tree kept): the new root's children were
    scored at the third ply, by the quiescence search alone (``rescore`` off: it would
    have scored the well-visited ones again, deeper)."""
    params = {"expand": "evaluate", "alpha": 1.0, "root_depth": 3, "tt": False, "rescore": 0}
    controller, info = search(ITALIAN, {**params, "refresh": refresh}, 400)
    for uci in info.pv[:2]:
        controller.play(uci)
    return controller


def test_refresh_clears_the_reused_leaves_near_the_root_and_scores_them_again() -> None:
    """``refresh``: after the two moves, every childless unproven node on the new root's
    first two plies has lost its score and its parent is ``PARTIAL``; the first iteration
    scores the root's children again by 2-ply searches (each no lower than the exact
    score, a null window's bound, and exact where it beats every other child)."""
    controller = reused_tree(refresh=True)
    tree = controller.workers[0].tree
    near = list(tree.children(ROOT))
    near += [g for k in near for g in tree.children(k)]
    cleared = [n for n in near if tree.first_child[n] == NONE and not tree.flags[n] & PROVEN]
    assert cleared
    for node in cleared:
        assert not tree.flags[node] & EVALUATED
        assert tree.flags[int(tree.parent[node])] & PARTIAL
    kept = [n for n in near if tree.first_child[n] != NONE]
    assert all(tree.flags[n] & EVALUATED for n in kept)
    controller.search(iterations=1)
    root_state = state_from_fen(controller.board.fen(), "chess")
    again = [k for k in tree.children(ROOT) if k in cleared]
    assert again and all(tree.flags[k] & EVALUATED for k in again)
    truth = {k: -exact(position(tree, root_state, k), 2) for k in again}
    others = [float(tree.value[k]) for k in tree.children(ROOT) if k not in again]
    for k in again:
        assert float(tree.eval[k]) >= truth[k] - 1e-6
    top = max(again, key=truth.get)
    if truth[top] > max(others, default=-2.0):
        assert float(tree.eval[top]) == pytest.approx(truth[top], abs=1e-6)


def test_without_refresh_the_reused_tree_keeps_its_scores() -> None:
    tree = reused_tree(refresh=False).workers[0].tree
    assert all(tree.flags[k] & EVALUATED for k in tree.children(ROOT))
    assert not tree.flags[ROOT] & PARTIAL


@pytest.mark.parametrize(("expand", "scored_unvisited"), [("lazy", 0), ("evaluate", 1)])
def test_a_leaf_visited_again_is_scored_one_ply_deeper_until_it_is_expanded(
    expand: str, scored_unvisited: int
) -> None:
    """A lazy leaf is scored at its first visit, an evaluating expansion's child when its
    parent is expanded (unvisited); each later visit before the expansion scores it one
    ply deeper, ``deepen`` times, and the next visit expands it. (``rescore`` off: with it
    a child's first score may carry its parent's extra plies, test_mcts_rescore.py.)"""
    deepen = 2
    params = {"deepen": deepen, "tt": False, "expand": expand, "rescore": 0}
    controller, _ = search(ITALIAN, params, 400)
    tree = controller.workers[0].tree
    root_state = state_from_fen(ITALIAN, "chess")
    last_leaf_visits = deepen + 1 - scored_unvisited
    seen = dict.fromkeys(range(1, last_leaf_visits + 1), 0)
    for node in range(1, tree.used):
        visits = int(tree.visits[node])
        if tree.flags[node] & TERMINAL or not visits:
            continue
        if visits <= last_leaf_visits:  # scored at depth visits - 1 + scored_unvisited
            assert tree.first_child[node] == NONE
            s = position(tree, root_state, node)
            depth = visits - 1 + scored_unvisited
            assert float(tree.eval[node]) == pytest.approx(-exact(s, depth), abs=1e-6)
            seen[visits] += 1
        else:
            assert tree.first_child[node] != NONE
    assert all(count > 0 for count in seen.values())


@pytest.mark.parametrize(("expand", "scored_unvisited"), [("lazy", 0), ("evaluate", 1)])
def test_step_mode_counts_a_leaf_s_scorings_when_it_is_searched_again(
    expand: str, scored_unvisited: int
) -> None:
    """The simulation's note names the visit and the scoring: with ``expand = evaluate`` a
    child's first visit is already its second scoring (its parent's expansion scored it
    first), so it must not read like a leaf seen for the first time. Each such step's
    depth is one ply per earlier scoring."""
    controller = SearchController(
        "chess", ITALIAN, algorithm="mcts", seed=1,
        params={"deepen": 2, "tt": False, "expand": expand, "rescore": 0, "root_depth": 0},
    )  # fmt: skip
    notes: dict[int, str] = {}
    for _ in range(400):
        sim = controller.step().simulation
        match = RESEARCH_NOTE.match(sim["note"])
        if match:
            visit, scoring = int(match[1]), int(match[2])
            assert scoring == visit + scored_unvisited
            assert sim["depth"] == scoring - 1  # leaf_depth 0, one ply per earlier scoring
            notes.setdefault(visit, sim["note"])
    assert sorted(notes) == list(range(1 if scored_unvisited else 2, 4 - scored_unvisited))
    first = notes[min(notes)]
    assert ("its parent's expansion scored it first" in first) == bool(scored_unvisited)


@pytest.mark.parametrize(
    "params", [{"expand": "lazy", "alpha": 0.3}, {"expand": "evaluate", "alpha": 1.0}]
)
def test_a_full_tree_searches_on_by_scoring_its_leaves_deeper(params: dict) -> None:
    """At the node budget ``mcts`` neither stops nor grows: every iteration the limit
    asked for runs, and a leaf visited again is searched deeper (up to
    FULL_TREE_PLIES), each evaluation the search of that depth."""
    budget = 3000
    controller = SearchController(
        "chess", ITALIAN, algorithm="mcts",
        params={**params, "tt": False, "root_depth": 0, "rescore": 0},
        seed=1, node_budget=budget,
    )  # fmt: skip
    info = controller.search(iterations=4000)
    worker = controller.workers[0]
    tree = worker.tree
    assert info.iterations == 4000 and info.stop_reason != "node budget"
    assert worker.full and budget - MAX_MOVES <= tree.used <= budget
    assert info.bestmove is not None
    root_state = state_from_fen(ITALIAN, "chess")
    deeper = [
        n for n in range(1, tree.used)
        if tree.first_child[n] == NONE and tree.visits[n] >= 2
        and not tree.flags[n] & (TERMINAL | PROVEN)
    ]  # fmt: skip
    assert deeper, "no leaf was visited twice in the full tree"
    for node in deeper[:8]:
        scored_unvisited = 1 if params["expand"] == "evaluate" else 0
        plies = min(int(tree.visits[node]) - 1 + scored_unvisited, FULL_TREE_PLIES)
        s = position(tree, root_state, node)
        assert float(tree.eval[node]) == pytest.approx(-exact(s, plies), abs=1e-6)
    # step mode says why a leaf is searched again, and how deep
    for _ in range(300):
        sim = controller.step().simulation
        if "the tree is full" in sim["note"]:
            break
    else:
        pytest.fail("300 steps in a full tree and none re-scored a leaf")
    assert 1 <= sim["depth"] <= FULL_TREE_PLIES and tree.used <= budget


def test_a_budget_too_small_to_expand_the_root_still_ends_the_search() -> None:
    controller = SearchController("chess", ITALIAN, algorithm="mcts", node_budget=100)
    info = controller.search(iterations=50)
    assert info.stop_reason == "node budget"


def test_a_stalemate_scored_at_expansion_is_a_draw_once_the_search_reaches_it() -> None:
    """``expand=evaluate`` scores children without generating their moves, so a child
    that stalemates without check is first scored like any position a queen up; the
    search looks at its moves when it reaches it, and from then on it is a proven draw."""
    controller = SearchController(
        "chess", "k7/8/8/8/8/1Q6/1K6/8 w - - 0 1", algorithm="mcts", seed=1,
        params={"prior": "none", "c_puct": 10.0},
    )  # fmt: skip
    controller.search(iterations=300)
    tree = controller.workers[0].tree
    (stalemate,) = [k for k in tree.children(ROOT) if move_to_uci(int(tree.move[k])) == "b3b6"]
    assert tree.visits[stalemate] > 0
    assert tree.flags[stalemate] & TERMINAL and tree.flags[stalemate] & PROVEN
    assert int(tree.outcome[stalemate]) == 0 and float(tree.value[stalemate]) == 0.0


def test_a_cut_expansion_stops_scoring_once_a_reply_refutes_the_move_into_the_node() -> None:
    """``cut``: an evaluating expansion scores children in prior order and stops at the
    first reply that shows the move into the node no better than one of its siblings
    (alpha-beta's cut node). The node's minimax value is minus its best scored reply either way.
    Checked right after each step: the leaf's siblings are as the expansion saw them."""
    controller = SearchController(
        "chess", ITALIAN, algorithm="mcts", seed=1,
        params={"expand": "evaluate", "alpha": 1.0, "cut": True, "tt": False},
    )  # fmt: skip
    tree = controller.workers[0].tree
    cut = whole = 0
    for _ in range(200):
        trace = controller.step()
        if not trace.simulation.get("expanded"):
            continue
        node = trace.selection[-1]["chosen"]["node"] if trace.selection else ROOT
        if node == ROOT or tree.flags[node] & PROVEN:
            continue
        kids = tree.children(node)
        scored = [k for k in kids if tree.flags[k] & EVALUATED]
        values = [min(1.0, max(-1.0, float(tree.value[k]))) for k in scored]
        assert float(tree.value[node]) == pytest.approx(-max(values), abs=1e-9)
        siblings = [
            min(1.0, max(-1.0, float(tree.value[k])))
            for k in tree.children(int(tree.parent[node]))
            if k != node and tree.flags[k] & EVALUATED
        ]
        bound = -max(siblings) if siblings else float("inf")
        if len(scored) < len(kids):
            assert max(values) >= bound - 1e-9  # refuted
            cut += 1
        else:
            whole += 1
    assert cut > 10 and whole > 10


def test_a_cut_node_the_search_returns_to_has_its_other_replies_scored() -> None:
    controller, _ = search(
        ITALIAN, {"expand": "evaluate", "alpha": 1.0, "cut": True, "tt": False}, 3000
    )
    tree = controller.workers[0].tree
    revisited = [
        node for node in range(1, tree.used)
        if tree.visits[node] > 5 and tree.first_child[node] != NONE
    ]  # fmt: skip
    more = [
        node for node in revisited
        if sum(1 for k in tree.children(node) if tree.flags[k] & EVALUATED) > 1
    ]  # fmt: skip
    assert len(more) > len(revisited) // 2


def test_a_cut_node_whose_refutation_fails_has_its_other_replies_scored() -> None:
    """A cut node keeps its other replies unscored only while its best scored reply
    refutes the move into it; once that reply's value falls (a deeper search found it
    fails), the next descent through the node scores the rest, as alpha-beta tries the
    next move when the first did not cut."""
    controller = SearchController(
        "chess", ITALIAN, algorithm="mcts", seed=1,
        params={"expand": "evaluate", "alpha": 1.0, "cut": True, "tt": False},
    )  # fmt: skip
    tree = controller.workers[0].tree
    for _ in range(60):
        controller.step()
    partial = [
        k for k in tree.children(ROOT)
        if tree.flags[k] & PARTIAL and not tree.flags[k] & PROVEN
    ]  # fmt: skip
    assert partial, "no root move was cut"
    node = partial[0]
    scored = [k for k in tree.children(node) if tree.flags[k] & EVALUATED]
    for k in scored:  # every reply scored so far turns out bad for its mover
        tree.value[k] = -0.9
    implicit_value(tree.arrays, node)
    for k in tree.children(ROOT):  # and the search is steered to the node
        tree.prior[k] = 1.0 if k == node else 0.0
    before = len(scored)
    sim = controller.step().simulation
    after = [k for k in tree.children(node) if tree.flags[k] & EVALUATED]
    assert len(after) > before
    assert sim["expanded"] and "resumed" in sim["note"]
    if tree.flags[node] & PARTIAL:  # cut again, by a reply that does refute it
        siblings = [
            min(1.0, max(-1.0, float(tree.value[k])))
            for k in tree.children(ROOT) if k != node and tree.flags[k] & EVALUATED
        ]  # fmt: skip
        best = max(min(1.0, max(-1.0, float(tree.value[k]))) for k in after)
        assert best >= -max(siblings) - 1e-9


def test_a_mate_the_expansions_search_finds_proves_the_child_at_once() -> None:
    """Rxa5 wins a rook but leaves the first rank to …Qe1#. The evaluating expansion
    searches the capture first (the prior ranks it first), exactly, and its quiescence
    search's quiet checks find the mate: the move is proven lost for White then and there
    (mate in one for Black), without a visit; the other moves keep ordinary scores."""
    back_rank = "6k1/5pp1/7p/r3q3/8/8/5PPP/R5K1 w - - 0 1"
    controller, _ = search(back_rank, {"expand": "evaluate", "alpha": 1.0}, 2)
    tree = controller.workers[0].tree
    proven = {}
    for k in tree.children(ROOT):
        move = move_to_uci(int(tree.move[k]))
        if tree.flags[k] & PROVEN:
            proven[move] = k
        else:
            assert -1.0 <= float(tree.value[k]) <= 1.0
    assert list(proven) == ["a1a5"]
    capture = proven["a1a5"]
    assert tree.visits[capture] == 0 and int(tree.outcome[capture]) == -1
    assert float(tree.value[capture]) == pytest.approx(-(WIN - PLY_PENALTY * 2))
    info = controller.search(iterations=200)
    assert info.bestmove != "a1a5"
    (row,) = [m for m in info.moves if m.move == "a1a5"]
    assert row.proof == PROVEN_LOSS and row.mate == 2


def test_c_endgame_replaces_c_puct_once_few_pieces_remain() -> None:
    """The kernel, the step trace and the table all read the exploration weight from
    ``search_params``: ``c_endgame`` in the rook ending, ``c_puct`` in the Italian game."""
    from engine.search.algorithms.mcts import MCTS

    params = {"c_puct": 0.25, "c_endgame": 2.0}
    ending = MCTS.search_params(params, state_from_fen(ROOK_ENDING, "chess"))
    assert ending["c_puct"] == 2.0
    assert MCTS.search_params(params, state_from_fen(ITALIAN, "chess"))["c_puct"] == 0.25

    def visits(fen: str, c_puct: float) -> list[int]:
        return root_visits(fen, {"c_puct": c_puct, "c_endgame": 0.5})

    assert visits(ROOK_ENDING, 0.1) == visits(ROOK_ENDING, 5.0)  # c_puct is not read there
    assert visits(ITALIAN, 0.1) != visits(ITALIAN, 5.0)


def test_c_endgame_zero_leaves_c_puct_in_the_ending() -> None:
    """``c_endgame = 0`` is "off": the ending is searched with ``c_puct`` as the middlegame
    is, and the search reads it there."""
    from engine.search.algorithms.mcts import MCTS

    params = {"c_puct": 0.25, "c_endgame": 0.0}
    assert MCTS.search_params(params, state_from_fen(ROOK_ENDING, "chess")) == params

    narrow, broad = (root_visits(ROOK_ENDING, {"c_puct": c, "c_endgame": 0.0}) for c in (0.1, 5.0))
    assert narrow != broad
