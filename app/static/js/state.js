// The page's single state object and pure functions of it (as in chessground's
// state.ts / board.ts). Frames from the server are applied here; the views
// only read the state and are redrawn once per animation frame.

import { compact } from "./notation.js";

export function createState({ gameId = "", token = null } = {}) {
  return {
    gameId,
    token,
    conn: "idle", // idle | connecting | open | closed
    game: null, // the latest `state` frame
    stats: null, // the latest `stats` frame for the board's position
    lastStep: null, // the latest `step` trace
    positions: null, // {key, fens}: every board FEN, fetched only for very long games
    limits: null, // GET /api/settings
    algorithms: { chess: null, knight: null }, // GET /api/algorithms?game=…
    statsCount: 0,
    // Frames received on this page (count, last type, when): what a stuck page got last.
    received: { frames: 0, type: null, at: 0 },
    view: {
      ply: null, // null: the live position; a number: browsing that ply
      orientation: "white",
      userFlipped: false,
      hover: null, // the root move whose PV is previewed on the board
      sort: { key: "visits", dir: -1 },
      arrows: true,
      large: false,
      overlay: null, // inside the search: {fen?, lastMove?, shapes, caption} of a step phase or a race
    },
  };
}

// ------------------------------------------------------------------ frames in

/** Same placement and side to move (the first two FEN fields). */
export function samePosition(a, b) {
  if (!a || !b) return false;
  const [pa, ta] = a.split(" ");
  const [pb, tb] = b.split(" ");
  return pa === pb && ta === tb;
}

/** Apply a `state` frame; false when it is older than what we have. */
export function applyState(s, frame) {
  const old = s.game;
  if (old && old.id === frame.id && frame.version < old.version) return false;
  s.game = frame;
  if (s.stats && !samePosition(s.stats.fen, frame.fen)) s.stats = null;
  if (s.view.ply !== null && (s.view.ply >= frame.ply || !old || old.id !== frame.id)) {
    s.view.ply = null; // browsing past the end (after an undo) means "live"
  }
  if (s.view.hover && !(s.stats && s.stats.moves.some((m) => m.move === s.view.hover))) {
    s.view.hover = null;
  }
  if (!s.view.userFlipped) s.view.orientation = defaultOrientation(frame);
  return true;
}

/** Apply a `stats` frame; false when it is stale (older, or for another position). */
export function applyStats(s, frame) {
  if (!s.game || !samePosition(frame.fen, s.game.fen)) return false;
  if (s.stats && samePosition(s.stats.fen, frame.fen) && frame.seq < s.stats.seq) return false;
  s.stats = frame;
  s.statsCount += 1;
  return true;
}

// ------------------------------------------------------------------ derived

function defaultOrientation(game) {
  return game && game.human === "black" ? "black" : "white";
}

export function opposite(color) {
  return color === "white" ? "black" : "white";
}

/** The side to move in a FEN ("white" when there is none). */
export function turnOf(fen) {
  return fen && fen.split(" ")[1] === "b" ? "black" : "white";
}

/** What a side is called: knight chess keeps its original colours (first mover black, second pink). */
export function sideName(gameName, color) {
  if (gameName === "knight") return color === "white" ? "Black knights" : "Pink knights";
  return color === "white" ? "White" : "Black";
}

export function sideLongName(gameName, color) {
  if (gameName === "knight") {
    return color === "white" ? "Black knights (move first)" : "Pink knights";
  }
  return sideName(gameName, color);
}

export function isHuman(game, color) {
  return game.human === "both" || game.human === color;
}

/** Player label for one side, from the point of view of whoever is looking. */
export function playerLabel(s, color) {
  const game = s.game;
  if (!game) return "";
  const player = game.players && game.players[color];
  if (player) return namedPlayer(player);
  if (isHuman(game, color)) return s.game.role === "player" ? "You" : "Human";
  return `Canopy · ${engineLabel(game.settings)}`;
}

/** A named player (an arena's bot) with its settings in words: "Ada (uct c=0.7)". */
export function namedPlayer(player) {
  return player.label ? `${player.name} (${player.label})` : player.name;
}

/** The search settings of whoever moves for `color`: its named player's, else the game's. */
export function sideSettings(game, color) {
  return (game.players && game.players[color]) || game.settings;
}

/** A game its named players play in place of its own engine (an arena's):
 * "Arena game: Ada (uct c=0.7) vs Bob (uct c=1.4)"; "" for any other game. */
export function playedByLabel(game) {
  if (!game || !game.played_by || !game.players || !game.players.white || !game.players.black) return "";
  return `${playedByTitle(game)} game: ${namedPlayer(game.players.white)} vs ${namedPlayer(game.players.black)}`;
}

/** What plays the game, as a title: "Arena". */
export function playedByTitle(game) {
  return game.played_by.charAt(0).toUpperCase() + game.played_by.slice(1);
}

export function engineLabel(settings) {
  if (!settings) return "";
  const budget =
    settings.budget === "iterations"
      ? `${compact(settings.iterations)} it`
      : `${settings.movetime_ms >= 1000 ? `${settings.movetime_ms / 1000} s` : `${settings.movetime_ms} ms`}`;
  const threads = settings.threads > 1 ? ` · ${settings.threads} threads` : "";
  return `${settings.algorithm} · ${budget}${threads}`;
}

export function isLive(s) {
  return s.view.ply === null;
}

export function viewedPly(s) {
  if (!s.game) return 0;
  return s.view.ply === null ? s.game.ply : s.view.ply;
}

