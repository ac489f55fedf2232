// Small pure helpers shared by the "inside the search" views: move lines with
// numbers, number formats, the Q colour scale and its legend. No DOM state.

/** "12. e4 e5 13. Nf3" (or "12… e5 13. Nf3" when Black moves first) from a FEN and SAN list. */
export function formatLine(sans, fen, { max = 40 } = {}) {
  if (!sans || !sans.length) return "";
  const out = lineWords(sans.slice(0, max), fen);
  if (sans.length > max) out.push("…");
  return out.join(" ");
}

/** Each ply of a line from `fen` as `formatLine` writes it ("8. Bxg5", "Qxg5", or "8… Qxg5"
 *  first with Black to move), so a caller can set parts of the line apart. */
export function lineWords(sans, fen) {
  const parts = fen ? fen.split(" ") : [];
  let black = parts[1] === "b";
  let number = Number(parts[5]) || 1;
  return (sans || []).map((san, i) => {
    const word = !black ? `${number}. ${san}` : i === 0 ? `${number}… ${san}` : san;
    if (black) number += 1;
    black = !black;
    return word;
  });
}

/** One move with its number, e.g. "3. Nf3" or "3… Nf6": the move at ply `index` after `fen`. */
export function plyLabel(fen, index, san) {
  const parts = fen ? fen.split(" ") : [];
  const blackFirst = parts[1] === "b";
  const start = Number(parts[5]) || 1;
  const ply = index + (blackFirst ? 1 : 0);
  const number = start + Math.floor(ply / 2);
  return ply % 2 === 0 ? `${number}. ${san}` : `${number}… ${san}`;
}

export function fixed(x, digits = 3) {
  return x === null || x === undefined || Number.isNaN(x) ? "–" : Number(x).toFixed(digits);
}

export function signed(x, digits = 2) {
  if (x === null || x === undefined) return "–";
  if (Math.abs(x) > 1.0001) return x > 0 ? "mate +" : "mate −";
  return (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(digits);
}

export function percent(x, digits = 1) {
  return x === null || x === undefined ? "–" : `${(x * 100).toFixed(digits)}%`;
}

/** A number in a few characters: 950, 1.5k, 12k, 2.5M (chart axes, the engine label). */
export function compact(v) {
  if (v === null || v === undefined) return "";
  if (Math.abs(v) >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (Math.abs(v) >= 1e3) return `${(v / 1e3).toFixed(v >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(v * 100) / 100);
}

/** "1 ply", "3 plies". */
export function plies(n) {
  return `${n} ${n === 1 ? "ply" : "plies"}`;
}

export function count(n) {
  if (n === null || n === undefined) return "–";
  return Math.round(n).toLocaleString("en-US");
}

// A diverging scale for q_white (0: Black is winning, 1: White is winning),
// purple–grey–orange (ColorBrewer PuOr), readable by colour-blind viewers and
// on a projector. Every node is drawn with an outline so the light middle
// stays visible.
const Q_STOPS = [
  [0.0, [84, 39, 136]],
  [0.25, [153, 142, 195]],
  [0.5, [236, 236, 232]],
  [0.75, [241, 163, 64]],
  [1.0, [179, 88, 6]],
];

export function qColor(q) {
  if (q === null || q === undefined || Number.isNaN(q)) return "rgb(200, 200, 200)";
  const x = Math.max(0, Math.min(1, q));
  for (let i = 1; i < Q_STOPS.length; i++) {
    const [x1, c1] = Q_STOPS[i];
    if (x <= x1) {
      const [x0, c0] = Q_STOPS[i - 1];
      const t = (x - x0) / (x1 - x0);
      const c = c0.map((v, k) => Math.round(v + (c1[k] - v) * t));
      return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
    }
  }
  return "rgb(179, 88, 6)";
}

/** CSS linear-gradient for the legend bar (same stops as qColor). */
export function qGradient() {
  const stops = Q_STOPS.map(([x, c]) => `rgb(${c.join(", ")}) ${x * 100}%`);
  return `linear-gradient(90deg, ${stops.join(", ")})`;
}

/** A distinct colour per series (moves in the charts, threads in the merge view). */
export const SERIES = ["#1d4ed8", "#c2410c", "#15803d", "#7e22ce", "#be123c", "#0e7490", "#a16207", "#4b5563"];
