"""The words of ``mcts``'s step view: its PUCT table's note and the winner worked out, its
leaf searches (the quiescence line from a leaf, or the line that decided the value of a
leaf whose children were scored, set apart in its alpha-beta and quiescence plies), and its
back-up with implicit minimax. The blocks are :mod:`engine.explain.prose`'s; every number
is written from the phase as it is sent."""

from __future__ import annotations

import re
from typing import Any

from engine.explain.prose import (
    Block,
    Blocks,
    Context,
    Run,
    Text,
    facts,
    largest,
    leaf_words,
    mark,
    para,
    text,
    walked,
)
from engine.explain.words import (
    capitalised,
    fixed,
    format_line,
    line_words,
    number,
    opposite,
    plies,
    side_name,
    signed,
    turn_of,
)

#: Under every PUCT table: whose values they are, and the two rules beside the formula.
PUCT_NOTE = (
    "Q and minimax are for the side choosing here. A child not yet evaluated counts as its "
    "parent's own evaluation less the first-play urgency; a child proven lost is never chosen."
)
#: Plies of a leaf's line written out (the rest: an ellipsis).
LINE_PLIES = 40
#: Why a deciding line is only its reply's move, by how the reply's score came.
NO_LINE = {
    "table": "(from the table: no line)",
    "game over": "(a finished game: no line)",
    "earlier": "(scored before this step: no line)",
}


# ---------------------------------------------------------------- selection


def worked_puct(level: dict[str, Any], c: dict[str, Any], params: dict[str, Any]) -> str:
    """The PUCT winner worked out: its value (the blend of Q and minimax, or its parent's
    urgency while unevaluated) plus ``c·P·√N_parent / (1 + N)``."""
    weight = fixed(params["c_puct"], 2) if "c_puct" in params else "c"
    explore = (
        f"{weight}·{fixed(c.get('prior'))}·√{number(level['visits'])} / "
        f"(1 + {number(c['visits'])}) = {fixed(c.get('explore'))}"
    )
    total = f"{fixed(c.get('q'))} + {fixed(c.get('explore'))} = {fixed(c.get('score'))}"
    ranks = largest(level, c, level.get("score_label") or "PUCT")
    if not c.get("evaluated"):
        return (
            f"{c['san']} wins: not yet evaluated, it counts as its parent's urgency "
            f"{fixed(c.get('q'))}; {explore}; {total}, {ranks}."
        )
    a = fixed(params["alpha"], 2) if "alpha" in params else "α"
    minimax = re.sub(r"^([+−])", r"\1 ", signed(c.get("minimax"), 3))  # "(1 − 0.250)/2"
    if c["visits"]:
        blend = f"(1 − {a})·{fixed(c.get('q_mean'))} + {a}·(1 {minimax})/2 = {fixed(c.get('q'))}"
    else:
        blend = (
            f"(1 {minimax})/2 = {fixed(c.get('q'))} (evaluated, never visited: its minimax alone)"
        )
    return f"{c['san']} wins: {blend}; {explore}; {total}, {ranks}."


# ---------------------------------------------------------------- simulation


def leaf_search_blocks(step: dict[str, Any], ctx: Context) -> Blocks:
    """The leaf's search: its quiescence line and score, or, where its children were
    scored (``expand=evaluate``, ``rescore``), the line that decided its value."""
    sim = step.get("simulation") or {}
    leaf_line, leaf_mover = leaf_words(step, ctx)
    note = para("text", capitalised(sim.get("note") or ""))
    if sim.get("expanded"):
        if sim.get("rescored"):
            lede = (
                f"{capitalised(leaf_line)} is not a new leaf: the search keeps coming back to "
                "it, so the moves not tried there yet are scored again by deeper searches. Its "
                "score is their minimax value with the moves already tried: the best reply's "
                "score, negated."
            )
        else:
            lede = (
                f"Instead of a random playout, {leaf_line} is expanded and its children are "
                "scored by leaf searches; its score is their minimax value: the best reply's "
                "score, negated."
            )
        _, full = walked(step)
        root = turn_of(ctx.fen)
        chooser = side_name(ctx.game, opposite(root) if len(full) % 2 == 1 else root)
        reply: list[tuple[Text, Text]] = []
        if sim.get("best"):
            score = f"{signed(sim.get('line_score'), 3)} for {chooser}, to move at the leaf"
            reply.append(("best reply's score", score))
        return [
            para("lede", lede),
            note,
            *deciding_line_blocks(sim, ctx),
            score_facts("minimax score", sim, leaf_mover, reply),
        ]
    searched = (
        f"an alpha-beta search of {plies(sim['depth'])} (the nearer the root, the deeper) "
        "and, at its ends, a quiescence search"
        if sim.get("depth")
        else "a quiescence search"
    )
    line = format_line(sim.get("san") or [], ctx.leaf_fen, LINE_PLIES)
    if sim.get("cached"):
        shown = "(from the table: no line)"
    else:
        shown = line or "(already quiet: the evaluation scores the leaf itself)"
    return [
        para(
            "lede",
            f"Instead of a random playout, {leaf_line} is scored by {searched}: the captures "
            "play out until the position is quiet, where the evaluation scores it.",
        ),
        note,
        para("line", shown),
        score_facts("score", sim, leaf_mover),
    ]


