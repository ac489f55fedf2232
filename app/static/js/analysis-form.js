// The form of /analysis: paste or upload a PGN, choose the algorithm, its parameters
// and the think time per position, POST /api/analyses, then open the game's page, where
// the analysis goes on (analysis.js). A refusal is shown under the form; one that names
// a line of the PGN selects that line, and one that names a field is shown beside it.

import { $, setText } from "./dom.js";
import { createEngineFields } from "./forms.js";

const limits = JSON.parse(document.body.dataset.limits);
// The request body's limit (CANOPY_HTTP_MAX_BODY is 64 KiB by default): a file of many
// games is cut after the games that fit (the first is the one analysed anyway).
const MAX_TEXT = 60_000;

const fields = createEngineFields($("analysis-fields"), {
  limits: { movetime_ms: limits.movetime_ms, iterations: { min: 1, max: 1, default: 1 }, threads: { min: 1, max: 1, default: 1 } },
  movetimeOnly: true,
});
let algorithms = [];

async function loadAlgorithms() {
  try {
    const res = await fetch("/api/algorithms?game=chess");
    if (!res.ok) throw new Error(String(res.status));
    algorithms = await res.json();
    fields.setAlgorithms(algorithms, {});
  } catch (e) {
    showError(`Could not load the algorithms: ${e.message}`);
  }
}

/** The parameters changed from their defaults: a knight-chess game keeps its own defaults. */
function changedParams(algorithm, params) {
  const described = algorithms.find((a) => a.name === algorithm);
  if (!described) return params;
  const out = {};
  for (const p of described.params) {
    if (p.name in params && params[p.name] !== p.default) out[p.name] = params[p.name];
  }
  return out;
}

/** The first games of `text` that fit in the request (at least the first). */
function firstGames(text) {
  if (text.length <= MAX_TEXT) return { text };
  const games = text.split(/\n\s*\n(?=\s*\[Event )/);
  let kept = games[0];
  for (const game of games.slice(1)) {
    if (kept.length + game.length + 2 > MAX_TEXT) break;
    kept += `\n\n${game}`;
  }
  return { text: kept };
}

function showError(message, line = null) {
  const box = $("analysis-error");
  box.hidden = false;
  setText(box, message);
  if (line) selectLine($("pgn-text"), line);
}

/** Select line `line` (1-based) of the textarea and scroll it into view. */
function selectLine(area, line) {
  const lines = area.value.split("\n");
  if (line > lines.length) return;
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  area.focus();
  area.setSelectionRange(start, start + lines[line - 1].length);
  const height = area.scrollHeight / Math.max(1, lines.length);
  area.scrollTop = Math.max(0, (line - 3) * height);
}

async function submit(event) {
  event.preventDefault();
  $("analysis-error").hidden = true;
  let engine;
  try {
    engine = fields.read();
  } catch {
    return; // read() shows the message beside the field
  }
  const { text } = firstGames($("pgn-text").value);
  if (!text.trim()) {
    showError("Paste a game (or choose a PGN file) first.");
    $("pgn-text").focus();
    return;
  }
  const request = {
    pgn: text,
    algorithm: engine.algorithm,
    params: changedParams(engine.algorithm, engine.params),
    movetime_ms: engine.movetime_ms,
  };
  const button = $("analysis-submit");
  button.disabled = true;
  try {
    const res = await fetch("/api/analyses", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      const error = data.error || { message: data.message || `the server refused (${res.status})` };
      if (!fields.showError(error.message)) showError(error.message, error.line || null);
      return;
    }
    location.assign(data.url);
  } catch (e) {
    showError(`Could not reach the server: ${e.message}`);
  } finally {
    button.disabled = false;
  }
}

$("pgn-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  $("pgn-text").value = await file.text();
  $("analysis-error").hidden = true;
});
$("analysis-form").addEventListener("submit", submit);
loadAlgorithms();
