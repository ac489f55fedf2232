// Boots the page: loads the limits and algorithms, connects to the game's
// websocket, applies frames to the single state object and redraws at most
// once per animation frame.

import { analysisPlayer, analysisStatus, createAnalysis } from "./analysis.js";
import { createBoard } from "./board.js";
import { createControls } from "./controls.js";
import { $, formatCount, formatMs, h, setText, toast } from "./dom.js";
import { createEvalGraph } from "./evalgraph.js";
import { createEvalPairs } from "./evalpair.js";
import { createEngineFields } from "./forms.js";
import { createInside } from "./inside.js";
import { createMoveList } from "./movelist.js";
import { createPanel } from "./panel.js";
import { secretKind } from "./quiz.js";
import { createReview, createReviewState } from "./review.js";
import { copyText, createShare } from "./share.js";
import { connectGame } from "./socket.js";
import {
  applyState,
  applyStats,
  createState,
  engineLabel,
  isHuman,
  isPlayer,
  namedPlayer,
  opposite,
  playedByLabel,
  playedByTitle,
  playerLabel,
  positionsKey,
  resultText,
  samePosition,
  sideLongName,
  sideName,
  sideSettings,
  viewedPosition,
} from "./state.js";

const TOKEN_KEY = (id) => `canopy:token:${id}`;
const LARGE_KEY = "canopy:large";
const ARROWS_KEY = "canopy:arrows";
const EVALS_KEY = "canopy:both-evals";

const body = document.body;
// The projector view (/games/{id}/watch) is read-only: it never sends a token.
const PROJECTOR = body.dataset.view === "projector";
const s = createState({ gameId: body.dataset.gameId || "", token: readToken(body.dataset.gameId) });
s.review = createReviewState(); // what the engine thought at every ply (review.js)
s.lastStats = null; // the last stats frame of a search whose position the game has left
// Both static evaluations side by side (hand · learned), off unless asked for (evalpair.js).
s.evalPairs = createEvalPairs({ onChange: () => scheduleRender() });
s.view.bothEvals = localStorage.getItem(EVALS_KEY) === "1";
let socket = null;
let settingsDirty = false;
let settingsFields = null;
let newFields = null;
let positionsFetched = null;
let warmup = null; // GET /api/warmup while the engine's kernels compile (null: ready)
// A game analysed from a PGN: its plies come from GET /api/analyses/{id} (analysis.js).
const analysis = body.dataset.analysis === "1" ? createAnalysis({ id: s.gameId, getState: () => s, onChange: () => scheduleRender() }) : null;

// ------------------------------------------------------------------ rendering

let frameRequested = false;
function scheduleRender() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(() => {
    frameRequested = false;
    render();
  });
}

const board = createBoard($("board"), $("promotion"), {
  getState: () => s,
  onMove: (uci) => send({ type: "move", uci }),
});
const panel = createPanel({
  getState: () => s,
  onSort: (key) => {
    const sort = s.view.sort;
    if (sort.key === key) sort.dir = -sort.dir;
    else {
      sort.key = key;
      sort.dir = key === "san" || key === "pv" ? 1 : -1;
    }
    scheduleRender();
  },
  onHover: (move) => {
    if (s.view.hover === move) return;
    s.view.hover = move;
    scheduleRender();
  },
});
const moveList = createMoveList({ onNavigate: (ply) => navigateTo(ply) });
const review = createReview({ getState: () => s, onChange: scheduleRender });
const evalGraph = createEvalGraph($("evalgraph"), { onNavigate: (ply) => navigateTo(ply) });
const inside = createInside({ getState: () => s, send, scheduleRender });
const share = createShare({ getGame: () => s.game });
const controls = createControls({
  toggleSearch: () => playerOnly("start or stop the search") && toggleSearch(),
  step: () => playerOnly("step the search") && send({ type: "search", action: "step" }),
  go: () => playerOnly("make the engine move") && send({ type: "go" }),
  undo: () => playerOnly("take moves back") && send({ type: "undo" }),
  flip: () => {
    s.view.orientation = opposite(s.view.orientation);
    s.view.userFlipped = true;
    scheduleRender();
  },
  navigate,
  toggleArrows: () => {
    s.view.arrows = !s.view.arrows;
    $("opt-arrows").checked = s.view.arrows;
    localStorage.setItem(ARROWS_KEY, s.view.arrows ? "1" : "0");
    scheduleRender();
  },
  newGame: openNewGame,
  toggleLarge,
  help: () => $("help-dialog").showModal(),
  escape: () => {
    toggleMenu(false);
    s.view.hover = null;
    inside.escape();
    board.cancelPromotion();
    scheduleRender();
  },
});

