// An analysed game on its own page (/games/{id} of a game analysed from a PGN): the
// plies come from GET /api/analyses/{id} instead of the game's review, in the same
// shape, so the move list, the search table, the arrows and the evaluation graph show
// them as they show a game's (review.js); each ply also has its mark, its loss and the
// engine's better move. The page polls while the server analyses (the progress lives
// on the server, so a reload picks it up) and shows the progress in the status line,
// the summary per side and the verdict on the move being viewed in words.

import { $, h, setText } from "./dom.js";
import { GLYPHS, moveName, shortTime } from "./review.js";
import { sideName, viewedPly } from "./state.js";

const POLL_MS = 1000;
const WORDS = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
const PLURALS = { inaccuracy: "Inaccuracies", mistake: "Mistakes", blunder: "Blunders" };
const TAGS = ["Event", "Site", "Date", "Round", "White", "Black", "Result", "ECO", "Opening", "TimeControl"];

export function createAnalysis({ id, getState, onChange }) {
  const s = getState();
  s.analysis = { id, status: null, done: 0, total: 0, body: null, failed: null };
  Object.assign(s.review, { id, plies: [], analysis: true, version: s.review.version + 1 });
  let renderedVersion = -1;

  async function poll() {
    const a = s.analysis;
    const from = Math.max(1, a.done);
    let again = true;
    try {
      const res = await fetch(`/api/analyses/${encodeURIComponent(id)}?from=${from}`);
      const body = await res.json();
      if (!res.ok) {
        a.failed = (body.error && body.error.message) || `the server answered ${res.status}`;
        again = res.status >= 500;
      } else {
        merge(body);
        again = body.status === "queued" || body.status === "running";
      }
    } catch {
      // offline for a moment: ask again
    }
    onChange();
    if (again) setTimeout(poll, POLL_MS);
  }

  function merge(body) {
    const a = s.analysis;
    const review = s.review;
    for (const ply of body.plies) review.plies[ply.ply - 1] = ply;
    review.version += 1;
    Object.assign(a, { status: body.status, done: body.done, total: body.total, body, failed: null });
  }

  /** The game's `state` frames carry nothing of the analysis: the review stays ours. */
  function sync() {
    if (s.review.id !== id) Object.assign(s.review, { id, plies: [], analysis: true, version: s.review.version + 1 });
  }

  function render() {
    const card = $("analysis-card");
    card.hidden = false;
    renderVerdict();
    const a = s.analysis;
    if (!a.body || renderedVersion === s.review.version) return;
    renderedVersion = s.review.version;
    const body = a.body;
    const kind = s.game ? s.game.game : body.game;
    setText($("analysis-state"), a.status === "done" ? "done" : `${a.done} / ${a.total} positions`);
    card.dataset.status = a.status;
    document.body.dataset.analysisStatus = a.status;
    setText(
      $("analysis-settings"),
      `${body.algorithm}${paramsText(body.params)} · ${shortTime(body.movetime_ms)} a position · ${body.total} positions`,
    );
    const tags = TAGS.filter((t) => body.headers[t] && body.headers[t] !== "?" && body.headers[t] !== "????.??.??");
    $("analysis-tags").replaceChildren(...tags.flatMap((t) => [h("dt", {}, t), h("dd", {}, body.headers[t])]));
    renderSummary(body, kind);
    const notes = [...body.notes, ...(body.error ? [body.error] : [])];
    setText($("analysis-notes"), notes.join(" "));
    $("analysis-notes").hidden = !notes.length;
    const t = body.thresholds;
    setText(
      $("analysis-help"),
      `A move is marked by the expected score it lost for the side that made it (a win counts 1, a draw ½): ` +
        `the engine's best move against the move played, each scored by a search of the position it leads to. ` +
        `?! inaccuracy from ${t.inaccuracy}, ? mistake from ${t.mistake}, ?? blunder from ${t.blunder}. ` +
        `The engine's own best move is never marked.`,
    );
  }

  function renderSummary(body, kind) {
    const sides = ["white", "black"];
    const head = h("tr", {}, h("th", { scope: "col" }, ""), ...sides.map((c) => h("th", { scope: "col" }, playerName(body, kind, c))));
    const row = (label, cell) => h("tr", {}, h("th", { scope: "row" }, label), ...sides.map((c) => h("td", { class: "num" }, cell(body.summary[c]))));
    const rows = [
      ...["inaccuracy", "mistake", "blunder"].map((m) =>
        row(`${PLURALS[m]} ${GLYPHS[m]}`, (x) => String(x[m])),
      ),
      row("Average loss", (x) => (x.average_loss === null ? "–" : x.average_loss.toFixed(3))),
    ];
    const caption = h("caption", { class: "visually-hidden" }, "Marked moves and average loss of expected score per side");
    $("analysis-summary").replaceChildren(caption, h("thead", {}, head), h("tbody", {}, ...rows));
  }

  /** Under the move list: what the analysis says of the move on the board, in words. */
  function renderVerdict() {
    const el = $("analysis-verdict");
    const game = s.game;
    const ply = viewedPly(s);
    const entry = game && ply > 0 ? s.review.plies[ply - 1] : null;
    if (!entry) {
      el.hidden = true;
      return;
    }
    const name = `${moveName(game, entry.ply, entry.san)}${entry.mark ? GLYPHS[entry.mark] : ""}`;
    const mover = sideName(game.game, entry.color);
    let text;
    if (!entry.search) text = `${name}: not analysed yet.`;
    else if (entry.best === entry.uci) text = `${name} is the engine's choice too.`;
    else {
      const lost = entry.loss === null ? "" : ` (${mover} −${entry.loss.toFixed(2)})`;
      const better = entry.best_san ? ` Better was ${moveName(game, entry.ply, entry.best_san)}.` : "";
      const verdict = entry.mark ? `${WORDS[entry.mark]}${lost}.` : `no mark${lost}.`;
      text = `${name}: ${verdict}${better}`;
    }
    el.hidden = false;
    el.dataset.mark = entry.mark || "";
    setText(el, text);
  }

  poll();
  return { sync, render };
}

