// Algorithm race: the game's position searched by two configurations at once
// (two algorithms, or one algorithm with two parameter sets), kept in step by
// iterations or by time. Their tables, best moves and PVs stand side by side;
// where they disagree is highlighted. The server runs the race and streams
// `race` frames (latest only); this module builds the request and draws them.

import { h, setText } from "./dom.js";
import { count, fixed, formatLine, percent, signed } from "./notation.js";
import { capabilities, samePosition } from "./state.js";

const PRESETS = [
  { label: "UCT vs BFMS", a: { algorithm: "uct" }, b: { algorithm: "bfms" } },
  { label: "UCT vs UCT-minimax", a: { algorithm: "uct" }, b: { algorithm: "uct-minimax" } },
  { label: "c = 0.3 vs c = 2.0", a: { algorithm: "uct", params: { c: 0.3 } }, b: { algorithm: "uct", params: { c: 2.0 } } },
  { label: "1 thread vs 2 threads", a: { algorithm: "uct", threads: 1 }, b: { algorithm: "uct", threads: 2 } },
];

function contenderForm(key, title) {
  const algo = h("select", { class: "race-algo", "aria-label": `${title}: algorithm`, dataset: { side: key } });
  const params = h("div", { class: "race-params" });
  const threads = h("input", { type: "number", min: 1, max: 1, step: 1, value: 1, class: "race-threads", "aria-label": `${title}: threads` });
  const root = h(
    "fieldset",
    { class: `contender side-${key}` },
    h("legend", {}, title),
    h("label", { class: "field" }, "Algorithm", algo),
    params,
    h("label", { class: "field inline" }, "Threads ", threads),
  );
  return { root, algo, params, threads };
}

