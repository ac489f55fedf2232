// The live search panel: the summary (iterations, speed, tree size, depth,
// memory, the queue) and the sortable table of root moves. Rows are kept per
// move and updated in place, so a table refreshed ten times a second does
// not flicker and keeps the row under the mouse.

import { $, formatBytes, formatCount, formatMs, h, setText } from "./dom.js";
import { pairShort, pairText, showPairs } from "./evalpair.js";
import { fixed, signed } from "./notation.js";
import { secretKind } from "./quiz.js";
import { shownSearch } from "./review.js";
import { engineLabel, isPlayer, proofText, samePosition, scoreLabel, searchPhrase, sideSettings, sortedRows } from "./state.js";

const COLUMNS = [
  { key: "san", label: "Move", title: "The root move (SAN)", numeric: false },
  { key: "visits", label: "N", title: "Visits: iterations that went through this move", numeric: true },
  { key: "share", label: "N%", title: "Share of the root's visits", numeric: true },
  { key: "q", label: "Q", title: "Expected score for the side to move, 0 (loss) to 1 (win)", numeric: true },
  { key: "uct", label: "UCT", title: "What the selection rule ranks by now", numeric: true },
  // Shown only for an algorithm with priors (mcts): PUCT's exploration is scaled by it.
  { key: "prior", label: "P", title: "Prior: the move-ordering estimate (captures, promotions, checks, pieces en prise) that PUCT scales each move's exploration by; the visits follow it until the values disagree", numeric: true },
  { key: "eval", label: "Eval", title: "Evaluation for the side to move, -1 to 1", numeric: true },
  // Shown only with "hand · learned" on (a game with learned weights): not sortable.
  { key: "static", label: "Hand · learned", title: "Both static evaluations of the position after the move, for the side to move: the hand-made one · the learned one", numeric: true, fixed: true },
  { key: "pv", label: "Principal variation", title: "The line the search expects", numeric: false },
];

/** The selection score's column: the rule's own ranking, and so a quiz's answer. */
const SCORE = 4;

const SUMMARY = [
  ["iterations", "Iterations"],
  ["nps", "Iterations/s"],
  ["elapsed", "Elapsed"],
  ["nodes", "Tree nodes"],
  ["depth", "Depth max / mean"],
  ["memory", "Memory"],
  ["threads", "Threads"],
  ["pool", "Server searches"],
];

