"""What ``mcts`` says about itself in the views around the search: the step view's
simulation and back-up phases with their notes, a selection row's PUCT numbers, an
expansion's note, and the node card's account of how a node was scored.

It reads the search (the worker's tree, its trace slots, the kernel's depth rules) and
never the other way round: nothing in the search imports this module but the class's
one-line hooks (:mod:`~engine.search.algorithms.mcts.algorithm`). ``view`` is an
:class:`engine.search.trace.StepView`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from engine.core.bits import table_slot
from engine.core.games import make_move
from engine.core.state import HASH
from engine.eval.evaluate import is_mate_score, mate_plies
from engine.rules.convert import move_to_uci
from engine.search.algorithm import (
    NOT_PROVEN,
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    Algorithm,
    ChildStats,
    SelectionTerms,
    Worker,
)
from engine.search.algorithms.mcts.depth import (
    FULL_TREE_PLIES,
    RESCORE_GROWTH,
    RESCORE_VISITS,
    search_depth,
    untried,
    visit_plies,
)
from engine.search.algorithms.mcts.worker import MCTSChildStats, MCTSWorker
from engine.search.codes import (
    BEST_CACHED,
    BEST_EARLIER,
    BEST_MATE,
    BEST_SEARCHED,
    BEST_TERMINAL,
    F_SCORE,
    SIM_CACHED,
    SIM_EXPANDED,
    SIM_RESCORED,
    T_SIM_BEST,
    T_SIM_DEPTH,
    T_SIM_HOW,
    T_SIM_PLIES,
)
from engine.search.parts.implicit import best_evaluated
from engine.search.tree import EVALUATED, NONE, PARTIAL, PROVEN, ROOT, TERMINAL

#: How the best child's score came, as the step trace words ``BEST_*``.
BEST_HOWS = {
    BEST_EARLIER: "earlier",
    BEST_SEARCHED: "searched",
    BEST_CACHED: "table",
    BEST_TERMINAL: "game over",
    BEST_MATE: "mate",
}


def deciding_note(how: int, reply: str, depth: int, plies: int, short: int, visited: bool) -> str:
    """The step view's words for the line that decided an expanded leaf's value: how its
    best reply's score came (``BEST_*``); ``plies``: the line's length after the reply;
    ``short``: alpha-beta plies missing from its end, where the search's table answered
    for the position (or it repeated); ``visited``: a reply scored earlier has a subtree
    of its own."""
    if how == BEST_SEARCHED and not plies:  # (only a quiescence search stands pat at once)
        return (
            f"The best reply, {reply}, was scored exactly: the position after it is quiet, "
            "so the evaluation scored it"
        )
    searched = "alpha-beta, then quiescence" if depth else "quiescence"
    cut = (
        f"; it stops {ply_count(short)} short of the alpha-beta horizon, where the search "
        "stopped early (its transposition table held the position's score, or the "
        "position repeated)"
        if short
        else ""
    )
    return {
        BEST_SEARCHED: f"The best reply, {reply}, was scored exactly: shown with the line its "
        f"search played out ({searched}){cut}",
        BEST_MATE: f"The best reply, {reply}, mates: its search found the forced mate shown, "
        f"which proves it{cut}",
        BEST_CACHED: f"The best reply, {reply}, had its score in the table of leaf evaluations "
        "(a transposition), so it has no line",
        BEST_TERMINAL: f"The best reply, {reply}, ends the game: its result is its score, with "
        "no line",
        BEST_EARLIER: f"The best reply, {reply}, was scored before this step ("
        + ("its value backed up from its own subtree" if visited else "at an earlier scoring")
        + "), so this step has no line for it",
    }[how]


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st (the step view's notes)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ply_count(n: int) -> str:
    """The count with its noun, "1 ply" or "3 plies" (the step view's notes)."""
    return f"{n} {'ply' if n == 1 else 'plies'}"


# ---------------------------------------------------------------- the node card


def node_position(worker: Worker, node: int) -> np.ndarray:
    """``node``'s position, replayed from the worker's root by the engine's own move
    function: the tree keeps no position and no Zobrist key per node, and one node's
    path is a few moves (the card asks for one)."""
    s = worker.root.copy()
    for n in worker.tree.path(node):
        make_move(s, int(worker.tree.move[n]))
    return s


def own_depths(worker: Worker, node: int) -> tuple[int, int]:
    """The lowest and the highest number of alpha-beta plies (before the quiescence
    search or the evaluation) the search that gave ``node`` its present score can have
    had, by the rules :func:`mcts_iteration` and :func:`score_children` follow; the tree
    keeps no depth per score.

    The two differ only with ``expand=evaluate`` and ``rescore``, for a node tried since
    its parent's scoring: the rescore plies its parent has earned by now
    (:func:`visit_plies` of its visits at its latest walk, one fewer than now — the
    visits its step counted) may have come after the node's score. A child not tried yet
    was scored again at each of them (:func:`rescore_children`), so its depth is known,
    and it is the one the step view reported (``T_SIM_DEPTH``). In a tree kept from the
    previous move, a score that ``refresh`` did not renew was searched before the move,
    two plies further from that root."""
    tree, kp, params = worker.tree, worker.kparams, worker.params
    visits = int(tree.visits[node])
    has_kids = int(tree.first_child[node]) != NONE
    own = int(search_depth(kp, int(tree.depth[node])))  # a leaf scored on its own
    if node == ROOT:  # a leaf at the first iteration, never re-scored
        return own, own
    if params["expand"] != "evaluate":  # scored at its first visit
        # a full tree's leaf: one ply deeper at each visit since (mcts_iteration)
        scorings = 0 if has_kids else max(0, visits - 1)
        depth = own + min(scorings, FULL_TREE_PLIES)
        return depth, depth
    parent = int(tree.parent[node])
    earned = int(visit_plies(kp, max(0, int(tree.visits[parent]) - 1)))
    low, high = 0, earned  # rescore plies of the parent's scoring of it
    if untried(tree.arrays, node) and not tree.flags[parent] & PROVEN:
        low = high  # scored again at each rescore step of its parent
    if not visits or has_kids:  # its parent's scoring of it stands
        return own + low, own + high
    # A full tree's leaf, searched again at each visit, counting on from the depth of its
    # parent's scoring of it (the rescore plies the parent had then) plus one ply a
    # scoring, capped. That visit came at the parent's walk ``visits + 1`` or later (the
    # parent is walked through at each of the node's visits): the parent had those
    # rescore plies at least.
    low = min(high, max(low, int(visit_plies(kp, visits + 1))))
    return (
        own + min(low + visits, FULL_TREE_PLIES),
        own + min(high + visits, FULL_TREE_PLIES),
    )


def node_scoring(worker: Worker, node: int) -> dict[str, Any] | None:
    """The node card's account of how ``node`` and its children were scored: the node's
    own leaf score (its quiescence or alpha-beta score, ``eval``), the depths its search
    and its children's had, whether every child is scored (``PARTIAL``: not while a
    refutation stops the scoring) and whether the leaf table holds the position now: what
    the step view shows as it happens, kept for the card. Every score is for the side that
    moved into the node, as its minimax value."""
    if not isinstance(worker, MCTSWorker):
        return None
    tree, kp, params = worker.tree, worker.kparams, worker.params
    flags = int(tree.flags[node])
    s = node_position(worker, node)
    evaluate = params["expand"] == "evaluate"
    scored = bool(flags & EVALUATED)
    terminal = bool(flags & TERMINAL)
    depths = own_depths(worker, node) if scored and not terminal else None
    kids = tree.children(node)
    children_depth = rescore_plies = None
    if kids and evaluate:  # what its latest walk scored untried children at
        rescore_plies = int(visit_plies(kp, max(0, int(tree.visits[node]) - 1)))
        children_depth = int(search_depth(kp, int(tree.depth[node]) + 1)) + rescore_plies
    key = np.uint64(s[HASH])
    cache = worker.extra.cache
    slot = int(table_slot(cache.keys, key))
    in_table = bool(params["tt"]) and int(cache.keys[slot]) == int(key)
    return {
        # for the side that moved into the node, as its minimax value (the root: the side
        # not to move there)
        "score": float(tree.eval[node]) if scored else None,
        "scored_by": "game over" if terminal else params["leaf"] if scored else None,
        "depth": depths[0] if depths else None,
        "depth_max": depths[1] if depths else None,
        "expand": params["expand"],
        "children": len(kids),
        "children_scored": sum(1 for k in kids if tree.flags[k] & EVALUATED),
        "partial": bool(flags & PARTIAL),
        "children_depth": children_depth,
        "rescore_plies": rescore_plies,
        "key": f"{int(key):016x}",
        "tt": bool(params["tt"]),
        "table_depth": 0,  # the table keeps quiescence scores (no alpha-beta plies)
        "in_table": in_table,
        # the table keeps the score for the side to move in the position: negated here
        "table_score": -float(cache.scores[slot]) if in_table else None,
    }


# ---------------------------------------------------------------- the step view


def expansion_note(new_count: int) -> str:
    """The note of a selection level whose chosen child this iteration created."""
    return (
        f"all {new_count} children created with their priors; the one with the "
        "best PUCT score (unevaluated: urgency + c·P·sqrt(N)) is evaluated"
    )


def selection_row(child: ChildStats, terms: SelectionTerms) -> dict[str, Any]:
    """The generic selection row with the PUCT terms' own numbers: the prior, whether
    the child is evaluated, its minimax value and mean reward, its proof."""
    row = Algorithm.selection_row(child, terms)
    if isinstance(child, MCTSChildStats):
        row.update(
            prior=child.prior,
            evaluated=child.evaluated,
            minimax=child.value if child.evaluated else None,
            q_mean=child.value_sum / child.visits if child.visits else None,
        )
    row.update(proof=child.proof, mate=child.mate)
    return row


def as_before(stats: ChildStats, flags: int) -> ChildStats:
    """Evaluated-unvisited and the proof as the flags had them before the step (a
    child evaluated or proven by this very step was neither when it was chosen)."""
    if not isinstance(stats, MCTSChildStats):
        return stats
    evaluated = bool(flags & EVALUATED) and stats.visits == 0
    if flags & PROVEN:
        return replace(stats, evaluated_unvisited=evaluated)
    return replace(stats, evaluated_unvisited=evaluated, proof=NOT_PROVEN, mate=None)


def simulation_trace(view: Any) -> dict[str, Any] | None:
    """The quiescence line from the leaf (captures, promotions, evasions, early
    checks) and its score, or the table's cached score, and the reward. A leaf whose
    children were scored instead (``expand=evaluate``, ``rescore``, a resumed scoring)
    has the line that decided its new value: its best reply and that reply's search
    line (:meth:`deciding_line`)."""
    worker, tree = view.worker, view.tree
    plies = int(worker.info[T_SIM_PLIES])
    moves = [move_to_uci(int(m)) for m in worker.record[:plies]]
    path_moves = [move_to_uci(int(tree.move[n])) for n in view.path[1:]]
    san = view.sans.line(path_moves + moves)[len(path_moves) :]
    cached = view.status == SIM_CACHED
    expanded = view.status in (SIM_EXPANDED, SIM_RESCORED)
    leaf = view.params["leaf"]
    depth = int(worker.info[T_SIM_DEPTH])
    depth_text = ply_count(depth)
    searched = f"an alpha-beta search of {depth_text}, then " if depth else ""
    if view.status == SIM_RESCORED:
        kids = tree.children(view.leaf)
        fresh = sum(1 for k in kids if untried(tree.arrays, k))  # the ones scored again
        visits = int(view.before_visits[view.leaf])
        note = (
            f"the search came back to this node for the {ordinal(visits + 1)} time, so "
            f"its {fresh} untried {'move was' if fresh == 1 else 'moves were'} "
            f"scored again by alpha-beta searches of {depth_text} and quiescence, "
            "deeper than their first scoring (rescore: one ply more at "
            f"{RESCORE_VISITS} visits, and at each {RESCORE_GROWTH} times "
            "as many); the reward is the node's new minimax value"
        )
    elif view.status == SIM_EXPANDED:
        leaf_node = view.leaf
        kids = tree.children(leaf_node)
        scored = sum(1 for k in kids if tree.flags[k] & EVALUATED)
        if not view.created:
            note = (
                "scoring resumed: not every reply here had its score (refresh cleared "
                "those of the kept tree's leaves near the new root, or a stopped search "
                f"cut the scoring short), so the others were scored ({scored} of "
                f"{len(kids)} now); the reward is its new minimax value"
            )
        else:
            how = f" by an alpha-beta search of {depth_text} and quiescence" if depth else ""
            note = (
                f"the leaf was expanded and every child scored{how} (the first exactly, "
                "the others with a null window at the best so far); the reward is its "
                "minimax value"
            )
    elif cached:
        note = "the position's score was in the table of leaf evaluations (a transposition)"
    elif leaf == "quiescence":
        note = searched + (
            "quiescence search: captures and promotions (every evasion in check, quiet "
            "checks in its first plies) until the position is quiet, then the evaluation"
        )
    else:
        note = searched + "the static evaluation of the leaf"
    leaf_node = view.leaf
    existed = leaf_node < view.used
    before = int(view.before_visits[leaf_node]) if existed else 0
    scored = existed and bool(view.before_flags[leaf_node] & EVALUATED)
    if view.status not in (SIM_EXPANDED, SIM_RESCORED, SIM_CACHED) and scored:
        # Scored before: at its earlier visits and, with expand = evaluate, once more
        # when its parent was expanded — so even its first visit can be a re-search.
        first = view.params["expand"] == "evaluate"
        scoring = ordinal(before + (2 if first else 1))
        why = " (its parent's expansion scored it first)" if first and not before else ""
        if worker.full:
            why += " — the tree is full (node budget), so it is searched deeper"
        prefix = f"visit {before + 1} of a leaf not yet expanded, its {scoring} scoring"
        note = f"{prefix}{why}: {note}"
    trace = {
        "kind": "quiescence" if leaf == "quiescence" else "evaluation",
        "leaf": view.name(view.leaf),
        "moves": moves,
        "san": list(san),
        "score": float(worker.finfo[F_SCORE]),
        "reward": view.reward,
        "cached": cached,
        "depth": depth,
        "expanded": expanded,
        "rescored": view.status == SIM_RESCORED,
        "note": note,
    }
    if expanded:
        trace.update(deciding_line(view, depth))
        line_note = trace.pop("line_note")
        trace["note"] = f"{note}. {line_note}" if line_note else note
    return trace


def deciding_line(view: Any, depth: int) -> dict[str, Any]:
    """The line that decided the new value of a leaf whose children were just scored:
    its best child for the side to move there (the one whose value, negated, is the
    leaf's; the kernel noted it as the scoring went, :func:`note_best`), that child's
    move followed by the line its search left (``depth`` plies of alpha-beta, then
    quiescence: ``searched_plies`` says where the one ends; a line the table cut short
    may end before), the child's score and how it came. A child whose score came from the
    table, a finished game or a scoring before this step has its move alone."""
    worker, tree, leaf = view.worker, view.tree, view.leaf
    child = int(worker.info[T_SIM_BEST])
    how = int(worker.info[T_SIM_HOW])
    moves = [move_to_uci(int(m)) for m in worker.record[: int(worker.info[T_SIM_PLIES])]]
    if child == NONE:  # none scored now beat the best scored before
        child, how = int(best_evaluated(tree.arrays, leaf)), BEST_EARLIER
        moves = [move_to_uci(int(tree.move[child]))] if child != NONE else []
    if child == NONE:
        return {
            "best": None,
            "best_how": None,
            "searched_plies": 0,
            "line_score": None,
            "line_note": "",
        }
    board = view.leaf_board()
    san = list(view.sans.line(moves, board))
    moves = moves[: len(san)]
    name = view.name(child)
    searched = min(depth, len(moves) - 1)  # the reply's line: alpha-beta, then quiescence
    short = 0  # the alpha-beta plies a table's answer left out of the line
    if how in (BEST_SEARCHED, BEST_MATE) and searched == len(moves) - 1 < depth:
        for uci in moves:
            board.push_uci(uci)
        short = 0 if board.is_game_over() else depth - searched
    reply = name["san"] or name["move"]
    return {
        "best": name,
        "best_how": BEST_HOWS[how],
        "moves": moves,
        "san": san,
        "searched_plies": searched,
        "line_score": min(1.0, max(-1.0, float(tree.value[child]))),
        "line_note": deciding_note(
            how, reply, depth, len(moves) - 1, short, bool(tree.visits[child])
        ),
    }


def backup_trace(view: Any) -> list[dict[str, Any]] | None:
    """UCT's averaging rows, each with the node's implicit minimax value before and
    after and its proof (a proof found now says so)."""
    from engine.search.trace import average_rows

    rows = average_rows(view)
    tree = view.tree
    for row in rows:
        node = row["node"]
        existed = node < view.used
        row["rule"] = "average + minimax"
        row["minimax_before"] = float(view.before_value[node]) if existed else None
        row["minimax_after"] = float(tree.value[node])
        proven = bool(tree.flags[node] & PROVEN)
        row["proof"] = (
            {1: PROVEN_WIN, -1: PROVEN_LOSS}.get(int(tree.outcome[node]), PROVEN_DRAW)
            if proven
            else NOT_PROVEN
        )
        value = float(tree.value[node])
        row["mate"] = mate_plies(value) if proven and is_mate_score(value) else None
    return rows
