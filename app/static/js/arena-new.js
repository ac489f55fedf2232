// The teacher's form for a new arena (/arena/new): the game, one think time (or number of
// iterations) for every bot, the algorithms students may choose and, for each, the
// parameters they may set, the format and the longest game. The arena's token comes back
// once: it is kept in this browser, which is then the teacher's.

import { api, saveTeacherToken } from "./arena-data.js";
import { $, h, setText, toast } from "./dom.js";

const form = $("arena-form");
const algorithms = {}; // game → GET /api/algorithms?game=…
let limits = null;

function game() {
  return form.elements.game.value;
}

async function loadAlgorithms() {
  const kind = game();
  try {
    algorithms[kind] ||= await api("GET", `/api/algorithms?game=${encodeURIComponent(kind)}`);
  } catch (e) {
    toast(`Could not load the algorithms: ${e.message}`, "error", 10000);
    return;
  }
  renderAlgorithms(algorithms[kind]);
}

/** One box per algorithm; ticking it shows its parameters, each to tick if students may set
 * it. The default algorithm starts ticked with its parameters free. */
function renderAlgorithms(list) {
  const ordered = list.filter((a) => a.default).concat(list.filter((a) => !a.default));
  $("algorithm-list").replaceChildren(
    ...ordered.map((a) => {
      const allowed = h("input", { type: "checkbox", name: "algorithm", value: a.name, checked: !!a.default });
      const params = h(
        "div",
        { class: "free-params", hidden: !a.default },
        h("span", { class: "hint" }, "students may set:"),
        ...a.params.map((p) =>
          h(
            "label",
            { class: "inline free-param", title: p.description },
            h("input", { type: "checkbox", name: `free-${a.name}`, value: p.name, checked: true }),
            ` ${p.name}`,
            h("span", { class: "hint" }, ` · ${p.description} (default ${String(p.default)})`),
          ),
        ),
      );
      allowed.addEventListener("change", () => {
        params.hidden = !allowed.checked;
      });
      return h(
        "div",
        { class: "algorithm-choice", dataset: { algorithm: a.name } },
        h("label", { class: "inline algorithm-name" }, allowed, " ", h("strong", {}, a.name), h("span", { class: "hint" }, ` — ${a.summary}`)),
        params,
      );
    }),
  );
}

function syncBudget() {
  const byTime = $("budget-time").checked;
  $("arena-movetime").disabled = !byTime;
  $("arena-iterations").disabled = byTime;
}

function syncFormat() {
  const swiss = $("arena-format").value === "swiss";
  setText($("rounds-hint"), swiss ? "Swiss: how many rounds (each pairing plays two games, colours swapped)" : "round robin: how many times the whole cycle is played");
  if (swiss && Number($("arena-rounds").value) < 3) $("arena-rounds").value = "3";
}

/** The request body; throws with a message naming what is missing. */
function request() {
  const chosen = [...form.querySelectorAll("input[name=algorithm]:checked")].map((el) => el.value);
  if (!chosen.length) throw new Error("Tick at least one algorithm students may choose.");
  const free = Object.fromEntries(chosen.map((name) => [name, [...form.querySelectorAll(`input[name="free-${CSS.escape(name)}"]:checked`)].map((el) => el.value)]));
  for (const input of [$("arena-movetime"), $("arena-iterations"), $("arena-rounds"), $("arena-plies")]) {
    if (!input.disabled && !input.checkValidity()) {
      input.focus();
      const label = input.closest("label")?.firstChild?.textContent?.trim() || input.name;
      throw new Error(`${label}: ${input.validationMessage}`);
    }
  }
  const byTime = $("budget-time").checked;
  const name = $("arena-name").value.trim();
  return {
    game: game(),
    ...(name ? { name } : {}),
    ...(byTime ? { movetime_ms: parseInt($("arena-movetime").value, 10) } : { iterations: parseInt($("arena-iterations").value, 10) }),
    algorithms: chosen,
    free,
    format: $("arena-format").value,
    rounds: parseInt($("arena-rounds").value, 10),
    max_plies: parseInt($("arena-plies").value, 10),
  };
}

async function create(event) {
  event.preventDefault();
  const err = $("arena-error");
  err.hidden = true;
  let body;
  try {
    body = request();
  } catch (e) {
    err.hidden = false;
    setText(err, e.message);
    return;
  }
  $("arena-create").disabled = true;
  try {
    const made = await api("POST", "/api/arenas", body);
    saveTeacherToken(made.id, made.token);
    location.assign(made.url || `/arena/${encodeURIComponent(made.id)}`);
  } catch (e) {
    err.hidden = false;
    setText(err, e.message);
  } finally {
    $("arena-create").disabled = false;
  }
}

async function boot() {
  for (const radio of form.querySelectorAll("input[name=game]")) radio.addEventListener("change", loadAlgorithms);
  for (const radio of form.querySelectorAll("input[name=budget]")) radio.addEventListener("change", syncBudget);
  $("arena-format").addEventListener("change", syncFormat);
  form.addEventListener("submit", create);
  try {
    limits = await api("GET", "/api/settings");
    for (const [id, key] of [["arena-movetime", "movetime_ms"], ["arena-iterations", "iterations"]]) {
      $(id).min = String(limits[key].min);
      $(id).max = String(limits[key].max);
    }
  } catch (e) {
    toast(`Could not load the server's limits: ${e.message}`, "error", 10000);
  }
  syncBudget();
  await loadAlgorithms();
  document.body.dataset.state = "ready";
}

boot();
