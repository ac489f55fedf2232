// A class arena's data on the page: where its tokens are kept, its HTTP calls, its live
// websocket, and pure functions of its state (GET /api/arenas/{id}, or an `arena` frame,
// which carries the same body). The views (arena-tables.js, arena-whatwon.js) and the pages
// (arena.js, arena-projector.js) read only what is here.

import { $, setText } from "./dom.js";
import { connectSocket } from "./socket.js";

const TEACHER_KEY = (id) => `canopy:arena:${id}:token`;
const BOT_KEY = (id) => `canopy:arena:${id}:bot`;

/** The teacher's token: `#token=T` in the address moves it to this browser's storage (as
 * the game page does with a player's token), so the address bar never shows it again. */
export function teacherToken(arenaId) {
  if (!arenaId) return null;
  const match = location.hash.match(/token=([\w-]+)/);
  if (match) {
    localStorage.setItem(TEACHER_KEY(arenaId), match[1]);
    history.replaceState(null, "", location.pathname + location.search);
    return match[1];
  }
  return localStorage.getItem(TEACHER_KEY(arenaId));
}

export function saveTeacherToken(arenaId, token) {
  localStorage.setItem(TEACHER_KEY(arenaId), token);
}

/** This browser's bot in the arena ({bot_id, bot_token}) or null. */
export function myBot(arenaId) {
  try {
    const bot = JSON.parse(localStorage.getItem(BOT_KEY(arenaId)) || "null");
    return bot && bot.bot_id && bot.bot_token ? bot : null;
  } catch {
    return null;
  }
}

export function saveMyBot(arenaId, bot) {
  if (bot) localStorage.setItem(BOT_KEY(arenaId), JSON.stringify({ bot_id: bot.bot_id, bot_token: bot.bot_token }));
  else localStorage.removeItem(BOT_KEY(arenaId));
}

/** An HTTP call answering JSON; a refusal throws an Error with the server's `code` and
 * `message` (the field or limit it names), a lost connection one that says so. */
export async function api(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw Object.assign(new Error(`Could not reach the server: ${e.message}`), { code: "offline" });
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = data.error || data;
    throw Object.assign(new Error(err.message || `the server refused (${res.status})`), { code: err.code || String(res.status), status: res.status });
  }
  return data;
}

/** The arena's live frames: its whole state at once and on every change, reconnecting. */
export function connectArena(arenaId, { onArena, onStatus }) {
  return connectSocket({
    path: `/ws/arenas/${encodeURIComponent(arenaId)}`,
    onFrame: (frame) => {
      if (frame.type === "arena") onArena(frame);
    },
    onStatus,
  });
}

/** Words for the connection states the socket reports. */
export const CONN_LABELS = {
  idle: "offline",
  connecting: "connecting…",
  reconnecting: "reconnecting…",
  open: "live",
  closed: "connection lost — retrying",
  gone: "arena not found",
};

/** The header's connection badge (and `data-conn` on the body, for tests). */
export function showConn(conn) {
  document.body.dataset.conn = conn;
  const el = $("conn");
  el.dataset.state = conn;
  setText(el, CONN_LABELS[conn] || conn);
}

/** `render` at most once per animation frame, however often it is asked for. */
export function onePerFrame(render) {
  let requested = false;
  return () => {
    if (requested) return;
    requested = true;
    requestAnimationFrame(() => {
      requested = false;
      render();
    });
  };
}

/** What the arena is doing, in a few words. */
export const STATE_LABELS = {
  open: "open: bots may join",
  running: "playing",
  paused: "paused",
  finished: "finished",
};

// ------------------------------------------------------------------ pure functions of the state

/** The bots still in the arena (one removed after the start stays in `bots` with
 * `removed`, for the games it played). */
export function activeBots(arena) {
  return (arena?.bots || []).filter((b) => !b.removed);
}

/** "1 bot", "4 bots". */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Bot id → bot, removed ones too (their games keep their names). */
export function botsById(arena) {
  return new Map((arena?.bots || []).map((b) => [b.id, b]));
}

export function botName(arena, id) {
  const bot = botsById(arena).get(id);
  return bot ? bot.name : "removed bot";
}

/** The bot's engine alone: "uct c=0.7" (the server's words: the parameters that differ
 * from the defaults, as in the PGN's WhiteEngine), else every parameter. */
export function engineText(bot) {
  return bot.engine || allParams(bot);
}

/** The bot's algorithm and every parameter: "uct c=0.7 policy=uniform ply_cap=200 …". */
export function allParams(bot) {
  const params = Object.entries(bot.params || {}).map(([k, v]) => `${k}=${formatValue(v)}`);
  return [bot.algorithm, ...params].join(" ");
}

export function formatValue(v) {
  if (typeof v === "number" && !Number.isInteger(v)) return String(Math.round(v * 1000) / 1000);
  return String(v);
}

/** Games finished, being played, and in all. */
export function progress(arena) {
  const games = arena?.games || [];
  const done = games.filter((g) => g.result).length;
  const playing = games.filter((g) => g.status === "playing").length;
  return { done, playing, total: games.length };
}

/** Points as a chess player writes them: 1½, ½, 3. */
export function formatPoints(points) {
  const whole = Math.floor(points + 1e-9);
  const half = points - whole > 0.25;
  if (!half) return String(whole);
  return whole ? `${whole}½` : "½";
}

export function formatScore(score, games) {
  return games ? `${Math.round(score * 100)} %` : "–";
}

/** "+35 ± 60" once the server gives an Elo (after enough games), else "". */
export function formatElo(standing) {
  if (standing.elo === null || standing.elo === undefined) return "";
  const elo = Math.round(standing.elo);
  const ci = standing.elo_ci95;
  const plus = elo > 0 ? `+${elo}` : String(elo);
  if (!ci || ci.length !== 2 || ci.some((v) => v === null || !Number.isFinite(v))) return plus;
  return `${plus} ± ${Math.round((ci[1] - ci[0]) / 2)}`;
}

/** A game's result from `botId`'s side: "won", "lost", "draw", or null while unfinished. */
export function resultFor(game, botId) {
  if (!game.result) return null;
  if (game.result === "1/2-1/2") return "draw";
  const whiteWon = game.result === "1-0";
  return (game.white === botId) === whiteWon ? "won" : "lost";
}

/** The games `botId` plays, in the order they are played. */
export function gamesOf(arena, botId) {
  return (arena?.games || []).filter((g) => g.white === botId || g.black === botId);
}

/** The arena's budget a move: "50 ms a move" or "400 iterations a move". */
export function budgetText(arena) {
  if (arena.movetime_ms) return `${arena.movetime_ms >= 1000 ? `${arena.movetime_ms / 1000} s` : `${arena.movetime_ms} ms`} a move`;
  if (arena.iterations) return `${arena.iterations.toLocaleString("en-US")} iterations a move`;
  return "";
}

export function formatText(arena) {
  const rounds = arena.rounds || 1;
  if (arena.format === "swiss") return `Swiss, ${rounds} round${rounds === 1 ? "" : "s"}`;
  return rounds === 1 ? "round robin (each pair twice, colours swapped)" : `round robin × ${rounds}`;
}