function render() {
  const game = s.game;
  body.dataset.secret = secretKind(s) || ""; // an open quiz question's answer, hidden (quiz.js)
  board.render(s);
  panel.render(s);
  inside.render(s);
  moveList.render(s);
  evalGraph.render(s);
  analysis?.render(s);
  controls.render(s);
  renderHeader();
  renderPlayers();
  renderStatus();
  if (game) {
    body.dataset.fen = game.fen;
    body.dataset.ply = String(game.ply);
    body.dataset.status = game.search.status;
    body.dataset.result = game.result || "";
    body.dataset.role = game.role;
    body.dataset.version = String(game.version);
  }
  body.dataset.conn = s.conn;
  body.dataset.statsCount = String(s.statsCount);
  body.dataset.iterations = s.stats ? String(s.stats.iterations) : "0";
}

function renderHeader() {
  const game = s.game;
  const conn = $("conn");
  const labels = {
    idle: "offline",
    connecting: "connecting…",
    reconnecting: "reconnecting…",
    open: "live",
    closed: "connection lost — retrying",
    gone: "game not found",
  };
  conn.dataset.state = s.conn;
  setText(conn, labels[s.conn] || s.conn);
  const role = $("role");
  role.hidden = !game;
  if (game) {
    setText(role, analysis ? "Analysis (read-only)" : game.role === "player" ? "Player" : "Spectator (read-only)");
    role.dataset.role = game.role;
    setText($("game-title"), `${game.title} · ${analysis && game.name ? game.name : humanLabel(game)}`);
    document.title = `Canopy — ${game.title}${game.result ? ` (${game.result})` : ""}`;
  }
  body.classList.toggle("knight-chess", !!game && game.game === "knight");
  // The game on show; in chess its position too, for the Learning page's "what the NNUE adds".
  const position = game && game.game === "chess" ? `&fen=${encodeURIComponent(game.fen)}` : "";
  $("link-learning").href = game ? `/learning?game=${game.game}${position}` : "/learning";
  // Offered only where a learned evaluation exists (the game's weights on the server).
  $("opt-evals-wrap").hidden = !(game && s.evalPairs.offered(game.game));
  if (game) setText($("opt-evals-label"), s.evalPairs.names(game.game).join(" · "));
  const legend = $("legend");
  legend.hidden = !(game && game.game === "knight");
  if (game && game.game === "knight") {
    setText($("legend-text"), "Original colours: the first mover's knights black, the second's pink.");
  }
}

/** Who plays whom, from the viewer's side: "you play White" for the player, both sides
 * named for a spectator ("White: player · Black: Canopy (mcts · 1 s)"). */
function humanLabel(game) {
  const playedBy = playedByLabel(game);
  if (playedBy) return playedBy;
  const name = (c) => sideName(game.game, c);
  const engine = `Canopy (${engineLabel(game.settings)})`;
  if (game.human === "none") return `engine vs engine: ${engine}`;
  if (game.role === "player") {
    if (game.human === "both") return "analysis (you move both sides)";
    return `you play ${name(game.human)}`;
  }
  if (game.human === "both") return `analysis: a player moves both sides, ${engine} analyses`;
  const side = (c) => `${name(c)}: ${isHuman(game, c) ? "player" : engine}`;
  return `${side("white")} · ${side("black")}`;
}

