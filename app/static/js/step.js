// Step mode: one iteration of the search, explained in its four phases —
// selection (every sibling's formula with its numbers, and which won),
// expansion (the node(s) added), simulation (the playout, the minimax score or
// the static evaluations) and back-propagation (each node's N and value before
// and after). The panels are rebuilt once per step (a step is an event, not a
// stream); the animation only moves the "current phase" through them, and
// `overlay`/`highlight` say what the board and the tree show for that phase.

import { arrowShapes } from "./arrows.js";
import { h } from "./dom.js";
import { count, fixed, formatLine, lineWords, plies, plyLabel, signed } from "./notation.js";
import { opposite, proofText, sideName, turnOf } from "./state.js";

const PHASES = ["selection", "expansion", "simulation", "backpropagation"];
export const PHASE_TITLES = ["1 · Selection", "2 · Expansion", "3 · Simulation", "4 · Back-propagation"];

/** The side choosing at a node of depth `depth` (the root's side to move at even depths). */
function chooserAt(step, depth) {
  const root = turnOf(step.fen);
  return depth % 2 === 0 ? root : opposite(root);
}

/** SAN line from the root to each selection level (level k's node is level k−1's choice). */
function levelLines(step) {
  const lines = [];
  const sans = [];
  for (const level of step.selection || []) {
    lines.push(sans.slice());
    if (level.chosen) sans.push(level.chosen.san || level.chosen.move);
  }
  return { lines, full: sans };
}

function where(step, sans) {
  return sans.length ? formatLine(sans, step.fen) : "the root position";
}

function num(x, digits = 3) {
  return x === null || x === undefined ? "∞" : fixed(x, digits);
}

/** A step of a search that deepens (one more depth of alpha-beta) rather than walking a
 * tree: no selection, expansion or back-propagation of its own to show. */
export function isDeepening(step) {
  return !!step && step.stepping === "depth";
}

// Why a step ran no iteration (the batch kernel's return code; 0, DONE, ran one).
const IDLE_REASONS = {
  1: "the tree is full (its node budget), so no node can be added",
  2: "the search was stopped before the iteration finished",
  3: "the game is over in this position",
  4: "the search has reached its maximum depth",
  5: "the root is proven (its result is known for certain: see the Moves table), so there is nothing left to search",
};

/** A step that ran no iteration: why, or null when one ran. */
function idleReason(step) {
  if (!step || step.iterations !== 0) return null;
  return `No iteration ran: ${IDLE_REASONS[step.code] || "the search could not go on"}.`;
}

