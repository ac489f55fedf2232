// The game review: what the engine thought at every ply, from GET /api/games/{id}/review.
// The page keeps one copy of the plies and fetches only the new ones as the game goes
// on (`?from=`); pure functions of the state then say which search the panel, the
// board's arrows and the evaluation graph show:
//   live   — the search running now (the stats frames);
//   last   — no new search yet after the engine's move: its search stays, dimmed;
//   stored — browsing a move that kept a search: that search, labelled;
//   none   — browsing a move that kept none.

import { formatMs } from "./dom.js";

/** Expected-score drop (for the side that moved) that marks a ply as a big swing. */
export const SWING = 0.2;
/** How the move list writes an analysis's marks (thresholds: engine/play/analysis.py). */
export const GLYPHS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

export function createReviewState() {
  // `analysis`: the plies are an analysis's (GET /api/analyses/{id}, analysis.js), each marked.
  return { id: null, plies: [], version: 0, analysis: false };
}

/** Keeps `s.review` in step with the game: drops plies an undo removed, fetches new ones. */
export function createReview({ getState, onChange }) {
  let inFlight = false;
  let again = false;

  /** Called with every `state` frame. */
  function sync() {
    const s = getState();
    const game = s.game;
    if (!game) return;
    const review = s.review;
    if (review.id !== game.id) Object.assign(review, createReviewState(), { id: game.id, version: review.version + 1 });
    const moves = game.moves;
    let common = 0;
    while (common < review.plies.length && common < moves.length && review.plies[common].uci === moves[common]) common += 1;
    if (common < review.plies.length) {
      review.plies = review.plies.slice(0, common); // taken back, or a new start position
      review.version += 1;
      onChange();
    }
    if (review.plies.length < moves.length) fetchFrom(Math.max(1, common)); // the last kept ply's eval may change
  }

  async function fetchFrom(first) {
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    const s = getState();
    const id = s.game.id;
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(id)}/review?from=${first}`);
      if (res.ok) merge(s, id, await res.json());
    } catch {
      // offline for a moment: the next state frame asks again
    } finally {
      inFlight = false;
    }
    if (again) {
      again = false;
      sync();
    }
  }

  function merge(s, id, body) {
    const review = s.review;
    if (review.id !== id || body.id !== id) return;
    const moves = s.game ? s.game.moves : [];
    for (const ply of body.plies) {
      const index = ply.ply - 1;
      if (index > review.plies.length || moves[index] !== ply.uci) break; // the game moved on meanwhile
      review.plies[index] = ply;
    }
    review.plies = review.plies.filter(Boolean);
    review.version += 1;
    onChange();
  }

  return { sync };
}

// ------------------------------------------------------------------ pure functions

/** "5.e4" or "5…Nc6": the move of ply `ply` (1 = the first move) with its number. */
export function moveName(game, ply, san) {
  const parts = (game && game.start_fen ? game.start_fen : "").split(" ");
  const blackFirst = parts[1] === "b";
  const start = Number(parts[5]) || 1;
  const index = ply - 1 + (blackFirst ? 1 : 0);
  const number = start + Math.floor(index / 2);
  return index % 2 === 0 ? `${number}.${san}` : `${number}…${san}`;
}

/** "1 s", "250 ms", "1.5 s": a search's time, short. */
export function shortTime(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms >= 1000 && ms < 10000) return `${(Math.round(ms / 100) / 10).toString()} s`;
  return formatMs(ms);
}

/** "Canopy's search for 5…Nc6 (mcts · 1 s · 12,345 iterations)"; an analysed game's
 * ply (it has a `mark`, see analysis.js): "Canopy's analysis before 5…Nc6 (…)". */
export function searchLabel(game, ply) {
  const search = ply.search;
  const analysed = ply.mark !== undefined;
  const what = analysed ? "analysis before" : ply.by === "engine" ? "search for" : "search as the player chose";
  const iterations = `${search.iterations.toLocaleString("en-US")} ${search.iterations === 1 ? "iteration" : "iterations"}`;
  return `Canopy's ${what} ${moveName(game, ply.ply, ply.san)} (${search.algorithm} · ${shortTime(search.ms)} · ${iterations})`;
}

