// The tree view: the most visited part of the live search tree, laid out by
// d3-hierarchy (tidy, root on the left, or radial), node area following the
// visits, colour following Q for White, edges labelled with the move (SAN).
// Zoom and pan with d3-zoom. It keeps up with a running search by updating
// the SVG elements in place, keyed by node id (new nodes are added, vanished
// ones removed, the rest only get the attributes that changed), and it is
// only ever drawn from the page's one redraw per animation frame.

import { hierarchy, select, tree as d3tree, zoom, zoomIdentity } from "/static/vendor/d3.js";
import { h } from "./dom.js";
import { count, fixed, qColor } from "./notation.js";

const SVG = "http://www.w3.org/2000/svg";
const LEVEL = { down: 95, right: 130 }; // tidy layouts: distance between depths
const GAP = 3; // tidy layouts: least space between neighbouring nodes' circles
const R_MIN = 2.5;
const LABEL_PX = 7.2; // width of one label character on screen (labels keep their size when zooming)
const LABEL_FONT = 12; // label size on screen, px (×1.25 in large type)
const MIN_SCALE = { down: 0.12, right: 0.12, radial: 0.1 }; // a bigger tree is shown in part at this scale
const STROKE_PX = 3; // room for a circle's outline beyond its radius (highlights are thick)

/** Stats frames carry the tree as row objects, or arrays in `tree_fields` order. */
export function decodeTree(frame) {
  if (!frame || !Array.isArray(frame.tree)) return [];
  const fields = frame.tree_fields;
  if (!fields) return frame.tree;
  return frame.tree.map((row) => {
    const node = {};
    fields.forEach((f, i) => {
      node[f] = row[i];
    });
    node.terminal = !!node.terminal;
    return node;
  });
}

/** [most, 2nd, 3rd, 4th, …] → [… 4th, 2nd, most, 3rd, …]: the main line down the middle. */
function centreOut(sorted) {
  const out = [];
  sorted.forEach((item, i) => {
    if (i % 2 === 0) out.push(item);
    else out.unshift(item);
  });
  return out;
}

/**
 * A d3 hierarchy from the flat, parents-first node list. Children are ordered by
 * visits, most visited in the middle (`centred`, the tidy layouts: the principal
 * line runs straight down the middle) or first (radial).
 */
function buildHierarchy(nodes, { centred = false } = {}) {
  if (!nodes.length) return null;
  const byId = new Map();
  for (const n of nodes) byId.set(n.id, { data: n, children: [] });
  let root = null;
  for (const n of nodes) {
    const item = byId.get(n.id);
    const parent = byId.get(n.parent);
    if (parent) parent.children.push(item);
    else if (!root) root = item;
  }
  if (!root) return null;
  const order = (kids) => {
    const sorted = kids.sort((a, b) => b.data.visits - a.data.visits || a.data.id - b.data.id);
    return centred ? centreOut(sorted) : sorted;
  };
  return hierarchy(root, (d) => (d.children.length ? order(d.children) : null));
}

