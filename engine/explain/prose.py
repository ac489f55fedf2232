"""The words of the step view: each phase of a step as a few typed blocks of text.

A step frame carries its phases' numbers (``selection``, ``expansion``, ``simulation``,
``backpropagation``) and, in ``prose``, what the page says about each phase, written
here once for every algorithm (its :class:`~engine.explain.explainer.Explainer` adds the
words that are its own). The page (``app/static/js/step.js``) renders the blocks as they
come and draws the tables, the board and the animation around them.

The blocks (``prose[phase]`` is a list of them):

* ``{"kind": "lede" | "text" | "note" | "hint" | "worked" | "tie" | "idle" | "line" |
  "deciding-line" | "line-key", "text": Text}`` — a paragraph; ``line`` is a line of moves
  (set in monospace), ``deciding-line`` one whose parts are marked (a reply, its alpha-beta
  plies, its quiescence plies) and ``line-key`` the key to those marks.
* ``{"kind": "facts", "items": [[Text, Text], ...]}`` — terms and their values.
* ``{"kind": "chips", "items": [{"text": Text, "terminal"?: true}, ...]}`` — moves with a
  number each.
* ``{"kind": "level", "level": i, "head": Text, "blocks": [...]}`` — one level of the
  selection walk: its heading and its own blocks.
* ``{"kind": "table", "table": "selection" | "deepening" | "backpropagation",
  "level"?: i, "notes"?: [...]}`` — where the page draws a table from the phase's rows
  (``level``: which selection level's children), with ``notes`` under its rows.

``Text`` is a string, or a list of runs: strings and ``{"text", "mark"}`` with ``mark``
one of ``strong``, ``big`` (a move in large type), ``level`` (a level's number), ``ab`` /
``qs`` (the alpha-beta and the quiescence part of a line), ``reply``.

Every number is written from the phase as it is sent (:func:`~engine.explain.words.
rounded_all`), so a sentence and the table beside it show the same digits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from engine.explain.words import (
    capitalised,
    chooses,
    count,
    fixed,
    format_line,
    number,
    opposite,
    proof_for,
    side_name,
    signed,
    turn_of,
)

Run = str | dict[str, str]
Text = str | list[Run]
Block = dict[str, Any]
Blocks = list[Block]
Prose = dict[str, Blocks]

PHASES = ("selection", "expansion", "simulation", "backpropagation")
#: Moves listed with their values under an expansion (the rest are counted).
EXPANSION_CHIPS = 24
#: New children listed with their values under an evaluation.
EVALUATION_CHIPS = 12
#: Plies of a playout written out.
PLAYOUT_PLIES = 60

#: Why a step ran no iteration, by the batch kernel's code (0, DONE, ran one).
IDLE_REASONS = {
    1: "the tree is full (its node budget), so no node can be added",
    2: "the search was stopped before the iteration finished",
    3: "the game is over in this position",
    4: "the search has reached its maximum depth",
    5: "the root is proven (its result is known for certain: see the Moves table), so "
    "there is nothing left to search",
    6: "the tree was full (its node budget), so its least visited branches were folded into "
    "their nodes to make room; the next step goes on",
}


@dataclass(frozen=True)
class Context:
    """What the words of a step depend on beyond its phases."""

    algorithm: str
    game: str  # "chess" or "knight": the sides' names
    params: dict[str, Any]  # the search's parameters
    fen: str  # the root position (move numbers, the side to move)
    leaf_fen: str  # where the simulation started


class Words(Protocol):
    """An explainer's own words (:class:`~engine.explain.explainer.Explainer`)."""

    def level_blocks(self, level: dict[str, Any], index: int, params: dict[str, Any]) -> Blocks: ...
    def expansion_how(self, step: dict[str, Any], ctx: Context) -> tuple[str, bool]: ...
    def simulation_prose(self, step: dict[str, Any], ctx: Context) -> Blocks: ...
    def backup_prose(self, step: dict[str, Any], ctx: Context) -> Blocks: ...


# ---------------------------------------------------------------- blocks


def text(*runs: Run | None) -> Text:
    """Runs joined (adjacent strings merged; None left out): a plain string when no run
    is marked."""
    out: list[Run] = []
    for run in runs:
        if run is None or run == "":
            continue
        if isinstance(run, str) and out and isinstance(out[-1], str):
            out[-1] += run
        else:
            out.append(run)
    if not out:
        return ""
    return out[0] if len(out) == 1 and isinstance(out[0], str) else out


