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
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from engine.core.convert import move_to_uci
from engine.core.state import STATUS_NAMES
from engine.search.algorithm import Algorithm
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _clean(x: float) -> float | None:
    """JSON-safe float: infinities (an unvisited child's UCB1) become None."""
    return None if math.isinf(x) or math.isnan(x) else float(x)


def build_trace(
    algorithm: type[Algorithm],
    params: dict[str, Any],
    worker: Any,
    stop: np.ndarray,
    sans: SanCache,
    iteration: int,
) -> StepTrace:
    tree = getattr(worker, "tree", None)
    if tree is None:
        return _alphabeta_trace(algorithm, worker, stop, sans, iteration)
    used = tree.used
    before_visits = tree.visits[:used].copy()
    before_sum = tree.value_sum[:used].copy()
    before_value = tree.value[:used].copy()
    code = worker.step(stop)
    if code != DONE:
        return StepTrace(algorithm.name, worker.thread, iteration, code, 0)
    path = [int(n) for n in worker.path[: int(worker.info[T_PATH_LEN])]]
    first_new = int(worker.info[T_FIRST_NEW])
    new_count = int(worker.info[T_NEW_COUNT])
    created = set(range(first_new, first_new + new_count)) if first_new >= 0 else set()

    def node_name(node: int) -> dict[str, Any]:
        return {
            "node": node,
            "move": "" if node == ROOT else move_to_uci(int(tree.move[node])),
            "san": sans.node(tree, node),
            "depth": int(tree.depth[node]),
        }

    # ---------------------------------------------------------------- selection
    selection = []
    for level, (node, chosen) in enumerate(itertools.pairwise(path)):
        parent_visits = int(before_visits[node])
        entry: dict[str, Any] = {**node_name(node), "level": level, "visits": parent_visits}
        if chosen in created:
            entry["rule"] = "expand"
            entry["note"] = (
                "all children created, one chosen at random"
                if new_count > 1
                else "a random untried move is added"
            )
            entry["chosen"] = node_name(chosen)
            selection.append(entry)
            continue
        kids = [k for k in tree.children(node) if k < used]
        if algorithm.name == "uct-minimax" and before_visits[chosen] == 0:
            entry["rule"] = "random-unvisited"
            entry["note"] = "children not yet visited are tried first, in random order"
            entry["chosen"] = node_name(chosen)
            selection.append(entry)
            continue
        rows = []
        for k in kids:
            rows.append(
                _formula_row(
                    algorithm,
                    params,
                    tree,
                    k,
                    before_visits,
                    before_sum,
                    before_value,
                    parent_visits,
                    sans,
                )
            )
        best = max(rows, key=lambda r: r["_rank"]) if rows else None
        for sibling in rows:
            sibling["winner"] = best is not None and sibling["node"] == best["node"]
            sibling["chosen"] = sibling["node"] == chosen
            sibling.pop("_rank")
        entry["rule"] = "bfms" if algorithm.name == "bfms" else "ucb1"
        entry["formula"] = (
            "eval + C·sqrt(ln N / n)  (n = 0: eval + FPU)"
            if algorithm.name == "bfms"
            else "Q/N + c·sqrt(2 ln N_parent / N)"
        )
        entry["children"] = rows
        entry["chosen"] = node_name(chosen)
        selection.append(entry)

    leaf = path[-1]
    # ---------------------------------------------------------------- expansion
    expansion: dict[str, Any] = {"parent": None, "nodes": []}
    if created:
        parent = int(tree.parent[first_new])
        expansion["parent"] = node_name(parent)
        expansion["nodes"] = [
            {
                **node_name(n),
                "eval": float(tree.eval[n]),
                "value": float(tree.value[n]),
                "terminal": bool(tree.flags[n] & TERMINAL),
            }
            for n in sorted(created)
        ]

    # ---------------------------------------------------------------- simulation
    status = int(worker.info[T_SIM_STATUS])
    reward = float(worker.finfo[F_REWARD])
    leaf_info = node_name(leaf)
    if status == SIM_TERMINAL:
        outcome = int(tree.outcome[leaf])
        simulation: dict[str, Any] = {
            "kind": "terminal",
            "leaf": leaf_info,
            "outcome": outcome,
            "reward": 0.5 * (outcome + 1),
            "note": "the game is over at this node: its result is backed up as it is",
        }
        if algorithm.name == "bfms":
            simulation["value"] = float(tree.value[leaf])
    elif algorithm.name == "uct":
        plies = int(worker.info[T_SIM_PLIES])
        moves = [move_to_uci(int(m)) for m in worker.record[:plies]]
        path_moves = [move_to_uci(int(tree.move[n])) for n in path[1:]]
        san_line = sans.line(path_moves + moves)[len(path_moves) :]
        white = int(worker.info[T_SIM_WHITE])
        simulation = {
            "kind": "playout",
            "leaf": leaf_info,
            "policy": params["policy"],
            "moves": moves,
            "san": list(san_line),
            "plies": plies,
            "status": STATUS_NAMES.get(status, str(status)),
            "result": RESULT_TEXT[white],
            "reward": reward,
            "at_cap": params["at_cap"],
        }
        if status == CUT_EVAL:  # cut off by ply_cap and scored by the evaluation
            simulation["status"] = "cut off at the ply cap"
            simulation["result"] = "scored by the static evaluation"
            simulation["score"] = float(worker.finfo[F_SCORE])
    elif algorithm.name == "uct-minimax":
        simulation = {
            "kind": "minimax",
            "leaf": leaf_info,
            "depth": int(worker.info[T_SIM_PLIES]),
            "score": float(worker.finfo[F_SCORE]),
            "reward_rule": params["reward"],
            "reward": reward,
        }
    else:  # bfms: the leaf's children were evaluated statically
        simulation = {
            "kind": "evaluation",
            "leaf": leaf_info,
            "evaluated": new_count,
            "values": [{**node_name(n), "value": float(tree.value[n])} for n in sorted(created)],
            "note": "each new child scored by the static evaluation (mates: 10000 − 10·ply)",
        }

    # ---------------------------------------------------------------- back-propagation
    backprop: list[dict[str, Any]] = []
    r = reward
    for node in reversed(path):
        existed = node < used
        row: dict[str, Any] = {
            **node_name(node),
            "visits_before": int(before_visits[node]) if existed else 0,
            "visits_after": int(tree.visits[node]),
        }
        if algorithm.name == "bfms":
            row["rule"] = "negamax"
            row["value_before"] = float(before_value[node]) if existed else float(tree.eval[node])
            row["value_after"] = float(tree.value[node])
            kids = tree.children(node)
            if kids and not (tree.flags[node] & TERMINAL):
                best_child = max(kids, key=lambda k: float(tree.value[k]))
                row["max_child"] = {**node_name(best_child), "value": float(tree.value[best_child])}
        else:
            row["rule"] = "average"
            row["reward"] = r
            sum_before = float(before_sum[node]) if existed else 0.0
            row["value_sum_before"] = sum_before
            row["value_sum_after"] = float(tree.value_sum[node])
            row["q_before"] = sum_before / row["visits_before"] if row["visits_before"] else None
            row["q_after"] = float(tree.value_sum[node]) / max(1, row["visits_after"])
            r = 1.0 - r
        backprop.append(row)

    return StepTrace(
        algorithm.name,
        worker.thread,
        iteration,
        code,
        1,
        selection,
        expansion,
        simulation,
        backprop,
    )


