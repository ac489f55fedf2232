"""How one algorithm is explained: the words and numbers of its step view and node card.

An :class:`~engine.search.algorithm.Algorithm` says how it searches; its
:class:`Explainer`, registered under the same name, says how that
search reads to people: what its selection rule is called and the formula it computes,
which kinds of simulation and back-up rows its steps show, the row of numbers a sibling
gets in a selection table, the note of a level where expansion chose, how a node was
scored (the node card), and the prose of each phase (:mod:`engine.explain.prose`). The
views around the search ask the explainer (:mod:`engine.explain.explainers` finds it by
name) and never compare an algorithm's name.

Explainers, like algorithms, are stateless classes: every hook is a class method.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Literal

from engine.explain.phases import BACKUPS, SIMULATIONS, StepView
from engine.explain.prose import (
    Blocks,
    Context,
    Prose,
    backup_blocks,
    formula_blocks,
    simulation_blocks,
    step_prose,
)
from engine.search.algorithm import Algorithm, ChildStats, SelectionTerms, Worker


class Explainer:
    """What the step view, the node card and the menus say about one algorithm.

    Presentation, all class-level:

    * ``selection_rule`` / ``formula`` / ``exploit_label`` / ``score_label`` /
      ``selection_params``: the selection rule's name in step frames (``"ucb1"``,
      ``"bfms"``), its formula as text, the names of its exploitation term and its score
      in tables, and the parameters the formula uses.
    * ``simulation``: the kind of the step's simulation phase (``"playout"``,
      ``"minimax"``, ``"evaluation"``, ``"alphabeta"``, or by default ``"leaf"``: the
      leaf's score and reward as the kernel recorded them); ``backup_rule``: its
      back-propagation rows, ``"average"`` (rewards averaged, flipped at each ply) or
      ``"negamax"`` (each value overwritten by −max of the children).
    * ``unvisited_first``: the note of a level where the tree policy tries unvisited
      children in random order before any formula (``uct-minimax``), else None.
    * ``race_partner``: the algorithm the race view sets against this one by default
      (None: the next one in the registry); a contrast worth watching.
    """

    algorithm: ClassVar[type[Algorithm]]
    selection_rule: ClassVar[str] = "ucb1"
    formula: ClassVar[str] = "W/N + c·sqrt(2 ln N_parent / N)"
    exploit_label: ClassVar[str] = "W/N"
    score_label: ClassVar[str] = "UCB1"
    selection_params: ClassVar[tuple[str, ...]] = ()
    simulation: ClassVar[str] = "leaf"
    backup_rule: ClassVar[Literal["average", "negamax"]] = "average"
    unvisited_first: ClassVar[str | None] = None
    race_partner: ClassVar[str | None] = None

    # ------------------------------------------------------------ the menus
    @classmethod
    def capabilities(cls) -> dict[str, Any]:
        """The algorithm's capabilities with what the page needs to name its parts."""
        return {
            **cls.algorithm.capabilities(),
            "selection_rule": cls.selection_rule,
            "formula": cls.formula,
            "exploit_label": cls.exploit_label,
            "score_label": cls.score_label,
            "simulation": cls.simulation,
            "backup_rule": cls.backup_rule,
        }

    # ------------------------------------------------------------ step phases
    @classmethod
    def selection_row(cls, child: ChildStats, terms: SelectionTerms) -> dict[str, Any]:
        """A sibling's numbers in a selection table (beside node, move, san and visits):
        ``value_sum``, ``q``, ``explore``, ``score`` (None = infinite)."""
        return {
            "value_sum": child.value_sum,
            "q": terms.exploit,
            "explore": terms.explore,
            "score": terms.score if math.isfinite(terms.score) else None,
        }

    @classmethod
    def expansion_note(cls, new_count: int) -> str:
        """The note of a selection level whose chosen child this iteration created."""
        if new_count > 1:
            return "all children created, one chosen at random"
        return "a random untried move is added"

    @classmethod
    def as_before(cls, stats: ChildStats, flags: int) -> ChildStats:
        """``stats`` (visits and values already as before a step) with whatever else the
        algorithm reads from the node's flags set back to ``flags``, its flags before the
        step — so the step view compares what the kernel compared."""
        return stats

    @classmethod
    def simulate(cls, view: StepView) -> dict[str, Any]:
        """The simulation phase from a leaf that is not terminal (the terminal case is
        the same for every algorithm): the builder of the kind :attr:`simulation` names."""
        return SIMULATIONS[cls.simulation](view)

    @classmethod
    def back_up(cls, view: StepView) -> list[dict[str, Any]]:
        """The back-propagation rows, leaf first: the builder :attr:`backup_rule` names."""
        return BACKUPS[cls.backup_rule](view)

    # ------------------------------------------------------------ the node card
    @classmethod
    def node_scoring(cls, worker: Worker, node: int) -> dict[str, Any] | None:
        """How ``node`` of ``worker``'s tree and its children were scored, for the node
        card (JSON-ready): the node's own leaf score, the depths of the searches, whether
        the leaf table holds it. None: nothing to add to the card's N, Q and eval (a
        playout's reward is not a score the node keeps)."""
        return None

    @classmethod
    def scoring_rows(cls, scoring: dict[str, Any], whom: str, sign: int) -> list[list[str]]:
        """The node card's rows for :meth:`node_scoring`'s numbers (as sent, rounded): a
        term, its value and, where one helps, a tooltip. The numbers are for the side that
        moved into the node; the rows speak for ``whom`` (``sign`` = -1 flips them)."""
        return []

    # ------------------------------------------------------------ prose
    @classmethod
    def prose(cls, step: dict[str, Any], ctx: Context) -> Prose:
        """The words of each phase (:mod:`engine.explain.prose`), from the step's phases
        as they are sent (numbers rounded as shown)."""
        return step_prose(step, ctx, cls)

    @classmethod
    def worked(
        cls, level: dict[str, Any], winner: dict[str, Any], params: dict[str, Any]
    ) -> str | None:
        """The winner's formula worked out with its numbers, under a selection table (its
        row and the parameters its level was chosen with, as sent); None: no such line."""
        return None

    @classmethod
    def level_blocks(cls, level: dict[str, Any], index: int, params: dict[str, Any]) -> Blocks:
        """The blocks of a selection level ranked by the formula: its table, a tie at the
        top, the winner worked out."""
        winner = next((c for c in level.get("children") or [] if c.get("winner")), None)
        worked = cls.worked(level, winner, params) if winner is not None else None
        return formula_blocks(level, index, worked)

    @classmethod
    def expansion_how(cls, step: dict[str, Any], ctx: Context) -> tuple[str, bool]:
        """How a leaf's new children were scored, as the end of the expansion's sentence,
        and whether each child has a value worth listing beside its move."""
        leaf = (step.get("simulation") or {}).get("scorer") or ctx.params.get("leaf")
        if leaf == "quiescence":
            return "each scored by a quiescence search", True
        return "each scored by the static evaluation", True

    @classmethod
    def simulation_prose(cls, step: dict[str, Any], ctx: Context) -> Blocks:
        """The simulation phase's words."""
        return simulation_blocks(step, ctx)

    @classmethod
    def backup_prose(cls, step: dict[str, Any], ctx: Context) -> Blocks:
        """The back-propagation phase's words."""
        return backup_blocks(step, ctx)
