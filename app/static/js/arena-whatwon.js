// What won, at the end of an arena: the parameter the class varied (the server's
// `what_won`: the free parameter, or the algorithm, with the most distinct values across
// the bots), each bot's settings beside its score, and a plot of score against that
// parameter — numbers along a numeric axis with the mean score at each value drawn as a
// line, choices (and algorithms) one column each.

import uPlot from "/static/vendor/uplot.js";
import { botsById, engineText, formatValue } from "./arena-data.js";
import { h, setText } from "./dom.js";

const INK = "#1d1f1c";
const POINT = "#2f7d46";
const MEAN = "#b45309";
const JITTER = 0.12; // bots on the same choice side by side, a little apart

/** Who did best (`rows` by score, best first): one bot, several sharing the best score, or
 * every bot the same — then no value did better, and the lead says so. */
function bestText(rows, bots, parameter) {
  if (!rows.length) return "";
  const top = rows.filter((r) => r.score === rows[0].score);
  const value = (r) => formatValue(r.value);
  if (top.length === 1) return `${bots.get(top[0].bot_id).name} won with ${parameter} = ${value(top[0])}.`;
  if (top.length === rows.length) {
    return `Every bot scored the same (${Math.round(rows[0].score * 100)} %): no value of ${parameter} did better in these games.`;
  }
  const names = top.map((r) => bots.get(r.bot_id).name).join(", ");
  return `${names} shared the best score, with ${parameter} = ${top.map(value).join(", ")}.`;
}

export function createWhatWon({ card, lead, table, plot }) {
  let plotKey = null;
  let chart = null;

  function render(arena) {
    const won = arena.what_won;
    const show = arena.state === "finished" && !!won;
    card.hidden = !show;
    if (!show) return;
    const bots = botsById(arena);
    const rows = (won.points || []).filter((p) => bots.has(p.bot_id)).slice().sort((a, b) => b.score - a.score);
    if (!won.parameter) {
      setText(lead, "Every bot was built the same way: nothing varied, so nothing can be said about what won.");
    } else {
      const what = won.kind === "algorithm" ? "the algorithm" : `the parameter ${won.parameter}`;
      setText(lead, `The class varied ${what}. ${bestText(rows, bots, won.parameter)}`);
    }
    table.replaceChildren(
      h("caption", { class: "visually-hidden" }, "Each bot's settings and its score"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Bot"),
          won.parameter ? h("th", { scope: "col", class: "num varied" }, won.parameter) : null,
          h("th", { scope: "col" }, "Settings"),
          h("th", { scope: "col", class: "num" }, "Score"),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((p) => {
          const bot = bots.get(p.bot_id);
          return h(
            "tr",
            { dataset: { botId: p.bot_id } },
            h("td", { class: "bot-name" }, bot.name),
            won.parameter ? h("td", { class: "num varied" }, formatValue(p.value)) : null,
            h("td", { class: "bot-engine" }, engineText(bot)),
            h("td", { class: "num" }, `${Math.round(p.score * 100)} %`),
          );
        }),
      ),
    );
    const key = JSON.stringify([won, rows.map((p) => bots.get(p.bot_id).name)]);
    if (key === plotKey || !won.parameter || !rows.length) {
      if (!won.parameter) plot.replaceChildren();
      return;
    }
    plotKey = key;
    requestAnimationFrame(() => draw(won, rows.map((p) => ({ ...p, name: bots.get(p.bot_id).name }))));
  }

  function draw(won, rows) {
    chart?.destroy();
    const numeric = won.kind === "number";
    const categories = numeric ? [] : [...new Set(rows.map((p) => String(p.value)))].sort();
    const placed = rows.map((p) => ({ ...p, x: numeric ? Number(p.value) : categories.indexOf(String(p.value)) }));
    if (!numeric) {
      // Bots on the same choice stand side by side around it.
      const byX = new Map();
      for (const p of placed) byX.set(p.x, [...(byX.get(p.x) || []), p]);
      for (const group of byX.values()) group.forEach((p, i) => (p.x += (i - (group.length - 1) / 2) * JITTER));
    }
    placed.sort((a, b) => a.x - b.x);
    const xs = placed.map((p) => p.x);
    const ys = placed.map((p) => p.score * 100);
    const mean = numeric ? meanAt(placed) : placed.map(() => null);
    const width = Math.max(280, plot.clientWidth || 480);
    const size = Number.parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    const font = `${Math.round(size * 0.8)}px system-ui, sans-serif`;
    const range = numeric ? paddedRange(xs) : [-0.5, categories.length - 0.5];
    chart = new uPlot(
      {
        width,
        height: Math.round(width * 0.62),
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: () => range }, y: { range: () => [0, 100] } },
        axes: [
          {
            label: won.kind === "algorithm" ? "algorithm" : won.parameter,
            font,
            labelFont: font,
            stroke: INK,
            ...(numeric ? {} : { splits: () => categories.map((_, i) => i), values: () => categories }),
          },
          { label: "score %", font, labelFont: font, stroke: INK },
        ],
        series: [
          {},
          { label: "bot", stroke: POINT, paths: () => null, points: { show: true, size: Math.round(size * 0.9), fill: POINT, stroke: POINT } },
          { label: "mean", stroke: MEAN, width: 2, points: { show: false }, spanGaps: true },
        ],
        hooks: { draw: [(u) => labelPoints(u, placed, font)] },
      },
      [xs, ys, mean],
      plot,
    );
    plot.setAttribute("aria-label", `Score of each bot against ${won.parameter}`);
  }

  return { render };
}

/** The mean score of the bots at each value (the line through the points). */
function meanAt(points) {
  const sums = new Map();
  for (const p of points) {
    const [s, n] = sums.get(p.x) || [0, 0];
    sums.set(p.x, [s + p.score * 100, n + 1]);
  }
  return points.map((p) => sums.get(p.x)[0] / sums.get(p.x)[1]);
}

function paddedRange(xs) {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const pad = hi > lo ? (hi - lo) * 0.08 : Math.max(0.5, Math.abs(lo) * 0.2);
  return [lo - pad, hi + pad];
}

/** Each point's bot name beside it, drawn on the canvas (text, never markup). */
function labelPoints(u, points, font) {
  const ctx = u.ctx;
  ctx.save();
  ctx.font = font.replace(/^(\d+)px/, (_, px) => `${Math.round(px * devicePixelRatio)}px`);
  ctx.fillStyle = INK;
  ctx.textBaseline = "middle";
  const middle = u.bbox.left + u.bbox.width / 2;
  const gap = 12 * devicePixelRatio;
  for (const p of points) {
    const x = u.valToPos(p.x, "x", true);
    const y = u.valToPos(p.score * 100, "y", true);
    // Names on the right half read leftwards, so none runs off the plot.
    ctx.textAlign = x > middle ? "right" : "left";
    ctx.fillText(p.name, x > middle ? x - gap : x + gap, y);
  }
  ctx.restore();
}