/** "The root position" at the start of a sentence (a line of moves starts with a digit). */
function capitalised(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A formula as the server writes it, with square roots as the sign. */
function formulaText(formula) {
  return (formula || "").replaceAll("sqrt", "√");
}

// ------------------------------------------------------------------ panels

function selectionPanel(step, ctx) {
  const levels = step.selection || [];
  if (isDeepening(step)) {
    return [h("p", {}, `${step.algorithm} has no selection phase: each step searches the whole tree one ply deeper (iterative deepening).`)];
  }
  if (!levels.length) {
    return [h("p", {}, "Nothing to choose: the root had no children yet, so this iteration goes straight to expansion.")];
  }
  const { lines } = levelLines(step);
  const out = [
    h(
      "p",
      { class: "lede" },
      `From the root, the search walks down ${levels.length} level${levels.length === 1 ? "" : "s"}. `,
      "At each node it scores every child with the selection formula and goes to the best one.",
    ),
  ];
  levels.forEach((level, i) => {
    const chooser = sideName(ctx.game, chooserAt(step, level.depth));
    const head = h(
      "div",
      { class: "level-head" },
      h("span", { class: "level-no" }, `Level ${i + 1}`),
      h("span", {}, ` at ${where(step, lines[i])} · N = ${count(level.visits)} · ${chooser} ${ctx.game === "knight" ? "choose" : "chooses"}`),
    );
    const box = h("div", { class: "level", dataset: { level: String(i) } }, head);
    if (level.rule === "expand" || level.rule === "random-unvisited") {
      box.append(
        h("p", { class: "note" }, `${level.note}: `, h("strong", {}, level.chosen.san || level.chosen.move)),
      );
      out.push(box);
      return;
    }
    box.append(formulaTable(step, level, ctx));
    const winner = (level.children || []).find((c) => c.winner);
    if (winner) box.append(h("p", { class: "worked" }, workedExample(step, level, winner, ctx)));
    out.push(box);
  });
  return out;
}

/** What the algorithm calls its selection score and the term it exploits (its hooks, sent
 * with every level), so the heading, the columns and the worked line name the same things. */
function levelLabels(level) {
  const byEval = level.value_kind === "eval";
  return {
    score: level.score_label || (byEval ? "score" : "UCB1"),
    exploit: level.exploit_label || (byEval ? "eval" : "W/N"),
  };
}

function formulaTable(step, level, ctx) {
  if (level.rule === "puct") return puctTable(step, level, ctx);
  // "eval": each child ranks by its value (bfms); "q": by its mean reward W/N (UCB1)
  const byEval = level.value_kind === "eval";
  const labels = levelLabels(level);
  const rows = (level.children || []).slice().sort((a, b) => {
    const sa = a.score === null ? Infinity : a.score;
    const sb = b.score === null ? Infinity : b.score;
    return sb - sa || b.visits - a.visits;
  });
  const shown = rows.slice(0, 8);
  const head = byEval
    ? ["Move", "N", labels.exploit, "+ explore", `= ${labels.score}`, ""]
    : ["Move", "N", "W", `Q = ${labels.exploit}`, "+ explore", `= ${labels.score}`, ""];
  const body = shown.map((c) => {
    const mark = c.winner ? "✔ best" : "";
    const cells = byEval
      ? [c.san, count(c.visits), signed(c.value, 3), num(c.explore), num(c.score), mark]
      : [c.san, count(c.visits), fixed(c.value_sum, 2), c.visits ? fixed(c.q) : "–", c.visits ? num(c.explore) : "–", c.visits ? num(c.score) : "∞ (unvisited)", mark];
    return h(
      "tr",
      { class: c.winner ? "winner" : "" },
      cells.map((v, k) => h("td", { class: k === 0 ? "san" : k === cells.length - 1 ? "mark" : "num" }, v)),
    );
  });
  return h(
    "div",
    { class: "formula-wrap" },
    h("p", { class: "formula" }, `${labels.score} = ${formulaText(level.formula)}`),
    h(
      "table",
      { class: "formula-table" },
      h("thead", {}, h("tr", {}, head.map((t, k) => h("th", { class: k === 0 ? "" : "num" }, t)))),
      h("tbody", {}, body),
    ),
    ...selectionNotes(level.children || [], rows, shown.length, level.children_trimmed || 0, byEval ? "scores" : labels.score),
  );
}

/** The selection rows of a PUCT level (mcts): each child's prior P, its mean reward Q,
 * its implicit minimax value, the blend of the two the formula uses (an unevaluated
 * child: its parent's urgency instead), the exploration term and the PUCT score. Every
 * value is for the side choosing here, who makes the move. */
function puctTable(step, level, ctx) {
  const params = levelParams(level, ctx);
  const chooser = chooserAt(step, level.depth); // who moves into each child
  const rows = (level.children || []).slice().sort((a, b) => b.score - a.score || b.visits - a.visits);
  const shown = rows.slice(0, 8);
  const head = [
    ["Move", ""],
    ["N", "visits"],
    ["P", "prior: the move-ordering guess"],
    ["Q", "mean reward W/N"],
    ["minimax", "implicit minimax value, in [−1, 1]"],
    [level.exploit_label || "value", "(1 − α)·Q + α·(1 + minimax)/2; unevaluated: the parent's urgency"],
    ["+ explore", "c·P·√N_parent / (1 + N)"],
    [`= ${level.score_label || "PUCT"}`, ""],
    ["", ""],
  ];
  const body = shown.map((c) => {
    const proof = proofFor(ctx.game, c, chooser);
    const cells = [
      c.san,
      count(c.visits),
      fixed(c.prior),
      c.q_mean === null || c.q_mean === undefined ? "–" : fixed(c.q_mean),
      proof || (c.evaluated ? signed(c.minimax, 3) : "not yet"),
      c.evaluated ? fixed(c.q) : `${fixed(c.q)} urgency`,
      fixed(c.explore),
      fixed(c.score),
      c.winner ? "✔ best" : c.proof === -1 ? "never chosen" : "",
    ];
    return h(
      "tr",
      { class: [c.winner ? "winner" : "", c.evaluated ? "" : "unevaluated", proof ? "proven" : ""].filter(Boolean).join(" ") },
      cells.map((v, k) => h("td", { class: k === 0 ? "san" : k === cells.length - 1 ? "mark" : "num" }, v)),
    );
  });
  const values = [
    params.alpha !== undefined ? `α = ${fixed(params.alpha, 2)}` : null,
    params.c_puct !== undefined ? `c = ${fixed(params.c_puct, 2)}` : null,
    `N_parent = ${count(level.visits)}`,
  ].filter(Boolean);
  return h(
    "div",
    { class: "formula-wrap" },
    h("p", { class: "formula" }, `${level.score_label || "PUCT"} = ${formulaText(level.formula)}`, h("span", { class: "hint" }, ` · ${values.join(", ")}`)),
    h(
      "table",
      { class: "formula-table puct" },
      h("thead", {}, h("tr", {}, head.map(([t, title], k) => h("th", { class: k === 0 ? "" : "num", title: title || null }, t)))),
      h("tbody", {}, body),
    ),
    h("p", { class: "hint" }, "Q and minimax are for the side choosing here. A child not yet evaluated counts as its parent's own evaluation less the first-play urgency; a child proven lost is never chosen."),
    ...selectionNotes(level.children || [], rows, shown.length, level.children_trimmed || 0, "scores"),
  );
}

/** Two scores the formula cannot tell apart (null: infinite, an unvisited child). */
function sameScore(a, b) {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
}

/** What the formula table leaves out, said truthfully: a tie at the top (the search takes
 * the first tied child in list order — the tree's order of the children, `listed`, not
 * the table's), and the rows not shown: tied with the winner, lower, or not sent at all.
 * `rows` are the children sorted best first; the frame's scores are rounded, so a tie
 * whose winner is not the first in list order differed in digits the frame dropped. */
export function selectionNotes(listed, rows, shownCount, trimmed, lowerLabel = "UCB1") {
  const notes = [];
  if (!rows.length) return notes;
  const top = rows[0].score;
  const tied = rows.filter((c) => sameScore(c.score, top)).length;
  if (tied > 1) {
    const at = top === null ? "∞ (all unvisited)" : fixed(top);
    const first = listed.find((c) => sameScore(c.score, top));
    const winner = listed.find((c) => c.winner);
    const text = !winner || first === winner
      ? `${tied} moves tie at ${at}; the first in list order is taken.`
      : `${tied} moves show ${at}; their exact scores differ in later digits, and the largest, ${winner.san}, is taken.`;
    notes.push(h("p", { class: "tie" }, text));
  }
  const hidden = rows.slice(shownCount);
  const hiddenTied = hidden.filter((c) => sameScore(c.score, top)).length;
  const lower = hidden.length - hiddenTied;
  const parts = [];
  const moves = (n) => `${n} more move${n === 1 ? "" : "s"}`;
  if (hiddenTied) parts.push(`${moves(hiddenTied)} tied at the top`);
  if (lower) parts.push(`${moves(lower)} with lower ${lowerLabel}`);
  if (trimmed) parts.push(`${moves(trimmed)} not sent (wide level)`);
  if (parts.length) notes.push(h("p", { class: "hint" }, `… and ${parts.join(", ")}.`));
  return notes;
}

/** The selection weights a level was chosen with: the trace's own (the root's `c_root`
 * stands in for `c_puct` there) over the game's settings. */
function levelParams(level, ctx) {
  return { ...(ctx.params || {}), ...(level.params || {}) };
}

function workedExample(step, level, c, ctx) {
  const params = levelParams(level, ctx);
  const np = level.visits;
  if (level.rule === "puct") {
    const cParam = params.c_puct !== undefined ? fixed(params.c_puct, 2) : "c";
    const explore = `${cParam}·${fixed(c.prior)}·√${np} / (1 + ${c.visits}) = ${fixed(c.explore)}`;
    const label = level.score_label || "PUCT";
    if (!c.evaluated) {
      return `${c.san} wins: not yet evaluated, it counts as its parent's urgency ${fixed(c.q)}; ${explore}; ${fixed(c.q)} + ${fixed(c.explore)} = ${fixed(c.score)}, ${largest(level, c, label)}.`;
    }
    const a = params.alpha !== undefined ? fixed(params.alpha, 2) : "α";
    const blend = c.visits
      ? `(1 − ${a})·${fixed(c.q_mean)} + ${a}·(1 ${signed(c.minimax, 3).replace(/^([+−])/, "$1 ")})/2 = ${fixed(c.q)}`
      : `(1 ${signed(c.minimax, 3).replace(/^([+−])/, "$1 ")})/2 = ${fixed(c.q)} (evaluated, never visited: its minimax alone)`;
    return `${c.san} wins: ${blend}; ${explore}; ${fixed(c.q)} + ${fixed(c.explore)} = ${fixed(c.score)}, ${largest(level, c, label)}.`;
  }
  if (level.value_kind === "eval") {
    const C = params.C ?? "C";
    if (!c.visits) {
      return `${c.san} wins: never visited, it scores eval + FPU = ${signed(c.value, 3)} + ${fixed(c.explore)} = ${fixed(c.score)}.`;
    }
    return `${c.san} wins: ${signed(c.value, 3)} + ${C}·√(ln ${np} / ${c.visits}) = ${signed(c.value, 3)} + ${fixed(c.explore)} = ${fixed(c.score)}, ${largest(level, c, levelLabels(level).score)}.`;
  }
  if (!c.visits) return `${c.san} wins: a child never visited scores infinity, so every move is tried once before any is tried twice.`;
  const cParam = params.c !== undefined ? fixed(params.c, 2) : "c";
  return `${c.san} wins: ${fixed(c.value_sum, 2)}/${c.visits} + ${cParam}·√(2·ln ${np} / ${c.visits}) = ${fixed(c.q)} + ${fixed(c.explore)} = ${fixed(c.score)}, ${largest(level, c, levelLabels(level).score)}.`;
}

/** "the largest UCB1", or, on a tie, that the winner shares it and comes first in the list. */
function largest(level, winner, label) {
  const others = (level.children || []).filter((c) => c !== winner && sameScore(c.score, winner.score)).length;
  if (!others) return `the largest ${label}`;
  const first = (level.children || []).find((c) => sameScore(c.score, winner.score));
  if (first !== winner) return `the largest ${label} (others round to the same figure)`;
  return `the largest ${label}, shared with ${others} other move${others === 1 ? "" : "s"} (the first in list order is taken)`;
}

function expansionPanel(step, ctx) {
  const exp = step.expansion || {};
  const nodes = exp.nodes || [];
  if (isDeepening(step)) {
    return [h("p", {}, `${step.algorithm} keeps no tree between depths, so nothing is added; it only remembers the best line (the PV) to search first next time.`)];
  }
  if (!nodes.length) {
    const sim = step.simulation || {};
    return [
      h(
        "p",
        {},
        sim.kind === "terminal"
          ? "Nothing is added: the selected node is a finished game, so there is nothing below it."
          : "Nothing is added in this iteration.",
      ),
    ];
  }
  const { full } = levelLines(step);
  const parentLine = exp.parent && exp.parent.depth > 0 ? formatLine(full.slice(0, exp.parent.depth), step.fen) : "the root position";
  const mover = sideName(ctx.game, chooserAt(step, exp.parent ? exp.parent.depth : 0));
  const out = [];
  if (nodes.length === 1) {
    const n = nodes[0];
    out.push(
      h(
        "p",
        { class: "lede" },
        "One new node joins the tree: ",
        h("strong", { class: "big-move" }, n.san || n.move),
        ` (${mover}'s move) below ${parentLine}.`,
      ),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "node id"),
        h("dd", {}, String(n.node)),
        h("dt", {}, "depth"),
        h("dd", {}, String(n.depth)),
        h("dt", {}, "static eval"),
        h("dd", {}, `${signed(n.eval, 3)} for ${mover}`),
        n.terminal ? h("dt", {}, "game over") : null,
        n.terminal ? h("dd", {}, "yes — its result is known") : null,
      ),
    );
  } else {
    // How the new children were scored (mcts says by its `expand` parameter): lazily, none
    // yet, only the one the formula goes on to, in the simulation; evaluating, by leaf
    // searches as the node is expanded — most only against a bound (a null window, or not
    // at all after a cut), so their numbers are not scores to list; bfms, by its `leaf`
    // scorer (a quiescence search in chess, else the static evaluation).
    const params = ctx.params || {};
    const lazy = params.expand === "lazy";
    const evaluating = params.expand === "evaluate";
    // The leaf scorer that ran: the trace says (bfms), else the game's `leaf` parameter.
    const leaf = (step.simulation || {}).scorer || params.leaf;
    const scorer = leaf === "static" ? "the static evaluation" : "quiescence searches";
    const how = lazy
      ? "each with its prior (a move-ordering guess) and none scored yet: the formula picks one to go on to, and the simulation scores that one"
      : evaluating
        ? `and scored by ${scorer}: the first exactly, the others only as far as needed to rank them against it (the simulation says how many)`
        : leaf === "quiescence"
          ? "each scored by a quiescence search"
          : "each scored by the static evaluation";
    const valued = !lazy && !evaluating;
    out.push(
      h("p", { class: "lede" }, `All ${nodes.length} moves of ${parentLine} are added at once (${mover} to choose among them), ${how}:`),
      h(
        "ol",
        { class: "chips" },
        nodes
          .slice()
          .sort((a, b) => (valued ? b.value - a.value : 0))
          .slice(0, 24)
          .map((n) => h("li", { class: n.terminal ? "terminal" : "" }, h("strong", {}, n.san || n.move), valued ? ` ${signed(n.value, 2)}` : "")),
      ),
      nodes.length > 24 ? h("p", { class: "hint" }, `… and ${nodes.length - 24} more.`) : null,
    );
  }
  return out;
}

