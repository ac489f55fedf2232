// The Learning page, one game at a time (?game=knight|chess): the learning curve of
// the game's active learned weights (each generation's Elo against the hand
// evaluation with its 95 % interval, from GET /api/learning), the training facts,
// and what the network learned — knight chess: a heat map of a knight's value on each
// square; chess: each hand feature's weight, hand against learned. Without weights it
// says why it has none and how to train and serve one's own. Everything from the server
// reaches the page through textContent (dom.js's h), never as markup.

import uPlot from "/static/vendor/uplot.js";
import { $, formatMs, h, setText } from "./dom.js";

const LARGE_KEY = "canopy:large"; // shared with the game page (main.js)
const FILES = "abcdefgh";
const HEIGHT = 260; // CSS pixels; taller in large type (a projector)

const GAMES = { knight: "the knight-chess evaluation", chess: "the chess evaluation" };
const FEATURE_NAMES = {
  pawn: "pawn", knight: "knight", bishop: "bishop", rook: "rook", queen: "queen",
  pst_mg: "piece-square tables, middlegame (per table point)", pst_eg: "piece-square tables, endgame (per table point)",
  mobility_knight: "knight mobility (per square)", mobility_bishop: "bishop mobility (per square)",
  mobility_rook: "rook mobility (per square)", mobility_queen: "queen mobility (per square)",
  king_shield: "pawn shield in front of the king", king_pressure: "attacks on the enemy king's zone",
  king_open_files: "open file at the king", doubled_pawns: "doubled pawn", isolated_pawns: "isolated pawn",
  passed_pawns: "passed pawn", passed_rank_squared: "passed pawn's advance² (per rank²)",
  bishop_pair: "bishop pair", rook_open_file: "rook on an open file", rook_half_open_file: "rook on a half-open file",
  tempo: "side to move (tempo)",
};

const view = { data: null, game: "knight", owner: "own", phase: "middlegame", featurePhase: "middlegame", plot: null };

/** "+12", "−35", "∞" for an unbounded end. */
function elo(x, unbounded = "∞") {
  if (x === null || x === undefined) return unbounded;
  const r = Math.round(x);
  return r >= 0 ? `+${r}` : `−${Math.abs(r)}`;
}

/** "+7 [−40, +55]": an Elo with its 95 % interval. */
function interval(p, prefix = "") {
  const at = (key) => p[prefix + key];
  return `${elo(at("elo"), "n/a")} [${elo(at("low"), "−∞")}, ${elo(at("high"), "+∞")}]`;
}

function baselineName(curve) {
  return curve.baseline === "init" ? "the --init weights" : "the hand evaluation";
}

// ------------------------------------------------------------------ no weights

function renderMissing(data) {
  $("learn-missing").hidden = false;
  setText($("learn-reason"), data.reason || "");
  $("learn-reason").hidden = !data.reason;
  setText($("learn-message"), data.message ? `The server says: ${data.message}` : "");
  setText($("cmd-train"), data.how_to.train);
  setText($("cmd-match"), data.how_to.match);
  setText($("cmd-serve"), data.how_to.serve);
}

// ------------------------------------------------------------------ the curve