/** Spectators' keys and buttons say plainly that the game is read-only for them. */
function playerOnly(what) {
  if (!s.game || isPlayer(s)) return true;
  toast(`Read-only: you are watching this game, so you cannot ${what}. Only the browser that created it can.`, "info", 4000, "read-only");
  return false;
}

function renderPlayers() {
  const game = s.game;
  const bottom = s.view.orientation;
  for (const [id, color] of [["player-bottom", bottom], ["player-top", opposite(bottom)]]) {
    const el = $(id);
    if (!game) {
      el.hidden = true;
      continue;
    }
    el.hidden = false;
    el.dataset.color = color;
    el.querySelector(".swatch").dataset.color = color;
    setText(el.querySelector(".name"), sideLongName(game.game, color));
    setText(el.querySelector(".who"), (analysis && analysisPlayer(s, color)) || playerLabel(s, color));
    const toMove = !game.result && game.turn === color;
    el.classList.toggle("to-move", toMove);
    const clock = el.querySelector(".clock");
    const thinking = toMove && ((game.search.status === "running" && game.search.purpose === "move") || playerThinking(game));
    setText(clock, toMove ? (thinking ? "thinking…" : game.search.status === "queued" ? "queued" : "to move") : "");
  }
}

function renderStatus() {
  const game = s.game;
  const status = $("status");
  const progress = $("progress");
  let text = "";
  let kind = "info";
  let fraction = null;
  const analysing = analysisStatus(s);
  if (analysing) ({ text, kind, fraction } = analysing);
  else if (warmup && !(game && (game.result || compiledFor(game)))) {
    const part = warmup.total ? `${warmup.done}/${warmup.total}, ${warmup.label}` : warmup.label;
    text = `Warming up the engine… (${part}) — searches start when it is ready.`;
    kind = "queued";
    fraction = warmup.total ? warmup.done / warmup.total : 0;
  } else if (!game) {
    text = s.gameId ? "Connecting to the game…" : "Create a game to start.";
  } else if (game.result) {
    text = resultText(game);
    kind = "result";
  } else if (game.played_by) {
    // Its named players move it (an arena's bots), never this game's engine: nothing to
    // pause, resume or start here.
    const turn = sideName(game.game, game.turn);
    const mover = game.players && game.players[game.turn];
    const thinking = playerThinking(game);
    const who = mover ? `${namedPlayer(mover)} ${thinking ? "is thinking" : "is to move"} for ${turn}` : `${turn} to move`;
    text = `${playedByTitle(game)} game: ${who}.`;
    kind = thinking ? "thinking" : "info";
    fraction = thinking ? budgetFraction(game, s.stats) : null;
  } else {
    const turn = sideName(game.game, game.turn);
    const search = game.search;
    const engineTurn = !isHuman(game, game.turn);
    if (search.status === "queued") {
      text = `Waiting for a free search slot${search.queue_position ? ` — ${ordinalText(search.queue_position)} in line` : ""}.`;
      kind = "queued";
    } else if (search.status === "running" && search.purpose === "move") {
      text = `Canopy is thinking for ${turn} (${engineLabel(game.settings)}).`;
      kind = "thinking";
      fraction = budgetFraction(game, s.stats);
    } else if (search.status === "running") {
      text = `Analysing for ${turn}${atBudgetNote(s.stats)} — Space stops, G plays the best move.`;
      kind = "thinking";
    } else if (engineTurn && search.paused) {
      text = `Engine paused (${turn} to move) — Space resumes, S steps, G moves now.`;
      kind = "paused";
    } else if (engineTurn) {
      text = `${turn} to move (engine).`;
    } else if (isPlayer(s)) {
      text = game.check ? `Check! ${turn} to move — your move.` : `${turn} to move — your move.`;
    } else {
      text = `${turn} to move. You are watching read-only.`;
    }
  }
  status.dataset.kind = kind;
  status.dataset.warmup = warmup ? "1" : "";
  setText($("status-text"), text);
  progress.hidden = fraction === null;
  if (fraction !== null) $("progress-bar").style.setProperty("--fraction", String(fraction));
}

