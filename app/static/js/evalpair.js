// Side-by-side static evaluations ("hand +0.31 · learned +0.12 · nnue +0.20"), on request.
// Offered only where a learned evaluation exists (a game with learned weights, or chess
// with an NNUE, on the server: GET /api/learning says so); the numbers come from
// POST /api/evaluations, fetched once per position and set of moves and kept in a small
// cache, so a table redrawn ten times a second asks the server once. Every number is for
// the side to move in the position asked about (for a move: the position after it, for
// the side making it), as the server computes it.

import { signed } from "./notation.js";

const CACHE_SIZE = 64;
/** What `lookup` gives for a position the server refused: shown as "–", never asked again. */
export const REFUSED = Object.freeze({ position: null, moves: [] });

export function createEvalPairs({ onChange }) {
  const available = new Map(); // game → { learned, nnue } / "pending"
  const cache = new Map(); // key → response body, or "pending" / "failed"

  /** Which learned evaluations `game` has on this server (asks once; none until known). */
  function known(game) {
    const found = available.get(game);
    if (found === undefined) {
      available.set(game, "pending");
      fetch(`/api/learning?game=${encodeURIComponent(game)}`)
        .then((res) => (res.ok ? res.json() : null))
        .then((body) => {
          available.set(game, { learned: !!(body && body.available), nnue: !!(body && body.nnue && body.nnue.available) });
          onChange();
        })
        .catch(() => available.delete(game)); // offline for a moment: ask again later
      return { learned: false, nnue: false };
    }
    return found === "pending" ? { learned: false, nnue: false } : found;
  }

  /** Whether `game` has a learned evaluation (or, chess, an NNUE) to show beside hand. */
  function offered(game) {
    const k = known(game);
    return k.learned || k.nnue;
  }

  /** The evaluations the toggle shows for `game`: "hand", "learned", and "nnue" with a network. */
  function names(game) {
    return known(game).nnue ? ["hand", "learned", "nnue"] : ["hand", "learned"];
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

  return { offered, names, lookup };
}

const present = (v) => v !== null && v !== undefined;

/** "hand +0.31 · learned +0.12 · nnue +0.20" (learned, nnue left out when the server had none). */
export function pairText(pair, sign = 1) {
  if (!pair) return "";
  const parts = [`hand ${signed(sign * pair.hand, 2)}`];
  if (present(pair.learned)) parts.push(`learned ${signed(sign * pair.learned, 2)}`);
  if (present(pair.nnue)) parts.push(`nnue ${signed(sign * pair.nnue, 2)}`);
  return parts.join(" · ");
}

/** "+0.31 · +0.12 (· +0.20)": the same numbers under a "Hand · learned (· NNUE)" heading. */
export function pairShort(pair) {
  const learned = present(pair.learned) ? signed(pair.learned, 2) : "–";
  const short = `${signed(pair.hand, 2)} · ${learned}`;
  return present(pair.nnue) ? `${short} · ${signed(pair.nnue, 2)}` : short;
}

/** The "hand · learned" toggle is on and this game has a learned evaluation (or an NNUE) to show. */
export function showPairs(s) {
  return !!(s.view.bothEvals && s.game && s.evalPairs && s.evalPairs.offered(s.game.game));
}
