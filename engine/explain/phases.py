"""The four phases of one step, as numbers: the generic builders every explainer uses.

A :class:`StepView` is a :class:`~engine.search.record.StepRecord` read for people: the
tree *after* the step, the statistics of the nodes that existed *before* it, the path and
the new nodes, each node named by its move in SAN. The builders below turn it into the
phases' dicts (the expansion, the simulation by kind, the back-up rows by rule, a step of
deepening); an :class:`~engine.explain.explainer.Explainer` picks the kinds and may
replace a builder with its own, and :mod:`engine.explain.step` builds the selection
levels with it.

Points of view: every ``q``/``value`` in a phase is for the side that made the move into
that node (the side choosing at its parent), like the tree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, cast

import chess
import numpy as np

from engine.core.state import STATUS_NAMES
from engine.rules.convert import move_to_uci
from engine.rules.san import SanCache
from engine.search.algorithm import Algorithm, ChildStats, Worker
from engine.search.codes import CUT_EVAL, F_SCORE, T_SIM_PLIES, T_SIM_WHITE
from engine.search.record import StepRecord
from engine.search.tree import ROOT, TERMINAL

RESULT_TEXT = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}


@dataclass
class StepView:
    """One iteration just run, as the phase builders read it (see the module doc)."""

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

    @classmethod
    def of(cls, record: StepRecord) -> StepView:
        return cls(
            algorithm=record.algorithm,
            params=record.params,
            worker=record.worker,
            tree=cast(Worker, record.worker).tree,
            sans=record.sans,
            used=record.used,
            before_visits=record.before_visits,
            before_sum=record.before_sum,
            before_value=record.before_value,
            before_flags=record.before_flags,
            path=list(record.path),
            created=list(record.created),
            status=record.status,
            reward=record.reward,
        )

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
        """``node``'s numbers before this step: the worker's own stats of the node
        (whatever its algorithm keeps beside them, e.g. a prior) with the visits and
        values copied before the step (its flags then are ``before_flags[node]``)."""
        return replace(
            self.worker.child_stats(node),
            visits=int(self.before_visits[node]),
            value_sum=float(self.before_sum[node]),
            value=float(self.before_value[node]),
        )


def expansion(view: StepView) -> dict[str, Any]:
    tree = view.tree
    out: dict[str, Any] = {"parent": None, "nodes": []}
    if view.created:
        out["parent"] = view.name(int(tree.parent[view.created[0]]))
        out["nodes"] = [
            {
                **view.name(n),
                "eval": float(tree.eval[n]),
                "value": float(tree.value[n]),
                "terminal": bool(tree.flags[n] & TERMINAL),
            }
            for n in view.created
        ]
    return out


# ---------------------------------------------------------------- simulations


def terminal_simulation(view: StepView, backup_rule: str) -> dict[str, Any]:
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
    if backup_rule == "negamax":
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


# ---------------------------------------------------------------- back-propagation


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


# ---------------------------------------------------------------- deepening


def deepening_simulation(record: StepRecord) -> dict[str, Any]:
    """A search without a tree (alphabeta) has nothing to walk: a step is one more depth
    of iterative deepening, shown as every root move's score, bound and line."""
    worker, sans = record.worker, record.sans
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
    deep: Any = worker
    return {
        "kind": "alphabeta",
        "depth_before": record.depth_before,
        "depth": deep.completed_depth,
        "nodes": record.iterations,
        "moves": rows,
    }