def _formula_row(
    algorithm: type[Algorithm],
    params: dict[str, Any],
    tree: Any,
    node: int,
    visits: np.ndarray,
    sums: np.ndarray,
    values: np.ndarray,
    parent_visits: int,
    sans: SanCache,
) -> dict[str, Any]:
    n = int(visits[node])
    row: dict[str, Any] = {
        "node": node,
        "move": move_to_uci(int(tree.move[node])),
        "san": sans.node(tree, node),
        "visits": n,
    }
    if algorithm.name == "bfms":
        value = float(values[node])
        if n == 0:
            explore = float(params["fpu"])
        else:
            explore = float(params["C"]) * math.sqrt(math.log(max(1, parent_visits)) / n)
        score = value + explore
        row.update(value=value, explore=explore, score=score)
    else:
        total = float(sums[node])
        if n == 0:
            q, explore, score = None, None, math.inf
        else:
            q = total / n
            explore = float(params["c"]) * math.sqrt(2.0 * math.log(max(1, parent_visits)) / n)
            score = q + explore
        row.update(value_sum=total, q=q, explore=explore, score=_clean(score))
    row["_rank"] = score
    return row


def _alphabeta_trace(
    algorithm: type[Algorithm], worker: Any, stop: np.ndarray, sans: SanCache, iteration: int
) -> StepTrace:
    """alphabeta has no tree to walk: a step is one more depth of iterative deepening."""
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
    )