/** A stored search in the shape of a `stats` frame, so the table and the arrows read it as they read a live one. */
export function storedStats(ply) {
  const search = ply.search;
  const rows = search.moves.map((m) => ({
    move: m.uci,
    san: m.san,
    visits: m.visits,
    share: m.share,
    q: m.q,
    uct: null,
    eval: m.eval,
    prior: null,
    pv: m.pv,
    pv_san: m.pv_san || [],
    pv_fen: m.pv_fen || null,
    bound: "exact",
    proof: m.proof || 0,
    mate: m.mate ?? null,
  }));
  const chosen = ply.by === "engine" ? ply.uci : search.bestmove;
  const best = rows.find((r) => r.move === chosen) || rows[0] || null;
  return {
    stored: true,
    fen: search.fen,
    algorithm: search.algorithm,
    threads: search.threads || 1,
    running: false,
    iterations: search.iterations,
    nodes: search.nodes,
    elapsed_ms: search.ms,
    nps: search.ms > 0 ? (search.iterations * 1000) / search.ms : null,
    max_depth: search.depth ?? null,
    mean_depth: null,
    memory_bytes: null,
    pool: null,
    bestmove: best ? best.move : null,
    pv: best ? best.pv : [],
    pv_san: best ? best.pv_san : [],
    moves: rows,
  };
}

/** The review's entry for ply `ply` (1 = the first move), if it has arrived. */
export function reviewPly(s, ply) {
  const entry = s.review && s.review.plies[ply - 1];
  return entry && s.game && s.game.moves[ply - 1] === entry.uci ? entry : null;
}

/** Which search the panel and the board show now, and how it is labelled (see the top). */
export function shownSearch(s) {
  const game = s.game;
  if (!game) return null;
  // An analysed game has nothing live: its last ply shows its search like any other.
  if (s.view.ply !== null || (s.review.analysis && game.ply > 0)) {
    const ply = s.view.ply === null ? game.ply : s.view.ply;
    if (ply === 0) return { kind: "none", stats: null, label: "The start position: no move has been played yet." };
    const entry = reviewPly(s, ply);
    if (!entry) return { kind: "none", stats: null, label: "Loading what the engine thought…" };
    if (!entry.search && s.review.analysis) {
      return { kind: "none", stats: null, label: `The position before ${moveName(game, ply, entry.san)} has not been analysed yet.` };
    }
    if (!entry.search) {
      const who = entry.by === "engine" ? "the engine's" : "a player's";
      return { kind: "none", stats: null, label: `No search was kept with ${moveName(game, ply, entry.san)} (${who} move).` };
    }
    return { kind: "stored", stats: storedStats(entry), label: searchLabel(game, entry), ply };
  }
  if (s.stats) return { kind: "live", stats: s.stats, label: null };
  if (game.ply === 0) return null;
  const last = reviewPly(s, game.ply);
  if (last && last.search && last.by === "engine") {
    return { kind: "last", stats: storedStats(last), label: `Last move — ${searchLabel(game, last)}`, ply: game.ply };
  }
  const held = s.lastStats;
  if (held && held.ply === game.ply && held.by === "engine") {
    const name = moveName(game, game.ply, game.history.length ? game.history[game.history.length - 1].san : "");
    return { kind: "last", stats: held.stats, label: `Last move — Canopy's search for ${name}`, ply: game.ply };
  }
  return null;
}

/** White's expected score after each ply (index 0: before the first move, unknown). */
export function evalSeries(s) {
  const plies = s.review ? s.review.plies : [];
  return [null, ...plies.map((p) => (p.eval === null || p.eval === undefined ? null : p.eval))];
}

/** Plies where the side that moved lost at least SWING of expected score (a blunder); in
 * an analysed game, the plies it marked (`mark`: inaccuracy, mistake or blunder). */
export function swings(s) {
  const plies = s.review ? s.review.plies : [];
  const out = [];
  if (s.review && s.review.analysis) {
    for (const p of plies) if (p && p.mark) out.push({ ply: p.ply, drop: p.loss, san: p.san, by: p.by, mark: p.mark });
    return out;
  }
  for (let i = 1; i < plies.length; i += 1) {
    const before = plies[i - 1].eval;
    const after = plies[i].eval;
    if (before === null || before === undefined || after === null || after === undefined) continue;
    const drop = plies[i].color === "white" ? before - after : after - before;
    if (drop >= SWING) out.push({ ply: plies[i].ply, drop, san: plies[i].san, by: plies[i].by, mark: "swing" });
  }
  return out;
}
