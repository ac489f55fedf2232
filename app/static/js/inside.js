// "Inside the search": the tabs beside the root-move table — Tree, Step,
// Charts, Threads, Race — and what ties them to the rest of the page. It owns
// its slice of the state (`s.inside`), turns frames into it (stats → tree and
// history, step → the step animation, node → node details, race → race), asks
// the server for the tree size the tree view wants, and draws only the open tab
// from the page's one redraw per animation frame. What the board shows for a
// step phase or a race goes through `s.view.overlay`, which board.js draws.

import { $, h, isTyping, setText, toast } from "./dom.js";
import { createCharts, createHistory, recordStats } from "./charts.js";
import { stepsExportControl, treeExportControl } from "./export.js";
import { showPairs } from "./evalpair.js";
import { createNodeCard, moverAt, qText } from "./nodecard.js";
import { qGradient } from "./notation.js";
import { createQuiz, secretKind } from "./quiz.js";
import { createRaceView, raceShapes } from "./race.js";
import { capabilities, isLive, sideName, samePosition } from "./state.js";
import { PHASE_TITLES, buildStep, highlight, isDeepening, overlay, stepNotes, stepParams, stepSummary } from "./step.js";
import { createThreadsView } from "./threads.js";
import { LAYOUTS, createTreeView, decodeTree } from "./tree.js";

const TABS = [
  ["moves", "Moves", "The root moves, their visits and values"],
  ["tree", "Tree", "The most visited part of the search tree"],
  ["step", "Step", "One iteration at a time, in four phases"],
  ["charts", "Charts", "Visits, Q and tree shape over time"],
  ["threads", "Threads", "Root parallelism: each thread and the merge"],
  ["race", "Race", "Two algorithms on the same position"],
];
const TREE_SIZES = [50, 100, 200, 300, 500];
const TAB_KEY = "canopy:tab";
const SIZE_KEY = "canopy:tree-nodes";
const LAYOUT_KEY = "canopy:tree-layout";
const SPEEDS = { slow: 2400, normal: 1200, fast: 300 };
const STEP_HISTORY = 30;
const MINI_TREE_NODES = 40;

function createInsideState() {
  const stored = Number(localStorage.getItem(SIZE_KEY));
  return {
    tab: TABS.some(([k]) => k === localStorage.getItem(TAB_KEY)) ? localStorage.getItem(TAB_KEY) : "moves",
    treeNodes: TREE_SIZES.includes(stored) ? stored : 50,
    tree: [], // decoded nodes of the latest stats frame
    treeKey: "",
    selected: null,
    nodeInfo: null,
    step: null,
    steps: [],
    phase: 3,
    race: null,
    history: createHistory(),
    wide: false,
  };
}

