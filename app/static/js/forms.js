// Engine settings fields built from GET /api/algorithms (each parameter with
// its type, default, range and description) and GET /api/settings (think time,
// iteration and thread limits). The same builder serves the new-game dialog and
// the in-game "Engine" card.
//
// What a class needs is on top: the algorithm with its one-line summary and how long it
// thinks, as presets ("Watch it think": long enough to see the tree grow; "Play"). Every
// other setting — the budget in milliseconds or iterations, threads, the random seed and
// each of the algorithm's parameters with its description — sits under "Advanced", built
// from the algorithm's own parameter list, with a reset to the defaults. With
// `movetimeOnly` (analysing a game: one think time per position) the think time is a
// plain field on top and Advanced holds only the algorithm's parameters.
//
// A value out of range is named beside its field, in the server's words ("parameter 'c'
// must be between 0 and 10; got 99"), not only in the browser's pop-up bubble, which a
// phone shows briefly or not at all; a refusal from the server lands there too (and opens
// Advanced when the field is in it).
//
// With `paramsOnly` (a bot in a class arena: the teacher set the think time for every bot)
// there is no think time, budget, threads or seed: the algorithm, its summary and its
// parameters in plain view, only those `paramFilter(algorithm, name)` lets through (the
// ones the teacher left free); `read()` then returns the algorithm and those parameters.

import { h, setText } from "./dom.js";

/** Think-time presets: a name, its milliseconds per move, and what it is for. */
export const PACES = [
  { key: "watch", label: "Watch it think", ms: 5000, hint: "5 s a move: long enough to watch the table, the arrows and the tree grow." },
  { key: "play", label: "Play", ms: 1000, hint: "1 s a move: a brisk game." },
];

let uid = 0;