function svgEl(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

function setAttr(el, name, value) {
  const v = String(value);
  if (el.getAttribute(name) !== v) el.setAttribute(name, v);
}

export const LAYOUTS = [
  ["down", "top-down"],
  ["right", "left to right"],
  ["radial", "radial"],
];

/**
 * `qLabel(node, depth)`: Q with its point of view for the tooltip (the page knows the
 * game's side names and the root's side to move; the view does not).
 */
export function createTreeView(container, { onSelect, layout = "down", labels = true, tooltip = true, qLabel = null } = {}) {
  const svg = svgEl("svg", { class: "tree-svg", role: "img", "aria-label": "Search tree" });
  const viewport = svgEl("g", { class: "viewport" });
  const linkLayer = svgEl("g", { class: "links" });
  const nodeLayer = svgEl("g", { class: "nodes" });
  const labelLayer = svgEl("g", { class: "labels" });
  viewport.append(linkLayer, nodeLayer, labelLayer);
  svg.append(viewport);
  const tip = h("div", { class: "tree-tip", hidden: true, role: "tooltip" });
  container.append(svg);
  if (tooltip) container.append(tip);

  const items = new Map(); // id → {g, circle, label, node, …}
  const links = new Map(); // "width|lit" → {el: <path>, parts: [segments]}
  let mode = LAYOUTS.some(([k]) => k === layout) ? layout : "down";
  let autoFit = true;
  let transform = zoomIdentity;
  let bounds = null;
  // What fitting must keep in view: for each node its circle and its label, as
  // [x0, x1, y0, y1, left, right, up, down] — a box in tree units, then how many screen
  // pixels reach beyond it on each side (labels keep their size whatever the zoom).
  let boxes = [];
  let viewW = 600; // the view's size in px, as last measured (labels are hidden at its edges)
  let viewH = 400;
  let rootPoint = [0, 0];
  let lastKey = null;
  let model = null;
  let order = []; // items by label priority (selected/highlighted first, then visits)
  let renderedMode = null;
  let pending = null; // a newer tree waiting for its turn (see render)
  let timer = null;
  let lastDraw = 0;
  let inset = 0; // px on the right that a card covers: fitting and revealing use the rest

  const zoomer = zoom()
    .scaleExtent([0.05, 6])
    .on("zoom", (event) => {
      const rescaled = event.transform.k !== transform.k;
      transform = event.transform;
      viewport.setAttribute("transform", transform.toString());
      if (rescaled) applyScale();
      else showLabels();
      if (event.sourceEvent) autoFit = false; // the user moved the view: stop following
    });

  /**
   * Labels keep their screen size whatever the zoom, so which ones fit depends on
   * it: in the tidy layouts they are placed greedily, the selected and highlighted
   * nodes first, then by visits, each only if it does not overlap a label already
   * placed at the same depth; radial labels need room to their neighbours. A placed
   * label is shown only while it lies wholly inside the view (see showLabels).
   */
  function applyScale() {
    const k = transform.k;
    svg.style.setProperty("--k", String(k));
    if (!labels) return;
    const rows = new Map();
    for (const item of order) {
      const d = item.node;
      let show;
      if (!d || !d.parent) show = false;
      else if (mode === "radial") show = item.forced || item.room * k >= item.need;
      else {
        const c = (mode === "down" ? d.px : d.py) * k;
        const span = mode === "down" ? [c - item.need / 2 - 2, c + item.need / 2 + 2] : [c - 15, c + 3];
        let row = rows.get(d.depth);
        if (!row) rows.set(d.depth, (row = []));
        show = item.forced || !row.some(([a, b]) => span[0] < b && a < span[1]);
        if (show) row.push(span);
      }
      item.placed = show;
    }
    showLabels();
  }

  /** The placed labels that lie wholly inside the view: none is ever drawn cut in half. */
  function showLabels() {
    if (!labels) return;
    const { x: tx, y: ty, k } = transform;
    for (const item of order) {
      let show = item.placed;
      if (show) {
        const [lx, ly, left, right, up, down] = item.box;
        const x = tx + lx * k;
        const y = ty + ly * k;
        show = x - left >= 0 && x + right <= viewW && y - up >= 0 && y + down <= viewH;
      }
      if (item.shown !== show) {
        item.shown = show;
        item.label.classList.toggle("off", !show);
      }
    }
  }
  select(svg).call(zoomer).on("dblclick.zoom", null);

  svg.addEventListener("click", (event) => {
    const g = event.target.closest && event.target.closest("g.tnode");
    if (g && onSelect) onSelect(Number(g.dataset.id));
  });
  svg.addEventListener("pointermove", (event) => {
    if (!tooltip) return;
    const g = event.target.closest && event.target.closest("g.tnode");
    const item = g ? items.get(Number(g.dataset.id)) : null;
    if (!item) {
      tip.hidden = true;
      return;
    }
    showTip(item, event);
  });
  svg.addEventListener("pointerleave", () => {
    tip.hidden = true;
  });

  function showTip(item, event) {
    const d = item.node; // a d3 node; d.data is {data: the tree node, children}
    const line = d
      .ancestors()
      .reverse()
      .slice(1)
      .map((a) => a.data.data.san)
      .join(" ");
    const n = d.data.data;
    const parentVisits = d.parent ? d.parent.data.data.visits : null;
    // (replaceChildren writes a null as the text "null": the lines left out are dropped.)
    const lines = [
      h("strong", {}, line || "the root position"),
      h("span", {}, `N ${count(n.visits)}${parentVisits ? ` (${((100 * n.visits) / Math.max(1, parentVisits)).toFixed(1)}% of its parent)` : ""}`),
      d.parent ? h("span", {}, `Q ${qLabel ? qLabel(n, d.depth) : `${fixed(n.q_white)} for White`}`) : null,
      n.terminal ? h("span", {}, "game over here") : null,
      h("span", { class: "hint" }, "click for details"),
    ];
    tip.replaceChildren(...lines.filter(Boolean));
    const box = container.getBoundingClientRect();
    tip.hidden = false;
    const x = Math.min(event.clientX - box.left + 14, box.width - tip.offsetWidth - 4);
    const y = Math.min(event.clientY - box.top + 14, box.height - tip.offsetHeight - 4);
    tip.style.left = `${Math.max(4, x)}px`;
    tip.style.top = `${Math.max(4, y)}px`;
  }

  function radius(visits, rootVisits, rMax) {
    if (!visits) return R_MIN;
    return R_MIN + (rMax - R_MIN) * Math.sqrt(visits / Math.max(1, rootVisits));
  }

  function layoutTree(root) {
    const rootVisits = root.data.data.visits || 1;
    const rMax = mode === "radial" ? 22 : 34;
    const r = new Map();
    root.each((d) => r.set(d, radius(d.data.data.visits, rootVisits, rMax)));
    if (mode === "radial") {
      const depth = Math.max(1, root.height);
      const R = Math.max(220, depth * 95, Math.sqrt(root.leaves().length) * 34);
      d3tree()
        .size([2 * Math.PI, R])
        .separation((a, b) => ((a.parent === b.parent ? 1 : 2) / Math.max(1, a.depth)) * (1 + (r.get(a) + r.get(b)) / 24))(root);
      root.each((d) => {
        const angle = d.x - Math.PI / 2;
        d.px = d.y * Math.cos(angle);
        d.py = d.y * Math.sin(angle);
        d.angle = angle;
      });
    } else {
      // Sibling spacing in pixels from the two circles, so small leaves pack tightly
      // and the big, much-visited nodes get room.
      d3tree()
        .nodeSize([1, LEVEL[mode]])
        .separation((a, b) => r.get(a) + r.get(b) + (a.parent === b.parent ? GAP : 2 * GAP))(root);
      // A wide, shallow tree (chess: ~30 moves a position) would leave most of the
      // view empty: stretch the levels so that, fitted, it fills the view's shape.
      let lo = Infinity;
      let hi = -Infinity;
      root.each((d) => {
        lo = Math.min(lo, d.x);
        hi = Math.max(hi, d.x);
      });
      measure();
      const w = freeWidth(); // the part of the view a card leaves free: the fit's shape
      const hgt = viewH;
      const levels = Math.max(1, root.height);
      const aspect = mode === "down" ? hgt / w : w / hgt;
      const stretch = Math.min(4, Math.max(1, ((hi - lo) * aspect) / (levels + 0.6) / LEVEL[mode]));
      root.each((d) => {
        d.y *= stretch;
        d.px = mode === "down" ? d.x : d.y;
        d.py = mode === "down" ? d.y : d.x;
      });
    }
    // Room for each label: the distance to the nearest neighbour at the same depth.
    const rows = new Map();
    root.each((d) => {
      if (!rows.has(d.depth)) rows.set(d.depth, []);
      rows.get(d.depth).push(d);
    });
    for (const row of rows.values()) {
      const pos = (d) => (mode === "radial" ? d.x * d.y : mode === "down" ? d.px : d.py);
      row.sort((a, b) => pos(a) - pos(b));
      row.forEach((d, i) => {
        const left = i > 0 ? pos(d) - pos(row[i - 1]) : Infinity;
        const right = i < row.length - 1 ? pos(row[i + 1]) - pos(d) : Infinity;
        d.room = mode === "right" ? Math.min(left, right) * 2.2 : Math.min(left, right) * 1.6;
      });
    }
    return { r, rootVisits };
  }

  /**
   * Draw `m` = {key, nodes, selected, highlight: {path, fresh, back}}; a no-op when
   * unchanged. A big tree that only grew is redrawn at most every `pace(n)` ms (the
   * rest of the page keeps its 10 Hz): drawing 500 nodes costs far more than a table,
   * and the browser usually shares the machine with the search. The latest tree is
   * always drawn in the end, on an animation frame.
   */
  function render(m) {
    if (model && m.nodes === model.nodes && m.selected === model.selected && m.highlight === model.highlight && m.key === model.key && mode === renderedMode) return;
    const onlyGrew = model && m.key === model.key && m.selected === model.selected && m.highlight === model.highlight && mode === renderedMode;
    const wait = onlyGrew ? lastDraw + pace(m.nodes.length) - performance.now() : 0;
    if (wait > 0) {
      pending = m;
      if (!timer) timer = setTimeout(() => requestAnimationFrame(drawPending), wait);
      return;
    }
    draw(m);
  }

  function drawPending() {
    timer = null;
    if (pending) draw(pending);
  }

  function pace(n) {
    return n <= 100 ? 0 : n <= 200 ? 150 : n <= 300 ? 250 : 400;
  }

  function draw(m) {
    pending = null;
    lastDraw = performance.now();
    renderedMode = mode;
    model = m;
    const nodes = m.nodes || [];
    const root = buildHierarchy(nodes, { centred: mode !== "radial" });
    svg.classList.toggle("empty", !root);
    if (!root) {
      for (const item of items.values()) removeItem(item);
      items.clear();
      return;
    }
    const { r, rootVisits } = layoutTree(root);
    const seen = new Set();
    const hl = m.highlight || {};
    const scale = document.documentElement.classList.contains("large") ? 1.25 : 1;
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    boxes = [];
    root.each((d) => {
      const n = d.data.data;
      seen.add(n.id);
      let item = items.get(n.id);
      if (!item) item = createItem(n.id);
      item.node = d;
      const rad = Math.round(r.get(d) * 2) / 2; // half-unit steps: fewer attribute changes
      const x = d.px;
      const y = d.py;
      minX = Math.min(minX, x - rad);
      maxX = Math.max(maxX, x + rad);
      minY = Math.min(minY, y - rad);
      maxY = Math.max(maxY, y + rad);
      boxes.push([x - rad, x + rad, y - rad, y + rad, STROKE_PX, STROKE_PX, STROKE_PX, STROKE_PX]);
      setAttr(item.g, "transform", `translate(${x.toFixed(1)},${y.toFixed(1)})`);
      setAttr(item.circle, "r", rad.toFixed(1));
      setAttr(item.circle, "fill", d.parent ? qColor(n.q_white) : "#ffffff");
      const cls = [
        "tnode",
        d.parent ? "" : "root",
        n.visits ? "" : "unvisited",
        n.terminal ? "terminal" : "",
        n.id === m.selected ? "selected" : "",
        hl.path && hl.path.has(n.id) ? "hl-path" : "",
        hl.fresh && hl.fresh.has(n.id) ? "hl-fresh" : "",
        hl.back && hl.back.has(n.id) ? "hl-back" : "",
        n.visits >= rootVisits * 0.04 || d.depth <= 1 ? "major" : "",
      ]
        .filter(Boolean)
        .join(" ");
      setAttr(item.g, "class", cls);
      if (d.parent) {
        const px = d.parent.px;
        const py = d.parent.py;
        let path;
        if (mode === "radial") path = `M${px.toFixed(1)},${py.toFixed(1)}L${x.toFixed(1)},${y.toFixed(1)}`;
        else {
          const mx = ((px + x) / 2).toFixed(1);
          path = `M${px.toFixed(1)},${py.toFixed(1)}C${mx},${py.toFixed(1)} ${mx},${y.toFixed(1)} ${x.toFixed(1)},${y.toFixed(1)}`;
        }
        // Edges are drawn in a few <path>s, one per stroke width (their width follows the
        // visits): hundreds of edges cost the browser a handful of elements to style.
        const width = Math.round((1 + 7 * Math.sqrt(n.visits / Math.max(1, rootVisits))) * 2) / 2;
        const lit = cls.includes("hl-path") || cls.includes("hl-back");
        bucket(width, lit).push(path);
        if (labels) {
          let lx;
          let ly;
          let anchor;
          if (mode === "radial") {
            const out = rad + 3;
            lx = x + out * Math.cos(d.angle);
            ly = y + out * Math.sin(d.angle) + 4;
            anchor = Math.cos(d.angle) < -0.2 ? "end" : Math.cos(d.angle) > 0.2 ? "start" : "middle";
          } else if (mode === "down") {
            lx = x;
            ly = y - rad - 3;
            anchor = "middle";
          } else {
            lx = x - rad - 4;
            ly = y - 5;
            anchor = "end";
          }
          item.room = d.room;
          item.need = (mode === "right" ? 14 : n.san.length * LABEL_PX + 6) * scale;
          // The label on screen: its anchor (tree units), then px left, right, up and down of it.
          const text = n.san.length * LABEL_PX * scale + 2;
          const left = anchor === "end" ? text : anchor === "middle" ? text / 2 : 2;
          const right = anchor === "start" ? text : anchor === "middle" ? text / 2 : 2;
          item.box = [lx, ly, left, right, (LABEL_FONT + 1) * scale, 4 * scale];
          boxes.push([lx, lx, ly, ly, left, right, item.box[4], item.box[5]]);
          item.forced = n.id === m.selected || cls.includes("hl-");
          setAttr(item.label, "x", lx.toFixed(1));
          setAttr(item.label, "y", ly.toFixed(1));
          setAttr(item.label, "text-anchor", anchor);
          setAttr(item.label, "class", `tlabel${cls.includes("hl-") ? " hl" : ""}${n.id === m.selected ? " selected" : ""}${item.shown === false ? " off" : ""}`);
          if (item.label.textContent !== n.san) item.label.textContent = n.san;
        }
      } else {
        rootPoint = [x, y];
        if (labels && item.label.textContent !== "") item.label.textContent = "";
      }
    });
    for (const [id, item] of items) {
      if (!seen.has(id)) {
        removeItem(item);
        items.delete(id);
      }
    }
    for (const [k, b] of links) {
      if (b.parts.length) {
        setAttr(b.el, "d", b.parts.join(""));
        b.parts = [];
      } else {
        b.el.remove();
        links.delete(k);
      }
    }
    bounds = { minX, minY, maxX, maxY };
    order = [...items.values()].sort((a, b) => b.forced - a.forced || b.node.data.data.visits - a.node.data.data.visits);
    applyScale();
    const key = m.key || "";
    if (key !== lastKey) {
      lastKey = key;
      autoFit = true;
    }
    if (autoFit) fit(false);
  }

  function createItem(id) {
    const g = svgEl("g", { class: "tnode", "data-id": id });
    const circle = svgEl("circle", { r: R_MIN });
    g.append(circle);
    const label = svgEl("text", { class: "tlabel" });
    nodeLayer.append(g);
    if (labels) labelLayer.append(label);
    const item = { g, circle, label, node: null, room: Infinity, need: 0, forced: false, placed: false, shown: undefined, box: [0, 0, 0, 0, 0, 0] };
    items.set(id, item);
    return item;
  }

  function removeItem(item) {
    item.g.remove();
    item.label.remove();
  }

  /** The edge segments of one stroke width (and highlight) for this draw. */
  function bucket(width, lit) {
    const k = `${width}|${lit ? 1 : 0}`;
    let b = links.get(k);
    if (!b) {
      const el = svgEl("path", { class: lit ? "tlink hl" : "tlink", "stroke-width": width });
      if (lit) linkLayer.append(el);
      else linkLayer.prepend(el); // highlighted edges on top
      b = { el, parts: [] };
      links.set(k, b);
    }
    return b.parts;
  }

  /**
   * Fit the whole tree in view, labels included (never larger than 1.6×); `user`: also
   * resume following. Labels keep their screen size, so the room the tree needs is not its
   * bounds times the scale: `span(k)` measures it at scale k, and the largest k that fits
   * is found by bisection.
   */
  function fit(user = true) {
    if (user) autoFit = true;
    if (!bounds) return;
    measure();
    const w = freeWidth();
    const hgt = viewH;
    const pad = 16;
    const fits = (k) => {
      const [x0, x1] = span(k, 0);
      const [y0, y1] = span(k, 1);
      return x1 - x0 <= w - 2 * pad && y1 - y0 <= hgt - 2 * pad;
    };
    let k = 1.6;
    if (!fits(k)) {
      let lo = 0;
      let hi = k;
      for (let i = 0; i < 20; i += 1) {
        const mid = (lo + hi) / 2;
        if (fits(mid)) lo = mid;
        else hi = mid;
      }
      k = lo;
    }
    let tx;
    let ty;
    const minK = MIN_SCALE[mode];
    if (k < minK) {
      // Too big to read whole: readable scale, the root and its best lines in view (the
      // labels that would be cut at the view's edges are hidden, see showLabels).
      k = minK;
      if (mode === "radial") {
        tx = w / 2 - rootPoint[0] * k;
        ty = hgt / 2 - rootPoint[1] * k;
      } else if (mode === "down") {
        tx = w / 2 - rootPoint[0] * k;
        ty = pad + 16 - bounds.minY * k;
      } else {
        tx = pad - bounds.minX * k;
        ty = hgt / 2 - rootPoint[1] * k;
      }
    } else {
      const [x0, x1] = span(k, 0);
      const [y0, y1] = span(k, 1);
      tx = (w - (x1 - x0)) / 2 - x0;
      ty = (hgt - (y1 - y0)) / 2 - y0;
    }
    // Following a growing tree, skip changes too small to see: a new scale restyles
    // every label, which is the costliest part of a redraw.
    const same = Math.abs(k / transform.k - 1) < 0.03 && Math.abs(tx - transform.x) < 6 && Math.abs(ty - transform.y) < 6;
    if (!user && same) return;
    select(svg).call(zoomer.transform, zoomIdentity.translate(tx, ty).scale(k));
  }

  /** [least, greatest] screen coordinate (before panning) of all that is drawn, at scale `k`: axis 0 = x, 1 = y. */
  function span(k, axis) {
    const a = 2 * axis;
    let lo = Infinity;
    let hi = -Infinity;
    for (const b of boxes) {
      lo = Math.min(lo, b[a] * k - b[a + 4]);
      hi = Math.max(hi, b[a + 1] * k + b[a + 5]);
    }
    return [lo, hi];
  }

  function measure() {
    viewW = svg.clientWidth || container.clientWidth || 600;
    viewH = svg.clientHeight || container.clientHeight || 400;
  }

  function freeWidth() {
    const w = viewW;
    return Math.max(Math.min(w, 160), w - inset);
  }

  /**
   * Keep clear of a card over the view's right-hand `px`: the tree is fitted to the
   * rest (while following), or else the selected node is brought out from under it.
   */
  function setInset(px) {
    if (Math.abs(px - inset) < 1) return;
    inset = px;
    // Following, the tree is laid out again: a tidy layout stretches its levels to the
    // shape of the free part.
    if (autoFit && model && mode !== "radial") draw(pending || model);
    else if (autoFit) fit(false);
    if (model && model.selected !== null && model.selected !== undefined) reveal(model.selected);
  }

  /** Pan (no zoom) so node `id` is in the free part of the view, if it is not already. */
  function reveal(id) {
    const at = nodeScreen(id);
    if (!at) return;
    measure();
    const w = freeWidth();
    const hgt = viewH;
    const margin = 40;
    const dx = at[0] < margin || at[0] > w - margin ? w / 2 - at[0] : 0;
    const dy = at[1] < margin || at[1] > hgt - margin ? hgt / 2 - at[1] : 0;
    if (!dx && !dy) return;
    autoFit = false; // the view now shows what the user picked: Fit follows the tree again
    select(svg).call(zoomer.translateBy, dx / transform.k, dy / transform.k);
  }

  function zoomBy(factor) {
    autoFit = false;
    select(svg).call(zoomer.scaleBy, factor);
  }

  function setLayout(next) {
    if (next === mode) return;
    mode = next;
    autoFit = true;
    if (model) draw(model);
  }

  /** Screen position of a node, or null when not drawn. */
  function nodeScreen(id) {
    const item = items.get(id);
    if (!item || !item.node) return null;
    return transform.apply([item.node.px, item.node.py]);
  }

  return {
    render,
    fit,
    zoomBy,
    setLayout,
    setInset,
    reveal,
    get layout() {
      return mode;
    },
    get size() {
      return items.size;
    },
    svg,
  };
}
