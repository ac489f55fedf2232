// Node details: what the tree view shows about a clicked node. The numbers
// the stats frame carries (N, Q) appear at once; the server's `node` frame
// adds the node's position (drawn on a small read-only board), its eval, its
// selection formula as the parent sees it, its own PV and every child's
// formula. Children and the parent are links, so a learner can walk the tree.

import { BRUSHES, pvShapes } from "./arrows.js";
import { chessboard } from "./chessboard.js";
import { h, setText } from "./dom.js";
import { pairText } from "./evalpair.js";
import { count, fixed, formatLine, percent, signed } from "./notation.js";
import { opposite, proofText, sideName, turnOf } from "./state.js";

/** Who made the move into a node at `depth` below the root of `rootFen` (null: unknown, or the root). */
export function moverAt(rootFen, depth) {
  if (!rootFen || !depth) return null;
  const rootTurn = turnOf(rootFen);
  return depth % 2 === 1 ? rootTurn : opposite(rootTurn);
}

/**
 * Q with its point of view: always for White (the tree's colour scale), and for the
 * mover as well only when that is the other side, e.g. "0.229 for White · 0.771 for
 * Black, who moved here" — never the same number twice.
 */
export function qText(game, qWhite, q, mover) {
  const white = `${fixed(qWhite)} for ${sideName(game, "white")}`;
  if (!mover || mover === "white") return white;
  return `${white} · ${fixed(q)} for ${sideName(game, mover)}, who moved here`;
}

