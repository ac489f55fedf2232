// The evaluation graph under the move list: White's expected score after every ply
// (the engine's own numbers, kept with the moves — see review.js), engine moves
// marked, big swings (a drop of SWING or more for the side that moved) marked in
// red and listed as buttons (in an analysed game: its inaccuracies, mistakes and
// blunders, each in its colour), the ply on the board as a vertical line. Clicking
// the graph (or a swing) goes to that ply. Drawn with uPlot, like the charts.

import uPlot from "/static/vendor/uplot.js";
import { h, setText } from "./dom.js";
import { sideName, viewedPly } from "./state.js";
import { GLYPHS, SWING, evalSeries, moveName, swings } from "./review.js";

const HEIGHT = 150;
/** The rings on the graph: big swings in a game, each mark in an analysed game. */
const RINGS = {
  swing: { mark: "swing", label: "big swing", stroke: "#be123c", fill: "rgba(190, 18, 60, 0.25)" },
  inaccuracy: { mark: "inaccuracy", label: "inaccuracy", stroke: "#ca8a04", fill: "rgba(202, 138, 4, 0.25)" },
  mistake: { mark: "mistake", label: "mistake", stroke: "#ea580c", fill: "rgba(234, 88, 12, 0.25)" },
  blunder: { mark: "blunder", label: "blunder", stroke: "#be123c", fill: "rgba(190, 18, 60, 0.3)" },
};

export function createEvalGraph(root, { onNavigate }) {
  const plotBox = h("div", { class: "evalgraph-plot" });
  const caption = h("p", { class: "evalgraph-caption hint" });
  const swingList = h("p", { class: "evalgraph-swings" });
  root.replaceChildren(plotBox, caption, swingList);
  let plot = null;
  let drawnKey = "";
  let current = 0;
  let xs = [];

  swingList.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-ply]");
    if (button) onNavigate(Number(button.dataset.ply));
  });

  const observer = new ResizeObserver(() => {
    if (plot) plot.setSize(size());
  });
  observer.observe(root);

  function size() {
    return { width: Math.max(200, Math.floor(root.clientWidth || 280)), height: HEIGHT };
  }

  /** The ply on the board, as a vertical line (drawn after the series). */
  function drawCurrent(u) {
    if (!xs.length) return;
    const x = Math.round(u.valToPos(current, "x", true));
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = "rgba(180, 83, 9, 0.9)";
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.restore();
  }

  function build(data, whiteName, rings) {
    if (plot) plot.destroy();
    const value = (u, v) => (v === null || v === undefined ? "–" : v.toFixed(2));
    plot = new uPlot(
      {
        ...size(),
        scales: { x: { time: false, range: (u, min, max) => [0, Math.max(1, max)] }, y: { range: [0, 1] } },
        axes: [
          { label: "ply", size: 30, values: (u, vals) => vals.map((v) => (Number.isInteger(v) ? String(v) : "")) },
          { size: 36, values: (u, vals) => vals.map((v) => v.toFixed(1)) },
        ],
        series: [
          { label: "ply" },
          { label: `${possessive(whiteName)} expected score`, stroke: "#1d4ed8", width: 2, spanGaps: true, value, points: { show: false } },
          { label: "engine move", stroke: "#15803d", fill: "#15803d", paths: () => null, points: { show: true, size: 6, fill: "#15803d" }, value },
          ...rings.map((r) => ({ label: r.label, stroke: r.stroke, paths: () => null, points: { show: true, size: 11, width: 2.5, fill: r.fill }, value })),
        ],
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        legend: { show: false },
        hooks: { draw: [drawCurrent] },
      },
      data,
      plotBox,
    );
    plot.over.title = "Click to go to that ply";
    plot.over.addEventListener("click", () => {
      const idx = plot.cursor.idx;
      if (idx !== null && idx !== undefined && idx < xs.length) onNavigate(xs[idx]);
    });
  }

  function render(s) {
    const game = s.game;
    const plies = s.review ? s.review.plies : [];
    root.hidden = !game || game.ply === 0;
    if (root.hidden) return;
    const before = current;
    current = viewedPly(s);
    const whiteName = sideName(game.game, "white");
    const key = `${s.review.id}:${s.review.version}:${whiteName}`;
    if (key !== drawnKey) {
      drawnKey = key;
      const ys = evalSeries(s);
      xs = ys.map((_, i) => i);
      const engine = ys.map((y, i) => (i > 0 && plies[i - 1].by === "engine" && plies[i - 1].search ? y : null));
      const big = swings(s);
      const analysed = s.review.analysis;
      const rings = (analysed ? ["inaccuracy", "mistake", "blunder"] : ["swing"]).map((mark) => RINGS[mark]);
      const ringYs = rings.map((r) => {
        const marked = new Set(big.filter((b) => b.mark === r.mark).map((b) => b.ply));
        return ys.map((y, i) => (marked.has(i) ? y : null));
      });
      build([xs, ys, engine, ...ringYs], whiteName, rings);
      const scored = ys.filter((y) => y !== null).length;
      const scale = `${possessive(whiteName)} expected score after each ply (1: ${whiteName} ${whiteName.endsWith("s") ? "win" : "wins"}, 0.5: even)`;
      setText(
        caption,
        !scored
          ? analysed
            ? "No position of this game has been analysed yet."
            : "No engine search has scored a position of this game yet."
          : analysed
            ? `${scale}, by Canopy's analysis; rings mark inaccuracies (?!, yellow), mistakes (?, orange) and blunders (??, red).`
            : `${scale}, by the engine's own searches; green dots are engine moves, red rings drops of ${SWING} or more for the side that moved.`,
      );
      swingList.replaceChildren(
        ...(big.length ? [h("span", {}, analysed ? "Marked: " : "Big swings: ")] : []),
        ...big.map((b) =>
          h(
            "button",
            {
              type: "button",
              class: analysed ? `swing mark-${b.mark}` : "swing",
              dataset: { ply: String(b.ply) },
              title: `${analysed ? `${b.mark}: ` : ""}expected score dropped by ${b.drop.toFixed(2)} for the side that moved`,
            },
            `${moveName(game, b.ply, b.san)}${GLYPHS[b.mark] || ""} −${b.drop.toFixed(2)}`,
          ),
        ),
      );
      root.dataset.points = String(scored);
      root.dataset.swings = String(big.length);
    } else if (plot && before !== current) {
      plot.redraw(false, false); // only the current-ply line moved
    }
    root.dataset.current = String(current);
  }

  return {
    render,
    get plot() {
      return plot;
    },
  };
}

/** "White's", or "Black knights'" (knight chess names its first mover in the plural). */
function possessive(name) {
  return name.endsWith("s") ? `${name}'` : `${name}'s`;
}