def mark(value: str, how: str = "strong") -> dict[str, str]:
    return {"text": value, "mark": how}


def para(kind: str, *runs: Run | None) -> Block:
    return {"kind": kind, "text": text(*runs)}


def facts(*items: tuple[Text, Text] | None) -> Block:
    return {"kind": "facts", "items": [list(item) for item in items if item is not None]}


# ---------------------------------------------------------------- reading a step


def is_deepening(step: dict[str, Any]) -> bool:
    """A step of a search that deepens (one more depth) rather than walking a tree."""
    return step.get("stepping") == "depth"


def idle_reason(step: dict[str, Any]) -> str | None:
    """Why a step ran no iteration, or None when one ran."""
    if step.get("iterations") != 0:
        return None
    reason = IDLE_REASONS.get(step.get("code", -1), "the search could not go on")
    return f"No iteration ran: {reason}."


def chooser_at(ctx: Context, depth: int) -> str:
    """The side choosing at a node of ``depth`` (the root's side to move at even depths)."""
    root = turn_of(ctx.fen)
    return root if depth % 2 == 0 else opposite(root)


def walked(step: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    """The SAN line from the root to each selection level (level k's node is level
    k − 1's choice), and the whole walk's line."""
    lines: list[list[str]] = []
    sans: list[str] = []
    for level in step.get("selection") or []:
        lines.append(list(sans))
        chosen = level.get("chosen")
        if chosen:
            sans.append(chosen.get("san") or chosen.get("move"))
    return lines, sans


def where(ctx: Context, sans: list[str]) -> str:
    return format_line(sans, ctx.fen) if sans else "the root position"


def same_score(a: float | None, b: float | None) -> bool:
    """Two scores the formula cannot tell apart (None: infinite, an unvisited child)."""
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a))


def labels(level: dict[str, Any]) -> tuple[str, str]:
    """What the level's algorithm calls its selection score and the term it exploits."""
    by_eval = level.get("value_kind") == "eval"
    score = level.get("score_label") or ("score" if by_eval else "UCB1")
    exploit = level.get("exploit_label") or ("eval" if by_eval else "W/N")
    return score, exploit


def largest(level: dict[str, Any], winner: dict[str, Any], label: str) -> str:
    """ "the largest UCB1", or, on a tie, that the winner shares it and comes first."""
    children = level.get("children") or []
    others = sum(
        1 for c in children if c is not winner and same_score(c.get("score"), winner["score"])
    )
    if not others:
        return f"the largest {label}"
    first = next(c for c in children if same_score(c.get("score"), winner["score"]))
    if first is not winner:
        return f"the largest {label} (others round to the same figure)"
    s = "" if others == 1 else "s"
    return (
        f"the largest {label}, shared with {others} other move{s} (the first in list order "
        "is taken)"
    )


