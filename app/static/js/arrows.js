// Engine arrows as chessground "auto shapes" (separate from the user's own
// drawings): one arrow per candidate root move, its width following the move's
// share of the visits, the current best move in green. Previewing a line draws
// its moves as numbered arrows.

/** Brushes added to chessground's defaults (widths are set per arrow via modifiers). */
export const BRUSHES = {
  best: { key: "cvBest", color: "#15803d", opacity: 0.85, lineWidth: 10 },
  cand: { key: "cvCand", color: "#1d4ed8", opacity: 0.55, lineWidth: 10 },
  pvOwn: { key: "cvPvOwn", color: "#b45309", opacity: 0.85, lineWidth: 8 },
  pvOpp: { key: "cvPvOpp", color: "#7c3aed", opacity: 0.75, lineWidth: 8 },
  // Step mode and the race (inside the search).
  path: { key: "cvPath", color: "#b45309", opacity: 0.85, lineWidth: 8 },
  back: { key: "cvBack", color: "#0f766e", opacity: 0.85, lineWidth: 8 },
  fresh: { key: "cvFresh", color: "#15803d", opacity: 0.7, lineWidth: 8 },
  playout: { key: "cvPlayout", color: "#6d28d9", opacity: 0.7, lineWidth: 7 },
  raceA: { key: "cvRaceA", color: "#1d4ed8", opacity: 0.8, lineWidth: 12 },
  raceB: { key: "cvRaceB", color: "#c2410c", opacity: 0.8, lineWidth: 12 },
};

const MIN_WIDTH = 2.5;
const MAX_WIDTH = 22;

/** Arrow width (chessground units: 1/64 of a square) for a visit share in [0, 1]. */
function widthForShare(share) {
  const s = Math.max(0, Math.min(1, share || 0));
  return Math.round((MIN_WIDTH + (MAX_WIDTH - MIN_WIDTH) * Math.sqrt(s)) * 2) / 2;
}

/** Candidate-move arrows for a stats frame: the top `max` moves by visits. `byShare`: the
 * visit shares say how much the search likes each move (MCTS); without it (alpha-beta's
 * "visits" are nodes spent) the best move gets a fixed, wide arrow. */
export function engineShapes(stats, { max = 6, minShare = 0.03, byShare = true } = {}) {
  if (!stats || !stats.moves.length) return [];
  const rows = stats.moves
    .filter((m) => m.visits > 0 || m.move === stats.bestmove)
    .slice()
    .sort((a, b) => b.visits - a.visits || (b.share || 0) - (a.share || 0));
  const shapes = [];
  const drawn = new Set(); // promotions to different pieces share one arrow (two would be drawn as NaN)
  for (const row of rows.slice(0, max)) {
    const isBest = row.move === stats.bestmove;
    if (!isBest && (row.share || 0) < minShare) continue;
    const squares = row.move.slice(0, 4);
    if (drawn.has(squares)) continue;
    drawn.add(squares);
    const share = !byShare && isBest ? 0.6 : row.share || 0;
    shapes.push({
      orig: row.move.slice(0, 2),
      dest: row.move.slice(2, 4),
      brush: isBest ? "best" : "cand",
      modifiers: { lineWidth: widthForShare(share) },
    });
  }
  // Draw the best move last so it lies on top.
  shapes.sort((a, b) => (a.brush === "best") - (b.brush === "best"));
  return shapes;
}

/** A line's moves as numbered arrows (the mover's in one colour, the reply's in another). */
export function pvShapes(pv, { max = 8 } = {}) {
  return (pv || []).slice(0, max).map((uci, i) => ({
    orig: uci.slice(0, 2),
    dest: uci.slice(2, 4),
    brush: i % 2 === 0 ? "pvOwn" : "pvOpp",
    modifiers: { lineWidth: 7 },
    label: { text: String(i + 1) },
  }));
}

/** Arrows for a list of UCI moves in one brush, optionally numbered 1, 2, … */
export function arrowShapes(moves, { brush = "path", numbered = false, width = 8 } = {}) {
  return (moves || []).map((uci, i) => ({
    orig: uci.slice(0, 2),
    dest: uci.slice(2, 4),
    brush,
    modifiers: { lineWidth: width },
    ...(numbered ? { label: { text: String(i + 1) } } : {}),
  }));
}
