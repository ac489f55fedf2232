// The arena's page (/arena/{id}): a student builds a bot on a phone and follows it; the
// teacher (the browser holding the arena's token) shares the link, starts, pauses and ends
// the tournament, removes bots and exports the results. Everyone sees the bots, then the
// standings, the crosstable and the games, live from the arena's websocket.

import { createTeacher } from "./arena-teacher.js";
import {
  activeBots,
  STATE_LABELS,
  api,
  budgetText,
  connectArena,
  engineText,
  formatPoints,
  formatText,
  gamesOf,
  myBot,
  onePerFrame,
  plural,
  progress,
  saveMyBot,
  showConn,
  teacherToken,
} from "./arena-data.js";
import { renderBots, renderCrosstable, renderGames, renderStandings } from "./arena-tables.js";
import { $, setText, toast } from "./dom.js";
import { createEngineFields } from "./forms.js";

const body = document.body;
const arenaId = body.dataset.arenaId || "";
const token = teacherToken(arenaId);
let arena = null; // the latest arena frame
let conn = "idle";
let fields = null; // the join form's algorithm and parameter fields
let fieldsGame = null; // the game whose algorithms they hold
let editing = false; // the student is changing a bot that has joined
let limits = null;
const algorithms = {}; // game → GET /api/algorithms?game=…
const scheduleRender = onePerFrame(() => render());
const teacher = token ? createTeacher({ arenaId, token, onChange: scheduleRender }) : null;

// ------------------------------------------------------------------ rendering


function render() {
  showConn(conn);
  if (!arena) return;
  const mine = myBot(arenaId);
  const mineId = mine ? mine.bot_id : null;
  const { done, total } = progress(arena);
  body.dataset.state = arena.state;
  body.dataset.bots = String(activeBots(arena).length);
  body.dataset.done = String(done);
  body.dataset.role = token ? "teacher" : mine ? "student" : "visitor";
  const title = arena.name || "Class arena";
  setText($("arena-title"), `${title} · ${STATE_LABELS[arena.state] || arena.state}`);
  document.title = `${title} — Canopy arena`;
  const kind = arena.game === "knight" ? "Knight chess" : "Chess";
  const games = total ? ` · ${done} of ${total} games played` : "";
  setText($("arena-facts"), `${kind} · ${budgetText(arena)} · ${formatText(arena)} · ${plural(activeBots(arena).length, "bot")}${games}`);

  teacher?.render(arena);
  renderJoin(mine);
  renderMine(mine);
  const started = arena.state !== "open";
  $("standings-card").hidden = !started;
  $("cross-card").hidden = !started;
  $("games-card").hidden = !started;
  if (started) {
    renderStandings($("standings"), arena, { mine: mineId });
    renderCrosstable($("crosstable"), arena, { mine: mineId });
    renderGames($("games"), arena);
  }
  renderBots($("bots"), arena, { mine: mineId, onRemove: teacher ? teacher.remove : null });
  $("bots-empty").hidden = activeBots(arena).length > 0;
}

/** The join form: open while the arena is, for a student without a bot (or changing it). */
function renderJoin(mine) {
  const open = arena.state === "open";
  if (!open) editing = false;
  const show = open && (!mine || editing) && !!fields;
  $("join").hidden = !show;
  $("join-cancel").hidden = !editing;
  setText($("join-submit"), editing ? "Save changes" : "Join the arena");
  setText($("join-title"), editing ? "Change your bot" : "Build your bot");
}

function renderMine(mine) {
  const bot = mine ? activeBots(arena).find((b) => b.id === mine.bot_id) : null;
  if (mine && !bot && arenaLoadedWith(mine)) {
    saveMyBot(arenaId, null); // removed by the teacher
    toast("Your bot was removed from the arena.", "info", 6000);
    return;
  }
  $("mybot").hidden = !bot || editing;
  $("mygames").hidden = !bot || arena.state === "open";
  if (!bot) return;
  setText($("mybot-name"), bot.name);
  setText($("mybot-engine"), engineText(bot));
  const standing = (arena.standings || []).find((r) => r.bot_id === bot.id);
  const status = {
    open: "Waiting for the teacher to start. You can still change your bot.",
    running: standing ? `Playing: ${standing.rank ? `rank ${standing.rank}, ` : ""}${formatPoints(standing.points)} point${standing.points === 1 ? "" : "s"} from ${standing.games} game${standing.games === 1 ? "" : "s"}.` : "Playing.",
    paused: "The teacher paused the arena.",
    finished: standing ? `Finished: rank ${standing.rank} with ${formatPoints(standing.points)} points from ${standing.games} games.` : "Finished.",
  }[arena.state];
  setText($("mybot-status"), status || "");
  $("mybot-actions").hidden = arena.state !== "open";
  if (arena.state !== "open") renderGames($("mygames-list"), { ...arena, games: gamesOf(arena, bot.id) }, { botId: bot.id });
}

/** A bot saved in this browser is gone only if the arena has been seen since it joined
 * (a frame can be older than the join's answer). */
const joinedAt = new Map();
function arenaLoadedWith(mine) {
  const at = joinedAt.get(mine.bot_id);
  return !at || Date.now() - at > 3000;
}

// ------------------------------------------------------------------ the join form

