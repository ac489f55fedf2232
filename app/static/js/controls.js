// Buttons and keyboard shortcuts. Each action is one function of the app
// (passed in), so the buttons, the keys and the help overlay list the same
// things.

import { $, isTyping, h, setText } from "./dom.js";
import { canMove, isPlayer, sideName } from "./state.js";

export const SHORTCUTS = [
  [["Space"], "Start / stop the search (pause or resume the engine)"],
  [["S"], "One search iteration (step)"],
  [["G"], "Engine, move now"],
  [["U"], "Undo (a move pair when playing the engine)"],
  [["F"], "Flip the board"],
  [["←", "→"], "Previous / next move in the list"],
  [["Home", "End"], "First position / current position"],
  [["A"], "Show or hide the engine's arrows"],
  [["N"], "New game"],
  [["L"], "Large type (projector)"],
  [["?"], "This help"],
  [["Esc"], "Close a dialog, leave a preview"],
];

export function createControls(actions) {
  const buttons = {
    start: $("btn-start"),
    step: $("btn-step"),
    go: $("btn-go"),
    undo: $("btn-undo"),
    flip: $("btn-flip"),
    first: $("nav-first"),
    prev: $("nav-prev"),
    next: $("nav-next"),
    last: $("nav-last"),
    live: $("btn-live"),
  };
  buttons.start.addEventListener("click", actions.toggleSearch);
  buttons.step.addEventListener("click", actions.step);
  buttons.go.addEventListener("click", actions.go);
  buttons.undo.addEventListener("click", actions.undo);
  buttons.flip.addEventListener("click", actions.flip);
  buttons.first.addEventListener("click", () => actions.navigate("first"));
  buttons.prev.addEventListener("click", () => actions.navigate("prev"));
  buttons.next.addEventListener("click", () => actions.navigate("next"));
  buttons.last.addEventListener("click", () => actions.navigate("last"));
  buttons.live.addEventListener("click", () => actions.navigate("last"));

  const keys = {
    " ": actions.toggleSearch,
    s: actions.step,
    g: actions.go,
    u: actions.undo,
    f: actions.flip,
    a: actions.toggleArrows,
    n: actions.newGame,
    l: actions.toggleLarge,
    "?": actions.help,
    ArrowLeft: () => actions.navigate("prev"),
    ArrowRight: () => actions.navigate("next"),
    Home: () => actions.navigate("first"),
    End: () => actions.navigate("last"),
    Escape: actions.escape,
  };
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTyping(event) && event.key !== "Escape") return;
    if (document.querySelector("dialog[open]") && event.key !== "Escape") return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const action = keys[key] || keys[event.key];
    if (!action) return;
    if (event.key !== "Escape") event.preventDefault(); // Escape also closes dialogs natively
    action();
  });

  const list = $("shortcuts");
  for (const [combo, text] of SHORTCUTS) {
    list.append(h("dt", {}, combo.map((k) => h("kbd", {}, k))), h("dd", {}, text));
  }

  function render(s) {
    const game = s.game;
    // A game its named players move (an arena's) has nothing here to start, step or undo.
    const player = isPlayer(s) && s.conn === "open" && !(game && game.played_by);
    const over = !!(game && game.result);
    const search = game ? game.search : { status: "idle", paused: false };
    const busy = search.status !== "idle";
    const engineToMove = game && !over && !(game.human === "both" || game.human === game.turn);
    let label = "Start";
    if (busy) label = search.status === "queued" ? "Cancel" : "Stop";
    else if (engineToMove && search.paused) label = "Resume";
    else if (!engineToMove) label = "Analyse";
    setText(buttons.start, label);
    buttons.start.classList.toggle("active", busy);
    buttons.start.disabled = !player || (over && !busy);
    buttons.step.disabled = !player || over;
    buttons.go.disabled = !player || over;
    buttons.undo.disabled = !player || !game || game.ply === 0;
    const ply = game ? (s.view.ply === null ? game.ply : s.view.ply) : 0;
    buttons.first.disabled = !game || ply === 0;
    buttons.prev.disabled = !game || ply === 0;
    buttons.next.disabled = !game || s.view.ply === null;
    buttons.last.disabled = !game || s.view.ply === null;
    const banner = $("browse-banner");
    banner.hidden = !game || s.view.ply === null;
    if (game && s.view.ply !== null) {
      setText($("browse-text"), `Viewing ply ${s.view.ply} of ${game.ply} — moves are off while browsing`);
    }
    document.body.classList.toggle("can-move", canMove(s));
    if (game) {
      document.body.dataset.turn = game.turn;
      buttons.go.title = `Engine, move now: plays the best move so far for ${sideName(game.game, game.turn)} (G)`;
    }
  }

  return { render };
}
