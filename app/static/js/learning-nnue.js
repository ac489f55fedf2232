// The Learning page's NNUE section (chess): the network the server loaded, from the
// `nnue` object of GET /api/learning?game=chess — its provenance, a heat map per piece
// type and owner of what the network thinks a piece is worth on each square (probed by
// the server from the network itself), what it adds over the hand evaluation in one
// position (GET /api/learning/nnue/position: both values and each piece's contribution
// to each), and its training curve (loss per epoch, a gating match per generation).
// Without a network: why, and the command that trains one.

import { $, h, markRadios, setText, wireRadios } from "./dom.js";
import { cpText, drawBoard, drawHeatmap, scaleOf } from "./heatmap.js";
import { drawEloPlot, drawLossPlot, plotSize } from "./learning-plots.js";

const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const GLYPHS = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const FACT_NAMES = {
  generation: "generation", positions: "positions", epochs: "epochs", lam: "λ (result vs search score)",
  lr: "learning rate", batch: "batch", seed: "seed", fit_seconds: "fit time (s)",
};
const MODES = {
  nnue: "the NNUE's value with the piece minus without it",
  hand: "the hand evaluation's value with the piece minus without it",
  diff: "the NNUE's contribution minus the hand evaluation's: what the network sees differently",
};

// Which field of `nnue` each control's buttons set (their data attributes).
const HEAT_FIELDS = { piece: "piece", nnueOwner: "owner" };
const MODE_FIELDS = { mode: "mode" };

const nnue = { data: null, piece: "knight", owner: "own", mode: "nnue", found: null, loss: null, gates: null };

const count = (n) => Number(n).toLocaleString("en-US");

export function renderNnue(data, gameFen) {
  nnue.data = data;
  $("learn-nnue").hidden = false;
  $("nnue-missing").hidden = data.available;
  if (!data.available) {
    setText($("nnue-why"), data.why ? `The server says: ${data.why}` : "");
    setText($("nnue-train"), data.train);
    setText($("nnue-docs"), data.docs);
    setText($("nnue-provenance"), "No NNUE is loaded on this server.");
    document.body.dataset.nnue = "missing";
    return;
  }
  renderFacts(data);
  renderHeat();
  renderPosition(gameFen);
  renderCurve(data.curve);
  document.body.dataset.nnue = "ready";
}

/** Plots again (large type changed their fonts and height). */
export function redrawNnue() {
  if (nnue.data && nnue.data.available) drawCurves(nnue.data.curve);
}

// ------------------------------------------------------------------ provenance

