// Sharing a game with a class: the Share dialog (the spectator link as text and as a
// QR code) and copying text (links, PGN, FEN) wherever the page is served.
//
// A class often runs on plain http over the room's network (http://192.168.1.20:8000).
// That is no secure context, so navigator.clipboard does not exist there: the link is
// therefore always shown, selectable, and as a QR code a phone's camera reads; copying
// is a bonus that falls back to the older copy command and, failing that, selects the
// text and asks for Ctrl+C.

import { encode } from "/static/vendor/qr.js";
import { $, h, setText, toast } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1|.+\.localhost)$/i;
const COPY_KEY = /Mac|iPhone|iPad/.test(navigator.platform || "") ? "⌘C" : "Ctrl+C";

/** Whether this page was opened on the teacher's own machine (students cannot use that host). */
export function onLoopback(loc = location) {
  return LOOPBACK.test(loc.hostname);
}

/** The QR code of `text` as an SVG element: one path of dark modules, crisp at any size. */
export function qrSvg(text) {
  const { data, size } = encode(text, { ecc: "M", border: 2 });
  let d = "";
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    });
  });
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("shape-rendering", "crispEdges");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `QR code: ${text}`);
  const back = document.createElementNS(SVG, "rect");
  back.setAttribute("width", String(size));
  back.setAttribute("height", String(size));
  back.setAttribute("fill", "#fff");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000");
  svg.append(back, path);
  return svg;
}

/** Copy `text`; true when it reached the clipboard. Never throws. */
async function toClipboard(text) {
  if (window.isSecureContext && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // refused (permissions, no focus): try the older way
    }
  }
  const area = h("textarea", { class: "copy-scratch", readonly: true, "aria-hidden": "true" });
  area.value = text;
  (document.querySelector("dialog[open]") || document.body).append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/**
 * Copy `text`, named `what` in messages ("PGN", "FEN", "Spectator link"). Where the browser
 * refuses, the text is shown selected in a dialog with "press Ctrl+C" — nothing is lost.
 */
export async function copyText(text, what) {
  if (await toClipboard(text)) {
    toast(`${what} copied to the clipboard.`, "info", 2500);
    return true;
  }
  const dialog = $("copy-dialog");
  setText($("copy-title"), `Copy the ${what.toLowerCase()}`);
  setText(
    $("copy-hint"),
    `This browser does not let the page copy here (the page is not on https or localhost). The ${what.toLowerCase()} is selected below: press ${COPY_KEY} to copy it.`,
  );
  const area = $("copy-text");
  area.value = text;
  if (!dialog.open) dialog.showModal();
  area.focus();
  area.select();
  return false;
}

let room = null; // GET /api/room ({urls, bind}) once fetched

async function fetchRoom() {
  if (room) return room;
  try {
    const res = await fetch("/api/room");
    room = res.ok ? await res.json() : { urls: [], bind: null };
  } catch {
    room = { urls: [], bind: null };
  }
  return room;
}

/**
 * The origins other devices can open this server at (`/api/room` when this page is on
 * localhost, which they cannot reach), with a note ({kind, text}) saying why, or null.
 */
export async function shareOrigins() {
  if (!onLoopback()) return { origins: [location.origin], note: null };
  const { urls } = await fetchRoom();
  if (urls.length) {
    return {
      origins: urls,
      note: { kind: "info", text: "This page is open on this machine's own address, which other devices cannot reach: the link uses its address on the network instead." },
    };
  }
  return {
    origins: [location.origin],
    note: { kind: "warn", text: "Other devices cannot open a link to this machine's own address (localhost). To let students in, stop the server and start it with: canopy serve --lan (or make run HOST=0.0.0.0)." },
  };
}

/** The Share dialog. `getGame()` gives the current game (or null). */
export function createShare({ getGame }) {
  const dialog = $("share-dialog");
  const input = $("share-url");
  const note = $("share-note");
  const others = $("share-others");

  function show(url) {
    input.value = url;
    $("share-qr").replaceChildren(qrSvg(url));
    dialog.dataset.url = url;
  }

  async function open() {
    const game = getGame();
    if (!game) {
      toast("Create a game first.", "error");
      return;
    }
    const path = `/games/${encodeURIComponent(game.id)}`;
    const { origins, note: said } = await shareOrigins();
    note.hidden = !said;
    note.dataset.kind = said ? said.kind : "info";
    setText(note, said ? said.text : "");
    others.hidden = true;
    show(origins[0] + path);
    if (origins.length > 1) {
      others.hidden = false;
      others.replaceChildren(
        h("span", { class: "hint" }, "Other addresses of this machine:"),
        ...origins.map((origin) =>
          h("button", { type: "button", class: "chip", onclick: () => show(origin + path) }, origin.replace(/^https?:\/\//, "")),
        ),
      );
    }
    if (!dialog.open) dialog.showModal();
    input.focus();
    input.select();
  }

  $("share-copy").addEventListener("click", async () => {
    if (await toClipboard(input.value)) {
      toast("Spectator link copied to the clipboard.", "info", 2500);
    } else {
      input.focus();
      input.select();
      note.hidden = false;
      note.dataset.kind = "info";
      setText(note, `The link is selected: press ${COPY_KEY} to copy it (this browser does not let the page copy on plain http).`);
    }
  });
  input.addEventListener("focus", () => input.select());

  return { open };
}