function simulationPanel(step, ctx) {
  const sim = step.simulation || {};
  const exp = step.expansion || {};
  const { full } = levelLines(step);
  const leafSans = full;
  const leafLine = leafSans.length ? formatLine(leafSans, step.fen) : "the root position";
  const rootTurn = turnOf(step.fen);
  const leafMover = sideName(ctx.game, leafSans.length % 2 === 1 ? rootTurn : opposite(rootTurn));
  if (isDeepening(step)) return deepeningPanel(step, sim);
  switch (sim.kind) {
    case "playout": {
      const plies = sim.plies ?? (sim.moves || []).length;
      const played = `plays ${plies} pl${plies === 1 ? "y" : "ies"}`;
      const evaluated = typeof sim.score === "number"; // cut off by its ply cap, at_cap=eval
      const how = evaluated
        ? `${played}; there its ply cap cuts it off and the static evaluation scores the position it reached:`
        : sim.status === "ply limit"
          ? `${played} and stops at its ply cap, which the rules score:`
          : `${played} to the end of the game:`;
      return [
        h("p", { class: "lede" }, `From ${leafLine}, a playout (policy “${sim.policy}”) ${how}`),
        h("p", { class: "playout" }, formatLine(sim.san || [], step.leaf_fen, { max: 60 }) || "(no moves: the game was already over)"),
        sim.moves_trimmed ? h("p", { class: "hint" }, `… ${sim.moves_trimmed} more plies not shown.`) : null,
        h(
          "dl",
          { class: "facts" },
          ...(evaluated
            ? [h("dt", {}, "evaluation"), h("dd", {}, h("strong", {}, signed(sim.score, 3)), ` for ${leafMover} (in [−1, 1])`)]
            : [h("dt", {}, "result"), h("dd", {}, h("strong", {}, sim.result), ` (${sim.status})`)]),
          h("dt", {}, "reward"),
          h(
            "dd",
            {},
            h("strong", {}, fixed(sim.reward, evaluated ? 3 : 2)),
            ` for ${leafMover}, who moved into the leaf ${evaluated ? "((1 + evaluation) / 2)" : "(1 win, ½ draw, 0 loss)"}`,
          ),
        ),
      ];
    }
    case "minimax":
      return [
        h("p", { class: "lede" }, `Instead of a random playout, a depth-${sim.depth} minimax search from ${leafLine} scores the position.`),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "minimax score"),
          h("dd", {}, `${signed(sim.score, 3)} for ${leafMover}`),
          h("dt", {}, "reward rule"),
          h("dd", {}, String(sim.reward_rule)),
          h("dt", {}, "reward"),
          h("dd", {}, h("strong", {}, fixed(sim.reward, 3)), ` for ${leafMover}`),
        ),
      ];
    case "evaluation":
      return [
        h("p", { class: "lede" }, `${step.algorithm} plays no game out: the ${sim.evaluated} new children of ${leafLine} were each scored by ${sim.scorer === "quiescence" ? "a quiescence search" : "the static evaluation"} (from the point of view of the side that moves into them).`),
        h("p", {}, capitalised(sim.note || "")),
        h(
          "ol",
          { class: "chips" },
          (sim.values || [])
            .slice()
            .sort((a, b) => b.value - a.value)
            .slice(0, 12)
            .map((v) => h("li", {}, h("strong", {}, v.san || v.move), ` ${signed(v.value, 2)}`)),
        ),
      ];
    case "leaf":
      return [
        h("p", { class: "lede" }, `${step.algorithm} scores the leaf ${leafLine} with its own evaluation instead of playing a game out.`),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "score"),
          h("dd", {}, `${signed(sim.score, 3)} for ${leafMover}`),
          h("dt", {}, "reward"),
          h("dd", {}, h("strong", {}, fixed(sim.reward, 3)), ` for ${leafMover}`),
        ),
      ];
    case "quiescence": {
      if (sim.expanded) {
        // expand=evaluate: the leaf's children were scored as it was expanded (rescore: a
        // node the search keeps returning to had its untried moves scored deeper). The line
        // shown is the one that decided its new value: its best reply and that reply's search.
        const lede = sim.rescored
          ? `${capitalised(leafLine)} is not a new leaf: the search keeps coming back to it, so the moves not tried there yet are scored again by deeper searches. Its score is their minimax value with the moves already tried: the best reply's score, negated.`
          : `Instead of a random playout, ${leafLine} is expanded and its children are scored by leaf searches; its score is their minimax value: the best reply's score, negated.`;
        const chooser = sideName(ctx.game, leafSans.length % 2 === 1 ? opposite(rootTurn) : rootTurn);
        const lineScore = sim.best
          ? [h("dt", {}, "best reply's score"), h("dd", {}, `${signed(sim.line_score, 3)} for ${chooser}, to move at the leaf`)]
          : [];
        return [
          h("p", { class: "lede" }, lede),
          h("p", {}, capitalised(sim.note || "")),
          ...decidingLine(sim, step),
          scoreFacts("minimax score", sim, leafMover, lineScore),
        ];
      }
      const line = formatLine(sim.san || [], step.leaf_fen, { max: 40 });
      const lede = sim.depth
        ? `Instead of a random playout, ${leafLine} is scored by an alpha-beta search of ${plies(sim.depth)} (the nearer the root, the deeper) and, at its ends, a quiescence search: the captures play out until the position is quiet, where the evaluation scores it.`
        : `Instead of a random playout, ${leafLine} is scored by a quiescence search: the captures play out until the position is quiet, where the evaluation scores it.`;
      return [
        h("p", { class: "lede" }, lede),
        h("p", {}, capitalised(sim.note || "")),
        h("p", { class: "playout" }, sim.cached ? "(from the table: no line)" : line || "(already quiet: the evaluation scores the leaf itself)"),
        scoreFacts("score", sim, leafMover),
      ];
    }
    case "terminal":
      if (exp.parent && sim.leaf && exp.parent.node === sim.leaf.node) {
        // The leaf was expanded by this very step and one of its moves ends the game: the
        // leaf is proven (MCTS-Solver), not itself a finished game.
        const row = (step.backpropagation || [])[0] || {};
        const proof = proofFor(ctx.game, row, leafSans.length % 2 === 1 ? rootTurn : opposite(rootTurn));
        return [
          h("p", { class: "lede" }, `${capitalised(leafLine)} was expanded, and its moves settle it: it is proven${proof ? ` (${proof})` : ""}, so there is nothing to simulate. Its result is the reward.`),
          h(
            "dl",
            { class: "facts" },
            h("dt", {}, "reward"),
            h("dd", {}, h("strong", {}, fixed(sim.reward, 2)), ` for ${leafMover}, who moved into the leaf (1 win, ½ draw, 0 loss)`),
          ),
        ];
      }
      return [
        h("p", { class: "lede" }, sim.finished === false
          ? `${capitalised(leafLine)} is proven — its children decide its result — so there is nothing to simulate: that result is the reward.`
          : `${leafLine} is a finished game, so there is nothing to simulate: its result is the reward.`),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "outcome"),
          h("dd", {}, sim.outcome > 0 ? `${leafMover} won` : sim.outcome < 0 ? `${leafMover} lost` : "draw"),
          h("dt", {}, "reward"),
          h("dd", {}, h("strong", {}, fixed(sim.reward, 2))),
        ),
      ];
    default:
      return [h("p", {}, "No simulation in this iteration.")];
  }
}

