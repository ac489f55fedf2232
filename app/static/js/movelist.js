// The move list in SAN, two plies per numbered row; click a move to see that
// position on the board (browsing never changes the game) and the search kept
// with it (review.js). Engine moves show their visits and Q on hover; moves
// after which the mover's expected score fell by SWING or more are marked, and in
// an analysed game the moves it marked get their glyph (?! ? ??).

import { $, h, setText } from "./dom.js";
import { plies } from "./notation.js";
import { GLYPHS, reviewPly, swings } from "./review.js";
import { resultText, viewedPly } from "./state.js";

export function createMoveList({ onNavigate }) {
  const list = $("movelist");
  const result = $("result");
  const plyCount = $("ply-count");
  let renderedKey = "";

  list.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-ply]");
    if (button) onNavigate(Number(button.dataset.ply));
  });

  function render(s) {
    const game = s.game;
    if (!game) {
      list.replaceChildren();
      return;
    }
    const current = viewedPly(s);
    const key = `${game.id}:${game.version}:${game.history.length}:${s.review ? s.review.version : 0}`;
    if (key !== renderedKey) {
      renderedKey = key;
      rebuild(s, game);
    }
    for (const button of list.querySelectorAll("button[data-ply]")) {
      const on = Number(button.dataset.ply) === current;
      button.classList.toggle("current", on);
      if (on) button.setAttribute("aria-current", "step");
      else button.removeAttribute("aria-current");
    }
    const active = list.querySelector("button.current");
    if (active && s.view.ply !== null) reveal(list, active);
    else if (s.view.ply === null) list.scrollTop = list.scrollHeight;
    setText(plyCount, game.ply ? plies(game.ply) : "");
    const text = resultText(game);
    result.hidden = !text;
    setText(result, text);
  }

  function rebuild(s, game) {
    const swung = new Map(swings(s).map((b) => [b.ply, b]));
    const startBlack = game.start_fen.split(" ")[1] === "b";
    const startMove = Number(game.start_fen.split(" ")[5] || 1);
    const items = [];
    let row = null;
    const offset = game.history_start || 0;
    if (offset) {
      items.push(
        h("li", { class: "earlier", value: startMove }, `… ${offset} earlier plies (in the PGN)`),
      );
    }
    game.history.forEach((m, j) => {
      const i = j + offset;
      const ply = i + 1;
      const plyIndex = i + (startBlack ? 1 : 0);
      const number = startMove + Math.floor(plyIndex / 2);
      if (m.color === "white" || row === null) {
        row = h("li", { value: number });
        if (m.color === "black") row.append(h("span", { class: "move empty" }, "…"));
        items.push(row);
      }
      const title =
        m.n !== undefined && m.n !== null
          ? `engine: N=${m.n}${m.q !== undefined && m.q !== null ? ` Q=${m.q.toFixed(3)}` : ""}`
          : m.by === "human"
            ? "human"
            : "engine";
      const kept = reviewPly(s, ply);
      const swing = swung.get(ply);
      const glyph = swing ? GLYPHS[swing.mark] || "" : "";
      const markClass = swing ? (glyph ? `mark mark-${swing.mark}` : "swing") : "";
      const classes = [`move by-${m.by}`, kept && kept.search ? "kept" : "", markClass];
      const better = glyph && kept && kept.best_san ? `best was ${kept.best_san}` : "";
      const what = swing ? `${glyph ? `${swing.mark}: ` : ""}expected score −${swing.drop.toFixed(2)} for the mover` : "";
      const notes = [glyph ? "" : title, kept && kept.search ? "click to see its search" : "", what, better];
      row.append(
        h(
          "button",
          {
            type: "button",
            class: classes.filter(Boolean).join(" "),
            dataset: { ply: String(ply), ...(glyph ? { mark: swing.mark } : {}) },
            title: notes.filter(Boolean).join(" · "),
          },
          m.san,
          ...(glyph ? [h("span", { class: "glyph", "aria-label": swing.mark }, glyph)] : []),
        ),
      );
    });
    list.replaceChildren(...items);
  }

  return { render };
}

/** Scroll the list (only the list: scrollIntoView would scroll the page too, and a click on
 * the evaluation graph below would move the graph away from the mouse) so `item` shows. */
function reveal(list, item) {
  const box = list.getBoundingClientRect();
  const at = item.getBoundingClientRect();
  if (at.top < box.top) list.scrollTop -= box.top - at.top;
  else if (at.bottom > box.bottom) list.scrollTop += at.bottom - box.bottom;
}
