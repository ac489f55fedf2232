// Over time: how the search's opinion forms. Every stats frame adds a point
// (x = iterations): each root move's share of the visits and its Q, the tree's
// branching factor and mean depth; the nodes-per-depth histogram shows the
// latest shape. Drawn with uPlot; a chart is rebuilt only when the set of
// moves it shows changes, otherwise it just gets new data, and nothing is drawn
// while the tab is hidden (the history keeps growing).

import uPlot from "/static/vendor/uplot.js";
import { h, setText } from "./dom.js";
import { SERIES, compact } from "./notation.js";

const MAX_POINTS = 1500; // then every other point is dropped (the curve keeps its shape)
const TOP = 6; // moves drawn in the share and Q charts

export function createHistory() {
  return { key: null, x: [], moves: new Map(), branching: [], meanDepth: [], nodes: [], histogram: [], lastIterations: -1, version: 0 };
}

/** Add a stats frame to the history (a new search or position starts a new one). */
export function recordStats(history, stats) {
  const key = `${stats.fen.split(" ").slice(0, 2).join(" ")}|${stats.algorithm}|${stats.threads}`;
  if (history.key !== key || stats.iterations < history.lastIterations) {
    Object.assign(history, createHistory(), { key, version: history.version + 1 });
  }
  if (stats.iterations === history.lastIterations) {
    history.histogram = stats.depth_histogram || history.histogram;
    return false;
  }
  history.lastIterations = stats.iterations;
  const index = history.x.length;
  history.x.push(stats.iterations);
  history.branching.push(stats.branching_factor ?? null);
  history.meanDepth.push(stats.mean_depth ?? null);
  history.nodes.push(stats.nodes);
  for (const m of stats.moves) {
    let series = history.moves.get(m.move);
    if (!series) {
      series = { move: m.move, san: m.san, share: new Array(index).fill(null), q: new Array(index).fill(null), visits: 0 };
      history.moves.set(m.move, series);
    }
    series.share.push(m.share ?? null);
    series.q.push(m.visits ? m.q : null);
    series.visits = m.visits;
  }
  for (const series of history.moves.values()) {
    if (series.share.length < index + 1) {
      series.share.push(null);
      series.q.push(null);
    }
  }
  history.histogram = stats.depth_histogram || [];
  if (history.x.length > MAX_POINTS) thin(history);
  history.version += 1;
  return true;
}

function thin(history) {
  const keep = (arr) => arr.filter((_, i) => i % 2 === 0 || i === arr.length - 1);
  history.x = keep(history.x);
  history.branching = keep(history.branching);
  history.meanDepth = keep(history.meanDepth);
  history.nodes = keep(history.nodes);
  for (const s of history.moves.values()) {
    s.share = keep(s.share);
    s.q = keep(s.q);
  }
}

/** The moves to draw: the most visited now. */
function topSeries(history, n = TOP) {
  return [...history.moves.values()].sort((a, b) => b.visits - a.visits).slice(0, n);
}