/** The line that decided an expanded leaf's new value: its best reply's move (bold), then
 *  the line that reply's search left — its alpha-beta plies, then its quiescence plies set
 *  apart — with a key; or, when the reply's score has no line of this step, why. */
function decidingLine(sim, step) {
  const sans = sim.san || [];
  if (!sim.best || !sans.length) return [];
  const max = 40;
  const words = lineWords(sans.slice(0, max), step.leaf_fen);
  const ab = 1 + (sim.searched_plies || 0); // the reply's move, then the alpha-beta plies
  const parts = [
    h("strong", { class: "reply", title: "the best reply" }, words[0]),
    words.length > 1 && ab > 1 ? h("span", { class: "ab", title: "alpha-beta search" }, words.slice(1, ab).join(" ")) : null,
    words.length > ab ? h("span", { class: "qs", title: "quiescence search" }, words.slice(ab).join(" ")) : null,
    sans.length > max ? "…" : null,
  ].filter(Boolean);
  const spaced = parts.flatMap((part, i) => (i ? [" ", part] : [part]));
  const why =
    sans.length === 1 && sim.best_how === "searched"
      ? "(quiet after it: the evaluation scores it)"
      : {
          table: "(from the table: no line)",
          "game over": "(a finished game: no line)",
          earlier: "(scored before this step: no line)",
        }[sim.best_how];
  const searched = sim.searched_plies || 0;
  const quiet = sans.length - 1 - searched;
  const key = [];
  if (searched) key.push(h("span", { class: "ab" }, `${plies(searched)} of alpha-beta search`));
  if (quiet > 0) key.push(h("span", { class: "qs" }, `${plies(quiet)} of quiescence search`));
  const keyLine = key.length
    ? h("p", { class: "hint line-key" }, "The best reply, then ", ...key.flatMap((k, i) => (i ? [", then ", k] : [k])), ".")
    : null;
  return [
    h("p", { class: "playout deciding-line" }, ...spaced),
    why ? h("p", { class: "hint" }, why) : keyLine,
  ];
}

