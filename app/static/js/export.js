// Export: the search tree (the top N nodes with every statistic) and the step
// trace log, as JSON files the browser downloads. Both come from the server
// (GET /api/games/{id}/tree and /steps, format in docs/protocol.md), so a file
// holds exactly what a script would get; the links only need the game id.

import { h } from "./dom.js";

const EXPORT_SIZES = [100, 500, 2000, 5000];

function treeUrl(gameId, nodes, { download = true } = {}) {
  const q = new URLSearchParams({ nodes: String(nodes) });
  if (download) q.set("download", "1");
  return `/api/games/${encodeURIComponent(gameId)}/tree?${q}`;
}

function stepsUrl(gameId, { download = true } = {}) {
  return `/api/games/${encodeURIComponent(gameId)}/steps${download ? "?download=1" : ""}`;
}

/** A "Download tree" link with a size choice; `getGameId` is read on every click. */
export function treeExportControl(getGameId) {
  const size = h("select", { class: "export-size", "aria-label": "Nodes to export" }, EXPORT_SIZES.map((n) => h("option", { value: String(n) }, `top ${n}`)));
  size.value = "500";
  const link = h("a", { class: "button", id: "export-tree", href: "#", download: "" }, "Export tree (JSON)");
  const sync = () => {
    const id = getGameId();
    link.href = id ? treeUrl(id, Number(size.value)) : "#";
    link.setAttribute("download", id ? `canopy-${id}-tree.json` : "");
  };
  size.addEventListener("change", sync);
  link.addEventListener("pointerdown", sync);
  link.addEventListener("focus", sync);
  return { root: h("span", { class: "export-control" }, link, size), sync };
}

export function stepsExportControl(getGameId) {
  const link = h("a", { class: "button", id: "export-steps", href: "#", download: "" }, "Export step log (JSON)");
  const sync = () => {
    const id = getGameId();
    link.href = id ? stepsUrl(id) : "#";
    link.setAttribute("download", id ? `canopy-${id}-steps.json` : "");
  };
  link.addEventListener("pointerdown", sync);
  link.addEventListener("focus", sync);
  return { root: link, sync };
}
