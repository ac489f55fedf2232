"""The numbers of ``mcts``'s step phases: its leaf searches (the quiescence line from a
leaf, or the line that decided the value of a leaf whose children were scored) with their
notes, and its back-up rows with the implicit minimax value and the proof of every node on
the path.

They read the search (the worker's tree and trace slots, the kernel's depth rules) from a
:class:`~engine.explain.phases.StepView`; the search never reads them.
"""

from __future__ import annotations

from typing import Any

from engine.eval.evaluate import is_mate_score, mate_plies
from engine.explain.phases import StepView, average_rows
from engine.explain.words import ordinal, plies
from engine.rules.convert import move_to_uci
from engine.search.algorithm import NOT_PROVEN, PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN
from engine.search.algorithms.mcts.depth import RESCORE_GROWTH, RESCORE_VISITS, untried
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
from engine.search.tree import EVALUATED, NONE, PROVEN

#: How the best child's score came, as the step trace words ``BEST_*``.
BEST_HOWS = {
    BEST_EARLIER: "earlier",
    BEST_SEARCHED: "searched",
    BEST_CACHED: "table",
    BEST_TERMINAL: "game over",
    BEST_MATE: "mate",
}


def deciding_note(how: int, reply: str, depth: int, length: int, short: int, visited: bool) -> str:
    """The step view's words for the line that decided an expanded leaf's value: how its
    best reply's score came (``BEST_*``); ``length``: the line's plies after the reply;
    ``short``: alpha-beta plies missing from its end, where the search's table answered
    for the position (or it repeated); ``visited``: a reply scored earlier has a subtree
    of its own."""
    if how == BEST_SEARCHED and not length:  # (only a quiescence search stands pat at once)
        return (
            f"The best reply, {reply}, was scored exactly: the position after it is quiet, "
            "so the evaluation scored it"
        )
    searched = "alpha-beta, then quiescence" if depth else "quiescence"
    cut = (
        f"; it stops {plies(short)} short of the alpha-beta horizon, where the search "
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


def simulation_trace(view: StepView) -> dict[str, Any]:
    """The quiescence line from the leaf (captures, promotions, evasions, early
    checks) and its score, or the table's cached score, and the reward. A leaf whose
    children were scored instead (``expand=evaluate``, ``rescore``, a resumed scoring)
    has the line that decided its new value: its best reply and that reply's search
    line (:meth:`deciding_line`)."""
    worker, tree = view.worker, view.tree
    recorded = int(worker.info[T_SIM_PLIES])
    moves = [move_to_uci(int(m)) for m in worker.record[:recorded]]
    path_moves = [move_to_uci(int(tree.move[n])) for n in view.path[1:]]
    san = view.sans.line(path_moves + moves)[len(path_moves) :]
    cached = view.status == SIM_CACHED
    expanded = view.status in (SIM_EXPANDED, SIM_RESCORED)
    leaf = view.params["leaf"]
    depth = int(worker.info[T_SIM_DEPTH])
    depth_text = plies(depth)
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


def deciding_line(view: StepView, depth: int) -> dict[str, Any]:
    """The line that decided the new value of a leaf whose children were just scored:
    its best child for the side to move there (the one whose value, negated, is the
    leaf's; the kernel noted it as the scoring went, ``note_best``), that child's
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


def backup_trace(view: StepView) -> list[dict[str, Any]]:
    """UCT's averaging rows, each with the node's implicit minimax value before and
    after and its proof (a proof found now says so)."""
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