/** A leaf's score in [−1, 1] and the reward made of it, both for `leafMover` (after any
 *  `before` rows). */
function scoreFacts(label, sim, leafMover, before = []) {
  return h(
    "dl",
    { class: "facts" },
    ...before,
    h("dt", {}, label),
    h("dd", {}, `${signed(sim.score, 3)} for ${leafMover} (in [−1, 1])`),
    h("dt", {}, "reward"),
    h("dd", {}, h("strong", {}, fixed(sim.reward, 3)), ` for ${leafMover} ((1 + score) / 2)`),
  );
}

/** One more depth of iterative deepening: every root move's score, bound and line. */
function deepeningPanel(step, sim) {
  return [
    h("p", { class: "lede" }, `${step.algorithm} completed depth ${sim.depth} (from ${sim.depth_before}) and searched ${count(sim.nodes)} nodes.`),
    h(
      "table",
      { class: "formula-table" },
      h("thead", {}, h("tr", {}, ["Move", "score", "bound", "PV"].map((t) => h("th", {}, t)))),
      h(
        "tbody",
        {},
        (sim.moves || [])
          .slice()
          .sort((a, b) => b.score - a.score)
          .slice(0, 8)
          .map((m) => h("tr", {}, h("td", { class: "san" }, m.san), h("td", { class: "num" }, signed(m.score, 3)), h("td", {}, m.bound), h("td", { class: "pv" }, (m.pv_san || []).slice(0, 6).join(" ")))),
      ),
    ),
  ];
}