def deciding_line_blocks(sim: dict[str, Any], ctx: Context) -> Blocks:
    """The line that decided an expanded leaf's value: its best reply's move, then the line
    that reply's search left — its alpha-beta plies, then its quiescence plies, marked
    apart — with a key; or, when the reply's score has no line of this step, why."""
    sans = sim.get("san") or []
    if not sim.get("best") or not sans:
        return []
    words = line_words(sans[:LINE_PLIES], ctx.leaf_fen)
    searched = sim.get("searched_plies") or 0
    ab = 1 + searched  # the reply's move, then the alpha-beta plies
    runs: list[Run] = [mark(words[0], "reply")]
    if len(words) > 1 and ab > 1:
        runs += [" ", mark(" ".join(words[1:ab]), "ab")]
    if len(words) > ab:
        runs += [" ", mark(" ".join(words[ab:]), "qs")]
    if len(sans) > LINE_PLIES:
        runs.append(" …")
    how = sim.get("best_how")
    why: str | None = NO_LINE.get(how or "")
    if len(sans) == 1 and how == "searched":
        why = "(quiet after it: the evaluation scores it)"
    if why:
        return [para("deciding-line", *runs), para("hint", why)]
    quiet = len(sans) - 1 - searched
    key: list[Run] = []
    if searched:
        key.append(mark(f"{plies(searched)} of alpha-beta search", "ab"))
    if quiet > 0:
        key.append(mark(f"{plies(quiet)} of quiescence search", "qs"))
    if not key:
        return [para("deciding-line", *runs)]
    then: list[Run] = [", then ", key[1]] if len(key) > 1 else []
    return [
        para("deciding-line", *runs),
        para("line-key", "The best reply, then ", key[0], *then, "."),
    ]


def score_facts(
    label: str, sim: dict[str, Any], mover: str, before: list[tuple[Text, Text]] | None = None
) -> Block:
    """A leaf's score in [−1, 1] and the reward made of it, both for ``mover`` (after the
    ``before`` facts)."""
    return facts(
        *(before or []),
        (label, f"{signed(sim.get('score'), 3)} for {mover} (in [−1, 1])"),
        ("reward", text(mark(fixed(sim.get("reward"), 3)), f" for {mover} ((1 + score) / 2)")),
    )


# ---------------------------------------------------------------- back-propagation


def average_minimax_blocks() -> Blocks:
    """Averaging with implicit minimax: the rows' table between what it does and whose
    values they are."""
    return [
        para(
            "lede",
            "From the leaf back to the root, every node on the path gets one more visit and "
            "the reward is added to its total W, so Q = W/N moves towards it (the reward "
            "flips, 1 − r, at each level). Each node also keeps its implicit minimax value, "
            "the negamax of its children's evaluations, recomputed on the way up; a node with "
            "a child proven lost for the side to move there is proven won, and one whose moves "
            "all lose is proven lost.",
        ),
        {"kind": "table", "table": "backpropagation"},
        para(
            "hint",
            "Q and minimax of each node are for the side that moved into it (the root's: the "
            "side not to move).",
        ),
    ]