/** The engine's kernels for this game's algorithm are compiled (the warm-up compiles the
 * default opponent first, then the others while games go on). */
function compiledFor(game) {
  const algorithm = game.settings && game.settings.algorithm;
  return !!algorithm && (warmup.compiled || []).includes(`${game.game}: ${algorithm}`);
}

// What a search does once its tree has reached the node budget (the snapshot's extra.full).
const AT_BUDGET = {
  recycling: "the tree is full, so its least visited branches are folded to make room",
  deepening: "the tree is full, so its leaves are searched deeper instead",
};

/** ": the tree is full, so …" while the running search is at its node budget, else "". */
function atBudgetNote(stats) {
  const full = stats && stats.running && stats.extra && stats.extra.full;
  return full && AT_BUDGET[full] ? `: ${AT_BUDGET[full]}` : "";
}

function ordinalText(n) {
  return ["", "1st", "2nd", "3rd"][n] || `${n}th`;
}

/** A named player's search of the current position is running (its snapshots stream in). */
function playerThinking(game) {
  const stats = s.stats;
  return !!(game.played_by && stats && stats.running && samePosition(stats.fen, game.fen));
}

function budgetFraction(game, stats) {
  if (!stats) return 0;
  const st = sideSettings(game, game.turn);
  if (st.budget === "iterations") return Math.min(1, stats.iterations / st.iterations);
  return Math.min(1, stats.elapsed_ms / st.movetime_ms);
}

// ------------------------------------------------------------------ frames in

function onFrame(frame) {
  s.received.frames += 1;
  s.received.type = frame.type;
  s.received.at = Date.now();
  switch (frame.type) {
    case "state": {
      const firstForGame = !s.game || s.game.id !== frame.id;
      const held = s.stats;
      const ply = s.game ? s.game.ply : null;
      if (!applyState(s, frame)) return;
      if (s.game.ply !== ply) releaseSearchColumn();
      if (held && !s.stats && frame.history.length) {
        // The engine moved: its search stays on screen (dimmed) until a new one starts.
        const last = frame.history[frame.history.length - 1];
        s.lastStats = { stats: held, ply: frame.ply, by: last.by };
      }
      if (analysis) analysis.sync();
      else review.sync();
      inside.onState(frame);
      if (firstForGame) onFirstState();
      if (!settingsDirty) fillSettings();
      if (s.view.ply !== null) ensurePositions();
      $("fen-error").hidden = true;
      break;
    }
    case "stats":
      if (!applyStats(s, frame)) return;
      inside.onStats(frame);
      break;
    case "step":
      s.lastStep = frame;
      inside.onFrame(frame);
      break;
    case "error":
      inside.onError(frame);
      onError(frame);
      break;
    default:
      if (!inside.onFrame(frame)) return;
  }
  scheduleRender();
}

function onError(frame) {
  board.resync();
  if (frame.request === "settings" && settingsFields?.showError(frame.message)) {
    settingsDirty = true; // keep what the user typed beside the message until fixed
    return;
  }
  if (frame.request === "setup") {
    const err = $("fen-error");
    err.hidden = false;
    setText(err, frame.message);
  }
  if (frame.code === "not_found") {
    s.conn = "gone";
  }
  toast(`${frame.message}`, "error");
}

