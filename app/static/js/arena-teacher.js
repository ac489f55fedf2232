// The teacher's card on the arena's page (only in the browser that holds the arena's
// token): the link students open, as text and as a QR code a phone's camera reads; Start,
// Pause and End; a Remove button on each bot; the crosstable (CSV) and every game (PGN).

import { activeBots, api } from "./arena-data.js";
import { $, setText, toast } from "./dom.js";
import { copyText, qrSvg, shareOrigins } from "./share.js";

const enc = encodeURIComponent;

export function createTeacher({ arenaId, token, onChange }) {
  const card = $("teacher");
  card.hidden = false;
  let busy = false;
  let shownUrl = null;
  let refusal = null; // the server's answer to the last action, when it refused

  async function showLink() {
    const { origins, note } = await shareOrigins();
    const url = `${origins[0]}/arena/${enc(arenaId)}`;
    if (url !== shownUrl) {
      shownUrl = url;
      $("arena-url").value = url;
      $("arena-qr").replaceChildren(qrSvg(url));
    }
    const noteEl = $("arena-note");
    noteEl.hidden = !note;
    noteEl.dataset.kind = note ? note.kind : "info";
    setText(noteEl, note ? note.text : "");
  }

  async function act(action) {
    if (busy) return;
    busy = true;
    onChange();
    try {
      await api("POST", `/api/arenas/${enc(arenaId)}/${action}?token=${enc(token)}`);
      refusal = null;
    } catch (e) {
      refusal = e.message;
      toast(e.message, "error");
    } finally {
      busy = false;
      onChange();
    }
  }

  async function remove(bot) {
    try {
      await api("DELETE", `/api/arenas/${enc(arenaId)}/bots/${enc(bot.id)}?token=${enc(token)}`);
      toast(`${bot.name} is removed.`, "info", 2500);
    } catch (e) {
      toast(e.message, "error");
    }
  }

  function render(arena) {
    const state = arena.state;
    const enough = activeBots(arena).length >= 2;
    $("btn-start").disabled = busy || !(state === "paused" || (state === "open" && enough));
    setText($("btn-start"), state === "paused" ? "Resume" : "Start");
    $("btn-start").title = state === "open" && !enough ? "At least two bots must join first" : "Pair the bots and play every game";
    $("btn-pause").disabled = busy || state !== "running";
    $("btn-end").disabled = busy || state === "finished" || state === "open";
    const hint = {
      open: enough ? "" : "Waiting for at least two bots.",
      paused: "Paused: Resume plays on.",
      finished: "The arena is over: the standings are final.",
    }[state];
    setText($("teacher-msg"), refusal || hint || "");
  }

  $("btn-start").addEventListener("click", () => act("start"));
  $("btn-pause").addEventListener("click", () => act("pause"));
  $("btn-end").addEventListener("click", () => act("end"));
  $("arena-copy").addEventListener("click", () => copyText($("arena-url").value, "Arena link"));
  $("arena-url").addEventListener("focus", () => $("arena-url").select());
  $("export-csv").href = `/api/arenas/${enc(arenaId)}/crosstable.csv`;
  $("export-pgn").href = `/api/arenas/${enc(arenaId)}/pgn`;
  showLink();

  return { render, remove };
}