export function createCharts(container) {
  const boxes = {
    share: chartBox("Visit share of the top root moves", "Which moves the search spends its iterations on. The move played is usually the one that ends on top."),
    q: chartBox("Q of the top root moves", "Expected score for the side to move (0 loss, ½ draw, 1 win): noisy at first, it settles as visits grow."),
    depth: chartBox("Nodes per depth (now)", "How many tree nodes lie at each depth below the root (log scale): the shape of the tree."),
    shape: chartBox("Tree shape over time", "Branching factor (children per expanded node) and mean depth of the tree's nodes."),
  };
  const empty = h("p", { class: "empty" }, "Start or step a search: the charts follow it from its first iterations.");
  container.replaceChildren(empty, h("div", { class: "charts-grid" }, Object.values(boxes).map((b) => b.root)));
  const plots = { share: null, q: null, depth: null, shape: null };
  const signatures = {};
  let drawnVersion = -1;

  const observer = new ResizeObserver(() => {
    for (const [name, plot] of Object.entries(plots)) {
      if (plot) plot.setSize(sizeOf(boxes[name].plot));
    }
  });
  for (const b of Object.values(boxes)) observer.observe(b.plot);

  function lineChart(name, history, series, { y, label, format }) {
    const signature = series.map((s) => s.move).join(",");
    const data = [history.x, ...series.map((s) => (name === "share" ? s.share : s.q))];
    if (plots[name] && signatures[name] === signature) {
      plots[name].setData(data);
      return;
    }
    if (plots[name]) plots[name].destroy();
    signatures[name] = signature;
    plots[name] = new uPlot(
      {
        ...sizeOf(boxes[name].plot),
        scales: { x: { time: false }, y: { range: y } },
        axes: [
          { label: "iterations", values: (u, vals) => vals.map(compact) },
          { label, values: (u, vals) => vals.map(format) },
        ],
        series: [{ label: "iterations", value: (u, v) => (v === null || v === undefined ? "–" : compact(v)) }].concat(
          series.map((s, i) => ({ label: s.san, stroke: SERIES[i % SERIES.length], width: 2.5, spanGaps: true, value: (u, v) => (v === null || v === undefined ? "–" : format(v)) })),
        ),
        cursor: { drag: { x: false, y: false } },
        legend: { live: false },
      },
      data,
      boxes[name].plot,
    );
  }

  function depthChart(history) {
    const counts = history.histogram || [];
    const xs = counts.map((_, i) => i);
    const ys = counts.map((c) => (c > 0 ? c : null));
    const signature = "depth";
    if (plots.depth && signatures.depth === signature) {
      plots.depth.setData([xs, ys]);
      return;
    }
    signatures.depth = signature;
    plots.depth = new uPlot(
      {
        ...sizeOf(boxes.depth.plot),
        scales: { x: { time: false, range: (u, min, max) => [min - 0.6, max + 0.6] }, y: { distr: 3 } },
        axes: [{ label: "depth (plies below the root)", values: (u, vals) => vals.map((v) => (Number.isInteger(v) ? String(v) : "")) }, { label: "nodes", values: (u, vals) => vals.map(compact) }],
        series: [{ label: "depth" }, { label: "nodes", fill: "rgba(47, 125, 70, 0.55)", stroke: "#2f7d46", paths: uPlot.paths.bars({ size: [0.8, 60] }), points: { show: false }, value: (u, v) => (v === null ? "–" : compact(v)) }],
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
      },
      [xs, ys],
      boxes.depth.plot,
    );
  }

  function shapeChart(history) {
    const data = [history.x, history.branching, history.meanDepth];
    if (plots.shape) {
      plots.shape.setData(data);
      return;
    }
    plots.shape = new uPlot(
      {
        ...sizeOf(boxes.shape.plot),
        scales: { x: { time: false }, b: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] }, d: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [
          { label: "iterations", values: (u, vals) => vals.map(compact) },
          { scale: "b", label: "branching factor", values: (u, vals) => vals.map((v) => v.toFixed(1)) },
          { scale: "d", label: "mean depth", side: 1, grid: { show: false }, values: (u, vals) => vals.map((v) => v.toFixed(1)) },
        ],
        series: [
          { label: "iterations", value: (u, v) => (v === null || v === undefined ? "–" : compact(v)) },
          { label: "branching factor", scale: "b", stroke: SERIES[0], width: 2.5, spanGaps: true, value: (u, v) => (v === null || v === undefined ? "–" : v.toFixed(2)) },
          { label: "mean depth", scale: "d", stroke: SERIES[1], width: 2.5, dash: [6, 4], spanGaps: true, value: (u, v) => (v === null || v === undefined ? "–" : v.toFixed(2)) },
        ],
        cursor: { drag: { x: false, y: false } },
        legend: { live: false },
      },
      data,
      boxes.shape.plot,
    );
  }

  /** Draw the history (only when it changed since the last draw). */
  function render(history, { mcts = true } = {}) {
    const has = history.x.length > 0;
    empty.hidden = has;
    for (const b of Object.values(boxes)) b.root.hidden = !has;
    if (!has || history.version === drawnVersion) return;
    drawnVersion = history.version;
    const series = topSeries(history);
    lineChart("share", history, series, { y: (u, min, max) => [0, Math.min(1, Math.max(0.1, (max || 0) * 1.15))], label: "share of visits", format: (v) => `${Math.round(v * 100)}%` });
    lineChart("q", history, series, { y: (u, min, max) => [Math.max(0, Math.min(min, 0.4) - 0.02), Math.min(1, Math.max(max, 0.6) + 0.02)], label: "Q (side to move)", format: (v) => v.toFixed(2) });
    boxes.depth.root.hidden = !mcts;
    boxes.shape.root.hidden = !mcts;
    if (mcts) {
      depthChart(history);
      shapeChart(history);
    }
    setText(boxes.share.caption, `${history.x.length} snapshots · ${compact(history.x[history.x.length - 1])} iterations`);
  }

  return {
    render,
    get drawn() {
      return Object.values(plots).filter(Boolean).length;
    },
  };
}

function chartBox(title, text) {
  const plot = h("div", { class: "chart-plot" });
  const caption = h("span", { class: "chart-caption" });
  const root = h("figure", { class: "chart" }, h("figcaption", {}, h("strong", {}, title), " ", caption, h("span", { class: "hint" }, text)), plot);
  return { root, plot, caption };
}

function sizeOf(el) {
  const width = Math.max(240, Math.floor(el.clientWidth || 320));
  return { width, height: Math.max(190, Math.round(width * 0.52)) };
}