function onFirstState() {
  const game = s.game;
  if (settingsFields && s.algorithms[game.game]) settingsFields.setAlgorithms(s.algorithms[game.game], game.settings);
  const player = isPlayer(s);
  settingsFields?.setDisabled(!player);
  for (const option of $("settings-human").options) setText(option, humanOption(game.game, option.value));
  $("settings-human").disabled = !player;
  $("settings-apply").disabled = !player;
  $("fen-input").disabled = !player;
  $("fen-apply").disabled = !player;
  $("pgn-download").href = `/api/games/${encodeURIComponent(game.id)}/pgn?download=1`;
}

/** "Play as" choices in the game's own names (knight chess: Black and Pink knights). */
function humanOption(kind, value) {
  const name = (c) => sideName(kind, c);
  if (value === "white") return `${name("white")} (engine plays ${name("black")})`;
  if (value === "black") return `${name("black")} (engine plays ${name("white")})`;
  if (value === "none") return "Watch engine vs engine";
  return "Both sides (engine analyses)";
}

function fillSettings() {
  if (!s.game || !settingsFields) return;
  settingsFields.setValues(s.game.settings);
  $("settings-human").value = s.game.human;
}

// ------------------------------------------------------------------ actions

function send(frame, { quiet = false } = {}) {
  if (!socket || !socket.send(frame)) {
    if (!quiet) toast(s.gameId ? "Not connected to the game — retrying…" : "Create a game first.", "error");
    return false;
  }
  return true;
}

function toggleSearch() {
  if (!s.game) return;
  const busy = s.game.search.status !== "idle";
  send({ type: "search", action: busy ? "stop" : "start" });
}

function navigate(where) {
  const game = s.game;
  if (!game) return;
  const ply = s.view.ply === null ? game.ply : s.view.ply;
  if (where === "first") navigateTo(0);
  else if (where === "prev") navigateTo(Math.max(0, ply - 1));
  else if (where === "next") navigateTo(ply + 1);
  else navigateTo(game.ply);
}

function navigateTo(ply) {
  const game = s.game;
  if (!game) return;
  holdSearchColumn();
  s.view.ply = ply >= game.ply ? null : Math.max(0, ply);
  s.view.hover = null;
  if (s.view.ply !== null) ensurePositions();
  scheduleRender();
}

/** Browsing the moves (the list, the evaluation graph, ← →) swaps the table for the search
 * kept with a move, often shorter or none: the search column keeps the height it had, or
 * the cards under it (the graph among them) would move up from under the mouse, and the
 * page's end with them. Released when the game itself moves on. */
let heldHeight = 0;
function holdSearchColumn() {
  const column = document.querySelector(".panel-col");
  const height = column.getBoundingClientRect().height;
  if (height <= heldHeight) return;
  heldHeight = height;
  column.style.minHeight = `${height}px`; // CSSOM: the CSP allows it
}

function releaseSearchColumn() {
  if (!heldHeight) return;
  heldHeight = 0;
  document.querySelector(".panel-col").style.minHeight = "";
}

/** Very long games arrive without old board FENs; fetch them once when browsing there. */
async function ensurePositions() {
  const game = s.game;
  if (!game || s.view.ply === null || s.view.ply === 0) return;
  if (viewedPosition(s).fen) return;
  const key = positionsKey(game);
  if (positionsFetched === key) return;
  positionsFetched = key;
  const res = await fetch(`/api/games/${encodeURIComponent(game.id)}/positions`);
  if (!res.ok) return;
  const { fens } = await res.json();
  s.positions = { key, fens: fens.map((f) => f.split(" ")[0]) };
  scheduleRender();
}

function toggleLarge(force) {
  s.view.large = typeof force === "boolean" ? force : !s.view.large;
  document.documentElement.classList.toggle("large", s.view.large);
  $("btn-large").setAttribute("aria-pressed", String(s.view.large));
  localStorage.setItem(LARGE_KEY, s.view.large ? "1" : "0");
  requestAnimationFrame(() => board.redrawAll());
}

// ------------------------------------------------------------------ forms