/** The status line's text and progress while the server analyses (null: nothing to say). */
export function analysisStatus(s) {
  const a = s.analysis;
  if (!a) return null;
  if (a.failed) return { text: `The analysis could not be loaded: ${a.failed}`, kind: "paused", fraction: null };
  const fraction = a.total ? a.done / a.total : 0;
  if (a.status === null) return { text: "Loading the analysis…", kind: "queued", fraction: null };
  if (a.status === "queued") {
    const place = a.body && a.body.queue_position ? ` (${a.body.queue_position} in line)` : "";
    return { text: `Analysis queued: waiting for a free search slot${place}. ${a.done} of ${a.total} positions done.`, kind: "queued", fraction };
  }
  if (a.status === "running") return { text: `Analysing position ${Math.min(a.done + 1, a.total)} of ${a.total}…`, kind: "thinking", fraction };
  if (a.status === "failed") return { text: "The analysis stopped with an error (see Analysis).", kind: "paused", fraction };
  return { text: `Analysis complete: ${a.total} positions. Browse the moves (← →) to see each search.`, kind: "info", fraction: null };
}

/** A side's player as the PGN names it ("?" when it does not). */
export function analysisPlayer(s, color) {
  const body = s.analysis && s.analysis.body;
  if (!body) return null;
  return body.headers[color === "white" ? "White" : "Black"] || "?";
}

function playerName(body, kind, color) {
  const name = body.headers[color === "white" ? "White" : "Black"];
  return name && name !== "?" ? `${sideName(kind, color)} (${name})` : sideName(kind, color);
}

function paramsText(params) {
  const parts = Object.entries(params || {}).map(([k, v]) => `${k}=${v}`);
  return parts.length ? ` ${parts.join(" ")}` : "";
}
