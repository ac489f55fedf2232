// The chessground board: position, legal destinations from the server,
// promotion choice, last-move and check highlights, orientation, the engine's
// arrows and line previews. It only reads the state; moves go out via onMove.

import { BRUSHES, engineShapes, pvShapes } from "./arrows.js";
import { chessboard } from "./chessboard.js";
import { h } from "./dom.js";
import { secretKind } from "./quiz.js";
import { shownSearch } from "./review.js";
import { canMove, capabilities, isLive, legalDests, promotionChoices, turnOf, uciSquares, viewedPosition } from "./state.js";

const ROLE_NAMES = { q: "queen", r: "rook", b: "bishop", n: "knight" };

export function createBoard(el, promoEl, { getState, onMove }) {
  let lastKey = null;
  let lastShapes = "";
  let pendingPromotion = null;

  const cg = chessboard(el, {
    coordinates: true,
    animation: { enabled: true, duration: 180 },
    highlight: { lastMove: true, check: true },
    movable: {
      free: false,
      color: undefined,
      showDests: true,
      events: { after: (orig, dest) => afterUserMove(orig, dest) },
    },
    premovable: { enabled: false },
    draggable: { enabled: true, showGhost: true },
    drawable: { enabled: true, visible: true, brushes: BRUSHES },
  });

  function afterUserMove(orig, dest) {
    const s = getState();
    const choices = promotionChoices(s.game, orig, dest);
    if (choices.length) {
      showPromotion(orig, dest, choices, s.game.turn);
    } else {
      onMove(orig + dest);
    }
  }

  function showPromotion(orig, dest, choices, color) {
    pendingPromotion = { orig, dest };
    promoEl.replaceChildren(
      h("p", { class: "promo-title" }, "Promote to"),
      h(
        "div",
        { class: "promo-choices cg-wrap" },
        choices.map((letter) =>
          h(
            "button",
            {
              type: "button",
              class: "promo-choice",
              "aria-label": ROLE_NAMES[letter],
              dataset: { piece: letter },
              onclick: () => choosePromotion(letter),
            },
            h("piece", { class: `${ROLE_NAMES[letter]} ${color}` }),
          ),
        ),
      ),
      h("button", { type: "button", class: "promo-cancel", onclick: cancelPromotion }, "Cancel"),
    );
    promoEl.hidden = false;
    promoEl.querySelector(".promo-choice")?.focus();
  }

  function choosePromotion(letter) {
    if (!pendingPromotion) return;
    const { orig, dest } = pendingPromotion;
    pendingPromotion = null;
    promoEl.hidden = true;
    onMove(orig + dest + letter);
  }

  function cancelPromotion() {
    pendingPromotion = null;
    promoEl.hidden = true;
    resync();
  }

  /** Forget what is drawn so the next render resets the board (after a refused move). */
  function resync() {
    lastKey = null;
    render(getState());
  }

  function previewRow(s) {
    const shown = s.view.hover && !secretKind(s) ? shownSearch(s) : null;
    if (!shown || !shown.stats) return null;
    return shown.stats.moves.find((m) => m.move === s.view.hover) || null;
  }

  function render(s) {
    if (!s.game) return;
    const pos = viewedPosition(s);
    if (!pos || !pos.fen) return;
    const preview = previewRow(s);
    // Inside the search: a step phase may show another position (overlay.fen) and
    // the step or race its own arrows; the live board is back when it is cleared.
    const overlay = !preview && isLive(s) ? s.view.overlay : null;
    const elsewhere = !!(overlay && overlay.fen);
    const movable = canMove(s) && !preview && !elsewhere && !pendingPromotion;
    let fen = pos.fen;
    let lastMove = pos.lastMove;
    let check = pos.check;
    let turn = pos.turn;
    if (elsewhere) {
      fen = overlay.fen.split(" ")[0];
      lastMove = overlay.lastMove ? uciSquares(overlay.lastMove) : undefined;
      check = false;
      turn = turnOf(overlay.fen);
    }
    if (preview && preview.pv_fen) {
      fen = preview.pv_fen.split(" ")[0];
      const last = preview.pv[preview.pv.length - 1];
      lastMove = last ? uciSquares(last) : undefined;
      check = false;
      turn = turnOf(preview.pv_fen);
    }
    const orientation = s.view.orientation;
    const key = [fen, orientation, movable, movable ? s.game.legal.join() : "", lastMove, check].join("|");
    if (key !== lastKey) {
      lastKey = key;
      cg.set({
        fen,
        orientation,
        turnColor: turn,
        lastMove,
        check,
        viewOnly: false,
        movable: {
          color: movable ? s.game.turn : undefined,
          dests: movable ? legalDests(s.game) : new Map(),
        },
      });
      if (!movable) cg.cancelMove();
    }
    let shapes = [];
    if (secretKind(s)) shapes = []; // an open quiz question: no arrow points at its answer
    else if (preview) shapes = pvShapes(preview.pv);
    else if (overlay && overlay.shapes) shapes = overlay.shapes;
    else if (s.view.arrows) shapes = searchShapes(s);
    const shapesKey = JSON.stringify(shapes);
    if (shapesKey !== lastShapes) {
      lastShapes = shapesKey;
      cg.setAutoShapes(shapes);
    }
  }

  /** The arrows of the search shown (review.js): the live one, or the one kept with the
   * move being browsed — its candidates, and the line it expected after the move played. */
  function searchShapes(s) {
    const shown = shownSearch(s);
    if (!shown || !shown.stats || (shown.kind !== "live" && shown.kind !== "stored")) return [];
    const byShare = capabilities(s, shown.stats.algorithm).mcts;
    const shapes = engineShapes(shown.stats, { byShare });
    if (shown.kind === "stored" && !s.review.analysis) { // an analysis: the better move, not its line
      const taken = new Set(shapes.map((sh) => sh.orig + sh.dest)); // one arrow per pair of squares
      shapes.push(...pvShapes(shown.stats.pv.slice(1), { max: 3 }).filter((sh) => !taken.has(sh.orig + sh.dest)));
    }
    return shapes;
  }

  return {
    render,
    resync,
    redrawAll: () => {
      cg.redrawAll();
      lastShapes = ""; // re-place the arrows at the board's new size
    },
    cancelPromotion,
    get promoting() {
      return pendingPromotion !== null;
    },
  };
}
