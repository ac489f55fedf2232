"""One iteration, explained: the four phases of a step with every number shown.

The kernel runs the iteration exactly as a normal search would and records
what it did (the path, the new nodes, the playout or score, the reward). The
numbers around it come from the tree: the statistics *before* the step are
copied first, so the selection table recomputes each sibling's formula from
the values the kernel actually compared, and the back-propagation lists each
path node's N and value before and after.

Points of view: every ``q``/``value`` in a trace is for the side that made
the move into that node (the side choosing at its parent), like the tree.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import chess
import numpy as np

from engine.core.state import STATUS_NAMES
from engine.rules.convert import move_to_uci
from engine.search.algorithm import Algorithm, ChildStats
from engine.search.codes import (
    CUT_EVAL,
    DONE,
    F_REWARD,
    F_SCORE,
    SIM_TERMINAL,
    T_FIRST_NEW,
    T_NEW_COUNT,
    T_PATH_LEN,
    T_SIM_PLIES,
    T_SIM_STATUS,
    T_SIM_WHITE,
)
from engine.search.snapshot import SanCache
from engine.search.tree import ROOT, TERMINAL

RESULT_TEXT = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}


@dataclass(frozen=True)
class StepTrace:
    algorithm: str
    thread: int
    iteration: int  # index of this iteration in the search (0 = first)
    code: int  # the batch kernel's code (DONE when one iteration ran)
    iterations: int  # 1 if an iteration ran, else 0
    selection: list[dict[str, Any]] = field(default_factory=list)
    expansion: dict[str, Any] = field(default_factory=dict)
    simulation: dict[str, Any] = field(default_factory=dict)
    backpropagation: list[dict[str, Any]] = field(default_factory=list)
    stepping: str = "iteration"  # the algorithm's: "iteration", or "depth" (of deepening)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class StepView:
    """One iteration just run, as the step trace's phase builders read it: the tree
    *after* the step, the statistics of the nodes that existed *before* it, the path and
    the new nodes. Algorithms' :meth:`~engine.search.algorithm.Algorithm.simulation_trace`
    and ``backup_trace`` hooks receive it."""

    algorithm: type[Algorithm]
    params: dict[str, Any]
    worker: Any
    tree: Any
    sans: SanCache
    used: int  # nodes before the step
    before_visits: np.ndarray
    before_sum: np.ndarray
    before_value: np.ndarray
    before_flags: np.ndarray
    path: list[int]
    created: list[int]  # new nodes, in id order
    status: int  # T_SIM_STATUS
    reward: float  # F_REWARD: for the side that moved into the leaf

    @property
    def leaf(self) -> int:
        return self.path[-1]

    def leaf_board(self) -> chess.Board:
        """The leaf's position (without the game's history), to replay lines from it."""
        board = self.sans.board.copy(stack=False)
        for node in self.path[1:]:
            board.push(chess.Move.from_uci(move_to_uci(int(self.tree.move[node]))))
        return board

    def name(self, node: int) -> dict[str, Any]:
        tree = self.tree
        return {
            "node": node,
            "move": "" if node == ROOT else move_to_uci(int(tree.move[node])),
            "san": self.sans.node(tree, node),
            "depth": int(tree.depth[node]),
        }

    def before(self, node: int) -> ChildStats:
        """``node``'s numbers as the selection compared them (before this step): the
        worker's own stats of the node (whatever its algorithm keeps beside them, e.g. a
        prior) with the visits and values copied before the step."""
        stats = replace(
            self.worker.child_stats(node),
            visits=int(self.before_visits[node]),
            value_sum=float(self.before_sum[node]),
            value=float(self.before_value[node]),
        )
        return self.algorithm.as_before(stats, int(self.before_flags[node]))


def build_trace(
    algorithm: type[Algorithm],
    params: dict[str, Any],
    worker: Any,
    stop: np.ndarray,
    sans: SanCache,
    iteration: int,
) -> StepTrace:
    if not algorithm.tree:
        return _deepening_trace(algorithm, worker, stop, sans, iteration)
    tree = worker.tree
    used = tree.used
    before_visits = tree.visits[:used].copy()
    before_sum = tree.value_sum[:used].copy()
    before_value = tree.value[:used].copy()
    before_flags = tree.flags[:used].copy()
    code = worker.step(stop)
    if code != DONE:
        return StepTrace(
            algorithm.name, worker.thread, iteration, code, 0, stepping=algorithm.stepping
        )
    first_new = int(worker.info[T_FIRST_NEW])
    new_count = int(worker.info[T_NEW_COUNT])
    view = StepView(
        algorithm=algorithm,
        params=params,
        worker=worker,
        tree=tree,
        sans=sans,
        used=used,
        before_visits=before_visits,
        before_sum=before_sum,
        before_value=before_value,
        before_flags=before_flags,
        path=[int(n) for n in worker.path[: int(worker.info[T_PATH_LEN])]],
        created=list(range(first_new, first_new + new_count)) if first_new >= 0 else [],
        status=int(worker.info[T_SIM_STATUS]),
        reward=float(worker.finfo[F_REWARD]),
    )
    if view.status == SIM_TERMINAL:
        simulation = terminal_simulation(view)
    else:
        own = algorithm.simulation_trace(view)
        simulation = own if own is not None else SIMULATIONS[algorithm.simulation](view)
    return StepTrace(
        algorithm.name,
        worker.thread,
        iteration,
        code,
        1,
        _selection(view),
        _expansion(view),
        simulation,
        _backup(view),
        stepping=algorithm.stepping,
    )


def _selection(view: StepView) -> list[dict[str, Any]]:
    """One entry per level of the walk: every sibling's formula with the winner, or the
    rule (expansion, random unvisited) that chose instead of the formula."""
    algorithm, tree = view.algorithm, view.tree
    created = set(view.created)
    selection = []
    for level, (node, chosen) in enumerate(itertools.pairwise(view.path)):
        parent_visits = int(view.before_visits[node])
        entry: dict[str, Any] = {**view.name(node), "level": level, "visits": parent_visits}
        if chosen in created:
            entry["rule"] = "expand"
            entry["note"] = algorithm.expansion_note(len(view.created))
            entry["chosen"] = view.name(chosen)
            selection.append(entry)
            continue
        if algorithm.unvisited_first is not None and view.before_visits[chosen] == 0:
            entry["rule"] = "random-unvisited"
            entry["note"] = algorithm.unvisited_first
            entry["chosen"] = view.name(chosen)
            selection.append(entry)
            continue
        rows = []
        ranks = []
        params = algorithm.node_params(view.params, node == ROOT)
        for k in tree.children(node):
            if k >= view.used:
                continue
            stats = view.before(k)
            terms = algorithm.selection_terms(stats, parent_visits, params)
            rows.append(
                {
                    "node": k,
                    "move": move_to_uci(stats.move),
                    "san": view.sans.node(tree, k),
                    "visits": stats.visits,
                    **algorithm.selection_row(stats, terms),
                }
            )
            ranks.append(terms.score if algorithm.selectable(stats, params) else -math.inf)
        top = max(ranks, default=-math.inf)
        best = rows[ranks.index(top)]["node"] if top > -math.inf else None
        for sibling in rows:
            sibling["winner"] = sibling["node"] == best
            sibling["chosen"] = sibling["node"] == chosen
        entry["rule"] = algorithm.selection_rule
        entry["formula"] = algorithm.formula
        # the weights this node's selection read (c_root changes c_puct's value)
        entry["params"] = {k: params[k] for k in algorithm.selection_params if k in params}
        entry["value_kind"] = algorithm.value_kind  # "eval": rows carry value; "q": W and Q
        entry["exploit_label"] = algorithm.exploit_label
        entry["score_label"] = algorithm.score_label
        entry["children"] = rows
        entry["chosen"] = view.name(chosen)
        selection.append(entry)
    return selection


def _expansion(view: StepView) -> dict[str, Any]:
    tree = view.tree
    expansion: dict[str, Any] = {"parent": None, "nodes": []}
    if view.created:
        expansion["parent"] = view.name(int(tree.parent[view.created[0]]))
        expansion["nodes"] = [
            {
                **view.name(n),
                "eval": float(tree.eval[n]),
                "value": float(tree.value[n]),
                "terminal": bool(tree.flags[n] & TERMINAL),
            }
            for n in view.created
        ]
    return expansion


# ---------------------------------------------------------------- simulation builders


def terminal_simulation(view: StepView) -> dict[str, Any]:
    """The leaf's game is over: no simulation, its result is backed up (with the value
    it holds when the algorithm backs values up by negamax)."""
    tree, leaf = view.tree, view.leaf
    outcome = int(tree.outcome[leaf])
    finished = bool(tree.flags[leaf] & TERMINAL)
    note = (
        "the game is over at this node: its result is backed up as it is"
        if finished
        else "this node's result is proven (its children decide it): that result is backed "
        "up as it is"
    )
    simulation: dict[str, Any] = {
        "kind": "terminal",
        "leaf": view.name(leaf),
        "outcome": outcome,
        "reward": 0.5 * (outcome + 1),
        "finished": finished,
        "note": note,
    }
    if view.algorithm.backup_rule == "negamax":
        simulation["value"] = float(view.tree.value[view.leaf])
    return simulation


def playout_simulation(view: StepView) -> dict[str, Any]:
    """A random game from the leaf: its moves, how it ended, its reward."""
    worker, tree, params = view.worker, view.tree, view.params
    plies = int(worker.info[T_SIM_PLIES])
    moves = [move_to_uci(int(m)) for m in worker.record[:plies]]
    path_moves = [move_to_uci(int(tree.move[n])) for n in view.path[1:]]
    san_line = view.sans.line(path_moves + moves)[len(path_moves) :]
    white = int(worker.info[T_SIM_WHITE])
    simulation: dict[str, Any] = {
        "kind": "playout",
        "leaf": view.name(view.leaf),
        "policy": params["policy"],
        "moves": moves,
        "san": list(san_line),
        "plies": plies,
        "status": STATUS_NAMES.get(view.status, str(view.status)),
        "result": RESULT_TEXT[white],
        "reward": view.reward,
        "at_cap": params["at_cap"],
    }
    if view.status == CUT_EVAL:  # cut off by ply_cap and scored by the evaluation
        simulation["status"] = "cut off at the ply cap"
        simulation["result"] = "scored by the static evaluation"
        simulation["score"] = float(worker.finfo[F_SCORE])
    return simulation


def minimax_simulation(view: StepView) -> dict[str, Any]:
    """A shallow alpha-beta search of the leaf: its depth, score and the reward."""
    return {
        "kind": "minimax",
        "leaf": view.name(view.leaf),
        "depth": int(view.worker.info[T_SIM_PLIES]),
        "score": float(view.worker.finfo[F_SCORE]),
        "reward_rule": view.params["reward"],
        "reward": view.reward,
    }


def leaf_simulation(view: StepView) -> dict[str, Any]:
    """The leaf scored by the algorithm's own leaf evaluation (the default for an
    algorithm that names no other kind): the score and the reward it became, both for
    the side that moved into the leaf."""
    return {
        "kind": "leaf",
        "leaf": view.name(view.leaf),
        "score": float(view.worker.finfo[F_SCORE]),
        "reward": view.reward,
    }


def evaluation_simulation(view: StepView) -> dict[str, Any]:
    """The leaf's new children, each scored by the algorithm's ``leaf`` scorer: a
    quiescence search (bfms's chess default) or the static evaluation. ``scorer`` says
    which, so the page names the one that ran rather than guessing from a default."""
    tree = view.tree
    scorer = "quiescence" if view.params.get("leaf") == "quiescence" else "static"
    how = (
        "a quiescence search (captures, promotions and evasions played out until the "
        "position is quiet, then the static evaluation)"
        if scorer == "quiescence"
        else "the static evaluation"
    )
    return {
        "kind": "evaluation",
        "leaf": view.name(view.leaf),
        "scorer": scorer,
        "evaluated": len(view.created),
        "values": [{**view.name(n), "value": float(tree.value[n])} for n in view.created],
        "note": f"each new child scored by {how} (mates: 10000 − 10·ply)",
    }


SIMULATIONS: dict[str, Callable[[StepView], dict[str, Any]]] = {
    "playout": playout_simulation,
    "minimax": minimax_simulation,
    "evaluation": evaluation_simulation,
    "leaf": leaf_simulation,
}


# ---------------------------------------------------------------- back-propagation builders


def average_rows(view: StepView) -> list[dict[str, Any]]:
    """Each path node's visits and reward sum before and after; the reward flips sides
    at every ply."""
    tree = view.tree
    rows: list[dict[str, Any]] = []
    r = view.reward
    for node in reversed(view.path):
        existed = node < view.used
        row: dict[str, Any] = {
            **view.name(node),
            "visits_before": int(view.before_visits[node]) if existed else 0,
            "visits_after": int(tree.visits[node]),
            "rule": "average",
            "reward": r,
        }
        sum_before = float(view.before_sum[node]) if existed else 0.0
        row["value_sum_before"] = sum_before
        row["value_sum_after"] = float(tree.value_sum[node])
        row["q_before"] = sum_before / row["visits_before"] if row["visits_before"] else None
        row["q_after"] = float(tree.value_sum[node]) / max(1, row["visits_after"])
        r = 1.0 - r
        rows.append(row)
    return rows


def negamax_rows(view: StepView) -> list[dict[str, Any]]:
    """Each path node's value before and after being overwritten by −max(children)."""
    tree = view.tree
    rows: list[dict[str, Any]] = []
    for node in reversed(view.path):
        existed = node < view.used
        row: dict[str, Any] = {
            **view.name(node),
            "visits_before": int(view.before_visits[node]) if existed else 0,
            "visits_after": int(tree.visits[node]),
            "rule": "negamax",
            "value_before": float(view.before_value[node]) if existed else float(tree.eval[node]),
            "value_after": float(tree.value[node]),
        }
        kids = tree.children(node)
        if kids and not (tree.flags[node] & TERMINAL):
            best_child = max(kids, key=lambda k: float(tree.value[k]))
            row["max_child"] = {**view.name(best_child), "value": float(tree.value[best_child])}
        rows.append(row)
    return rows


BACKUPS: dict[str, Callable[[StepView], list[dict[str, Any]]]] = {
    "average": average_rows,
    "negamax": negamax_rows,
}


def _backup(view: StepView) -> list[dict[str, Any]]:
    own = view.algorithm.backup_trace(view)
    return own if own is not None else BACKUPS[view.algorithm.backup_rule](view)


def _deepening_trace(
    algorithm: type[Algorithm], worker: Any, stop: np.ndarray, sans: SanCache, iteration: int
) -> StepTrace:
    """A search without a tree (alphabeta) has nothing to walk: a step is one more depth
    of iterative deepening, shown as every root move's score, bound and line."""
    before = worker.completed_depth
    nodes_before = worker.iterations
    code = worker.step(stop)
    rows = []
    for index, child in worker.root_children():
        pv = [move_to_uci(m) for m in worker.principal_variation(index)]
        rows.append(
            {
                "move": move_to_uci(child.move),
                "san": sans.line(pv[:1])[0] if pv else "",
                "score": child.value,
                "bound": child.bound,
                "nodes": child.visits,
                "pv": pv,
                "pv_san": list(sans.line(pv)),
            }
        )
    simulation = {
        "kind": "alphabeta",
        "depth_before": before,
        "depth": worker.completed_depth,
        "nodes": int(worker.iterations - nodes_before),
        "moves": rows,
    }
    return StepTrace(
        algorithm.name,
        0,
        iteration,
        code,
        int(worker.iterations - nodes_before),
        [],
        {},
        simulation,
        [],
        stepping=algorithm.stepping,
    )
