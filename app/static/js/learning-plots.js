// The Learning page's plots, drawn with uPlot (vendored, no CDN): a learning curve of Elo
// per generation with each point's 95 % interval as a whisker (kept generations filled,
// the others hollow), and a fit's loss per epoch. Axis type and height grow with the
// page's large type (a projector): uPlot draws on a canvas, outside CSS.

import uPlot from "/static/vendor/uplot.js";
import { cpText } from "./heatmap.js";

const HEIGHT = 260; // CSS pixels; taller in large type

export function large() {
  return document.documentElement.classList.contains("large");
}

/** The size a plot in `box` takes: its width, a fixed height. */
export function plotSize(box) {
  return { width: Math.max(240, Math.floor(box.clientWidth || 300)), height: large() ? Math.round(HEIGHT * 1.35) : HEIGHT };
}

function axisFont() {
  return `${large() ? 17 : 12}px system-ui, sans-serif`;
}

function axis(label, size, values) {
  return { label, font: axisFont(), labelFont: `bold ${axisFont()}`, size: large() ? Math.round(size * 1.25) : size, values };
}

const wholeNumbers = (u, vals) => vals.map((v) => (Number.isInteger(v) && v >= 0 ? String(v) : ""));

/**
 * Elo per generation into `box` (replacing `old`, a plot drawn there before): `points`
 * are `{ generation, elo, low, high, accepted }` (null ends: unbounded, drawn off the
 * plot), joined from a 0 at generation 0 unless `joined` is false (each against another
 * opponent: no chain); `yLabel` names what the Elo is against.
 */
export function drawEloPlot(box, points, yLabel, old = null, joined = true) {
  const xs = [0, ...points.map((p) => p.generation)];
  const ys = [0, ...points.map((p) => p.elo)];
  const kept = [null, ...points.map((p) => (p.accepted ? p.elo : null))];
  const dropped = [null, ...points.map((p) => (p.accepted ? null : p.elo))];
  const lows = [0, ...points.map((p) => p.low)];
  const highs = [0, ...points.map((p) => p.high)];
  const finite = [...ys, ...lows, ...highs].filter((v) => v !== null && v !== undefined);
  const top = Math.max(50, ...finite);
  const bottom = Math.min(-50, ...finite);
  const pad = (top - bottom) * 0.08;

  /** The intervals as whiskers, the zero line dashed (drawn under the dots). */
  function whiskers(u) {
    const ctx = u.ctx;
    const px = devicePixelRatio;
    ctx.save();
    const zero = Math.round(u.valToPos(0, "y", true));
    ctx.strokeStyle = "rgba(93, 98, 91, 0.8)";
    ctx.setLineDash([6 * px, 4 * px]);
    ctx.lineWidth = px;
    ctx.beginPath();
    ctx.moveTo(u.bbox.left, zero);
    ctx.lineTo(u.bbox.left + u.bbox.width, zero);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.strokeStyle = "#1d4ed8";
    ctx.lineWidth = 2 * px;
    for (let i = 1; i < xs.length; i += 1) {
      if (ys[i] === null) continue;
      const x = Math.round(u.valToPos(xs[i], "x", true));
      const y0 = lows[i] === null ? u.bbox.top + u.bbox.height : u.valToPos(lows[i], "y", true);
      const y1 = highs[i] === null ? u.bbox.top : u.valToPos(highs[i], "y", true);
      ctx.beginPath();
      ctx.moveTo(x, y0);
      ctx.lineTo(x, y1);
      for (const [y, end] of [[y0, lows[i]], [y1, highs[i]]]) {
        if (end === null) continue; // unbounded: no cap, the line runs off the plot
        ctx.moveTo(x - 6 * px, y);
        ctx.lineTo(x + 6 * px, y);
      }
      ctx.stroke();
    }
    ctx.restore();
  }

  if (old) old.destroy();
  const value = (u, v) => (v === null || v === undefined ? "–" : cpText(v));
  const plot = new uPlot(
    {
      ...plotSize(box),
      scales: { x: { time: false, range: [-0.3, Math.max(1, xs[xs.length - 1]) + 0.3] }, y: { range: [bottom - pad, top + pad] } },
      axes: [axis("generation", 42, wholeNumbers), axis(yLabel, 56, (u, vals) => vals.map((v) => cpText(v)))],
      series: [
        { label: "generation" },
        { label: "Elo", stroke: "#1d4ed8", width: 2, spanGaps: true, value, points: { show: false }, ...(joined ? {} : { paths: () => null }) },
        { label: "kept", stroke: "#15803d", paths: () => null, points: { show: true, size: 12, fill: "#15803d" }, value },
        { label: "not kept", stroke: "#5d625b", paths: () => null, points: { show: true, size: 12, width: 2, fill: "#ffffff" }, value },
      ],
      cursor: { drag: { x: false, y: false } },
      legend: { show: false },
      hooks: { drawClear: [whiskers] },
    },
    [xs, ys, kept, dropped],
    box,
  );
  box.dataset.points = String(points.length);
  return plot;
}

/** A fit's loss per epoch into `box` (replacing `old`): `train` and `held` (held-out
 * positions) lists, either possibly empty; a legend names the two lines. */
export function drawLossPlot(box, train, held, old = null) {
  const epochs = Math.max(train.length, held.length);
  const xs = Array.from({ length: epochs }, (_, i) => i + 1);
  const pad = (list) => xs.map((_, i) => (i < list.length ? list[i] : null));
  if (old) old.destroy();
  const loss = (u, v) => (v === null || v === undefined ? "–" : v.toFixed(4));
  const plot = new uPlot(
    {
      ...plotSize(box),
      scales: { x: { time: false, range: [0.7, Math.max(2, epochs) + 0.3] } },
      axes: [axis("epoch", 42, wholeNumbers), axis("loss", 64, (u, vals) => vals.map((v) => v.toPrecision(3)))],
      series: [
        { label: "epoch" },
        { label: "training positions", stroke: "#1d4ed8", width: 2, value: loss, points: { show: true, size: 7, fill: "#1d4ed8" } },
        { label: "held-out positions", stroke: "#b45309", width: 2, dash: [6, 4], value: loss, points: { show: true, size: 7, fill: "#b45309" } },
      ],
      cursor: { drag: { x: false, y: false } },
      legend: { show: true, live: false },
    },
    [xs, pad(train), pad(held)],
    box,
  );
  box.dataset.epochs = String(epochs);
  return plot;
}
