"""One iteration, explained: the four phases of a step with every number shown, and words.

The kernel runs the iteration exactly as a normal search would and records what it did
(:class:`~engine.search.record.StepRecord`: the path, the new nodes, the playout or
score, the reward). The numbers around it come from the tree: the statistics *before*
the step were copied first, so the selection table recomputes each sibling's formula from
the values the kernel actually compared, and the back-propagation lists each path node's
N and value before and after. The algorithm's explainer picks the kinds of simulation and
back-up, and writes the words of each phase (:mod:`engine.explain.prose`).

Points of view: every ``q``/``value`` in a trace is for the side that made the move into
that node (the side choosing at its parent), like the tree.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine.explain.explainer import Explainer
from engine.explain.explainers import explainer_for
from engine.explain.phases import (
    StepView,
    deepening_simulation,
    expansion,
    terminal_simulation,
)
from engine.explain.prose import Context, Prose
from engine.explain.words import rounded_all
from engine.rules.convert import move_to_uci
from engine.search.codes import DONE, SIM_TERMINAL
from engine.search.record import StepRecord
from engine.search.tree import ROOT

if TYPE_CHECKING:
    from engine.search.controller import SearchController


@dataclass(frozen=True)
class StepTrace:
    algorithm: str
    thread: int
    iteration: int  # index of this iteration in the search (0 = first)
    code: int  # the batch kernel's code (DONE when one iteration ran)
    iterations: int  # 1 if an iteration ran, else 0 (a deepening step: nodes searched)
    selection: list[dict[str, Any]] = field(default_factory=list)
    expansion: dict[str, Any] = field(default_factory=dict)
    simulation: dict[str, Any] = field(default_factory=dict)
    backpropagation: list[dict[str, Any]] = field(default_factory=list)
    stepping: str = "iteration"  # the algorithm's: "iteration", or "depth" (of deepening)
    # What the page says about each phase (engine.explain.prose).
    prose: Prose | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def step_trace(controller: SearchController) -> StepTrace:
    """Exactly one iteration of ``controller``'s search (on its threads' trees in turn),
    explained."""
    return explain_step(controller.step(), controller.game.name)


def explain_step(record: StepRecord, game: str) -> StepTrace:
    """The step view of ``record`` (read at once: it points at the live worker)."""
    algorithm = record.algorithm
    explainer = explainer_for(algorithm.name)
    fen = leaf_fen = record.sans.board.fen()
    if not algorithm.tree:
        trace = StepTrace(
            algorithm.name,
            0,
            record.iteration,
            record.code,
            record.iterations,
            simulation=deepening_simulation(record),
            stepping=algorithm.stepping,
        )
    elif record.code != DONE:
        trace = StepTrace(
            algorithm.name,
            record.thread,
            record.iteration,
            record.code,
            0,
            stepping=algorithm.stepping,
        )
    else:
        view = StepView.of(record)
        if view.status == SIM_TERMINAL:
            simulation = terminal_simulation(view, explainer.backup_rule)
        else:
            simulation = explainer.simulate(view)
        trace = StepTrace(
            algorithm.name,
            record.thread,
            record.iteration,
            record.code,
            1,
            selection(view, explainer),
            expansion(view),
            simulation,
            explainer.back_up(view),
            stepping=algorithm.stepping,
        )
        leaf_fen = view.leaf_board().fen()
    ctx = Context(algorithm.name, game, dict(record.params), fen, leaf_fen)
    return replace(trace, prose=explainer.prose(rounded_all(trace.to_dict()), ctx))


def selection(view: StepView, explainer: type[Explainer]) -> list[dict[str, Any]]:
    """One entry per level of the walk: every sibling's formula with the winner, or the
    rule (expansion, random unvisited) that chose instead of the formula."""
    algorithm, tree = view.algorithm, view.tree
    created = set(view.created)
    levels = []
    for level, (node, chosen) in enumerate(itertools.pairwise(view.path)):
        parent_visits = int(view.before_visits[node])
        entry: dict[str, Any] = {**view.name(node), "level": level, "visits": parent_visits}
        if chosen in created:
            entry["rule"] = "expand"
            entry["note"] = explainer.expansion_note(len(view.created))
            entry["chosen"] = view.name(chosen)
            levels.append(entry)
            continue
        if explainer.unvisited_first is not None and view.before_visits[chosen] == 0:
            entry["rule"] = "random-unvisited"
            entry["note"] = explainer.unvisited_first
            entry["chosen"] = view.name(chosen)
            levels.append(entry)
            continue
        rows = []
        ranks = []
        params = algorithm.node_params(view.params, node == ROOT)
        for k in tree.children(node):
            if k >= view.used:
                continue
            stats = explainer.as_before(view.before(k), int(view.before_flags[k]))
            terms = algorithm.selection_terms(stats, parent_visits, params)
            rows.append(
                {
                    "node": k,
                    "move": move_to_uci(stats.move),
                    "san": view.sans.node(tree, k),
                    "visits": stats.visits,
                    **explainer.selection_row(stats, terms),
                }
            )
            ranks.append(terms.score if algorithm.selectable(stats, params) else -math.inf)
        top = max(ranks, default=-math.inf)
        best = rows[ranks.index(top)]["node"] if top > -math.inf else None
        for sibling in rows:
            sibling["winner"] = sibling["node"] == best
            sibling["chosen"] = sibling["node"] == chosen
        entry["rule"] = explainer.selection_rule
        entry["formula"] = explainer.formula
        # the weights this node's selection read (c_root changes c_puct's value)
        entry["params"] = {k: params[k] for k in explainer.selection_params if k in params}
        entry["value_kind"] = algorithm.value_kind  # "eval": rows carry value; "q": W and Q
        entry["exploit_label"] = explainer.exploit_label
        entry["score_label"] = explainer.score_label
        entry["children"] = rows
        entry["chosen"] = view.name(chosen)
        levels.append(entry)
    return levels