function renderFacts(data) {
  const meta = data.meta || {};
  const parts = data.command ? ["Trained with ", h("code", {}, data.command)] : ["Trained by a command its file does not record"];
  if (meta.positions) parts.push(` on ${count(meta.positions)} positions`);
  if (meta.date) parts.push(` on ${meta.date}`);
  $("nnue-provenance").replaceChildren(...parts, ".");
  const facts = [
    ["Network", `768 inputs → 2 × ${data.hidden} hidden units (clipped ReLU) → 1, and a piece-square term: ${count(data.parameters)} weights`],
    ["Weights file", `${data.file} (${data.source === "shipped" ? "shipped" : `from ${data.source}`})`],
  ];
  for (const [key, name] of Object.entries(FACT_NAMES)) {
    if (key in meta && key !== "positions") facts.push([name[0].toUpperCase() + name.slice(1), String(meta[key])]);
  }
  $("nnue-facts").replaceChildren(...facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

// ------------------------------------------------------------------ heat map per piece

function renderHeat() {
  $("nnue-heat").hidden = false;
  wireRadios($("nnue-heat"), HEAT_FIELDS, nnue, drawHeat);
  drawHeat();
}

function drawHeat() {
  const { piece, owner } = nnue;
  markRadios($("nnue-heat"), HEAT_FIELDS, nnue);
  const map = $("nnue-heatmap");
  const values = nnue.data.maps[piece][owner];
  const probed = values.filter((v) => v !== null);
  const mean = probed.reduce((a, b) => a + b, 0) / Math.max(1, probed.length);
  drawHeatmap(map, $("nnue-legend"), values, mean);
  map.dataset.map = `${piece}-${owner}`;
  const whose = owner === "own" ? `its own ${piece}` : `an enemy ${piece}`;
  map.setAttribute("aria-label", `Centipawns the NNUE gives the side to move for ${whose} on each square`);
  const added =
    piece === "king"
      ? `with ${owner === "own" ? "its own king moved from e1" : "the enemy king moved from e8"} to each square (the squares next to the other king left out)`
      : `for one more piece, ${whose}, on each square (${piece === "pawn" ? "ranks 2 to 7; " : ""}the kings' squares left out)`;
  setText(
    $("nnue-heat-caption"),
    `Asked of the network itself: the two kings alone on e1 and e8, White to move, and the centipawns the NNUE's value for White changes by ${added}. ` +
      `White plays up the board. Green: more than this map's average (${cpText(mean)} cp); red: less. The network learned every number here from positions (the hand evaluation's scores, then self-play); no table of piece values is built in.`,
  );
}

// ------------------------------------------------------------------ what it adds in a position

function renderPosition(gameFen) {
  $("nnue-position").hidden = false;
  const input = $("nnue-fen");
  $("nnue-fen-form").addEventListener("submit", (event) => {
    event.preventDefault();
    loadPosition(input.value.trim() || START);
  });
  $("nnue-start").addEventListener("click", () => loadPosition(START));
  if (gameFen) {
    $("nnue-game").hidden = false;
    $("nnue-game").addEventListener("click", () => loadPosition(gameFen));
  }
  wireRadios($("nnue-position"), MODE_FIELDS, nnue, drawPosition);
  loadPosition(gameFen || START);
}

async function loadPosition(fen) {
  $("nnue-fen").value = fen;
  const message = $("nnue-fen-message");
  const box = $("nnue-position");
  box.dataset.state = "loading";
  let body;
  try {
    const res = await fetch(`/api/learning/nnue/position?fen=${encodeURIComponent(fen)}`);
    body = await res.json();
    if (!res.ok) throw new Error(body.message || `HTTP ${res.status}`);
  } catch (err) {
    message.hidden = false;
    setText(message, `Could not show this position: ${err.message}`);
    box.dataset.state = "error";
    return;
  }
  message.hidden = true;
  nnue.found = body;
  $("nnue-fen").value = body.fen;
  drawPosition();
  box.dataset.state = "ready";
}

function valueOf(p, mode) {
  if (mode === "diff") return p.nnue === null || p.hand === null ? null : p.nnue - p.hand;
  return p[mode];
}

function drawPosition() {
  const found = nnue.found;
  const side = found.turn === "white" ? "White" : "Black";
  const pair = (cp, value) => (cp === null ? "–" : `${cpText(cp)} cp (${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(2)})`);
  const rows = [
    ["Hand", pair(found.hand_cp, found.hand_eval)],
    ["NNUE", pair(found.nnue_cp, found.nnue_eval)],
    ["NNUE − hand", found.difference_cp === null ? "–" : `${cpText(found.difference_cp)} cp`],
  ];
  $("nnue-values").replaceChildren(...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", { dataset: { value: k } }, v)]));
  markRadios($("nnue-position"), MODE_FIELDS, nnue);
  const bySquare = new Map(found.pieces.map((p) => [p.square, p]));
  const values = found.pieces.map((p) => valueOf(p, nnue.mode));
  const scale = scaleOf(values);
  drawBoard(
    $("nnue-board"),
    (sq, name) => {
      const p = bySquare.get(name);
      if (!p) return {};
      const v = valueOf(p, nnue.mode);
      const title = p.hand === null ? `${name}: a king, always on the board` : `${name}: hand ${cpText(p.hand)} cp · NNUE ${cpText(p.nnue)} cp`;
      return { value: v, text: v === null ? "" : cpText(v), title, glyph: GLYPHS[p.piece] };
    },
    scale,
  );
  $("nnue-board").dataset.mode = nnue.mode;
  setText($("nnue-board-legend").querySelector(".neg"), cpText(-scale));
  setText($("nnue-board-legend").querySelector(".pos"), cpText(scale));
  setText(
    $("nnue-position-caption"),
    `Every number in centipawns for ${side}, the side to move. On each piece: ${MODES[nnue.mode]}. ` +
      `Green: the piece helps ${side}; red: it helps the opponent. Kings get no number: no position is without one.` +
      (found.available ? "" : ` No NNUE on this server (${found.message}): only the hand evaluation's numbers.`),
  );
}

// ------------------------------------------------------------------ the training curve

function renderCurve(curve) {
  $("nnue-curve").hidden = false;
  const lossMessage = $("nnue-loss-message");
  const hasLoss = curve.train_loss.length + curve.held_loss.length > 0;
  lossMessage.hidden = hasLoss;
  setText(lossMessage, hasLoss ? "" : "Loss per epoch: not recorded in this network's file.");
  $("nnue-loss").hidden = !hasLoss;
  const gates = curve.generations;
  $("nnue-gates-message").hidden = gates.length > 0;
  setText($("nnue-gates-message"), gates.length ? "" : "Gating matches: not recorded in this network's file.");
  $("nnue-gates-plot").hidden = gates.length === 0;
  $("nnue-gates").hidden = gates.length === 0;
  const orNot = (x, f) => (x === null || x === undefined ? "–" : f(x));
  $("nnue-gates-body").replaceChildren(
    ...gates.map((g, i) =>
      h(
        "tr",
        { dataset: { generation: String(g.number ?? i + 1), accepted: String(g.accepted) } },
        h("td", { class: "num" }, String(g.number ?? i + 1)),
        h("td", { class: "num" }, orNot(g.positions, count)),
        h("td", { class: "num" }, orNot(g.games, count)),
        h("td", { class: "num" }, `${(100 * g.score).toFixed(1)} %`),
        h("td", {}, `${orNot(g.elo, cpText)} [${g.low === null ? "−∞" : cpText(g.low)}, ${g.high === null ? "+∞" : cpText(g.high)}]`),
        h("td", {}, g.accepted ? "yes" : "no"),
      ),
    ),
  );
  drawCurves(curve);
  const observer = new ResizeObserver(() => {
    if (nnue.loss) nnue.loss.setSize(plotSize($("nnue-loss")));
    if (nnue.gates) nnue.gates.setSize(plotSize($("nnue-gates-plot")));
  });
  observer.observe($("nnue-curve"));
}

function drawCurves(curve) {
  if (curve.train_loss.length + curve.held_loss.length > 0) {
    nnue.loss = drawLossPlot($("nnue-loss"), curve.train_loss, curve.held_loss, nnue.loss);
  }
  if (curve.generations.length > 0) {
    const points = curve.generations.map((g, i) => ({ generation: g.number ?? i + 1, elo: g.elo, low: g.low, high: g.high, accepted: g.accepted }));
    nnue.gates = drawEloPlot($("nnue-gates-plot"), points, "Elo vs the best before", nnue.gates, false);
  }
}