export function createPanel({ getState, onSort, onHover }) {
  const head = $("root-head");
  const body = $("root-body");
  const empty = $("root-empty");
  const summary = $("summary");
  const summaryNote = $("summary-note");
  const pvLine = $("pv-line");
  const stateEl = $("search-state");
  const label = $("search-label");
  const card = $("panel-moves");
  const table = $("root-moves");
  const emptyText = empty.textContent;
  const rows = new Map(); // move → { tr, cells }
  const summaryCells = {};

  for (const [key, label] of SUMMARY) {
    const dd = h("dd", { dataset: { key } }, "–");
    summary.append(h("div", { class: "stat" }, h("dt", {}, label), dd));
    summaryCells[key] = dd;
  }

  const headers = COLUMNS.map((col) => {
    const button = h("button", { type: "button", title: col.title }, col.label);
    const th = h("th", { scope: "col", class: col.numeric ? "num" : "", dataset: { key: col.key } }, button);
    if (col.fixed) button.disabled = true;
    else button.addEventListener("click", () => onSort(col.key));
    head.append(th);
    return th;
  });

  body.addEventListener("mouseover", (event) => {
    const tr = event.target.closest("tr[data-move]");
    if (tr) onHover(tr.dataset.move);
  });
  body.addEventListener("mouseleave", () => onHover(null));
  body.addEventListener("focusin", (event) => {
    const tr = event.target.closest("tr[data-move]");
    if (tr) onHover(tr.dataset.move);
  });
  body.addEventListener("focusout", () => onHover(null));
  pvLine.addEventListener("mouseenter", () => {
    const shown = shownSearch(getState());
    if (shown && shown.stats && shown.stats.bestmove) onHover(shown.stats.bestmove);
  });
  pvLine.addEventListener("mouseleave", () => onHover(null));

  function rowFor(move) {
    let row = rows.get(move);
    if (!row) {
      const cells = COLUMNS.map((col) => h("td", { class: `${col.numeric ? "num" : ""} c-${col.key}` }));
      const tr = h("tr", { dataset: { move }, tabindex: "0" }, cells);
      row = { tr, cells };
      rows.set(move, row);
    }
    return row;
  }

  function render(s) {
    // The live search, the last one (dimmed, after the engine moved) or the one kept with
    // the move being browsed: each labelled, so nobody mistakes one for another.
    const shown = shownSearch(s);
    const stats = shown ? shown.stats : null;
    const game = s.game;
    const kind = shown ? shown.kind : "live";
    // An open quiz question on a student's page (quiz.js): the engine's move is every row's
    // numbers; the formula's pick is the score column and the star.
    const secret = secretKind(s);
    setText(label, shown && shown.label ? shown.label : "");
    label.hidden = !(shown && shown.label);
    label.dataset.kind = kind;
    card.dataset.search = kind;
    card.classList.toggle("dimmed", kind === "last");
    setText(empty, secret === "bestmove" ? "Hidden until the engine's move reveals the answer: vote first." : kind === "none" ? "Nothing kept for this position: no search ran here before the move." : emptyText);
    const algorithm = (stats && stats.algorithm) || (game && game.settings.algorithm) || "uct";
    setText(headers[SCORE].querySelector("button"), scoreLabel(s, algorithm));
    const { key, dir } = s.view.sort;
    for (const th of headers) {
      const active = th.dataset.key === key;
      th.setAttribute("aria-sort", active ? (dir < 0 ? "descending" : "ascending") : "none");
    }
    renderSummary(s, stats, kind);
    const settings = game ? sideSettings(game, game.turn) : null;
    setText(stateEl, game ? `${searchPhrase(s)}${settings ? ` · ${engineLabel(settings)}` : ""}` : "");
    stateEl.dataset.status = game ? game.search.status : "idle";

    table.classList.toggle("secret-score", !!secret);
    // Sorted by the hidden score, the order alone would tell: by visits instead.
    const sort = secret && s.view.sort.key === COLUMNS[SCORE].key ? { key: "visits", dir: -1 } : s.view.sort;
    const sorted = secret === "bestmove" ? [] : sortedRows(stats, sort);
    // Both static evaluations, when asked for and offered (evalpair.js): fetched once per position.
    const pairs = stats && stats.fen && showPairs(s) ? s.evalPairs.lookup(game.game, stats.fen, stats.moves.map((m) => m.move).sort()) : null;
    table.classList.toggle("with-static", showPairs(s));
    if (showPairs(s)) staticHeading(s.evalPairs.names(game.game));
    table.classList.toggle("with-prior", sorted.some((m) => typeof m.prior === "number"));
    const pairOf = new Map(pairs ? pairs.moves.map((m) => [m.uci, m]) : []);
    empty.hidden = sorted.length > 0;
    const seen = new Set();
    let previous = null;
    for (const m of sorted) {
      seen.add(m.move);
      const row = rowFor(m.move);
      fillRow(row, m, pairOf.get(m.move), pairs === null, !!secret);
      row.tr.classList.toggle("best", m.move === stats.bestmove && !secret);
      row.tr.classList.toggle("played", kind !== "live" && m.move === stats.bestmove);
      row.tr.classList.toggle("hovered", m.move === s.view.hover);
      row.tr.style.setProperty("--share", String(m.share || 0));
      // Keep DOM order equal to the sort order, moving as little as possible.
      const wanted = previous ? previous.nextSibling : body.firstChild;
      if (wanted !== row.tr) body.insertBefore(row.tr, wanted);
      previous = row.tr;
    }
    for (const [move, row] of rows) {
      if (!seen.has(move)) {
        row.tr.remove();
        rows.delete(move);
      }
    }
    const pv = stats && !secret ? stats.pv_san : [];
    setText(pvLine, pv.length ? `PV ${pv.slice(0, 16).join(" ")}` : "");
  }

  /** The static column's heading follows the evaluations shown: "Hand · learned (· NNUE)". */
  function staticHeading(names) {
    const button = headers[COLUMNS.findIndex((col) => col.key === "static")].firstChild;
    const label = names.map((n) => (n === "nnue" ? "NNUE" : n)).join(" · ");
    setText(button, label.charAt(0).toUpperCase() + label.slice(1));
    button.title = `The static evaluations of the position after the move, for the side to move: ${names.map((n) => (n === "hand" ? "the hand-made one" : n === "learned" ? "the learned one" : "the NNUE")).join(" · ")}`;
  }

  function fillRow(row, m, pair, loading, secret) {
    const c = row.cells;
    setText(c[0], m.san);
    setText(c[1], formatCount(m.visits));
    setText(c[2], m.share === null ? "–" : `${(m.share * 100).toFixed(1)}%`);
    setText(c[3], fixed(m.q, 3));
    setText(c[SCORE], secret ? "" : fixed(m.uct, 3));
    setText(c[5], typeof m.prior === "number" ? fixed(m.prior, 3) : "–");
    const proof = proofText(m);
    setText(c[6], proof || signed(m.eval, 2));
    c[6].classList.toggle("proven", !!proof);
    setText(c[7], pair ? pairShort(pair) : loading ? "…" : "–");
    c[7].title = pair ? pairText(pair) : "";
    setText(c[8], m.pv_san.slice(0, 8).join(" "));
    c[8].title = m.pv_san.join(" ");
    c[SCORE].title = m.bound && m.bound !== "exact" ? `${m.bound} bound` : ""; // only a deepening search bounds
  }

  function renderSummary(s, st, kind) {
    // No search of this position, and none starting: a sentence instead of a row of dashes.
    const note = st ? null : kind === "none" ? "No search was kept with this move." : idleNote(s);
    summaryNote.hidden = note === null;
    summary.classList.toggle("unused", note !== null);
    if (note !== null) setText(summaryNote, note);
    const pool = st ? st.pool : null;
    const set = (key, text) => setText(summaryCells[key], text);
    // Single steps are not timed: iterations with no time behind them came from Step (S)
    // alone, and "0/s in 0 ms" would read as a broken search.
    const stepped = !!st && !st.running && st.iterations > 0 && !st.elapsed_ms;
    for (const key of ["nps", "elapsed"]) {
      const dd = summaryCells[key];
      if (dd.classList.contains("soft") === stepped) continue;
      dd.classList.toggle("soft", stepped);
      if (stepped) dd.title = "These iterations ran one at a time (Step): single steps are not timed.";
      else dd.removeAttribute("title");
    }
    set("iterations", st ? st.iterations.toLocaleString("en-US") : "–");
    set("nps", st ? (stepped ? "single steps" : formatCount(st.nps)) : "–");
    summary.classList.toggle("kept", kind === "stored" || kind === "last");
    set("elapsed", st ? (stepped ? "not timed" : formatMs(st.elapsed_ms)) : "–");
    set("nodes", st ? st.nodes.toLocaleString("en-US") : "–");
    set("depth", st ? `${st.max_depth ?? "–"} / ${st.mean_depth === null ? "–" : st.mean_depth.toFixed(1)}` : "–");
    set("memory", st ? formatBytes(st.memory_bytes) : "–");
    set("threads", st ? String(st.threads) : s.game ? String(s.game.settings.threads) : "–");
    const search = s.game ? s.game.search : null;
    let poolText = pool ? `${pool.running} / ${pool.queued} of ${pool.capacity}` : "–";
    if (search && search.status === "queued" && search.queue_position) {
      poolText = `queued, #${search.queue_position}`;
    }
    set("pool", poolText);
  }

  return { render };
}

/** What the summary says while the game's search has nothing for this position (null: it is about to). */
function idleNote(s) {
  const game = s.game;
  if (!game) return s.gameId ? "Connecting to the game…" : "No game yet: New game (N) starts one.";
  if (game.search.status !== "idle") return null; // running or queued: its numbers are on their way
  const race = s.inside && s.inside.tab === "race" ? s.inside.race : null;
  if (race && samePosition(race.fen, game.fen)) {
    return race.running
      ? "The race runs its own two searches: follow them in the tables below."
      : "The race ran its own two searches: their numbers are in the tables below.";
  }
  if (game.result) return "The game is over: there is nothing left to search.";
  const mover = game.played_by && game.players && game.players[game.turn];
  if (mover) return `${mover.name} is about to search this position (played by the ${game.played_by}).`;
  if (!isPlayer(s)) return "No search of this position yet.";
  const engineTurn = !(game.human === "both" || game.human === game.turn);
  if (engineTurn && game.search.paused) return "The engine is paused: Space resumes its search, S runs one iteration.";
  return "No search of this position yet: Analyse (Space) to search it, or Step (S) for one iteration.";
}