export function createNodeCard(container, { onSelect, onClose }) {
  const boardEl = h("div", { class: "mini-board" });
  const title = h("h3", { class: "node-title" });
  const facts = h("dl", { class: "node-facts" });
  const formula = h("p", { class: "node-formula" });
  const pv = h("p", { class: "node-pv" });
  const kids = h("div", { class: "node-children" });
  const up = h("button", { type: "button", class: "chip", title: "Select the parent node" }, "↑ parent");
  const close = h("button", { type: "button", class: "chip", "aria-label": "Close the node details" }, "✕");
  const status = h("span", { class: "hint node-status" });
  container.replaceChildren(
    h("div", { class: "node-head" }, title, h("span", { class: "node-actions" }, up, close)),
    h("div", { class: "node-grid" }, h("div", { class: "mini-wrap" }, boardEl, status), facts),
    formula,
    pv,
    kids,
  );
  // Made on first use: a chessground inside a hidden tab would be laid out at size 0.
  let cg = null;
  let parentId = null;
  up.addEventListener("click", () => parentId !== null && parentId >= 0 && onSelect(parentId));
  close.addEventListener("click", onClose);
  let lastBoard = "";

  /** `node`: the tree frame's entry; `info`: the server's node frame (may be stale or null). */
  function render({ node, info, game, rootFen, parentVisits, orientation, evalsOf = null }) {
    container.hidden = !node && !info;
    if (!node && !info) {
      container.dataset.info = "";
      return;
    }
    const id = node ? node.id : info.id;
    const fresh = info && info.id === id ? info : null;
    // Which node's details the card shows: the page state holds a node frame one
    // animation frame before the card draws it, so tests (and tools) wait on this.
    container.dataset.info = fresh ? String(fresh.id) : "";
    parentId = node ? node.parent : fresh ? fresh.parent : null;
    up.disabled = parentId === null || parentId < 0;
    const fen = fresh ? fresh.fen : null;
    const line = fresh ? formatLine(fresh.path_san, rootFen) : node && node.san ? `… ${node.san}` : "";
    setText(title, id === 0 ? "The root (the position on the board)" : line);
    const visits = fresh ? fresh.visits : node.visits;
    const q = fresh ? fresh.q : node.q;
    const qWhite = fresh ? fresh.q_white : node.q_white;
    const depth = fresh ? fresh.depth : node.depth;
    const moverColor = fresh && fresh.mover ? fresh.mover : moverAt(rootFen, depth);
    const mover = moverColor ? sideName(game, moverColor) : "the mover";
    const rows = [
      ["N (visits)", `${count(visits)}${parentVisits ? ` (${percent(visits / Math.max(1, parentVisits), 1)} of parent)` : ""}`],
    ];
    if (id !== 0) {
      rows.push(["Q", qText(game, qWhite, q, moverColor)]);
      // PUCT (mcts) ranks a node by its implicit minimax value, which its eval is.
      const evalLabel = fresh && fresh.selection && fresh.selection.rule === "puct" ? "minimax" : "eval";
      if (fresh) rows.push([evalLabel, `${signed(fresh.eval, 3)} for ${mover}`]);
    }
    if (fresh && evalsOf) {
      // Both static evaluations (the "hand · learned" toggle): the server's numbers are for
      // the side to move in the node's position; the card speaks for the mover (the root: the side to move).
      const both = evalsOf(fresh.fen);
      const sign = id === 0 ? 1 : -1;
      const whom = id === 0 ? sideName(game, turnOf(fresh.fen)) : mover;
      rows.push(["static eval", both && both.position ? `${pairText(both.position, sign)} for ${whom}` : both ? "–" : "…"]);
    }
    // The algorithm's own account of the node's scoring (mcts): rows its explainer wrote
    // for the mover as above (the root: the side to move), each a term, its value and
    // maybe a tooltip.
    const scoring = fresh && fresh.scoring ? fresh.scoring.prose || [] : [];
    rows.push(...scoring.slice(0, 1));
    rows.push(["depth", String(depth)]);
    if (fresh) {
      rows.push(["children", `${fresh.children_total}${fresh.legal_moves !== null ? ` of ${fresh.legal_moves} legal moves` : ""}`]);
      rows.push(...scoring.slice(1));
      if (fresh.terminal) rows.push(["game over", fresh.outcome > 0 ? `${mover} won` : fresh.outcome < 0 ? `${mover} lost` : "draw"]);
      else if (fresh.proof) rows.push(["proven", `${proofText(fresh)} for ${mover}`]);
    }
    facts.replaceChildren(...rows.flatMap(([k, v, tip]) => [h("dt", {}, k), h("dd", { title: tip }, v)]));
    const sel = fresh && fresh.selection;
    if (sel) {
      const c = sel.params.c ?? sel.params.C ?? sel.params.c_puct;
      const exploit = sel.exploit_label || "Q/N";
      formula.replaceChildren(
        h("span", { class: "hint" }, `${sel.formula} — as its parent sees it, for ${mover} (N_parent = ${count(sel.parent_visits)}${c !== undefined ? `, c = ${fixed(c, 2)}` : ""}):`),
        h("br"),
        ...(typeof sel.prior === "number" ? [h("span", { class: "hint" }, `prior P = ${fixed(sel.prior, 3)} (the move-ordering estimate, or a softmax of the scores its parent's expansion gave)`), h("br")] : []),
        sel.score === null
          ? h("strong", {}, "∞ — never visited, so it will be tried before any sibling is tried twice")
          : h("strong", {}, `${exploit} ${fixed(sel.exploit)} + explore ${fixed(sel.explore)} = ${fixed(sel.score)}`),
      );
    } else {
      formula.replaceChildren(id === 0 ? h("span", { class: "hint" }, "The root is where every iteration starts; its children are the moves in the table.") : h("span", { class: "hint" }, fresh ? "" : "loading the node's details…"));
    }
    if (fresh) {
      const line = formatLine(fresh.pv_san.slice(0, 16), fresh.fen);
      pv.replaceChildren(h("span", { class: "hint" }, "expected line from here: "), line || "— (no visited child yet)");
      kids.replaceChildren(
        h("p", { class: "hint" }, fresh.children.length ? `Children, most visited first: N · Q for ${sideName(game, turnOf(fresh.fen))} (click one to go down)` : ""),
        h(
          "div",
          { class: "child-chips" },
          fresh.children.slice(0, 12).map((k) =>
            h(
              "button",
              { type: "button", class: "chip child", dataset: { id: String(k.id) }, onclick: () => onSelect(k.id), title: k.score === null ? "unvisited: UCB ∞" : `score ${fixed(k.score)} = ${fixed(k.exploit)} + ${fixed(k.explore)}` },
              h("strong", {}, k.san),
              ` ${count(k.visits)} · ${fixed(k.q, 2)}`,
            ),
          ),
        ),
      );
    } else {
      pv.replaceChildren();
      kids.replaceChildren();
    }
    setText(status, fen ? `${sideName(game, turnOf(fen))} to move` : "");
    const key = `${fen}|${orientation}|${fresh ? fresh.pv.slice(0, 4).join() : ""}`;
    if (fen && key !== lastBoard && container.offsetParent !== null) {
      lastBoard = key;
      if (!cg) {
        cg = chessboard(boardEl, { viewOnly: true, coordinates: false, animation: { enabled: false }, drawable: { enabled: false, visible: true, brushes: BRUSHES } });
      }
      const last = fresh.path[fresh.path.length - 1];
      cg.set({ fen: fen.split(" ")[0], orientation, lastMove: last ? [last.slice(0, 2), last.slice(2, 4)] : undefined });
      cg.setAutoShapes(pvShapes(fresh.pv, { max: 4 }));
    }
  }

  return { render, redraw: () => cg && cg.redrawAll() };
}