export function createEngineFields(container, { limits, label = "Algorithm", advancedExtra = [], movetimeOnly = false, paramsOnly = false, paramFilter = null }) {
  let algorithms = [];
  let current = null; // the chosen algorithm's description
  const id = (name) => `${container.id}-${name}`;
  uid += 1;

  const algoSelect = h("select", { id: id("algorithm"), name: "algorithm" });
  const algoSummary = h("p", { class: "hint algo-summary", id: id("summary") });
  const algoDesc = h("p", { class: "hint algo-desc" });
  const paramsBox = h("div", { class: "params" });
  const budgetTime = h("input", { type: "radio", name: `budget-${uid}`, value: "time", checked: true });
  const budgetIter = h("input", { type: "radio", name: `budget-${uid}`, value: "iterations" });
  const movetime = h("input", {
    type: "number",
    id: id("movetime"),
    name: "movetime_ms",
    min: limits.movetime_ms.min,
    max: limits.movetime_ms.max,
    step: 1,
    value: limits.movetime_ms.default,
    required: true,
  });
  const iterations = h("input", {
    type: "number",
    id: id("iterations"),
    name: "iterations",
    min: limits.iterations.min,
    max: limits.iterations.max,
    step: 1,
    value: limits.iterations.default,
    required: true,
  });
  const threads = h("input", {
    type: "number",
    id: id("threads"),
    name: "threads",
    min: 1,
    max: limits.threads.max,
    step: 1,
    value: 1,
    required: true,
  });
  const seed = h("input", { type: "number", id: id("seed"), name: "seed", min: 0, step: 1, value: 0 });
  const errors = new Map(); // input → its inline message
  const errorFor = (input, extra = {}) => {
    const el = h("span", { class: "field-error inline-error", role: "alert", hidden: true, ...extra });
    errors.set(input, el);
    input.addEventListener("input", () => {
      if (input.checkValidity()) clearError(input);
    });
    input.addEventListener("change", () => validate(input));
    return el;
  };

  // ---------------------------------------------------------------- think time presets
  const within = (ms) => ms >= limits.movetime_ms.min && ms <= limits.movetime_ms.max;
  const paces = PACES.filter((p) => within(p.ms));
  const paceName = `pace-${uid}`;
  const paceRadios = paces.map((p) => h("input", { type: "radio", name: paceName, value: p.key, dataset: { ms: String(p.ms) } }));
  const customRadio = h("input", { type: "radio", name: paceName, value: "custom" });
  const customText = h("span", {});
  const customLabel = h("label", { class: "pace custom-pace", title: "Set under Advanced" }, customRadio, customText);
  const paceHint = h("p", { class: "hint pace-hint", id: id("pace-hint") });
  const paceBox = h(
    "fieldset",
    { class: "choice-row paces", id: id("paces") },
    h("legend", {}, "Think time"),
    ...paces.map((p, i) => h("label", { class: "pace", title: p.hint }, paceRadios[i], ` ${p.label} `, h("span", { class: "pace-ms" }, `· ${seconds(p.ms)}`))),
    customLabel,
    paceHint,
  );
  paceRadios.forEach((radio, i) =>
    radio.addEventListener("change", () => {
      if (!radio.checked) return;
      budgetTime.checked = true;
      budgetIter.checked = false;
      movetime.value = String(paces[i].ms);
      clearError(movetime);
      syncBudget();
    }),
  );

  // ---------------------------------------------------------------- advanced
  const reset = h("button", { type: "button", class: "reset-defaults", id: id("reset"), title: "Every parameter of this algorithm, the threads and the random seed back to their defaults (the think time stays)" }, "Reset to defaults");
  const budget = movetimeOnly
    ? []
    : [
        h(
          "fieldset",
          { class: "budget" },
          h("legend", {}, "Budget per move"),
          h("label", { class: "inline" }, budgetTime, " think time (ms)"),
          movetime,
          errorFor(movetime, { dataset: { span: "row" } }),
          h("label", { class: "inline" }, budgetIter, " iterations"),
          iterations,
          errorFor(iterations, { dataset: { span: "row" } }),
        ),
        h(
          "div",
          { class: "pair" },
          h("label", { class: "field", for: id("threads") }, "Threads", threads, errorFor(threads), h("span", { class: "hint" }, "root parallelism: one tree per thread, merged at the root")),
          h("label", { class: "field", for: id("seed") }, "Random seed", seed, errorFor(seed), h("span", { class: "hint" }, "the same seed repeats the same search")),
        ),
      ];
  const advanced = h(
    "details",
    { class: "advanced", id: id("advanced") },
    h("summary", {}, "Advanced: every parameter"),
    algoDesc,
    ...advancedExtra,
    ...budget,
    paramsBox,
    h("div", { class: "row-actions advanced-actions" }, reset),
  );

  container.replaceChildren(
    h("label", { class: "field", for: id("algorithm") }, label, algoSelect),
    algoSummary,
    ...(paramsOnly
      ? [paramsBox]
      : [movetimeOnly ? h("label", { class: "field", for: id("movetime") }, "Think time per position (ms)", movetime, errorFor(movetime)) : paceBox, advanced]),
  );

  algoSelect.addEventListener("change", () => selectAlgorithm(algoSelect.value, {}));
  const syncBudget = () => {
    movetime.disabled = !budgetTime.checked || algoSelect.disabled;
    iterations.disabled = !budgetIter.checked || algoSelect.disabled;
    syncPace();
  };
  budgetTime.addEventListener("change", syncBudget);
  budgetIter.addEventListener("change", syncBudget);
  movetime.addEventListener("input", syncPace);
  iterations.addEventListener("input", syncPace);
  reset.addEventListener("click", resetDefaults);
  syncBudget();

  /** Check the preset the budget matches, or "Custom" with what it is. */
  function syncPace() {
    const ms = Number(movetime.value);
    const byTime = budgetTime.checked;
    const match = byTime ? paces.findIndex((p) => p.ms === ms) : -1;
    paceRadios.forEach((radio, i) => (radio.checked = i === match));
    customRadio.checked = match < 0;
    customLabel.hidden = match >= 0;
    const count = Number(iterations.value);
    setText(customText, ` Custom · ${byTime ? (Number.isFinite(ms) ? seconds(ms) : "?") : `${Number.isFinite(count) ? count.toLocaleString("en-US") : "?"} iterations`}`);
    setText(paceHint, match >= 0 ? paces[match].hint : "Set under Advanced (think time in ms, or a number of iterations).");
  }

  function setAlgorithms(list, values = {}) {
    // The default opponent heads the menu; the rest keep the server's order.
    algorithms = (list || []).filter((a) => a.default).concat((list || []).filter((a) => !a.default));
    algoSelect.replaceChildren(
      ...algorithms.map((a) => h("option", { value: a.name, title: a.title }, `${a.name} — ${a.summary}`)),
    );
    const name = values.algorithm && algorithms.some((a) => a.name === values.algorithm)
      ? values.algorithm
      : (algorithms.find((a) => a.default) || algorithms[0])?.name;
    if (name) selectAlgorithm(name, values.params || {});
  }

  function selectAlgorithm(name, params) {
    current = algorithms.find((a) => a.name === name) || null;
    algoSelect.value = name;
    setText(algoSummary, current ? capitalised(current.summary) : "");
    setText(algoDesc, current ? `${current.title}: ${current.description}` : "");
    for (const input of paramsBox.querySelectorAll("[data-param]")) errors.delete(input);
    const shown = current ? current.params.filter((p) => !paramFilter || paramFilter(current.name, p.name)) : [];
    paramsBox.replaceChildren(...shown.map((p) => paramField(p, params[p.name])));
    const maxThreads = Math.min(limits.threads.max, current?.threads?.max ?? limits.threads.max);
    threads.max = String(maxThreads);
    if (Number(threads.value) > maxThreads) threads.value = String(maxThreads);
    threads.disabled = maxThreads <= 1 || algoSelect.disabled;
  }

  /** The algorithm's parameters, threads and seed back to their defaults (the budget stays:
   * it has its own choice above). */
  function resetDefaults() {
    if (!current) return;
    selectAlgorithm(current.name, {});
    threads.value = "1";
    seed.value = "0";
    for (const input of [threads, seed]) clearError(input);
    container.dispatchEvent(new Event("input", { bubbles: true })); // the Engine card: changed
  }

  function paramField(p, value) {
    const v = value === undefined ? p.default : value;
    const fid = id(`p-${p.name}`);
    let input;
    if (p.type === "bool") {
      input = h("input", { type: "checkbox", id: fid, dataset: { param: p.name, type: p.type } });
      input.checked = !!v;
      return h("label", { class: "field inline", title: p.description }, input, ` ${p.name}`, hint(p));
    }
    if (p.type === "choice") {
      input = h(
        "select",
        { id: fid, dataset: { param: p.name, type: p.type } },
        (p.choices || []).map((c) => h("option", { value: String(c) }, String(c))),
      );
      input.value = String(v);
    } else {
      input = h("input", {
        type: "number",
        id: fid,
        required: true,
        min: p.min ?? undefined,
        max: p.max ?? undefined,
        step: p.type === "int" ? 1 : "any",
        dataset: { param: p.name, type: p.type },
      });
      input.value = String(v);
    }
    return h("label", { class: "field", for: fid, title: p.description }, p.name, input, errorFor(input), hint(p));
  }

  /** The name the server uses for an input ("parameter 'c'", "movetime_ms"). */
  function fieldName(input) {
    return input.dataset.param ? `parameter '${input.dataset.param}'` : input.name || input.id;
  }

  /** A message in the server's words for an input the browser finds invalid. */
  function problem(input) {
    const v = input.validity;
    if (v.valueMissing || v.badInput) return `${fieldName(input)} needs a number`;
    if (v.rangeUnderflow || v.rangeOverflow) {
      const range = input.max !== "" ? `between ${input.min} and ${input.max}` : `at least ${input.min}`;
      return `${fieldName(input)} must be ${range}; got ${input.value}`;
    }
    if (v.stepMismatch) return `${fieldName(input)} must be a whole number; got ${input.value}`;
    return `${fieldName(input)}: ${input.validationMessage}`;
  }

  function showAt(input, message) {
    const el = errors.get(input);
    if (!el) return false;
    if (advanced.contains(input)) advanced.open = true; // a message nobody can see helps nobody
    el.textContent = message;
    el.hidden = false;
    input.setAttribute("aria-invalid", "true");
    return true;
  }

  function clearError(input) {
    const el = errors.get(input);
    if (el) el.hidden = true;
    input.removeAttribute("aria-invalid");
  }

  function validate(input) {
    if (input.disabled || input.checkValidity()) {
      clearError(input);
      return true;
    }
    showAt(input, problem(input));
    return false;
  }

  /** Show a refusal from the server beside the field it names; false when it names none. */
  function showError(message) {
    const text = String(message || "");
    const named = text.match(/parameter '([^']+)'/) || text.match(/field '(?:params\.)?([^'.]+)'/) || text.match(/^(\w+) must/);
    if (!named) return false;
    const name = named[1];
    const byName = { movetime_ms: movetime, iterations, threads, seed };
    const input = byName[name] || paramsBox.querySelector(`[data-param="${CSS.escape(name)}"]`);
    if (!input || !showAt(input, text)) return false;
    input.focus();
    return true;
  }

  function hint(p) {
    const range = p.min !== null && p.min !== undefined && p.max !== null && p.max !== undefined
      ? ` (${p.min}–${p.max})`
      : "";
    return h("span", { class: "hint param-desc" }, `${range ? `${range.trim()} · ` : ""}${p.description} · default ${String(p.default)}`);
  }

  /** The settings as a request body; throws with a message naming a bad field. */
  function read() {
    let first = null;
    for (const input of container.querySelectorAll("input, select")) {
      if (!validate(input) && !first) first = input;
    }
    if (first) {
      first.focus();
      throw new Error(problem(first));
    }
    const params = {};
    for (const input of paramsBox.querySelectorAll("[data-param]")) {
      const t = input.dataset.type;
      params[input.dataset.param] =
        t === "bool" ? input.checked : t === "int" ? parseInt(input.value, 10) : t === "float" ? Number(input.value) : input.value;
    }
    if (paramsOnly) return { algorithm: algoSelect.value, params };
    return {
      algorithm: algoSelect.value,
      params,
      budget: budgetIter.checked ? "iterations" : "time",
      movetime_ms: parseInt(movetime.value, 10),
      iterations: parseInt(iterations.value, 10),
      threads: parseInt(threads.value, 10),
      seed: parseInt(seed.value || "0", 10),
    };
  }

  /** Show a game's current settings (the algorithm list must be set first). */
  function setValues(values) {
    if (!values) return;
    for (const input of errors.keys()) clearError(input);
    if (algorithms.length) selectAlgorithm(values.algorithm, values.params || {});
    budgetTime.checked = values.budget !== "iterations";
    budgetIter.checked = values.budget === "iterations";
    movetime.value = String(values.movetime_ms);
    iterations.value = String(values.iterations);
    threads.value = String(values.threads);
    seed.value = String(values.seed);
    syncBudget();
  }

  function setDisabled(disabled) {
    for (const input of container.querySelectorAll("input, select, button")) {
      input.disabled = disabled;
    }
    if (!disabled) {
      syncBudget();
      const maxThreads = Number(threads.max);
      threads.disabled = maxThreads <= 1;
    }
  }

  return { setAlgorithms, setValues, read, setDisabled, showError };
}

/** "5 s", "1 s", "150 ms", "2.5 s". */
function seconds(ms) {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function capitalised(text) {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : "";
}