function openNewGame() {
  const dialog = $("new-dialog");
  if (dialog.open) return;
  $("new-error").hidden = true;
  const game = s.game;
  const form = $("new-form");
  if (game) {
    form.elements.game.value = game.game;
    form.elements.human.value = game.human;
  }
  updateNewGameKind(game ? game.settings : null);
  dialog.showModal();
}

function updateNewGameKind(values) {
  const form = $("new-form");
  const kind = form.elements.game.value;
  for (const el of form.querySelectorAll("[data-side-label]")) {
    setText(el, sideLongName(kind, el.dataset.sideLabel));
  }
  if (newFields && s.algorithms[kind]) newFields.setAlgorithms(s.algorithms[kind], values || {});
}

async function createGame(event) {
  event.preventDefault();
  const form = $("new-form");
  const err = $("new-error");
  err.hidden = true;
  let engine;
  try {
    engine = newFields.read();
  } catch {
    return; // read() shows the message beside the field
  }
  const fen = $("new-fen").value.trim();
  const request = {
    game: form.elements.game.value,
    human: form.elements.human.value,
    ...engine,
    ...(fen ? { fen } : {}),
  };
  $("new-create").disabled = true;
  try {
    const res = await fetch("/api/games", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
    const data = await res.json();
    if (!res.ok) {
      const message = data.message || `the server refused (${res.status})`;
      if (!newFields.showError(message)) {
        err.hidden = false;
        setText(err, message);
      }
      return;
    }
    localStorage.setItem(TOKEN_KEY(data.id), data.token);
    location.assign(data.url);
  } catch (e) {
    err.hidden = false;
    setText(err, `Could not reach the server: ${e.message}`);
  } finally {
    $("new-create").disabled = false;
  }
}

function applySettings(event) {
  event.preventDefault();
  let engine;
  try {
    engine = settingsFields.read();
  } catch {
    return; // read() shows the message beside the field
  }
  if (send({ type: "settings", ...engine, human: $("settings-human").value })) settingsDirty = false;
}

function setupFen(event) {
  event.preventDefault();
  const fen = $("fen-input").value.trim();
  send({ type: "setup", fen: fen || null });
}

/** Until the engine is warm, say so with its progress (polled; a cold start compiles for
 * tens of seconds, and a first search meanwhile would sit with every figure blank). */
async function watchWarmup() {
  try {
    const res = await fetch("/api/warmup");
    const info = res.ok ? await res.json() : { ready: true };
    warmup = info.ready ? null : info;
  } catch {
    warmup = null; // the connection status tells about a server that is gone
  }
  body.dataset.warm = warmup ? "0" : "1";
  scheduleRender();
  if (warmup) setTimeout(watchWarmup, 1000);
}

function toggleMenu(force) {
  const open = typeof force === "boolean" ? force : $("btn-menu").getAttribute("aria-expanded") !== "true";
  $("btn-menu").setAttribute("aria-expanded", String(open));
  document.querySelector(".topbar").classList.toggle("menu-open", open);
}

// ------------------------------------------------------------------ boot

function readToken(gameId) {
  if (!gameId || PROJECTOR) return null;
  const match = location.hash.match(/token=([\w-]+)/);
  if (match) {
    localStorage.setItem(TOKEN_KEY(gameId), match[1]);
    history.replaceState(null, "", location.pathname + location.search);
    return match[1];
  }
  return localStorage.getItem(TOKEN_KEY(gameId));
}

async function fetchJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return res.json();
}