export function createInside({ getState, send, scheduleRender }) {
  const s = getState();
  s.inside = createInsideState();
  const I = s.inside;

  // ---------------------------------------------------------------- tabs
  const tabBar = $("inside-tabs");
  const panels = {};
  for (const [key, label, title] of TABS) {
    const button = h("button", { type: "button", role: "tab", id: `tab-${key}`, "aria-controls": `panel-${key}`, title, dataset: { tab: key } }, label);
    button.addEventListener("click", () => setTab(key));
    tabBar.append(button);
    panels[key] = $(`panel-${key}`);
  }
  const wideButton = h("button", { type: "button", class: "wide-toggle", "aria-pressed": "false", title: "More room for the search views (smaller board)" }, "⤢ Wide");
  wideButton.addEventListener("click", () => {
    I.wide = !I.wide;
    document.body.classList.toggle("inside-wide", I.wide);
    wideButton.setAttribute("aria-pressed", String(I.wide));
    scheduleRender();
    requestAnimationFrame(() => {
      window.dispatchEvent(new Event("resize"));
      treeView.fit();
    });
  });
  tabBar.append(wideButton);

  // Keys 1–6 open the tabs (listed in the help dialog with the other shortcuts).
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event)) return;
    if (document.querySelector("dialog[open]")) return;
    const index = Number(event.key) - 1;
    if (Number.isInteger(index) && index >= 0 && index < TABS.length) {
      event.preventDefault();
      setTab(TABS[index][0]);
    }
  });
  const shortcuts = $("shortcuts");
  if (shortcuts) {
    shortcuts.append(
      h("dt", {}, h("kbd", {}, "1"), "–", h("kbd", {}, String(TABS.length))),
      h("dd", {}, `Tabs: ${TABS.map(([, label]) => label).join(", ")}`),
    );
  }

  function setTab(key) {
    if (I.tab === key) return;
    I.tab = key;
    localStorage.setItem(TAB_KEY, key);
    if (key !== "step") stopAuto();
    updateOverlay();
    scheduleRender();
    if (key === "tree") requestAnimationFrame(() => treeView.fit(false));
  }

  // ---------------------------------------------------------------- tree tab
  const treePanel = panels.tree;
  const sizeSelect = h("select", { id: "tree-size", "aria-label": "Nodes in the tree view" }, TREE_SIZES.map((n) => h("option", { value: String(n) }, `${n} nodes`)));
  sizeSelect.value = String(I.treeNodes);
  sizeSelect.addEventListener("change", () => {
    I.treeNodes = Number(sizeSelect.value);
    localStorage.setItem(SIZE_KEY, String(I.treeNodes));
    subscribe();
  });
  const layoutSelect = h("select", { id: "tree-layout", "aria-label": "Tree layout" }, LAYOUTS.map(([k, label]) => h("option", { value: k }, label)));
  const storedLayout = localStorage.getItem(LAYOUT_KEY);
  layoutSelect.value = LAYOUTS.some(([k]) => k === storedLayout) ? storedLayout : "down";
  const fitButton = h("button", { type: "button", title: "Fit the tree in view and follow it" }, "Fit");
  const zoomIn = h("button", { type: "button", "aria-label": "Zoom in" }, "+");
  const zoomOut = h("button", { type: "button", "aria-label": "Zoom out" }, "−");
  const treeExport = treeExportControl(() => (s.game ? s.game.id : null));
  const legendBar = h("span", { class: "legend-bar", "aria-hidden": "true" });
  legendBar.style.background = qGradient();
  const legendLeft = h("span", {});
  const legendRight = h("span", {});
  const treeInfo = h("span", { class: "hint tree-info" });
  const treeArea = h("div", { class: "tree-area", id: "tree-area" });
  const treeEmpty = h("p", { class: "empty tree-empty" });
  const nodeBox = h("div", { class: "node-card", id: "node-card", hidden: true });
  treePanel.replaceChildren(
    h(
      "div",
      { class: "tree-toolbar" },
      h("label", { class: "inline" }, "Show ", sizeSelect),
      h("label", { class: "inline" }, "Layout ", layoutSelect),
      h("span", { class: "zoom-buttons" }, zoomOut, zoomIn, fitButton),
      treeExport.root,
    ),
    h(
      "div",
      { class: "tree-legend" },
      h("span", { class: "hint" }, "Colour = Q:"),
      legendLeft,
      legendBar,
      legendRight,
      h("span", { class: "hint" }, "· area = visits · edges = moves"),
      treeInfo,
    ),
    h("div", { class: "tree-stage" }, treeArea, treeEmpty, nodeBox),
  );
  const qLabel = (n, depth) => {
    const game = getState().game;
    return qText(game ? game.game : "chess", n.q_white, n.q, moverAt(game ? game.fen : null, depth));
  };
  const treeView = createTreeView(treeArea, { onSelect: selectNode, layout: layoutSelect.value, qLabel });
  layoutSelect.addEventListener("change", () => {
    localStorage.setItem(LAYOUT_KEY, layoutSelect.value);
    treeView.setLayout(layoutSelect.value);
  });
  fitButton.addEventListener("click", () => treeView.fit());
  zoomIn.addEventListener("click", () => treeView.zoomBy(1.4));
  zoomOut.addEventListener("click", () => treeView.zoomBy(1 / 1.4));
  const nodeCard = createNodeCard(nodeBox, {
    onSelect: selectNode,
    onClose: () => {
      I.selected = null;
      I.nodeInfo = null;
      scheduleRender();
    },
  });

  function selectNode(id) {
    I.selected = id;
    if (I.nodeInfo && I.nodeInfo.id !== id) I.nodeInfo = null;
    requestNode();
    scheduleRender();
  }

  let revealed = null; // the selected node last brought into view
  let nodeTimer = null;
  let nodeAsked = 0;
  function requestNode() {
    if (I.selected === null) return;
    nodeAsked = performance.now();
    send({ type: "node", id: I.selected }, { quiet: true });
  }
  // While a search runs, the selected node's details are refreshed once a second.
  nodeTimer = setInterval(() => {
    const st = getState();
    const running = st.game && st.game.search.status === "running";
    if (I.tab === "tree" && I.selected !== null && running && performance.now() - nodeAsked > 900) requestNode();
  }, 1000);

  // ---------------------------------------------------------------- step tab
  const stepPanel = panels.step;
  const stepButton = h("button", { type: "button", class: "primary", id: "step-once", title: "One iteration (S)" }, "Step");
  const autoButton = h("button", { type: "button", id: "step-auto", "aria-pressed": "false", title: "Step again and again (for a class demo)" }, "▶ Auto");
  const speedSelect = h("select", { id: "step-speed", "aria-label": "Animation speed" }, Object.keys(SPEEDS).map((k) => h("option", { value: k }, k)));
  speedSelect.value = "normal";
  const replayButton = h("button", { type: "button", title: "Play this step's four phases again" }, "↺ Replay");
  // The class quiz (quiz.js): the room predicts the next step's pick at the root, or the
  // engine's move; the card shows on every tab, for the player, spectators and the projector.
  const quiz = createQuiz({ mount: document.querySelector(".panel-col") || stepPanel, send, scheduleRender });
  const askPick = h("button", { type: "button", id: "quiz-ask-selection", title: "Ask everyone watching which child the formula picks at the root; the next Step reveals it" }, "? Quiz: next pick");
  const askMove = h("button", { type: "button", id: "quiz-ask-bestmove", title: "Ask everyone watching which move the engine will play; its move reveals it" }, "? Quiz: engine's move");
  askPick.addEventListener("click", () => {
    stopAuto();
    quiz.ask("selection");
  });
  askMove.addEventListener("click", () => quiz.ask("bestmove"));
  const phaseChips = PHASE_TITLES.map((t, i) => {
    const b = h("button", { type: "button", class: "chip phase-chip", dataset: { phase: String(i) } }, t);
    b.addEventListener("click", () => showPhase(i));
    return b;
  });
  const stepsExport = stepsExportControl(() => (s.game ? s.game.id : null));
  const stepHeader = h("p", { class: "step-header" });
  const stepNotesEl = h("p", { class: "hint step-notes" });
  const miniTreeArea = h("div", { class: "tree-area mini-tree", id: "step-tree" });
  const phaseGrid = h("div", { class: "phases", id: "phases" });
  const stepEmpty = h(
    "div",
    { class: "empty step-empty" },
    h("p", {}, "Press Step (or the S key) to run exactly one iteration of the search and see its four phases:"),
    h("ol", {}, h("li", {}, "Selection — walk down the tree by the selection formula"), h("li", {}, "Expansion — add a new node"), h("li", {}, "Simulation — play the game out (or evaluate it)"), h("li", {}, "Back-propagation — update N and Q on the way back up")),
    h("p", { class: "hint" }, "Tip: start from a fresh position so the tree is small, and use Auto for a slow, continuous demo."),
  );
  const historyList = h("ol", { class: "step-history", id: "step-history", reversed: true });
  const stepStage = h("div", { class: "step-stage" }, miniTreeArea, h("div", { class: "step-history-box" }, h("h4", {}, "Steps so far"), historyList));
  // The toolbar stays at the top of the window while the page follows the phases down
  // (sticky): only what a demo needs between steps; the log's export goes by the header.
  const stepBar = h("div", { class: "step-toolbar", role: "toolbar", "aria-label": "Step controls" }, stepButton, autoButton, speedSelect, replayButton, h("span", { class: "phase-chips" }, phaseChips), h("span", { class: "quiz-asks" }, askPick, askMove));
  const stepHead = h("div", { class: "step-head" }, stepHeader, stepsExport.root);
  stepPanel.replaceChildren(
    stepBar,
    stepHead,
    stepNotesEl,
    stepEmpty,
    stepStage,
    phaseGrid,
  );
  // The page never scrolls by itself on a step (a class watching the board and the Selection
  // panel would lose them), only to a phase whose chip is pressed; the bar is sticky, the
  // phases keep clear of it (their scroll margin reads --step-bar), and it shows an edge
  // only while it lies over them.
  new ResizeObserver(() => stepPanel.style.setProperty("--step-bar", `${stepBar.offsetHeight}px`)).observe(stepBar);
  const markStuck = () => {
    if (stepPanel.hidden) return;
    const stuck = stepBar.getBoundingClientRect().top <= 0 && stepPanel.getBoundingClientRect().top < 0;
    if (stepBar.classList.contains("stuck") !== stuck) stepBar.classList.toggle("stuck", stuck);
  };
  window.addEventListener("scroll", markStuck, { passive: true });
  const miniTree = createTreeView(miniTreeArea, { onSelect: (id) => { setTab("tree"); selectNode(id); }, layout: "down", qLabel });
  // A mouse press steps at once, not on its click: the toolbar is sticky and the phases
  // below it are rebuilt by each step, so the button can move between press and release;
  // the release then lands beside it, the browser fires no click, and the step was lost
  // (seen in CI; a class demo clicking Step again and again loses steps the same way).
  // The click of that same press is swallowed: one step a press. Keyboard (a click with
  // detail 0), touch and pen act on click (a touch press may start a scroll).
  const doStep = () => send({ type: "search", action: "step" });
  let swallowUntil = 0; // until when a click with detail > 0 is the acted press's own
  stepButton.addEventListener("pointerdown", (e) => {
    swallowUntil = 0;
    if (e.pointerType !== "mouse" || e.button !== 0 || stepButton.disabled) return;
    swallowUntil = Infinity; // until its release, wherever that lands, and a second after
    window.addEventListener("pointerup", (u) => (swallowUntil = u.timeStamp + 1000), { once: true, capture: true });
    doStep();
  });
  stepButton.addEventListener("click", (e) => {
    const own = e.detail > 0 && e.timeStamp < swallowUntil;
    swallowUntil = 0;
    if (!own) doStep();
  });
  autoButton.addEventListener("click", () => (auto ? stopAuto() : startAuto()));
  replayButton.addEventListener("click", () => I.step && animate());

  let builtStep = null;
  let revealPhase = false; // a phase chip asked for its phase: scroll it into view once
  const mini = { tree: null, step: null, phase: -1 }; // what the mini tree last drew
  let phaseTimer = null;
  let auto = false;
  let autoTimer = null;

  function onStep(frame) {
    I.step = frame;
    I.steps.unshift(frame);
    if (I.steps.length > STEP_HISTORY) I.steps.length = STEP_HISTORY;
    builtStep = null;
    if (I.tab !== "step") {
      toast(`Step ${stepSummary(frame)} — open the Step tab for its four phases.`, "info", 3500, "step");
    }
    animate();
  }

  function animate() {
    clearTimeout(phaseTimer);
    const ms = SPEEDS[speedSelect.value] || SPEEDS.normal;
    I.phase = 0;
    updateOverlay();
    scheduleRender();
    const next = () => {
      if (I.phase >= 3) {
        if (auto) autoTimer = setTimeout(autoStep, ms);
        return;
      }
      I.phase += 1;
      updateOverlay();
      scheduleRender();
      phaseTimer = setTimeout(next, ms);
    };
    phaseTimer = setTimeout(next, ms);
  }

  function showPhase(i) {
    if (!I.step) return;
    clearTimeout(phaseTimer);
    I.phase = i;
    revealPhase = true; // asked for by its chip: bring it into view
    updateOverlay();
    scheduleRender();
  }

  function startAuto() {
    auto = true;
    autoButton.setAttribute("aria-pressed", "true");
    setText(autoButton, "⏸ Pause");
    autoStep();
  }

  function stopAuto() {
    auto = false;
    clearTimeout(autoTimer);
    autoButton.setAttribute("aria-pressed", "false");
    setText(autoButton, "▶ Auto");
  }

  function autoStep() {
    const st = getState();
    if (!auto || !st.game || st.game.result || I.tab !== "step") {
      stopAuto();
      return;
    }
    if (!send({ type: "search", action: "step" })) stopAuto();
  }

  // ---------------------------------------------------------------- other tabs
  const charts = createCharts(panels.charts);
  const threads = createThreadsView(panels.threads, {
    useThreads: (n) => send({ type: "settings", threads: n }),
  });
  const race = createRaceView(panels.race, { send, getState });

  // ---------------------------------------------------------------- frames
  function subscribe() {
    send({ type: "subscribe", tree: true, tree_nodes: I.treeNodes, tree_format: "compact" }, { quiet: true });
  }

  /** A stats frame the page accepted (it is for the board's position). */
  function onStats(frame) {
    I.tree = decodeTree(frame);
    const key = `${frame.fen.split(" ").slice(0, 2).join(" ")}|${frame.algorithm}|${frame.threads}`;
    if (key !== I.treeKey) {
      I.treeKey = key;
      I.selected = null;
      I.nodeInfo = null;
    }
    recordStats(I.history, frame);
  }

  function onFrame(frame) {
    switch (frame.type) {
      case "step":
        onStep(frame);
        return true;
      case "node":
        if (frame.id === I.selected) I.nodeInfo = frame;
        return true;
      case "race":
        I.race = frame;
        if (I.tab === "race") updateOverlay();
        return true;
      case "quiz":
        s.quiz = frame; // what secretKind (quiz.js) reads: the page hides the answer while it is open
        quiz.onFrame(frame);
        return true;
      default:
        return false;
    }
  }

  /** The game changed position: step and node views describe the old one. */
  function onState(game) {
    if (I.step && !samePosition(I.step.fen, game.fen)) {
      clearTimeout(phaseTimer);
      I.step = null;
      I.steps = [];
      builtStep = null;
      stopAuto();
    }
    if (I.nodeInfo && !samePosition(I.nodeInfo.root_fen, game.fen)) {
      I.nodeInfo = null;
      I.selected = null;
    }
    updateOverlay();
  }

  function onError(frame) {
    quiz.onError(frame);
    if (frame.request === "search" || frame.request === "node") stopAuto();
    if (frame.request === "node") {
      I.selected = null;
      I.nodeInfo = null;
    }
  }

  function escape() {
    if (s.view.overlay) {
      clearTimeout(phaseTimer);
      s.view.overlay = null;
      I.phase = 3;
      stopAuto();
    }
  }

  function updateOverlay() {
    const st = getState();
    let ov = null;
    if (I.tab === "step" && I.step) {
      ov = overlay(I.step, I.phase);
      if (ov && st.game && samePosition(ov.fen, st.game.fen)) ov = { ...ov, fen: null };
    } else if (I.tab === "race" && I.race && st.game && samePosition(I.race.fen, st.game.fen)) {
      ov = { fen: null, shapes: raceShapes(I.race), caption: null };
    }
    s.view.overlay = ov;
  }

  // ---------------------------------------------------------------- drawing
  function render(st) {
    const game = st.game;
    // An open quiz question on a page that is not the teacher's (quiz.js): the views that
    // give its answer stay hidden until the reveal.
    const secret = secretKind(st);
    const concealed = (key) => (secret === "bestmove" && key !== "moves") || (secret === "selection" && key === "threads");
    for (const [key] of TABS) {
      const active = I.tab === key;
      const button = $(`tab-${key}`);
      button.setAttribute("aria-selected", String(active));
      button.tabIndex = active ? 0 : -1;
      panels[key].hidden = !active || concealed(key);
    }
    document.body.dataset.tab = I.tab;
    // The caption says what the board shows while it shows a step phase (board.js draws
    // the overlay only on the live position, without a row preview); below the board,
    // so no piece is hidden.
    const banner = $("overlay-banner");
    const caption = st.view.overlay && st.view.overlay.caption && isLive(st) && !st.view.hover && !secret ? st.view.overlay.caption : null;
    banner.hidden = !(caption && I.tab === "step");
    if (caption) setText($("overlay-text"), `Phase ${I.phase + 1} of 4 · ${caption}`);
    const gameName = game ? game.game : "chess";
    if (I.tab === "tree") renderTree(st, gameName, secret);
    else if (I.tab === "step") renderStep(st, gameName, secret);
    else if (I.tab === "charts") charts.render(I.history, { mcts: !st.stats || capabilities(st, st.stats.algorithm).mcts });
    else if (I.tab === "threads") threads.render(st);
    else if (I.tab === "race") {
      if (!race.ready && st.limits && game && st.algorithms[game.game]) {
        const list = st.algorithms[game.game];
        const first = game.settings.algorithm;
        const own = list.find((x) => x.name === first);
        const partner = own && list.some((x) => x.name === own.race_partner) ? own.race_partner : (list.find((x) => x.name !== first) || list[0]).name;
        race.setup(list, st.limits, game.game, { a: first, b: partner });
      }
      race.render(st);
    }
    const player = !!(game && game.role === "player" && st.conn === "open");
    stepButton.disabled = !player || !!(game && game.result);
    autoButton.disabled = !player || !!(game && game.result);
    // An open selection question is answered by the next step: the button says so.
    const asking = quiz.question && quiz.question.open && quiz.question.kind === "selection";
    setText(stepButton, asking ? "Reveal (Step)" : "Step");
    askPick.disabled = !player || !game || !!game.result || !capabilities(st, game.settings.algorithm).tree;
    askMove.disabled = !player || !game || !engineToMove(game);
    quiz.render(st);
    document.body.dataset.treeNodes = String(I.tree.length);
    document.body.dataset.steps = String(I.steps.length);
    document.body.dataset.race = I.race ? (I.race.running ? "running" : "done") : "";
  }

  function renderTree(st, gameName, secret) {
    setText(legendLeft, `${sideName(gameName, "black")} better`);
    setText(legendRight, `${sideName(gameName, "white")} better`);
    const stats = st.stats;
    const shown = (stats && stats.algorithm) || (st.game && st.game.settings.algorithm);
    const noTree = !!shown && !capabilities(st, shown).tree;
    const has = I.tree.length > 0;
    treeEmpty.hidden = has;
    treeArea.hidden = !has;
    setText(
      treeEmpty,
      noTree
        ? `${shown} keeps no tree to draw: its root moves are in the Moves tab${capabilities(st, shown).stepping === "depth" ? ", and each Step shows one more depth" : ""}.`
        : "No tree yet: start (Space) or step (S) a search and the most visited part of its tree appears here, live.",
    );
    setText(treeInfo, has && stats ? `· ${I.tree.length} of ${stats.nodes.toLocaleString("en-US")} nodes${stats.threads > 1 ? " (thread 0's tree)" : ""}` : "");
    treeView.render({ key: I.treeKey, nodes: I.tree, selected: I.selected, highlight: null });
    const node = I.selected === null ? null : I.tree.find((n) => n.id === I.selected) || null;
    const parent = node ? I.tree.find((n) => n.id === node.parent) : null;
    nodeCard.render({
      node: node || (I.nodeInfo ? null : null),
      info: I.selected === null ? null : I.nodeInfo,
      game: gameName,
      rootFen: st.game ? st.game.fen : null,
      parentVisits: parent ? parent.visits : I.nodeInfo && I.nodeInfo.selection ? I.nodeInfo.selection.parent_visits : null,
      orientation: st.view.orientation,
      evalsOf: showPairs(st) ? (fen) => st.evalPairs.lookup(gameName, fen, []) : null,
    });
    if (secret) nodeBox.hidden = true; // its children's formulas would give the pick away
    // The card lies over the tree's right-hand side: the tree keeps to the rest, and a
    // newly selected node is brought out from under it.
    treeView.setInset(nodeBox.hidden ? 0 : nodeBox.offsetWidth + 16);
    if (I.selected !== revealed) {
      revealed = I.selected;
      if (I.selected !== null) treeView.reveal(I.selected);
    }
  }

  function renderStep(st, gameName, secret) {
    const step = I.step;
    // The last step's tables, its path and the steps so far point at the next pick.
    stepEmpty.hidden = !!step || !!secret;
    phaseGrid.hidden = !step || !!secret;
    stepHeader.hidden = !step || !!secret;
    stepNotesEl.hidden = !!secret;
    stepStage.hidden = !!secret;
    if (step && builtStep !== step) {
      builtStep = step;
      const ctx = { game: gameName, params: stepParams(st.game), threads: st.stats ? st.stats.threads : st.game ? st.game.settings.threads : 1 };
      const built = buildStep(step, ctx);
      setText(stepHeader, built.header);
      setText(stepNotesEl, stepNotes(step, ctx).join(" "));
      phaseGrid.replaceChildren(...built.panels);
      historyList.replaceChildren(
        ...I.steps.map((x, i) => {
          const text = stepSummary(x);
          const b = h("button", { type: "button", class: `history-item${x === step ? " current" : ""}`, title: text }, text);
          b.addEventListener("click", () => {
            if (i === 0 || x === I.step) return;
            I.step = x;
            builtStep = null;
            animate();
          });
          return h("li", {}, b);
        }),
      );
    }
    if (step) {
      phaseGrid.querySelectorAll(".phase").forEach((el, i) => {
        el.classList.toggle("active", i === I.phase);
        el.classList.toggle("done", i < I.phase);
      });
      if (revealPhase) {
        // Only a phase chip scrolls the page, below the sticky toolbar; a step and its
        // animation never do (a class would lose the board and the Selection panel).
        revealPhase = false;
        const active = phaseGrid.querySelector(".phase.active");
        const box = active && active.getBoundingClientRect();
        const top = Math.max(0, stepBar.getBoundingClientRect().bottom);
        if (box && (box.top < top || box.bottom > window.innerHeight)) {
          active.scrollIntoView({ block: "nearest", behavior: "smooth" });
        }
      }
      phaseChips.forEach((b, i) => b.classList.toggle("active", i === I.phase));
    }
    miniTreeArea.hidden = !I.tree.length;
    if (I.tree.length && (mini.tree !== I.tree || mini.step !== step || mini.phase !== I.phase)) {
      const usable = step && step.thread === 0 && step.simulation && !isDeepening(step);
      const hl = usable ? highlight(step, I.phase) : null;
      Object.assign(mini, { tree: I.tree, step, phase: I.phase });
      miniTree.render({ key: I.treeKey, nodes: miniNodes(I.tree, hl), selected: null, highlight: hl });
    }
  }

  return { onFrame, onStats, onState, onError, escape, subscribe, render, get tab() { return I.tab; }, dispose: () => clearInterval(nodeTimer) };
}

/** Whether the engine is the one to move (the bestmove question is asked then). */
function engineToMove(game) {
  return !game.result && game.human !== "both" && game.human !== game.turn;
}

/** The mini tree of the step tab: the most visited few nodes, plus every highlighted one. */
function miniNodes(nodes, hl) {
  const keep = new Set();
  const byId = new Map(nodes.map((n) => [n.id, n]));
  nodes.slice(0, MINI_TREE_NODES).forEach((n) => keep.add(n.id));
  if (hl) {
    for (const set of [hl.path, hl.fresh, hl.back]) {
      for (const id of set) {
        let n = byId.get(id);
        while (n && !keep.has(n.id)) {
          keep.add(n.id);
          n = byId.get(n.parent);
        }
      }
    }
  }
  return nodes.filter((n) => keep.has(n.id));
}