async function ensureFields() {
  if (!arena || fieldsGame === arena.game || !limits) return;
  fieldsGame = arena.game;
  try {
    algorithms[arena.game] ||= await (await fetch(`/api/algorithms?game=${encodeURIComponent(arena.game)}`)).json();
  } catch (e) {
    toast(`Could not load the algorithms: ${e.message}`, "error", 10000);
    fieldsGame = null;
    return;
  }
  fields = createEngineFields($("bot-fields"), {
    limits,
    label: "Algorithm",
    paramsOnly: true,
    paramFilter: (algorithm, name) => isFree(algorithm, name),
  });
  fillForm();
  scheduleRender();
}

/** Whether students may set `name` for `algorithm` (the teacher's `free`; all when unsaid). */
function isFree(algorithm, name) {
  const free = arena?.free?.[algorithm];
  return !free || free.includes(name);
}

function allowedAlgorithms() {
  const list = algorithms[arena.game] || [];
  const allowed = arena.algorithms && arena.algorithms.length ? arena.algorithms : list.map((a) => a.name);
  return list.filter((a) => allowed.includes(a.name));
}

/** The form shows the student's bot (when editing) or the defaults. */
function fillForm() {
  const mine = myBot(arenaId);
  const bot = mine && activeBots(arena).find((b) => b.id === mine.bot_id);
  fields.setAlgorithms(allowedAlgorithms(), bot ? { algorithm: bot.algorithm, params: bot.params } : {});
  $("bot-name").value = bot ? bot.name : $("bot-name").value;
}

function nameProblem(name) {
  if (!name) return "Give your bot a name.";
  if (name.length > 40) return "A name has at most 40 characters.";
  return null;
}

function showNameError(message) {
  const el = $("bot-name-error");
  el.hidden = !message;
  setText(el, message || "");
  if (message) {
    $("bot-name").setAttribute("aria-invalid", "true");
    $("bot-name").focus();
  } else $("bot-name").removeAttribute("aria-invalid");
}

async function submitBot(event) {
  event.preventDefault();
  const err = $("join-error");
  err.hidden = true;
  const name = $("bot-name").value.trim();
  const problem = nameProblem(name);
  showNameError(problem);
  if (problem) return;
  let engine;
  try {
    engine = fields.read();
  } catch {
    return; // read() shows the message beside the field
  }
  const params = Object.fromEntries(Object.entries(engine.params).filter(([k]) => isFree(engine.algorithm, k)));
  const request = { name, algorithm: engine.algorithm, params };
  const mine = myBot(arenaId);
  $("join-submit").disabled = true;
  try {
    if (mine && editing) {
      await api("PATCH", `/api/arenas/${enc(arenaId)}/bots/${enc(mine.bot_id)}?bot_token=${enc(mine.bot_token)}`, request);
      toast("Your bot is changed.", "info", 2500);
    } else {
      const made = await api("POST", `/api/arenas/${enc(arenaId)}/bots`, request);
      saveMyBot(arenaId, made);
      joinedAt.set(made.bot_id, Date.now());
      toast("Your bot has joined the arena.", "info", 2500);
    }
    editing = false;
    await refresh();
  } catch (e) {
    if (e.code === "bad_name" || (/\bname\b/.test(e.message) && !/parameter/.test(e.message))) showNameError(e.message);
    else if (!fields.showError(e.message)) {
      err.hidden = false;
      setText(err, e.message);
    }
  } finally {
    $("join-submit").disabled = false;
  }
}

async function leave() {
  const mine = myBot(arenaId);
  if (!mine) return;
  try {
    await api("DELETE", `/api/arenas/${enc(arenaId)}/bots/${enc(mine.bot_id)}?bot_token=${enc(mine.bot_token)}`);
    saveMyBot(arenaId, null);
    await refresh();
  } catch (e) {
    toast(e.message, "error");
  }
}

/** The arena now (the websocket brings every change too; this answers the student's own
 * action at once). */
async function refresh() {
  try {
    arena = await api("GET", `/api/arenas/${enc(arenaId)}`);
    scheduleRender();
  } catch {
    // the websocket's next frame brings it
  }
}

const enc = encodeURIComponent;

// ------------------------------------------------------------------ boot

async function boot() {
  if (!arenaId) {
    setText($("arena-facts"), body.dataset.missing ? `There is no arena ${body.dataset.missing}: ask your teacher for the link again.` : "No arena.");
    $("bots-card").hidden = true;
    body.dataset.state = "missing";
    return;
  }
  $("join-form").addEventListener("submit", submitBot);
  $("bot-name").addEventListener("input", () => showNameError(null));
  $("join-cancel").addEventListener("click", () => {
    editing = false;
    scheduleRender();
  });
  $("mybot-edit").addEventListener("click", () => {
    editing = true;
    if (fields) fillForm();
    scheduleRender();
  });
  $("mybot-leave").addEventListener("click", leave);
  try {
    limits = await (await fetch("/api/settings")).json();
  } catch (e) {
    toast(`Could not load the engine settings: ${e.message}`, "error", 10000);
  }
  connectArena(arenaId, {
    onArena: (frame) => {
      arena = frame;
      ensureFields();
      scheduleRender();
    },
    onStatus: (status) => {
      conn = status;
      scheduleRender();
    },
  });
  scheduleRender();
}

boot();

// Exposed for debugging in the browser console (read-only use).
window.canopyArena = { get arena() { return arena; } };
