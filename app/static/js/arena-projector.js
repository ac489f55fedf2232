// The arena on a projector (/arena/{id}/projector), read-only and in large type: while
// the arena is open, its link as a QR code for the class to scan; then the standings, the
// crosstable and the game being played now — its board with the engine's arrows, followed
// on the game's own websocket exactly as the game's projector view follows it (board.js,
// socket.js, state.js); at the end, what won.

import {
  STATE_LABELS,
  activeBots,
  botName,
  botsById,
  budgetText,
  connectArena,
  engineText,
  formatText,
  onePerFrame,
  plural,
  progress,
  showConn,
} from "./arena-data.js";
import { renderCrosstable, renderStandings } from "./arena-tables.js";
import { createWhatWon } from "./arena-whatwon.js";
import { createBoard } from "./board.js";
import { $, setText } from "./dom.js";
import { createReviewState } from "./review.js";
import { qrSvg, shareOrigins } from "./share.js";
import { connectGame } from "./socket.js";
import { applyState, applyStats, createState, opposite, resultText, sideName } from "./state.js";

const body = document.body;
const arenaId = body.dataset.arenaId || "";
let arena = null;
let conn = "idle";
const whatWon = createWhatWon({ card: $("whatwon"), lead: $("whatwon-lead"), table: $("whatwon-table"), plot: $("whatwon-plot") });

// ------------------------------------------------------------------ the game being played

const live = createState();
live.review = createReviewState();
live.view.large = true;
let liveSocket = null;
let liveGame = null; // the arena's entry of the game on the board ({id, white, black, round})
const board = createBoard($("board"), $("promotion"), { getState: () => live, onMove: () => {} });

/** Follow the game being played (the first of several); the last one stays on the board
 * with its result until the next starts. */
function follow(arena) {
  const playing = (arena.playing || [])[0] || null;
  if (!playing || (liveGame && liveGame.id === playing)) {
    if (liveGame) liveGame = (arena.games || []).find((g) => g.id === liveGame.id) || liveGame;
    return;
  }
  liveSocket?.close();
  liveGame = (arena.games || []).find((g) => g.id === playing) || { id: playing };
  Object.assign(live, createState({ gameId: playing }), { review: createReviewState(), algorithms: live.algorithms });
  live.view.large = true;
  liveSocket = connectGame({
    gameId: playing,
    token: null,
    onFrame: (frame) => {
      if (frame.type === "state" && applyState(live, frame)) scheduleRender();
      else if (frame.type === "stats" && applyStats(live, frame)) scheduleRender();
    },
    onStatus: (status) => {
      live.conn = status;
      scheduleRender();
    },
  });
}

function renderLive() {
  const card = $("live");
  card.hidden = !liveGame || !arena || arena.state === "finished";
  if (card.hidden) return;
  const game = live.game;
  const bots = botsById(arena);
  const bottom = live.view.orientation;
  for (const [id, color] of [["live-bottom", bottom], ["live-top", opposite(bottom)]]) {
    const el = $(id);
    const bot = bots.get(liveGame[color]);
    el.querySelector(".swatch").dataset.color = color;
    setText(el.querySelector(".name"), bot ? bot.name : botName(arena, liveGame[color]));
    setText(el.querySelector(".who"), bot ? `${sideName(arena.game, color)} · ${engineText(bot)}` : sideName(arena.game, color));
    el.classList.toggle("to-move", !!game && !game.result && game.turn === color);
  }
  body.classList.toggle("knight-chess", arena.game === "knight");
  if (game) board.render(live);
  const round = liveGame.round ? `Round ${liveGame.round} · ` : "";
  const text = !game ? "Connecting to the game…" : game.result ? resultText(game) : `${round}move ${Math.floor(game.ply / 2) + 1}, ${sideName(game.game, game.turn)} to move`;
  setText($("live-status"), text);
  body.dataset.liveGame = liveGame.id || "";
}

// ------------------------------------------------------------------ the arena

const scheduleRender = onePerFrame(() => render());

function render() {
  showConn(conn);
  if (!arena) return;
  const { done, total } = progress(arena);
  body.dataset.state = arena.state;
  body.dataset.done = String(done);
  const title = arena.name || "Class arena";
  setText($("arena-title"), `${title} · ${STATE_LABELS[arena.state] || arena.state}`);
  document.title = `${title} — Canopy arena`;
  setText($("arena-progress"), total ? `${done} / ${total} games` : plural(activeBots(arena).length, "bot"));
  $("join-banner").hidden = arena.state !== "open";
  const kind = arena.game === "knight" ? "Knight chess" : "Chess";
  setText($("join-facts"), `${kind} · ${budgetText(arena)} · ${formatText(arena)} · ${plural(activeBots(arena).length, "bot")} so far`);
  renderStandings($("standings"), arena);
  $("standings-empty").hidden = (arena.standings || []).length > 0;
  $("cross-card").hidden = arena.state === "open";
  if (arena.state !== "open") renderCrosstable($("crosstable"), arena);
  renderLive();
  whatWon.render(arena);
}

async function showJoinLink() {
  const { origins } = await shareOrigins();
  const url = `${origins[0]}/arena/${encodeURIComponent(arenaId)}`;
  $("join-qr").replaceChildren(qrSvg(url));
  setText($("join-url"), url.replace(/^https?:\/\//, ""));
}

async function loadAlgorithms(game) {
  if (live.algorithms[game]) return;
  try {
    const res = await fetch(`/api/algorithms?game=${encodeURIComponent(game)}`);
    if (res.ok) live.algorithms[game] = await res.json(); // arrows: visit shares or not
  } catch {
    // the arrows fall back to visit shares
  }
}

function boot() {
  if (!arenaId) {
    setText($("arena-title"), body.dataset.missing ? `There is no arena ${body.dataset.missing}` : "No arena");
    return;
  }
  showJoinLink();
  connectArena(arenaId, {
    onArena: (frame) => {
      arena = frame;
      loadAlgorithms(frame.game);
      follow(frame);
      scheduleRender();
    },
    onStatus: (status) => {
      conn = status;
      scheduleRender();
    },
  });
  window.addEventListener("resize", () => board.redrawAll());
}

boot();

// Exposed for debugging in the browser console (read-only use).
window.canopyArena = { get arena() { return arena; }, live };
