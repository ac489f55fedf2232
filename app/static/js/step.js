// Step mode: one iteration of the search, explained in its four phases —
// selection (every sibling's formula with its numbers, and which won),
// expansion (the node(s) added), simulation (the playout, the minimax score or
// the static evaluations) and back-propagation (each node's N and value before
// and after). The words of each phase come with the step frame (`prose`, written
// by the engine's explainers: engine/explain/prose.py documents the blocks); this
// module lays them out, draws the tables from the phases' rows, and says what the
// board and the tree show for each phase. The panels are rebuilt once per step (a
// step is an event, not a stream); the animation only moves the "current phase"
// through them, and `overlay`/`highlight` say what the board and the tree show.

import { arrowShapes } from "./arrows.js";
import { h } from "./dom.js";
import { count, fixed, plies, plyLabel, signed } from "./notation.js";
import { opposite, proofText, sideName, turnOf } from "./state.js";

const PHASES = ["selection", "expansion", "simulation", "backpropagation"];
export const PHASE_TITLES = ["1 · Selection", "2 · Expansion", "3 · Simulation", "4 · Back-propagation"];
/** Rows a formula table shows (the best first); the rest are counted under it. */
const TABLE_ROWS = 8;

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

function num(x, digits = 3) {
  return x === null || x === undefined ? "∞" : fixed(x, digits);
}

/** A step of a search that deepens (one more depth of alpha-beta) rather than walking a
 * tree: no selection, expansion or back-propagation of its own to show. */
export function isDeepening(step) {
  return !!step && step.stepping === "depth";
}

/** Whether a step ran no iteration (its prose says why). */
function idle(step) {
  return !!step && step.iterations === 0;
}

/** A formula as the server writes it, with square roots as the sign. */
function formulaText(formula) {
  return (formula || "").replaceAll("sqrt", "√");
}

// ------------------------------------------------------------------ prose blocks

/** A run of text with its mark (engine/explain/prose.py). */
const MARKS = {
  strong: (t) => h("strong", {}, t),
  big: (t) => h("strong", { class: "big-move" }, t),
  level: (t) => h("span", { class: "level-no" }, t),
  reply: (t) => h("strong", { class: "reply", title: "the best reply" }, t),
  ab: (t) => h("span", { class: "ab", title: "alpha-beta search" }, t),
  qs: (t) => h("span", { class: "qs", title: "quiescence search" }, t),
};

function runs(text) {
  if (typeof text === "string") return [text];
  return (text || []).map((run) => (typeof run === "string" ? run : (MARKS[run.mark] || MARKS.strong)(run.text)));
}

/** Paragraph kinds drawn with classes other than their own name. */
const PARAGRAPH_CLASSES = { line: "playout", "deciding-line": "playout deciding-line", "line-key": "hint line-key" };

/** The elements of a phase's blocks (a table block is drawn by `TABLES` from the step's rows). */
function renderBlocks(blocks, step, ctx) {
  return blocks.flatMap((block) => {
    switch (block.kind) {
      case "facts":
        return [h("dl", { class: "facts" }, block.items.flatMap(([term, value]) => [h("dt", {}, ...runs(term)), h("dd", {}, ...runs(value))]))];
      case "chips":
        return [h("ol", { class: "chips" }, block.items.map((item) => h("li", { class: item.terminal ? "terminal" : "" }, ...runs(item.text))))];
      case "level":
        return [
          h(
            "div",
            { class: "level", dataset: { level: String(block.level) } },
            h("div", { class: "level-head" }, ...runs(block.head)),
            ...renderBlocks(block.blocks || [], step, ctx),
          ),
        ];
      case "table":
        return TABLES[block.table](step, block, ctx);
      case "line":
        return [h("p", { class: PARAGRAPH_CLASSES.line }, ...runs(block.text)), ...trimmedMoves(step)];
      case "text":
        return [h("p", {}, ...runs(block.text))];
      default:
        return [h("p", { class: PARAGRAPH_CLASSES[block.kind] || block.kind }, ...runs(block.text))];
    }
  });
}

/** A playout longer than the frame could carry says so under its line. */
function trimmedMoves(step) {
  const sim = step.simulation || {};
  return sim.moves_trimmed ? [h("p", { class: "hint" }, `… ${sim.moves_trimmed} more plies not shown.`)] : [];
}

/** A phase's body: its blocks. */
function phaseBody(step, ctx, phase) {
  const blocks = step.prose ? step.prose[phase] : null;
  return blocks ? renderBlocks(blocks, step, ctx) : [];
}

// ------------------------------------------------------------------ tables

