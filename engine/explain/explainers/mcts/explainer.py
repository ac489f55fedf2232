"""``mcts``: PUCT over a blend of Q and implicit minimax, leaves scored by searches.

The names of its formula's parts are still its algorithm class's; its phases' numbers, the
rows of its selection table and its node card are :mod:`.phases`'; the words of its PUCT
table, its leaf searches and its back-up are the page's. This explainer hands them on, and
writes the words the phases share with every algorithm (the
walk, a tie at the top, the expansion, a finished or proven leaf, a leaf scored by the
static evaluation).
"""

from __future__ import annotations

from typing import Any, Literal, cast

from engine.explain.explainer import Explainer
from engine.explain.explainers.mcts import phases
from engine.explain.phases import StepView
from engine.explain.prose import Blocks, Context, para, simulation_blocks
from engine.explain.words import capitalised
from engine.search.algorithm import ChildStats, SelectionTerms, Worker
from engine.search.algorithms.mcts import MCTS


class MCTSExplainer(Explainer):
    algorithm = MCTS
    selection_rule = MCTS.selection_rule
    formula = MCTS.formula
    exploit_label = MCTS.exploit_label
    score_label = MCTS.score_label
    selection_params = MCTS.selection_params
    simulation = MCTS.simulation
    backup_rule = cast(Literal["average", "negamax"], MCTS.backup_rule)
    race_partner = MCTS.race_partner

    @classmethod
    def selection_row(cls, child: ChildStats, terms: SelectionTerms) -> dict[str, Any]:
        return phases.selection_row(child, terms)

    @classmethod
    def expansion_note(cls, new_count: int) -> str:
        return phases.expansion_note(new_count)

    @classmethod
    def as_before(cls, stats: ChildStats, flags: int) -> ChildStats:
        return phases.as_before(stats, flags)

    # (typed optional in the algorithm module; they always write their phase)
    @classmethod
    def simulate(cls, view: StepView) -> dict[str, Any]:
        return cast(dict[str, Any], phases.simulation_trace(view))

    @classmethod
    def back_up(cls, view: StepView) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], phases.backup_trace(view))

    @classmethod
    def node_scoring(cls, worker: Worker, node: int) -> dict[str, Any] | None:
        return phases.node_scoring(worker, node)

    # ------------------------------------------------------------ prose
    @classmethod
    def expansion_how(cls, step: dict[str, Any], ctx: Context) -> tuple[str, bool]:
        """Lazily, none scored yet (the simulation scores the one chosen); evaluating, by
        leaf searches as the node is expanded, most only against a bound (a null window,
        or not at all after a cut): numbers that are no scores to list."""
        if ctx.params.get("expand") == "lazy":
            return (
                "each with its prior (a move-ordering guess) and none scored yet: the formula "
                "picks one to go on to, and the simulation scores that one",
                False,
            )
        leaf = (step.get("simulation") or {}).get("scorer") or ctx.params.get("leaf")
        scorer = "the static evaluation" if leaf == "static" else "quiescence searches"
        return (
            f"and scored by {scorer}: the first exactly, the others only as far as needed to "
            "rank them against it (the simulation says how many)",
            False,
        )

    @classmethod
    def simulation_prose(cls, step: dict[str, Any], ctx: Context) -> Blocks | None:
        """A finished or proven leaf in the words every algorithm shares; a leaf scored by
        the static evaluation (``leaf=static``) as a leaf score, with the scoring's note;
        the quiescence views are the page's."""
        sim = step.get("simulation") or {}
        if sim.get("kind") == "quiescence":
            return None
        if sim.get("kind") == "evaluation":
            blocks = simulation_blocks({**step, "simulation": {**sim, "kind": "leaf"}}, ctx)
            return [blocks[0], para("text", capitalised(sim.get("note") or "")), *blocks[1:]]
        return simulation_blocks(step, ctx)