function backpropPanel(step, ctx) {
  const rows = step.backpropagation || [];
  if (!rows.length) {
    return [h("p", {}, isDeepening(step) ? `${step.algorithm} backs scores up inside its recursive search; the table above shows the result at the root.` : "Nothing to back up.")];
  }
  const { full } = levelLines(step);
  const line = (row) => (row.depth === 0 ? "root" : plyLabel(step.fen, row.depth - 1, full[row.depth - 1] || row.san));
  if (rows[0].rule === "negamax") {
    return [
      h("p", { class: "lede" }, `${step.algorithm} does not average. From the leaf up, each node's value is overwritten by the best child's value, negated: value = −max(children's values) (negamax; a position good for one side is bad for the other).`),
      h(
        "table",
        { class: "formula-table backprop" },
        h("thead", {}, h("tr", {}, ["Node", "N", "value before", "→ after", "because"].map((t, k) => h("th", { class: k === 0 || k === 4 ? "" : "num" }, t)))),
        h(
          "tbody",
          {},
          rows.map((r) =>
            h(
              "tr",
              { class: Math.abs((r.value_after ?? 0) - (r.value_before ?? 0)) > 1e-6 ? "changed" : "" },
              h("td", { class: "san" }, line(r)),
              h("td", { class: "num" }, `${count(r.visits_before)} → ${count(r.visits_after)}`),
              h("td", { class: "num" }, signed(r.value_before, 3)),
              h("td", { class: "num strong" }, signed(r.value_after, 3)),
              h("td", {}, r.max_child ? `−max: best child ${r.max_child.san} has ${signed(r.max_child.value, 3)}` : "a leaf keeps its evaluation"),
            ),
          ),
        ),
      ),
    ];
  }
  if (rows[0].rule === "average + minimax") return averageMinimaxRows(step, ctx, rows, line);
  return [
    h("p", { class: "lede" }, "From the leaf back to the root, every node on the path gets one more visit and the reward is added to its total W, so Q = W/N moves towards it. The reward flips (1 − r) at each level: a good result for one side is a bad one for the other."),
    h(
      "table",
      { class: "formula-table backprop" },
      h("thead", {}, h("tr", {}, ["Node", "reward", "N", "W", "Q before", "→ after"].map((t, k) => h("th", { class: k === 0 ? "" : "num" }, t)))),
      h(
        "tbody",
        {},
        rows.map((r) =>
          h(
            "tr",
            {},
            h("td", { class: "san" }, line(r)),
            h("td", { class: "num" }, `+${fixed(r.reward, 2)}`),
            h("td", { class: "num" }, `${count(r.visits_before)} → ${count(r.visits_after)}`),
            h("td", { class: "num" }, `${fixed(r.value_sum_before, 2)} → ${fixed(r.value_sum_after, 2)}`),
            h("td", { class: "num" }, r.q_before === null || r.q_before === undefined ? "–" : fixed(r.q_before)),
            h("td", { class: "num strong" }, fixed(r.q_after)),
          ),
        ),
      ),
    ),
  ];
}

