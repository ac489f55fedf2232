"""``mcts``: PUCT over a blend of Q and implicit minimax, leaves scored by searches.

The names of its formula's parts, a selection row's PUCT numbers, the note of a level
where expansion chose, its phases (:mod:`.phases`), its node card (:mod:`.card`) and the
words of its step view: its own (:mod:`.prose`: the PUCT table's, its leaf searches', its
back-up's) and those every algorithm shares (the walk, a tie at the top, the expansion, a
finished or proven leaf, a leaf scored by the static evaluation).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.explain.explainer import Explainer
from engine.explain.explainers.mcts import card, phases, prose
from engine.explain.phases import StepView
from engine.explain.prose import Blocks, Context, backup_blocks, para, simulation_blocks
from engine.explain.words import capitalised
from engine.search.algorithm import NOT_PROVEN, ChildStats, SelectionTerms, Worker
from engine.search.algorithms.mcts import MCTS
from engine.search.tree import EVALUATED, PROVEN


class MCTSExplainer(Explainer):
    algorithm = MCTS
    selection_rule = "puct"
    formula = (
        "(1 − α)·Q + α·(1 + minimax)/2 + c·P·sqrt(N_parent) / (1 + N)"
        "  (not yet evaluated: the parent's urgency in place of the first two terms)"
    )
    exploit_label = "value"
    score_label = "PUCT"
    selection_params = ("c_puct", "alpha", "fpu")
    simulation = "quiescence"
    backup_rule = "average"
    race_partner = "uct"  # the textbook algorithm against the one built for strength

    @classmethod
    def selection_row(cls, child: ChildStats, terms: SelectionTerms) -> dict[str, Any]:
        """The generic row with the PUCT terms' own numbers: the prior, whether the child
        is evaluated, its minimax value and mean reward, its proof."""
        row = super().selection_row(child, terms)
        if child.prior is not None:
            row.update(
                prior=child.prior,
                evaluated=child.evaluated,
                minimax=child.value if child.evaluated else None,
                q_mean=child.value_sum / child.visits if child.visits else None,
            )
        row.update(proof=child.proof, mate=child.mate)
        return row

    @classmethod
    def expansion_note(cls, new_count: int) -> str:
        return (
            f"all {new_count} children created with their priors; the one with the "
            "best PUCT score (unevaluated: urgency + c·P·sqrt(N)) is evaluated"
        )

    @classmethod
    def as_before(cls, stats: ChildStats, flags: int) -> ChildStats:
        """Evaluated-unvisited and the proof as the flags had them before the step (a
        child evaluated or proven by this very step was neither when it was chosen)."""
        if stats.prior is None:
            return stats
        evaluated = bool(flags & EVALUATED) and stats.visits == 0
        if flags & PROVEN:
            return replace(stats, evaluated_unvisited=evaluated)
        return replace(stats, evaluated_unvisited=evaluated, proof=NOT_PROVEN, mate=None)

    @classmethod
    def simulate(cls, view: StepView) -> dict[str, Any]:
        return phases.simulation_trace(view)

    @classmethod
    def back_up(cls, view: StepView) -> list[dict[str, Any]]:
        return phases.backup_trace(view)

    @classmethod
    def node_scoring(cls, worker: Worker, node: int) -> dict[str, Any] | None:
        return card.node_scoring(worker, node)

    @classmethod
    def scoring_rows(cls, scoring: dict[str, Any], whom: str, sign: int) -> list[list[str]]:
        return card.scoring_rows(scoring, whom, sign)

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
    def level_blocks(cls, level: dict[str, Any], index: int, params: dict[str, Any]) -> Blocks:
        """The generic blocks, with whose values the PUCT table holds noted under it."""
        blocks = super().level_blocks(level, index, params)
        table = blocks[0]
        table["notes"] = [para("hint", prose.PUCT_NOTE), *(table.get("notes") or [])]
        return blocks

    @classmethod
    def worked(
        cls, level: dict[str, Any], winner: dict[str, Any], params: dict[str, Any]
    ) -> str | None:
        return prose.worked_puct(level, winner, params)

    @classmethod
    def simulation_prose(cls, step: dict[str, Any], ctx: Context) -> Blocks:
        """The leaf's quiescence search, or the line that decided an expanded leaf's
        value; a leaf scored by the static evaluation (``leaf=static``) as a leaf score,
        with the scoring's note; a finished or proven leaf in the words every algorithm
        shares."""
        sim = step.get("simulation") or {}
        if sim.get("kind") == "quiescence":
            return prose.leaf_search_blocks(step, ctx)
        if sim.get("kind") == "evaluation":
            blocks = simulation_blocks({**step, "simulation": {**sim, "kind": "leaf"}}, ctx)
            return [blocks[0], para("text", capitalised(sim.get("note") or "")), *blocks[1:]]
        return simulation_blocks(step, ctx)

    @classmethod
    def backup_prose(cls, step: dict[str, Any], ctx: Context) -> Blocks:
        """Averaging with implicit minimax (the rows' rule); no rows in the words every
        algorithm shares."""
        rows = step.get("backpropagation") or []
        if rows and rows[0].get("rule") == "average + minimax":
            return prose.average_minimax_blocks()
        return backup_blocks(step, ctx)