async function boot() {
  if (PROJECTOR) {
    s.view.large = true; // large type without changing the user's saved preference
    document.documentElement.classList.add("large");
    $("btn-large").setAttribute("aria-pressed", "true");
  } else {
    toggleLarge(localStorage.getItem(LARGE_KEY) === "1");
  }
  s.view.arrows = localStorage.getItem(ARROWS_KEY) !== "0";
  $("opt-arrows").checked = s.view.arrows;
  $("opt-evals").checked = s.view.bothEvals;
  $("opt-evals").addEventListener("change", (e) => {
    s.view.bothEvals = e.target.checked;
    localStorage.setItem(EVALS_KEY, s.view.bothEvals ? "1" : "0");
    scheduleRender();
  });
  $("opt-arrows").addEventListener("change", (e) => {
    s.view.arrows = e.target.checked;
    localStorage.setItem(ARROWS_KEY, s.view.arrows ? "1" : "0");
    scheduleRender();
  });
  $("btn-new").addEventListener("click", openNewGame);
  $("btn-help").addEventListener("click", () => $("help-dialog").showModal());
  // Knight chess's rules: from the help (?), the New game dialog and the colour legend.
  document.addEventListener("click", (event) => {
    if (!event.target.closest?.("[data-rules]")) return;
    if ($("help-dialog").open) $("help-dialog").close();
    $("rules-dialog").showModal();
  });
  $("btn-large").addEventListener("click", () => toggleLarge());
  $("btn-share").addEventListener("click", () => share.open());
  // Phones: the top bar's actions fold into a menu; choosing one (or tapping elsewhere) closes it.
  $("btn-menu").addEventListener("click", (event) => {
    event.stopPropagation();
    toggleMenu();
  });
  $("top-actions").addEventListener("click", () => toggleMenu(false));
  document.addEventListener("click", (event) => {
    if (!event.target.closest?.(".top-actions")) toggleMenu(false);
  });
  $("new-cancel").addEventListener("click", () => $("new-dialog").close());
  $("new-form").addEventListener("submit", createGame);
  for (const radio of $("new-form").querySelectorAll("input[name=game]")) {
    radio.addEventListener("change", () => updateNewGameKind(null));
  }
  $("settings-form").addEventListener("submit", applySettings);
  $("settings-form").addEventListener("input", () => {
    settingsDirty = true;
  });
  $("fen-form").addEventListener("submit", setupFen);
  $("fen-copy").addEventListener("click", () => s.game && copyText(s.game.fen, "FEN"));
  $("pgn-copy").addEventListener("click", async () => {
    if (!s.game) return;
    const res = await fetch(`/api/games/${encodeURIComponent(s.game.id)}/pgn`);
    if (!res.ok) return toast(`Could not fetch the PGN (${res.status}).`, "error");
    copyText(await res.text(), "PGN");
  });
  window.addEventListener("resize", () => board.redrawAll());
  watchWarmup();

  try {
    const [limits, chess, knight] = await Promise.all([
      fetchJson("/api/settings"),
      fetchJson("/api/algorithms?game=chess"),
      fetchJson("/api/algorithms?game=knight"),
    ]);
    s.limits = limits;
    s.algorithms = { chess, knight };
    settingsFields = createEngineFields($("settings-fields"), { limits });
    newFields = createEngineFields($("new-fields"), { limits, label: "Opponent", advancedExtra: [$("new-fen-field")] });
    if (s.game) {
      onFirstState();
      fillSettings();
    } else {
      settingsFields.setAlgorithms(chess, {});
      settingsFields.setDisabled(true);
    }
  } catch (e) {
    toast(`Could not load the engine settings: ${e.message}`, "error", 10000);
  }

  if (s.gameId) {
    socket = connectGame({
      gameId: s.gameId,
      token: s.token,
      onFrame,
      onStatus: (status) => {
        s.conn = status;
        if (status === "open") inside.subscribe();
        if (status !== "open") board.resync();
        scheduleRender();
      },
    });
  } else {
    if (body.dataset.missing) toast(`There is no game ${body.dataset.missing} (it may have expired).`, "error", 8000);
    for (const id of ["settings-human", "settings-apply", "fen-input", "fen-apply"]) $(id).disabled = true;
    openNewGame();
  }
  scheduleRender();
}

boot();

// Exposed for debugging in the browser console (read-only use).
window.canopy = { state: s, formatCount, formatMs, h };