/** A proof as words for the side that wins it ("mate in 2 for White"), "proven draw",
 * or "" (not proven); `row.proof` is for `mover`, the side that moved into the node. */
function proofFor(game, row, mover) {
  if (!row.proof) return "";
  if (row.proof === 2) return "proven draw";
  const winner = row.proof > 0 ? mover : opposite(mover);
  const text = proofText({ proof: 1, mate: row.mate });
  return `${text === "proven win" ? "proven win" : text} for ${sideName(game, winner)}`;
}

/** Averaging with implicit minimax (mcts): N, W and Q as UCT's rows, and beside them
 * each node's minimax value (the negamax of its children's evaluations) before and after,
 * and its proof when it has one (a proof found by this step is marked). */
function averageMinimaxRows(step, ctx, rows, line) {
  const rootTurn = turnOf(step.fen);
  const moverOf = (depth) => (depth % 2 === 1 ? rootTurn : opposite(rootTurn));
  return [
    h("p", { class: "lede" }, "From the leaf back to the root, every node on the path gets one more visit and the reward is added to its total W, so Q = W/N moves towards it (the reward flips, 1 − r, at each level). Each node also keeps its implicit minimax value, the negamax of its children's evaluations, recomputed on the way up; a node with a child proven lost for the side to move there is proven won, and one whose moves all lose is proven lost."),
    h(
      "table",
      { class: "formula-table backprop" },
      h("thead", {}, h("tr", {}, ["Node", "reward", "N", "Q", "minimax", "proof"].map((t, k) => h("th", { class: k === 0 || k === 5 ? "" : "num" }, t)))),
      h(
        "tbody",
        {},
        rows.map((r) => {
          const proof = proofFor(ctx.game, r, moverOf(r.depth));
          const changed = r.minimax_before === null || Math.abs(r.minimax_after - r.minimax_before) > 1e-6;
          const qBefore = r.q_before === null || r.q_before === undefined ? "–" : fixed(r.q_before);
          const mmBefore = r.minimax_before === null ? "new" : signed(r.minimax_before, 3);
          return h(
            "tr",
            { class: [changed ? "changed" : "", proof ? "proven" : ""].filter(Boolean).join(" ") },
            h("td", { class: "san" }, line(r)),
            h("td", { class: "num" }, `+${fixed(r.reward, 2)}`),
            h("td", { class: "num" }, `${count(r.visits_before)} → ${count(r.visits_after)}`),
            h("td", { class: "num" }, `${qBefore} → `, h("strong", {}, fixed(r.q_after))),
            h("td", { class: "num" }, `${mmBefore} → `, h("strong", {}, signed(r.minimax_after, 3))),
            h("td", { class: "proof" }, proof),
          );
        }),
      ),
    ),
    h("p", { class: "hint" }, "Q and minimax of each node are for the side that moved into it (the root's: the side not to move)."),
  ];
}

const BUILDERS = [selectionPanel, expansionPanel, simulationPanel, backpropPanel];

