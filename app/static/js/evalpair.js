// Side-by-side static evaluations ("hand +0.31 · learned +0.12"), on request.
// Offered only where a learned evaluation exists (a game with weights on the server:
// GET /api/learning says so); the numbers come from POST /api/evaluations,
// fetched once per position and set of moves and kept in a small cache, so a table
// redrawn ten times a second asks the server once. Every number is for the side to
// move in the position asked about (for a move: the position after it, for the side
// making it), as the server computes it.

import { signed } from "./notation.js";

const CACHE_SIZE = 64;
/** What `lookup` gives for a position the server refused: shown as "–", never asked again. */
export const REFUSED = Object.freeze({ position: null, moves: [] });

export function createEvalPairs({ onChange }) {
  const available = new Map(); // game → true / false / "pending"
  const cache = new Map(); // key → response body, or "pending" / "failed"

  /** Whether `game` has a learned evaluation on this server (asks once; false until known). */
  function offered(game) {
    const known = available.get(game);
    if (known === undefined) {
      available.set(game, "pending");
      fetch(`/api/learning?game=${encodeURIComponent(game)}`)
        .then((res) => (res.ok ? res.json() : null))
        .then((body) => {
          available.set(game, !!(body && body.available));
          onChange();
        })
        .catch(() => available.delete(game)); // offline for a moment: ask again later
      return false;
    }
    return known === true;
  }

  /** The server's evaluations of `fen` and `moves` (null while they load; REFUSED if refused). */
  function lookup(game, fen, moves) {
    const key = `${game}|${fen}|${moves.join(",")}`;
    const hit = cache.get(key);
    if (hit !== undefined) return hit === "pending" ? null : hit;
    cache.set(key, "pending");
    while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
    fetch("/api/evaluations", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ game, fen, moves }),
    })
      .then((res) => (res.ok ? res.json() : null))
      .then((body) => {
        cache.set(key, body || REFUSED);
        onChange();
      })
      .catch(() => cache.delete(key));
    return null;
  }

  return { offered, lookup };
}

/** "hand +0.31 · learned +0.12" (learned left out when the server had none). */
export function pairText(pair, sign = 1) {
  if (!pair) return "";
  const hand = `hand ${signed(sign * pair.hand, 2)}`;
  return pair.learned === null || pair.learned === undefined ? hand : `${hand} · learned ${signed(sign * pair.learned, 2)}`;
}

/** "+0.31 · +0.12": the same two numbers under a "Hand · learned" heading. */
export function pairShort(pair) {
  const learned = pair.learned === null || pair.learned === undefined ? "–" : signed(pair.learned, 2);
  return `${signed(pair.hand, 2)} · ${learned}`;
}

/** The "hand · learned" toggle is on and this game has a learned evaluation to show. */
export function showPairs(s) {
  return !!(s.view.bothEvals && s.game && s.evalPairs && s.evalPairs.offered(s.game.game));
}