/** Board FEN, last move and check for the ply being viewed (null: the FEN is not in the frame). */
export function viewedPosition(s) {
  const game = s.game;
  if (!game) return null;
  const ply = viewedPly(s);
  if (ply === game.ply) {
    return {
      fen: game.fen.split(" ")[0],
      lastMove: game.last_move ? uciSquares(game.last_move) : undefined,
      check: game.check ? game.turn : false,
      turn: game.turn,
    };
  }
  const startTurn = turnOf(game.start_fen);
  const turn = ply % 2 === 0 ? startTurn : opposite(startTurn);
  if (ply === 0) {
    return { fen: game.start_fen.split(" ")[0], lastMove: undefined, check: false, turn };
  }
  // In very long games the oldest history entries (or their FENs) are left out of the
  // frame; `s.positions` then holds every position, fetched from the server.
  const entry = game.history[ply - 1 - (game.history_start || 0)];
  const fallback = s.positions && s.positions.key === positionsKey(game) ? s.positions.fens[ply] : null;
  return {
    fen: (entry && entry.fen) || fallback || null,
    lastMove: uciSquares(game.moves[ply - 1]),
    check: entry && entry.check ? turn : false,
    turn,
  };
}

export function positionsKey(game) {
  return `${game.id}:${game.version}`;
}

export function uciSquares(uci) {
  return [uci.slice(0, 2), uci.slice(2, 4)];
}

/** Legal destinations for chessground: Map(orig → [dest, …]) from the server's UCI list. */
export function legalDests(game) {
  const dests = new Map();
  if (!game) return dests;
  for (const uci of game.legal) {
    const [orig, dest] = uciSquares(uci);
    const list = dests.get(orig);
    if (list) {
      if (!list.includes(dest)) list.push(dest);
    } else dests.set(orig, [dest]);
  }
  return dests;
}

/** Promotion pieces legal for orig→dest (empty when the move is no promotion). */
export function promotionChoices(game, orig, dest) {
  const prefix = orig + dest;
  return game.legal.filter((u) => u.length === 5 && u.startsWith(prefix)).map((u) => u[4]);
}

/** Whether the viewer may move a piece on the board right now. */
export function canMove(s) {
  const g = s.game;
  return !!(
    g &&
    g.role === "player" &&
    isLive(s) &&
    !g.result &&
    isHuman(g, g.turn) &&
    s.conn === "open"
  );
}

export function isPlayer(s) {
  return !!(s.game && s.game.role === "player");
}

/** The root-move rows sorted by the chosen column. */
export function sortedRows(stats, sort) {
  if (!stats) return [];
  const rows = stats.moves.slice();
  const key = sort.key;
  const dir = sort.dir;
  const value = (row) => {
    if (key === "san") return row.san;
    if (key === "pv") return row.pv_san.join(" ");
    const v = row[key];
    return v === null || v === undefined ? -Infinity : v;
  };
  rows.sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (typeof va === "string") return dir * va.localeCompare(vb);
    if (va === vb) return b.visits - a.visits;
    return dir * (va - vb);
  });
  return rows;
}

// What the views may assume of an algorithm whose description has not arrived yet.
const DEFAULT_CAPABILITIES = {
  mcts: true,
  tree: true,
  threads: true,
  proofs: false,
  stepping: "iteration",
  value_kind: "q",
  selection_rule: "ucb1",
  formula: "",
  exploit_label: "W/N",
  score_label: "UCB1",
  simulation: "playout",
  backup_rule: "average",
};

/** What the server says an algorithm can do (GET /api/algorithms `capabilities`): the
 * views branch on these, never on the algorithm's name. */
export function capabilities(s, name) {
  for (const list of [s.algorithms.chess, s.algorithms.knight]) {
    const found = list && list.find((a) => a.name === name);
    if (found) return { ...DEFAULT_CAPABILITIES, mcts: found.mcts, ...(found.capabilities || {}) };
  }
  return DEFAULT_CAPABILITIES;
}

/** Label of the "selection score" column for an algorithm. */
export function scoreLabel(s, algorithm) {
  return capabilities(s, algorithm).score_label;
}

/** A proven root move as words ("mate in 3", "proven win"), or "" while it is only estimated.
 * `proof` is for the side to move at the root: 1 win, -1 loss, 2 draw; `mate` is in plies. */
export function proofText(move) {
  if (!move || !move.proof) return "";
  if (move.proof === 2) return "proven draw";
  const won = move.proof > 0;
  if (move.mate !== null && move.mate !== undefined) {
    const moves = Math.ceil(move.mate / 2);
    return won ? `mate in ${moves}` : `mated in ${moves}`;
  }
  return won ? "proven win" : "proven loss";
}

export function searchPhrase(s) {
  const g = s.game;
  if (!g) return "";
  const search = g.search;
  if (search.status === "queued") {
    const pos = search.queue_position;
    return pos ? `queued (${ordinal(pos)} in line)` : "queued";
  }
  if (search.status === "running") return search.purpose === "analysis" ? "analysing" : "thinking";
  if (g.played_by && !g.result) return `played by the ${g.played_by}`;
  if (search.paused) return "paused";
  return "idle";
}

function ordinal(n) {
  const s = ["th", "st", "nd", "rd"];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

/** Result line, e.g. "1-0 · Black knights win — 200-ply limit". */
export function resultText(game) {
  if (!game || !game.result) return "";
  const winner =
    game.result === "1-0" ? "white" : game.result === "0-1" ? "black" : null;
  const who = winner ? `${sideName(game.game, winner)} ${game.game === "knight" ? "win" : "wins"}` : "Draw";
  return `${game.result} · ${who} — ${game.reason}`;
}