def ranked(children: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Children best first, as the selection table lists them (None: infinite)."""

    def key(c: dict[str, Any]) -> tuple[float, int]:
        score = c.get("score")
        return (-(float("inf") if score is None else score), -c["visits"])

    return sorted(children, key=key)


def tie_note(children: list[dict[str, Any]]) -> Block | None:
    """A tie at the top of the table, said truthfully: the search takes the first tied
    child in list order (the tree's order of the children, not the table's). The sent
    scores are rounded, so a tie whose winner is not the first in list order differed in
    digits the frame dropped."""
    rows = ranked(children)
    if not rows:
        return None
    top = rows[0].get("score")
    tied = sum(1 for c in rows if same_score(c.get("score"), top))
    if tied < 2:
        return None
    at = "∞ (all unvisited)" if top is None else fixed(top)
    first = next(c for c in children if same_score(c.get("score"), top))
    winner = next((c for c in children if c.get("winner")), None)
    if winner is None or first is winner:
        return para("tie", f"{tied} moves tie at {at}; the first in list order is taken.")
    return para(
        "tie",
        f"{tied} moves show {at}; their exact scores differ in later digits, and the "
        f"largest, {winner['san']}, is taken.",
    )


# ---------------------------------------------------------------- the phases


def step_prose(step: dict[str, Any], ctx: Context, words: Words) -> Prose:
    """Every phase's blocks for ``step`` (its phases as sent)."""
    idle = idle_reason(step)
    if idle is not None:
        return {phase: [para("idle", idle)] for phase in PHASES}
    return {
        "selection": selection_blocks(step, ctx, words),
        "expansion": expansion_blocks(step, ctx, words),
        "simulation": words.simulation_prose(step, ctx),
        "backpropagation": words.backup_prose(step, ctx),
    }


def selection_blocks(step: dict[str, Any], ctx: Context, words: Words) -> Blocks:
    levels = step.get("selection") or []
    if is_deepening(step):
        return [
            para(
                "text",
                f"{ctx.algorithm} has no selection phase: each step searches the whole tree "
                "one ply deeper (iterative deepening).",
            )
        ]
    if not levels:
        return [
            para(
                "text",
                "Nothing to choose: the root had no children yet, so this iteration goes "
                "straight to expansion.",
            )
        ]
    lines, _ = walked(step)
    s = "" if len(levels) == 1 else "s"
    out: Blocks = [
        para(
            "lede",
            f"From the root, the search walks down {len(levels)} level{s}. At each node it "
            "scores every child with the selection formula and goes to the best one.",
        )
    ]
    for i, level in enumerate(levels):
        chooser = side_name(ctx.game, chooser_at(ctx, level["depth"]))
        head = text(
            mark(f"Level {i + 1}", "level"),
            f" at {where(ctx, lines[i])} · N = {count(level['visits'])} · "
            f"{chooser} {chooses(ctx.game)}",
        )
        chosen = level.get("chosen") or {}
        if level.get("rule") in ("expand", "random-unvisited"):
            blocks = [para("note", f"{level['note']}: ", mark(chosen.get("san") or chosen["move"]))]
        else:
            blocks = words.level_blocks(level, i, {**ctx.params, **(level.get("params") or {})})
        out.append({"kind": "level", "level": i, "head": head, "blocks": blocks})
    return out


def formula_blocks(level: dict[str, Any], index: int, worked: str | None) -> Blocks:
    """A selection level ranked by its formula: the table of its children (with a tie at
    the top noted under it) and the winner's formula worked out."""
    table: Block = {"kind": "table", "table": "selection", "level": index}
    note = tie_note(level.get("children") or [])
    if note is not None:
        table["notes"] = [note]
    return [table] if worked is None else [table, para("worked", worked)]


def expansion_blocks(step: dict[str, Any], ctx: Context, words: Words) -> Blocks:
    exp = step.get("expansion") or {}
    nodes = exp.get("nodes") or []
    if is_deepening(step):
        return [
            para(
                "text",
                f"{ctx.algorithm} keeps no tree between depths, so nothing is added; it only "
                "remembers the best line (the PV) to search first next time.",
            )
        ]
    if not nodes:
        terminal = (step.get("simulation") or {}).get("kind") == "terminal"
        return [
            para(
                "text",
                "Nothing is added: the selected node is a finished game, so there is nothing "
                "below it."
                if terminal
                else "Nothing is added in this iteration.",
            )
        ]
    _, full = walked(step)
    parent = exp.get("parent")
    depth = parent["depth"] if parent else 0
    parent_line = (
        format_line(full[:depth], ctx.fen) if parent and depth > 0 else "the root position"
    )
    mover = side_name(ctx.game, chooser_at(ctx, depth))
    if len(nodes) == 1:
        n = nodes[0]
        return [
            para(
                "lede",
                "One new node joins the tree: ",
                mark(n.get("san") or n["move"], "big"),
                f" ({mover}'s move) below {parent_line}.",
            ),
            facts(
                ("node id", str(n["node"])),
                ("depth", str(n["depth"])),
                ("static eval", f"{signed(n['eval'], 3)} for {mover}"),
                ("game over", "yes — its result is known") if n.get("terminal") else None,
            ),
        ]
    how, valued = words.expansion_how(step, ctx)
    listed = sorted(nodes, key=lambda n: -n["value"]) if valued else list(nodes)
    chips = [
        {
            "text": text(
                mark(n.get("san") or n["move"]), f" {signed(n['value'], 2)}" if valued else None
            ),
            **({"terminal": True} if n.get("terminal") else {}),
        }
        for n in listed[:EXPANSION_CHIPS]
    ]
    out: Blocks = [
        para(
            "lede",
            f"All {len(nodes)} moves of {parent_line} are added at once ({mover} to choose "
            f"among them), {how}:",
        ),
        {"kind": "chips", "items": chips},
    ]
    if len(nodes) > EXPANSION_CHIPS:
        out.append(para("hint", f"… and {len(nodes) - EXPANSION_CHIPS} more."))
    return out


def leaf_words(step: dict[str, Any], ctx: Context) -> tuple[str, str]:
    """The leaf's line ("the root position" at the root) and the side that moved into it."""
    _, full = walked(step)
    root = turn_of(ctx.fen)
    mover = side_name(ctx.game, root if len(full) % 2 == 1 else opposite(root))
    return (format_line(full, ctx.fen) if full else "the root position"), mover


def simulation_blocks(step: dict[str, Any], ctx: Context) -> Blocks:
    """The simulation phase's words for the kinds every algorithm shares."""
    sim = step.get("simulation") or {}
    leaf_line, leaf_mover = leaf_words(step, ctx)
    if is_deepening(step):
        return [
            para(
                "lede",
                f"{ctx.algorithm} completed depth {sim.get('depth')} (from "
                f"{sim.get('depth_before')}) and searched {count(sim.get('nodes'))} nodes.",
            ),
            {"kind": "table", "table": "deepening"},
        ]
    kind = sim.get("kind")
    if kind == "playout":
        return _playout(sim, ctx, leaf_line, leaf_mover)
    if kind == "minimax":
        return [
            para(
                "lede",
                f"Instead of a random playout, a depth-{sim['depth']} minimax search from "
                f"{leaf_line} scores the position.",
            ),
            facts(
                ("minimax score", f"{signed(sim['score'], 3)} for {leaf_mover}"),
                ("reward rule", str(sim["reward_rule"])),
                ("reward", text(mark(fixed(sim["reward"], 3)), f" for {leaf_mover}")),
            ),
        ]
    if kind == "evaluation":
        scorer = (
            "a quiescence search" if sim.get("scorer") == "quiescence" else "the static evaluation"
        )
        values = sorted(sim.get("values") or [], key=lambda v: -v["value"])
        return [
            para(
                "lede",
                f"{ctx.algorithm} plays no game out: the {sim['evaluated']} new children of "
                f"{leaf_line} were each scored by {scorer} (from the point of view of the side "
                "that moves into them).",
            ),
            para("text", capitalised(sim.get("note") or "")),
            {
                "kind": "chips",
                "items": [
                    {"text": text(mark(v.get("san") or v["move"]), f" {signed(v['value'], 2)}")}
                    for v in values[:EVALUATION_CHIPS]
                ],
            },
        ]
    if kind == "leaf":
        return [
            para(
                "lede",
                f"{ctx.algorithm} scores the leaf {leaf_line} with its own evaluation instead "
                "of playing a game out.",
            ),
            facts(
                ("score", f"{signed(sim['score'], 3)} for {leaf_mover}"),
                ("reward", text(mark(fixed(sim["reward"], 3)), f" for {leaf_mover}")),
            ),
        ]
    if kind == "terminal":
        return _terminal(step, ctx, leaf_line, leaf_mover)
    return [para("text", "No simulation in this iteration.")]


def _playout(sim: dict[str, Any], ctx: Context, leaf_line: str, leaf_mover: str) -> Blocks:
    count_ = sim.get("plies")
    if count_ is None:
        count_ = len(sim.get("moves") or [])
    played = f"plays {count_} pl{'y' if count_ == 1 else 'ies'}"
    score = sim.get("score")
    evaluated = isinstance(score, int | float) and not isinstance(score, bool)
    if evaluated:
        how = (
            f"{played}; there its ply cap cuts it off and the static evaluation scores the "
            "position it reached:"
        )
    elif sim.get("status") == "ply limit":
        how = f"{played} and stops at its ply cap, which the rules score:"
    else:
        how = f"{played} to the end of the game:"
    line = format_line(sim.get("san") or [], ctx.leaf_fen, PLAYOUT_PLIES)
    result: tuple[Text, Text] = (
        ("evaluation", text(mark(signed(score, 3)), f" for {leaf_mover} (in [−1, 1])"))
        if evaluated
        else ("result", text(mark(str(sim["result"])), f" ({sim['status']})"))
    )
    rule = "((1 + evaluation) / 2)" if evaluated else "(1 win, ½ draw, 0 loss)"
    return [
        para("lede", f"From {leaf_line}, a playout (policy “{sim['policy']}”) {how}"),
        para("line", line or "(no moves: the game was already over)"),
        facts(
            result,
            (
                "reward",
                text(
                    mark(fixed(sim["reward"], 3 if evaluated else 2)),
                    f" for {leaf_mover}, who moved into the leaf {rule}",
                ),
            ),
        ),
    ]


def _terminal(step: dict[str, Any], ctx: Context, leaf_line: str, leaf_mover: str) -> Blocks:
    sim = step.get("simulation") or {}
    parent = (step.get("expansion") or {}).get("parent")
    leaf = sim.get("leaf")
    if parent and leaf and parent.get("node") == leaf.get("node"):
        # The leaf was expanded by this very step and one of its moves ends the game: the
        # leaf is proven (MCTS-Solver), not itself a finished game.
        row = (step.get("backpropagation") or [{}])[0]
        _, full = walked(step)
        root = turn_of(ctx.fen)
        mover = root if len(full) % 2 == 1 else opposite(root)
        proof = proof_for(ctx.game, row.get("proof"), row.get("mate"), mover)
        proven = f" ({proof})" if proof else ""
        return [
            para(
                "lede",
                f"{capitalised(leaf_line)} was expanded, and its moves settle it: it is "
                f"proven{proven}, so there is nothing to simulate. Its result is the reward.",
            ),
            facts(
                (
                    "reward",
                    text(
                        mark(fixed(sim["reward"], 2)),
                        f" for {leaf_mover}, who moved into the leaf (1 win, ½ draw, 0 loss)",
                    ),
                )
            ),
        ]
    if sim.get("finished") is False:
        lede = (
            f"{capitalised(leaf_line)} is proven — its children decide its result — so there "
            "is nothing to simulate: that result is the reward."
        )
    else:
        lede = (
            f"{leaf_line} is a finished game, so there is nothing to simulate: its result is "
            "the reward."
        )
    outcome = sim.get("outcome", 0)
    said = f"{leaf_mover} won" if outcome > 0 else f"{leaf_mover} lost" if outcome < 0 else "draw"
    return [
        para("lede", lede),
        facts(("outcome", said), ("reward", text(mark(fixed(sim["reward"], 2))))),
    ]


def backup_blocks(step: dict[str, Any], ctx: Context) -> Blocks:
    """The back-propagation phase's words for the rules every algorithm shares (another
    rule's rows: their table alone)."""
    rows = step.get("backpropagation") or []
    if not rows:
        return [
            para(
                "text",
                f"{ctx.algorithm} backs scores up inside its recursive search; the table above "
                "shows the result at the root."
                if is_deepening(step)
                else "Nothing to back up.",
            )
        ]
    table = {"kind": "table", "table": "backpropagation"}
    rule = rows[0].get("rule")
    if rule == "negamax":
        return [
            para(
                "lede",
                f"{ctx.algorithm} does not average. From the leaf up, each node's value is "
                "overwritten by the best child's value, negated: value = −max(children's "
                "values) (negamax; a position good for one side is bad for the other).",
            ),
            table,
        ]
    if rule == "average":
        return [
            para(
                "lede",
                "From the leaf back to the root, every node on the path gets one more visit "
                "and the reward is added to its total W, so Q = W/N moves towards it. The "
                "reward flips (1 − r) at each level: a good result for one side is a bad one "
                "for the other.",
            ),
            table,
        ]
    return [table]


def worked_ucb1(level: dict[str, Any], c: dict[str, Any], params: dict[str, Any]) -> str:
    """UCB1's winner worked out: ``W/N + c·√(2·ln N_parent / N)``."""
    if not c["visits"]:
        return (
            f"{c['san']} wins: a child never visited scores infinity, so every move is tried "
            "once before any is tried twice."
        )
    n = c["visits"]
    weight = fixed(params["c"], 2) if "c" in params else "c"
    label, _ = labels(level)
    return (
        f"{c['san']} wins: {fixed(c['value_sum'], 2)}/{n} + {weight}·√(2·ln {level['visits']} "
        f"/ {n}) = {fixed(c['q'])} + {fixed(c['explore'])} = {fixed(c['score'])}, "
        f"{largest(level, c, label)}."
    )


def worked_eval(level: dict[str, Any], c: dict[str, Any], params: dict[str, Any]) -> str:
    """An evaluation plus exploration worked out (bfms): ``eval + C·√(ln N_parent / N)``."""
    value = signed(c["value"], 3)
    if not c["visits"]:
        return (
            f"{c['san']} wins: never visited, it scores eval + FPU = {value} + "
            f"{fixed(c['explore'])} = {fixed(c['score'])}."
        )
    weight = number(params["C"]) if params.get("C") is not None else "C"
    label, _ = labels(level)
    return (
        f"{c['san']} wins: {value} + {weight}·√(ln {level['visits']} / {c['visits']}) = "
        f"{value} + {fixed(c['explore'])} = {fixed(c['score'])}, {largest(level, c, label)}."
    )
