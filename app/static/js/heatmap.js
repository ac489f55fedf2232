// A board of tinted squares, rank 8 at the top, with its coordinates: the Learning page's
// heat maps (a knight's learned value on each square, the NNUE's value of a piece on each
// square) and its overlay of each piece's contribution in a position. Green: worth more to
// the side to move; red: worth less; the stronger the tint, the larger the value against
// the largest on the board. Everything reaches the page through textContent (dom.js's h).

import { h, setText } from "./dom.js";

const FILES = "abcdefgh";

/** "+12", "−35" (a real minus sign), "–" for no value. */
export function cpText(v) {
  if (v === null || v === undefined) return "–";
  const r = Math.round(v);
  return r >= 0 ? `+${r}` : `−${Math.abs(r)}`;
}

/** The largest absolute value among `values` (nulls skipped), at least 1. */
export function scaleOf(values) {
  return Math.max(1, ...values.filter((v) => v !== null && v !== undefined).map((v) => Math.abs(v)));
}

/**
 * Draw a board into `map` (a .heatmap grid): `cellOf(square, name)` gives each square's
 * `{ value, tint, text, title, glyph }` — `value` its number (null: none, no tint),
 * `tint` what its colour follows against `scale` (the value unless given), `text` what it
 * shows, `glyph` a piece drawn above the text. Square 0 is a1.
 */
export function drawBoard(map, cellOf, scale) {
  const cells = [];
  for (let rank = 7; rank >= 0; rank -= 1) {
    cells.push(h("span", { class: "coord rank" }, String(rank + 1)));
    for (let file = 0; file < 8; file += 1) {
      const sq = rank * 8 + file;
      const name = `${FILES[file]}${rank + 1}`;
      const { value = null, tint = value, text = "", title = "", glyph = null } = cellOf(sq, name);
      const dataset = { square: name };
      if (value !== null) dataset.cp = String(value);
      const cell = h(
        "span",
        { class: `cell ${(rank + file) % 2 ? "light" : "dark"}`, dataset, title },
        glyph ? h("span", { class: "glyph" }, glyph) : null,
        text ? h("span", { class: "val" }, text) : null,
      );
      if (value === null) cell.classList.add("none");
      else {
        cell.style.setProperty("--heat", Math.min(1, Math.abs(tint) / scale).toFixed(3)); // CSSOM: allowed by the CSP
        cell.classList.add(tint >= 0 ? "pos" : "neg");
      }
      cells.push(cell);
    }
  }
  cells.push(h("span", { class: "coord" }), ...FILES.split("").map((f) => h("span", { class: "coord file" }, f)));
  map.replaceChildren(...cells);
}

/** A heat map of one value per square (null: none), tinted by each value's difference
 * from `centre` (green above, red below), its legend (`.neg`, `.pos` inside `legend`) set
 * to `centre` ± the largest difference; returns that difference. */
export function drawHeatmap(map, legend, values, centre = 0) {
  const scale = scaleOf(values.map((v) => (v === null ? null : v - centre)));
  drawBoard(
    map,
    (sq, name) => {
      const v = values[sq];
      return v === null ? { title: `${name}: not probed` } : { value: v, tint: v - centre, text: cpText(v), title: `${name}: ${cpText(v)} cp` };
    },
    scale,
  );
  setText(legend.querySelector(".neg"), cpText(centre - scale));
  setText(legend.querySelector(".pos"), cpText(centre + scale));
  return scale;
}
