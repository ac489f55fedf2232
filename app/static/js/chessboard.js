// Chessground, made safe for a board that has no size for a moment.
//
// Chessground measures its board once, remembers the rectangle and places every arrow
// by it. Measured while the board has no layout — hidden, not laid out yet, or in the
// middle of a relayout — the remembered 0 × 0 makes each arrow's coordinates 0 / 0 =
// NaN: a page error per attribute and no arrows until something measures again. Both
// boards (the game's and the node card's) are made here so neither can remember an
// empty size, whatever the timing.

import { Chessground } from "/static/vendor/chessground.js";

/** Replace the board's measurement: an empty rectangle is never remembered, and a 1 × 1
 * square stands in for it. Arrows are placed in the board's own 8 × 8 units, so only the
 * square's proportions matter; pieces placed meanwhile are placed again at the real size
 * when chessground's resize observer sees the board laid out. */
function guardMeasure(dom) {
  const board = dom.elements.board;
  let remembered;
  const bounds = () => {
    if (remembered) return remembered;
    const r = board.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) {
      remembered = r;
      return r;
    }
    return { left: r.left, top: r.top, right: r.left + 1, bottom: r.top + 1, width: 1, height: 1 };
  };
  bounds.clear = () => {
    remembered = undefined;
  };
  dom.bounds = bounds;
}

/** A chessground on `el` whose measurement is guarded. Its `redrawAll` (which rebuilds
 * the board and draws at once, arrows included) waits while `el` has no size: the
 * resize observer re-places everything once it has one. */
export function chessboard(el, config) {
  const cg = Chessground(el, config);
  guardMeasure(cg.state.dom);
  const redrawAll = cg.redrawAll;
  cg.redrawAll = () => {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) return;
    redrawAll();
    guardMeasure(cg.state.dom);
  };
  return cg;
}