/** One line about a step, for the history list and toasts. */
export function stepSummary(step) {
  const { full } = levelLines(step);
  const sim = step.simulation || {};
  const parts = [`#${(step.iteration ?? 0) + 1}`];
  if (idleReason(step)) parts.push("no iteration");
  else if (isDeepening(step)) parts.push(`depth ${sim.depth}`);
  else parts.push(full.length ? full.join(" ") : "root");
  const added = step.expansion && step.expansion.nodes ? step.expansion.nodes.length : 0;
  if (added) parts.push(`+${added}`);
  if (sim.kind === "playout") parts.push(`${sim.result}`);
  else if (sim.kind === "minimax" || sim.kind === "quiescence") parts.push(`score ${signed(sim.score, 2)}`);
  else if (sim.kind === "terminal") parts.push("game over");
  return parts.join(" · ");
}

/** The four panels (and a header) for a step; `ctx` = {game, params, threads, treeThread}. */
export function buildStep(step, ctx) {
  const header = [];
  const threads = ctx.threads || 1;
  header.push(`Iteration ${count((step.iteration ?? 0) + 1)} · ${step.algorithm}`);
  if (threads > 1) header.push(`thread ${step.thread} of ${threads} ran it (root parallelism: each thread has its own tree)`);
  const idle = idleReason(step);
  if (idle) header.push("no iteration");
  const panels = PHASES.map((phase, i) =>
    h(
      "section",
      { class: "phase", dataset: { phase }, "aria-label": PHASE_TITLES[i] },
      h("h3", {}, PHASE_TITLES[i]),
      h("div", { class: "phase-body" }, idle ? h("p", { class: "idle" }, idle) : BUILDERS[i](step, ctx)),
    ),
  );
  return { header: header.join(" · "), panels };
}

/** Nodes to highlight in the tree for a phase: the path, the new nodes, the backed-up ones. */
export function highlight(step, phase) {
  const path = new Set();
  for (const level of step.selection || []) path.add(level.node);
  const { nodes = [] } = step.expansion || {};
  const fresh = new Set(nodes.map((n) => n.node));
  const back = new Set((step.backpropagation || []).map((r) => r.node));
  if (step.selection && step.selection.length) {
    const last = step.selection[step.selection.length - 1];
    if (last.chosen) path.add(last.chosen.node);
  } else if (back.size) path.add(0);
  if (phase === 0) return { path, fresh: new Set(), back: new Set() };
  if (phase === 1) return { path, fresh, back: new Set() };
  if (phase === 2) return { path, fresh, back: new Set() };
  return { path: new Set(), fresh, back };
}

/** Arrows drawn for a simulation's line: more than this are a tangle on one board. */
const LINE_ARROWS = 8;

/** What the board shows for a phase: a position, its last move and arrows. */
export function overlay(step, phase) {
  if (!step || !step.fen) return null;
  const path = step.path || [];
  const sim = step.simulation || {};
  if (phase === 0 || phase === 3) {
    return {
      fen: step.fen,
      shapes: arrowShapes(path.slice(0, 10), { brush: phase === 0 ? "path" : "back", numbered: true }),
      caption: phase === 0 ? "selection path from the root" : "values backed up along the path",
    };
  }
  if (phase === 1) {
    const last = path[path.length - 1];
    const added = (step.expansion && step.expansion.nodes) || [];
    const shapes = added.length > 1
      ? arrowShapes(added.slice(0, 40).map((n) => n.move), { brush: "fresh" })
      : arrowShapes(last ? [last] : [], { brush: "fresh" });
    return { fen: step.leaf_fen, lastMove: last, shapes, caption: added.length > 1 ? "every move of the leaf added" : "the new node's move" };
  }
  const line = sim.kind === "playout" ? `playout: first moves of ${sim.plies} (ends ${sim.result})` : simulationLine(sim);
  if (line) {
    return {
      fen: step.leaf_fen,
      shapes: arrowShapes((sim.moves || []).slice(0, LINE_ARROWS), { brush: "playout", numbered: true }),
      caption: line,
    };
  }
  return { fen: step.leaf_fen, shapes: [], caption: sim.cached ? "the leaf position (its score from the table)" : "the leaf position" };
}

/** The caption of a leaf search's line on the board (mcts: the quiescence line from the
 *  leaf, or, where the leaf's children were scored, the reply that decided its value and
 *  that reply's search), or null when the step has no line to draw. */
function simulationLine(sim) {
  const moves = sim.moves || [];
  if (!moves.length || (sim.kind !== "quiescence" && sim.kind !== "evaluation")) return null;
  const shown = moves.length > LINE_ARROWS ? `the first ${LINE_ARROWS} of ${plies(moves.length)}` : plies(moves.length);
  if (sim.expanded) return `the line that decided the leaf's value: its best reply, then that reply's search (${shown})`;
  return sim.kind === "quiescence" ? `quiescence line from the leaf (${shown})` : null;
}

/** Default parameters to show in worked examples (c, C, fpu) from the game's settings. */
export function stepParams(game) {
  return (game && game.settings && game.settings.params) || {};
}

export function stepNotes(step, ctx) {
  const notes = [];
  if ((ctx.threads || 1) > 1 && step.thread !== 0) {
    notes.push(`The tree view draws thread 0's tree; this iteration ran on thread ${step.thread}'s own tree, so its nodes are not highlighted there.`);
  }
  return notes;
}