export function createRaceView(container, { send, getState }) {
  const a = contenderForm("a", "A");
  const b = contenderForm("b", "B");
  const syncIter = h("input", { type: "radio", name: "race-sync", value: "iterations", checked: true });
  const syncTime = h("input", { type: "radio", name: "race-sync", value: "time" });
  const iterations = h("input", { type: "number", min: 1, step: 1, value: 20000, class: "race-budget", "aria-label": "iterations per side" });
  const movetime = h("input", { type: "number", min: 10, step: 10, value: 3000, class: "race-budget", "aria-label": "milliseconds per side" });
  const start = h("button", { type: "button", class: "primary", id: "race-start" }, "Start race");
  const stop = h("button", { type: "button", id: "race-stop" }, "Stop");
  const presets = h(
    "div",
    { class: "presets" },
    h("span", { class: "hint" }, "Try:"),
    PRESETS.map((p) => h("button", { type: "button", class: "chip", onclick: () => applyPreset(p) }, p.label)),
  );
  const form = h(
    "details",
    { class: "race-form", open: true },
    h("summary", {}, "Contenders and budget"),
    h("div", { class: "contenders" }, a.root, b.root),
    h(
      "div",
      { class: "race-options" },
      h("span", { class: "field-label" }, "Keep in step by"),
      h("label", { class: "inline" }, syncIter, " iterations "),
      iterations,
      h("label", { class: "inline" }, syncTime, " time (ms) "),
      movetime,
      h("span", { class: "hint" }, "per side"),
      start,
      stop,
    ),
    presets,
  );
  const verdict = h("div", { class: "race-verdict", role: "status" });
  const progress = h("div", { class: "progress race-progress" }, h("div", { class: "bar" }));
  const columns = h("div", { class: "race-columns" });
  const stale = h("p", { class: "hint race-stale" });
  const key = h(
    "p",
    { class: "hint race-key" },
    "★ this side's best move · ◀ the other side's best · other: the move's rank in the other table, orange when they rank it 2 or more places apart (or not at all).",
  );
  container.replaceChildren(form, verdict, progress, stale, columns, key);
  let algorithms = null;
  let game = null;

  start.addEventListener("click", () => {
    const frame = {
      type: "race",
      action: "start",
      a: read(a),
      b: read(b),
      sync: syncIter.checked ? "iterations" : "time",
    };
    if (syncIter.checked) frame.iterations = parseInt(iterations.value, 10);
    else frame.movetime_ms = parseInt(movetime.value, 10);
    if (send(frame)) form.open = false; // room for the results; the summary reopens it
  });
  stop.addEventListener("click", () => send({ type: "race", action: "stop" }));
  const syncInputs = () => {
    iterations.disabled = !syncIter.checked;
    movetime.disabled = !syncTime.checked;
  };
  syncIter.addEventListener("change", syncInputs);
  syncTime.addEventListener("change", syncInputs);
  syncInputs();
  a.algo.addEventListener("change", () => fillParams(a, {}));
  b.algo.addEventListener("change", () => fillParams(b, {}));

  function setup(list, limits, gameName, defaults) {
    algorithms = list || [];
    game = gameName;
    for (const [side, algo] of [[a, defaults.a], [b, defaults.b]]) {
      side.algo.replaceChildren(...algorithms.map((x) => h("option", { value: x.name, title: x.title }, `${x.name} — ${x.summary}`)));
      side.algo.value = algorithms.some((x) => x.name === algo) ? algo : algorithms[0].name;
      side.threads.max = String(limits.threads.max);
      fillParams(side, {});
    }
    iterations.max = String(limits.iterations.max);
    movetime.min = String(limits.movetime_ms.min);
    movetime.max = String(limits.movetime_ms.max);
  }

  function fillParams(side, values) {
    const desc = algorithms.find((x) => x.name === side.algo.value);
    const specs = desc ? desc.params.filter((p) => p.type === "float" || p.type === "int" || p.type === "choice") : [];
    side.params.replaceChildren(
      ...specs.slice(0, 4).map((p) => {
        const v = values[p.name] !== undefined ? values[p.name] : p.default;
        let input;
        if (p.type === "choice") {
          input = h("select", { dataset: { param: p.name, type: p.type } }, (p.choices || []).map((c) => h("option", { value: String(c) }, String(c))));
        } else {
          input = h("input", { type: "number", min: p.min ?? undefined, max: p.max ?? undefined, step: p.type === "int" ? 1 : "any", dataset: { param: p.name, type: p.type } });
        }
        input.value = String(v);
        return h("label", { class: "field", title: p.description }, p.name, input);
      }),
    );
    const maxThreads = Math.min(Number(side.threads.max) || 1, desc && desc.threads ? desc.threads.max : 1);
    side.threads.disabled = maxThreads <= 1;
    if (Number(side.threads.value) > maxThreads) side.threads.value = String(maxThreads);
  }

  function read(side) {
    const params = {};
    for (const input of side.params.querySelectorAll("[data-param]")) {
      const t = input.dataset.type;
      params[input.dataset.param] = t === "int" ? parseInt(input.value, 10) : t === "float" ? Number(input.value) : input.value;
    }
    return { algorithm: side.algo.value, params, threads: parseInt(side.threads.value || "1", 10) || 1 };
  }

  function applyPreset(p) {
    for (const [side, spec] of [[a, p.a], [b, p.b]]) {
      if (!algorithms.some((x) => x.name === spec.algorithm)) continue;
      side.algo.value = spec.algorithm;
      fillParams(side, spec.params || {});
      side.threads.value = String(Math.min(spec.threads || 1, Number(side.threads.max) || 1));
      if (spec.threads && spec.threads > 1) side.threads.disabled = false;
    }
  }

  let drawnSeq = null;
  let wasPlayer = null;
  function render(s) {
    const race = s.inside.race;
    const player = !!(s.game && s.game.role === "player" && s.conn === "open");
    start.disabled = !player || !!(race && race.running) || !algorithms;
    stop.disabled = !player || !(race && race.running);
    if (player !== wasPlayer && algorithms) {
      wasPlayer = player;
      for (const el of form.querySelectorAll("input, select")) el.disabled = !player;
      if (player) {
        syncInputs();
        for (const side of [a, b]) fillParams(side, read(side).params);
      }
    }
    progress.hidden = !race;
    if (!race) {
      verdict.replaceChildren(h("p", { class: "empty" }, "Choose two algorithms (or two parameter sets) and start: both search the current position at the same time, kept in step, so you can compare their choices."));
      columns.replaceChildren();
      key.hidden = true;
      stale.hidden = true;
      return;
    }
    const current = s.game && samePosition(race.fen, s.game.fen);
    stale.hidden = current;
    setText(stale, current ? "" : "This race was for an earlier position; start a new one to race the current position.");
    progress.querySelector(".bar").style.setProperty("--fraction", String(race.progress || 0));
    if (drawnSeq === race.seq) return;
    drawnSeq = race.seq;
    const A = race.a;
    const B = race.b;
    const status = race.running ? `round ${race.round}, racing…` : `finished after ${race.round} rounds`;
    verdict.dataset.agree = race.agree ? "yes" : "no";
    verdict.replaceChildren(
      h(
        "p",
        {},
        race.agree
          ? h("strong", {}, `Agree: both play ${A.best_san || "–"}`)
          : h("strong", {}, `Disagree: A plays ${A.best_san || "–"}, B plays ${B.best_san || "–"}`),
        ` · ${status} · kept in step by ${race.sync === "time" ? "time" : "iterations"}`,
      ),
    );
    columns.replaceChildren(sideColumn("a", A, B, race), sideColumn("b", B, A, race));
    key.hidden = false;
  }

  function sideColumn(key, me, them, race) {
    // A search that is not MCTS ranks by its search score (an evaluation) and reports the
    // depth it completed; MCTS ranks by its selection score and reaches a tree depth.
    const caps = capabilities(getState(), me.algorithm);
    const rows = me.moves.map((m) => {
      const differs = m.other_rank === null || m.other_rank === undefined || Math.abs(m.other_rank - m.rank) >= 2;
      const cls = [m.move === me.bestmove ? "best" : "", m.move === them.bestmove ? "their-best" : "", differs ? "differs" : ""].filter(Boolean).join(" ");
      return h(
        "tr",
        { class: cls, dataset: { move: m.move } },
        h("td", { class: "num c-rank" }, String(m.rank + 1)),
        h("td", { class: "san", title: m.move === them.bestmove ? "the other side's best move" : null }, m.san),
        h("td", { class: "num c-n" }, count(m.visits)),
        h("td", { class: "num" }, percent(m.share, 1)),
        h("td", { class: "num" }, fixed(m.q, 3)),
        h("td", { class: "num c-score" }, caps.mcts ? fixed(m.uct, 3) : signed(m.eval, 2)),
        h("td", { class: "num other-rank", title: "rank of this move in the other side's table" }, m.other_rank === null || m.other_rank === undefined ? "—" : `#${m.other_rank + 1}`),
      );
    });
    const scoreLabel = caps.score_label;
    const fen = race.fen;
    return h(
      "div",
      { class: `race-side side-${key}`, dataset: { side: key } },
      h("h3", {}, h("span", { class: `side-tag side-${key}` }, key.toUpperCase()), ` ${me.label}`),
      h(
        "dl",
        { class: "race-stats" },
        h("dt", {}, "best"),
        h("dd", { class: "race-best" }, me.best_san || "–"),
        h("dt", {}, "iterations"),
        h("dd", {}, count(me.iterations)),
        h("dt", {}, "speed"),
        h("dd", {}, `${count(me.nps)}/s`),
        h("dt", {}, "nodes"),
        h("dd", {}, count(me.nodes)),
        h("dt", {}, "depth"),
        h("dd", {}, String(caps.stepping === "depth" ? me.depth : me.max_depth)),
      ),
      h("p", { class: "race-pv" }, h("span", { class: "hint" }, "PV "), formatLine(me.pv_san.slice(0, 12), fen) || "–"),
      h(
        "table",
        { class: "race-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["#", "Move", "N", "N%", "Q", scoreLabel, "other"].map((t, i) =>
              h("th", { class: ["num c-rank", "", "num c-n", "num", "num", "num c-score", "num"][i] }, t),
            ),
          ),
        ),
        h("tbody", {}, rows),
      ),
    );
  }

  return { setup, render, get ready() { return !!algorithms && game !== null; } };
}

/** Board arrows while the race tab is open: A's best move and B's best move. */
export function raceShapes(race) {
  if (!race) return [];
  const shapes = [];
  if (race.a.bestmove) shapes.push({ orig: race.a.bestmove.slice(0, 2), dest: race.a.bestmove.slice(2, 4), brush: "raceA", label: { text: "A" } });
  if (race.b.bestmove && race.b.bestmove !== race.a.bestmove) {
    shapes.push({ orig: race.b.bestmove.slice(0, 2), dest: race.b.bestmove.slice(2, 4), brush: "raceB", label: { text: "B" } });
  }
  return shapes;
}