const TABLES = {
  selection: (step, block, ctx) => {
    const level = (step.selection || [])[block.level] || {};
    const notes = renderBlocks(block.notes || [], step, ctx);
    return [level.rule === "puct" ? puctTable(step, level, ctx, notes) : formulaTable(level, notes)];
  },
  deepening: (step) => [deepeningTable(step.simulation || {})],
  backpropagation: (step, block, ctx) => {
    const rows = step.backpropagation || [];
    const table = { negamax: negamaxTable, "average + minimax": averageMinimaxTable }[rows[0].rule] || averageTable;
    return [table(step, rows, ctx)];
  },
};

/** What the algorithm calls its selection score and the term it exploits (its hooks, sent
 * with every level), so the heading, the columns and the worked line name the same things. */
function levelLabels(level) {
  const byEval = level.value_kind === "eval";
  return {
    score: level.score_label || (byEval ? "score" : "UCB1"),
    exploit: level.exploit_label || (byEval ? "eval" : "W/N"),
  };
}

function formulaTable(level, notes) {
  // "eval": each child ranks by its value (bfms); "q": by its mean reward W/N (UCB1)
  const byEval = level.value_kind === "eval";
  const labels = levelLabels(level);
  const rows = (level.children || []).slice().sort((a, b) => {
    const sa = a.score === null ? Infinity : a.score;
    const sb = b.score === null ? Infinity : b.score;
    return sb - sa || b.visits - a.visits;
  });
  const shown = rows.slice(0, TABLE_ROWS);
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
    ...notes,
    ...moreRows(rows, shown.length, level.children_trimmed || 0, byEval ? "scores" : labels.score),
  );
}

/** The selection rows of a PUCT level (mcts): each child's prior P, its mean reward Q,
 * its implicit minimax value, the blend of the two the formula uses (an unevaluated
 * child: its parent's urgency instead), the exploration term and the PUCT score. Every
 * value is for the side choosing here, who makes the move. */
function puctTable(step, level, ctx, notes) {
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
    ...notes,
    ...moreRows(rows, shown.length, level.children_trimmed || 0, "scores"),
  );
}

/** Two scores the formula cannot tell apart (null: infinite, an unvisited child). */
function sameScore(a, b) {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
}

/** The rows a formula table leaves out, counted: tied with the winner, lower, or not sent
 * at all (a wide level the frame trimmed). `rows` are the children sorted best first. */
function moreRows(rows, shownCount, trimmed, lowerLabel = "UCB1") {
  if (!rows.length) return [];
  const top = rows[0].score;
  const hidden = rows.slice(shownCount);
  const hiddenTied = hidden.filter((c) => sameScore(c.score, top)).length;
  const lower = hidden.length - hiddenTied;
  const parts = [];
  const moves = (n) => `${n} more move${n === 1 ? "" : "s"}`;
  if (hiddenTied) parts.push(`${moves(hiddenTied)} tied at the top`);
  if (lower) parts.push(`${moves(lower)} with lower ${lowerLabel}`);
  if (trimmed) parts.push(`${moves(trimmed)} not sent (wide level)`);
  return parts.length ? [h("p", { class: "hint" }, `… and ${parts.join(", ")}.`)] : [];
}

/** The selection weights a level was chosen with: the trace's own (the root's `c_root`
 * stands in for `c_puct` there) over the game's settings. */
function levelParams(level, ctx) {
  return { ...(ctx.params || {}), ...(level.params || {}) };
}

/** One more depth of iterative deepening: every root move's score, bound and line. */
function deepeningTable(sim) {
  return h(
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
  );
}

/** A back-up row's node: "root", or its move with its number. */
function rowLine(step) {
  const { full } = levelLines(step);
  return (row) => (row.depth === 0 ? "root" : plyLabel(step.fen, row.depth - 1, full[row.depth - 1] || row.san));
}

function negamaxTable(step, rows) {
  const line = rowLine(step);
  return h(
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
  );
}

function averageTable(step, rows) {
  const line = rowLine(step);
  return h(
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
  );
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
function averageMinimaxTable(step, rows, ctx) {
  const line = rowLine(step);
  const rootTurn = turnOf(step.fen);
  const moverOf = (depth) => (depth % 2 === 1 ? rootTurn : opposite(rootTurn));
  return h(
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
  );
}

/** One line about a step, for the history list and toasts. */
export function stepSummary(step) {
  const { full } = levelLines(step);
  const sim = step.simulation || {};
  const parts = [`#${(step.iteration ?? 0) + 1}`];
  if (idle(step)) parts.push("no iteration");
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
  if (idle(step)) header.push("no iteration");
  const panels = PHASES.map((phase, i) =>
    h(
      "section",
      { class: "phase", dataset: { phase }, "aria-label": PHASE_TITLES[i] },
      h("h3", {}, PHASE_TITLES[i]),
      h("div", { class: "phase-body" }, phaseBody(step, ctx, phase)),
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
