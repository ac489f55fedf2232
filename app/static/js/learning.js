// The Learning page, one game at a time (?game=knight|chess): the learning curve of
// the game's active learned weights (each generation's Elo against the hand
// evaluation with its 95 % interval, from GET /api/learning), the training facts,
// and what the network learned — knight chess: a heat map of a knight's value on each
// square; chess: each hand feature's weight, hand against learned, and the NNUE's own
// section (learning-nnue.js). Without weights it says why it has none and how to train
// and serve one's own. Everything from the server reaches the page through textContent
// (dom.js's h), never as markup.

import { $, formatMs, h, markRadios, setText, wireRadios } from "./dom.js";
import { cpText, drawHeatmap } from "./heatmap.js";
import { drawEloPlot, plotSize } from "./learning-plots.js";
import { redrawNnue, renderNnue } from "./learning-nnue.js";

const LARGE_KEY = "canopy:large"; // shared with the game page (main.js)

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

// Which field of the view each control's buttons set (their data attributes).
const HEAT_FIELDS = { owner: "owner", phase: "phase" };
const FEATURE_FIELDS = { featurePhase: "featurePhase" };

const view = { data: null, game: "knight", owner: "own", phase: "middlegame", featurePhase: "middlegame", plot: null };

/** "+12", "−35", "∞" for an unbounded end. */
function elo(x, unbounded = "∞") {
  return x === null || x === undefined ? unbounded : cpText(x);
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

function drawCurve(curve) {
  view.plot = drawEloPlot($("curve-plot"), curve.points, "Elo vs baseline", view.plot);
}

// ------------------------------------------------------------------ the heat map

function renderHeat(data) {
  $("learn-heat").hidden = !data.squares;
  if (!data.squares) return;
  wireRadios($("learn-heat"), HEAT_FIELDS, view, drawHeat);
  drawHeat();
}

function drawHeat() {
  const values = view.data.squares[view.phase][view.owner];
  markRadios($("learn-heat"), HEAT_FIELDS, view);
  const map = $("heatmap");
  drawHeatmap(map, $("heat-legend"), values);
  map.dataset.map = `${view.phase}-${view.owner}`;
  const whose = view.owner === "own" ? "a knight of the side to move" : "an enemy knight";
  map.setAttribute("aria-label", `Centipawns the network adds for ${whose} alone on each square, ${view.phase}`);
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
  wireRadios($("learn-features"), FEATURE_FIELDS, view, drawFeatures);
  drawFeatures();
}

function drawFeatures() {
  const table = view.data.features;
  const phase = view.featurePhase;
  markRadios($("learn-features"), FEATURE_FIELDS, view);
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
  redrawNnue();
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
  if (data.nnue) renderNnue(data.nnue, new URLSearchParams(location.search).get("fen"));
  document.body.dataset.state = data.available ? "ready" : "missing";
  new ResizeObserver(() => view.plot && view.plot.setSize(plotSize($("curve-plot")))).observe($("learn-curve"));
}

boot();