function renderCurve(data) {
  const section = $("learn-curve");
  section.hidden = false;
  const curve = data.curve;
  const facts = [];
  if (data.command) facts.push(["Trained with", h("code", {}, data.command)]);
  if (curve) {
    facts.push(["Self-play games", curve.games.toLocaleString("en-US")]);
    facts.push(["Gating games", curve.gate_games.toLocaleString("en-US")]);
    facts.push(["Training time", formatMs(curve.seconds * 1000)]);
  }
  if (data.hidden) {
    facts.push(["Network", `the 22 hand features, their linear layer and ${data.hidden} hidden units, ${data.parameters.toLocaleString("en-US")} weights`]);
  }
  if (data.tuples) {
    const [count, size] = data.tuples;
    const tuples = size === 1 ? `${count} single-square tuples (a learned piece-square table)` : `${count} tuples of up to ${size} squares`;
    facts.push(["Network", `${tuples}, ${data.parameters.toLocaleString("en-US")} weights`]);
  }
  facts.push(["Weights file", `${data.file} (${data.source === "shipped" ? "shipped" : `from ${data.source}`})`]);
  if (data.generation !== null && data.generation !== undefined) {
    const verdict = data.kept ? "kept by its gating match" : "not kept by its gating match";
    facts.push(["These weights", `generation ${data.generation} of the run, ${verdict}`]);
  }
  $("learn-facts").replaceChildren(...facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  setText($("learn-note"), data.note || "");
  $("learn-note").hidden = !data.note;
  const message = $("curve-message");
  message.hidden = !data.curve_message;
  setText(message, data.curve_message || "");
  const plotBox = $("curve-plot");
  plotBox.hidden = !curve;
  $("learn-gates").hidden = !curve;
  if (!curve) return;
  const base = baselineName(curve);
  setText(
    $("curve-caption"),
    `Elo of each generation against ${base} (0), with its 95 % interval, from the gating matches. ` +
      `A generation is gated against the best so far, so later points add their match to the kept generation's rating. ` +
      `Filled dots: kept; hollow: not kept.`,
  );
  $("generations-body").replaceChildren(
    ...curve.points.map((p) =>
      h(
        "tr",
        { dataset: { generation: String(p.generation), accepted: String(p.accepted) } },
        h("td", { class: "num" }, String(p.generation)),
        h("td", {}, p.opponent === "hand" ? "hand evaluation" : p.opponent),
        h("td", {}, `+${p.wins} =${p.draws} −${p.losses}`),
        h("td", { class: "num" }, `${(100 * p.score).toFixed(1)} %`),
        h("td", {}, interval(p, "gate_")),
        h("td", {}, interval(p)),
        h("td", {}, p.accepted ? "yes" : "no"),
        h("td", { class: "num" }, formatMs(p.seconds * 1000)),
      ),
    ),
  );
  drawCurve(curve);
}

function large() {
  return document.documentElement.classList.contains("large");
}

function curveSize() {
  const box = $("curve-plot");
  return { width: Math.max(240, Math.floor(box.clientWidth || 300)), height: large() ? Math.round(HEIGHT * 1.35) : HEIGHT };
}

/** Axis type that grows with the page's (uPlot draws on a canvas, outside CSS). */
function axisFont() {
  return `${large() ? 17 : 12}px system-ui, sans-serif`;
}

function drawCurve(curve) {
  const points = curve.points;
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

  /** The intervals as whiskers, the baseline as a dashed line (drawn under the dots). */
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

  if (view.plot) view.plot.destroy();
  const value = (u, v) => (v === null || v === undefined ? "–" : elo(v));
  view.plot = new uPlot(
    {
      ...curveSize(),
      scales: { x: { time: false, range: [-0.3, Math.max(1, xs[xs.length - 1]) + 0.3] }, y: { range: [bottom - pad, top + pad] } },
      axes: [
        { label: "generation", font: axisFont(), labelFont: `bold ${axisFont()}`, size: large() ? 52 : 42, values: (u, vals) => vals.map((v) => (Number.isInteger(v) && v >= 0 ? String(v) : "")) },
        { label: "Elo vs baseline", font: axisFont(), labelFont: `bold ${axisFont()}`, size: large() ? 70 : 56, values: (u, vals) => vals.map((v) => elo(v)) },
      ],
      series: [
        { label: "generation" },
        { label: "Elo", stroke: "#1d4ed8", width: 2, spanGaps: true, value, points: { show: false } },
        { label: "kept", stroke: "#15803d", paths: () => null, points: { show: true, size: 12, fill: "#15803d" }, value },
        { label: "not kept", stroke: "#5d625b", paths: () => null, points: { show: true, size: 12, width: 2, fill: "#ffffff" }, value },
      ],
      cursor: { drag: { x: false, y: false } },
      legend: { show: false },
      hooks: { drawClear: [whiskers] },
    },
    [xs, ys, kept, dropped],
    $("curve-plot"),
  );
  $("curve-plot").dataset.points = String(points.length);
}

// ------------------------------------------------------------------ the heat map

function renderHeat(data) {
  $("learn-heat").hidden = !data.squares;
  if (!data.squares) return;
  for (const button of document.querySelectorAll(".heat-controls button")) {
    button.addEventListener("click", () => {
      if (button.dataset.owner) view.owner = button.dataset.owner;
      if (button.dataset.phase) view.phase = button.dataset.phase;
      drawHeat();
    });
  }
  drawHeat();
}

function drawHeat() {
  const values = view.data.squares[view.phase][view.owner];
  for (const button of document.querySelectorAll(".heat-controls button")) {
    const on = button.dataset.owner ? button.dataset.owner === view.owner : button.dataset.phase === view.phase;
    button.setAttribute("aria-checked", String(on));
  }
  const scale = Math.max(1, ...values.map((v) => Math.abs(v)));
  const cells = [];
  for (let rank = 7; rank >= 0; rank -= 1) {
    cells.push(h("span", { class: "coord rank" }, String(rank + 1)));
    for (let file = 0; file < 8; file += 1) {
      const sq = rank * 8 + file;
      const v = values[sq];
      const cell = h(
        "span",
        { class: `cell ${(rank + file) % 2 ? "light" : "dark"}`, dataset: { square: `${FILES[file]}${rank + 1}`, cp: String(v) }, title: `${FILES[file]}${rank + 1}: ${elo(v)} cp` },
        elo(v),
      );
      const strength = Math.min(1, Math.abs(v) / scale);
      cell.style.setProperty("--heat", strength.toFixed(3)); // CSSOM: allowed by the CSP
      cell.classList.add(v >= 0 ? "pos" : "neg");
      cells.push(cell);
    }
  }
  cells.push(h("span", { class: "coord" }), ...FILES.split("").map((f) => h("span", { class: "coord file" }, f)));
  const map = $("heatmap");
  map.replaceChildren(...cells);
  map.dataset.map = `${view.phase}-${view.owner}`;
  const whose = view.owner === "own" ? "a knight of the side to move" : "an enemy knight";
  map.setAttribute("aria-label", `Centipawns the network adds for ${whose} alone on each square, ${view.phase}`);
  setText($("legend-low"), elo(-scale));
  setText($("legend-high"), elo(scale));
  setText(
    $("heat-caption"),
    `Centipawns the learned tuples add, on top of the hand features, for ${whose} standing alone on each square in the ${view.phase} — ` +
      `seen from the side to move, which plays up the board (rank 1 is its home). Green: worth more; red: worth less. ` +
      `An enemy knight's value counts against the side to move.`,
  );
}

// ------------------------------------------------------------------ chess: feature weights

function renderFeatures(data) {
  $("learn-features").hidden = !data.features;
  if (!data.features) return;
  for (const button of document.querySelectorAll("[data-feature-phase]")) {
    button.addEventListener("click", () => {
      view.featurePhase = button.dataset.featurePhase;
      drawFeatures();
    });
  }
  drawFeatures();
}

function drawFeatures() {
  const table = view.data.features;
  const phase = view.featurePhase;
  for (const button of document.querySelectorAll("[data-feature-phase]")) {
    button.setAttribute("aria-checked", String(button.dataset.featurePhase === phase));
  }
  const cp = (v) => (Math.abs(v) < 10 ? v.toFixed(1) : String(Math.round(v))).replace("-", "−");
  $("features-body").replaceChildren(
    ...table.features.map((name, i) => {
      const hand = table.hand[phase][i];
      const learned = table.learned[phase][i];
      const diff = learned - hand;
      const big = Math.abs(diff) >= Math.max(1, 0.1 * Math.abs(hand));
      return h(
        "tr",
        { dataset: { feature: name, changed: String(big) } },
        h("th", { scope: "row" }, FEATURE_NAMES[name] || name),
        h("td", { class: "num" }, cp(hand)),
        h("td", { class: "num" }, cp(learned)),
        h("td", { class: big ? (diff > 0 ? "pos" : "neg") : "" }, big ? `${diff > 0 ? "+" : "−"}${cp(Math.abs(diff))}` : "≈"),
      );
    }),
  );
  setText(
    $("features-caption"),
    `Centipawns one more unit of each feature is worth to the side to move, in the ${phase}: the hand evaluation's weight and the learned network's. ` +
      `The network is not linear, so its weight depends on the position; shown is its slope at a level position (every feature even). ` +
      `A change of at least 10 % (and 1 cp) is marked.`,
  );
}

// ------------------------------------------------------------------ boot

function toggleLarge(on) {
  document.documentElement.classList.toggle("large", on);
  $("btn-large").setAttribute("aria-pressed", String(on));
  localStorage.setItem(LARGE_KEY, on ? "1" : "0");
  if (view.data && view.data.curve) drawCurve(view.data.curve); // axis type and height follow
}

async function boot() {
  toggleLarge(localStorage.getItem(LARGE_KEY) === "1");
  $("btn-large").addEventListener("click", () => toggleLarge(!document.documentElement.classList.contains("large")));
  const asked = new URLSearchParams(location.search).get("game");
  view.game = asked === "chess" ? "chess" : "knight";
  setText($("learn-sub"), `· ${GAMES[view.game]}`);
  document.title = `Learning — ${view.game === "chess" ? "chess" : "knight chess"} — Canopy`;
  for (const link of document.querySelectorAll("#learn-games [data-game]")) {
    link.setAttribute("aria-checked", String(link.dataset.game === view.game));
  }
  for (const intro of document.querySelectorAll(".learn-intro[data-for]")) intro.hidden = intro.dataset.for !== view.game;
  document.body.dataset.game = view.game;
  let data;
  try {
    const res = await fetch(`/api/learning?game=${view.game}`);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    data = await res.json();
  } catch (err) {
    setText($("learn-loading"), `Could not load the learning data (${err.message}); reload to try again.`);
    document.body.dataset.state = "error";
    return;
  }
  view.data = data;
  $("learn-loading").hidden = true;
  if (data.available) {
    renderCurve(data);
    renderHeat(data);
    renderFeatures(data);
  } else {
    renderMissing(data);
  }
  document.body.dataset.state = data.available ? "ready" : "missing";
  new ResizeObserver(() => view.plot && view.plot.setSize(curveSize())).observe($("learn-curve"));
}

boot();
