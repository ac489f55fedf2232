// Threads: root parallelism made visible. Each thread searches its own tree
// from the same root; the engine merges the root moves by adding their visits
// and rewards. This view puts each thread's own root table beside the merged
// one, and draws every merged move's visits as a bar split by thread, so the
// merge can be read off the screen.

import { h, setText } from "./dom.js";
import { count, fixed, percent, SERIES } from "./notation.js";
import { capabilities } from "./state.js";

const ROWS = 10;

export function createThreadsView(container, { useThreads } = {}) {
  const intro = h("p", { class: "lede" });
  const empty = h("div", { class: "empty" });
  const legend = h("div", { class: "thread-legend" });
  const table = h("table", { class: "threads-table" });
  const notes = h("p", { class: "hint" });
  container.replaceChildren(intro, empty, legend, h("div", { class: "threads-scroll" }, table), notes);
  let drawnSeq = null;

  function render(s) {
    const stats = s.stats;
    const threads = stats ? stats.thread_stats || [] : [];
    const configured = s.game ? s.game.settings.threads : 1;
    const has = threads.length > 1;
    empty.hidden = has;
    legend.hidden = !has;
    table.hidden = !has;
    if (!has) {
      setText(intro, "Root parallelism runs several independent searches of the same position, one per thread, and merges their root moves.");
      const algo = s.game ? s.game.settings.algorithm : "";
      const maxThreads = s.limits ? s.limits.threads.max : 1;
      const player = !!(s.game && s.game.role === "player" && s.conn === "open");
      const parallel = !algo || capabilities(s, algo).threads; // root parallelism applies
      const offer = useThreads && player && parallel && configured === 1 && maxThreads > 1;
      empty.replaceChildren(
        h(
          "p",
          {},
          !parallel
            ? `${algo} runs on one thread here, so there is nothing to merge.`
            : configured > 1
              ? `This game uses ${configured} threads: start or step a search to see each thread's table and the merge.`
              : "This game searches with one thread. Set Threads to 2 or more in the Engine card (and Apply) to watch the threads and the merge.",
        ),
        offer
          ? h("button", { type: "button", class: "primary", id: "use-threads", onclick: () => useThreads(Math.min(2, maxThreads)) }, `Search with ${Math.min(2, maxThreads)} threads`)
          : null,
      );
      setText(notes, "");
      drawnSeq = null;
      return;
    }
    if (drawnSeq === stats.seq) return;
    drawnSeq = stats.seq;
    setText(intro, `${threads.length} threads, each with its own tree from the same root. The merged table adds each move's visits over the threads; its Q is the total reward over the total visits.`);
    legend.replaceChildren(
      ...threads.map((t, i) =>
        h("span", { class: "thread-key" }, swatch(i), `thread ${t.thread}: ${count(t.iterations)} iterations, ${count(t.nodes)} nodes, best ${t.moves[0] ? t.moves[0].san : "–"}`),
      ),
    );
    const perThread = threads.map((t) => new Map(t.moves.map((m, rank) => [m.move, { ...m, rank }])));
    const rows = stats.moves.slice(0, ROWS);
    const maxVisits = Math.max(1, ...rows.map((m) => m.visits));
    const head = h(
      "tr",
      {},
      h("th", {}, "Move"),
      h("th", { class: "num" }, "merged N"),
      h("th", { class: "num" }, "merged Q"),
      threads.map((t, i) => h("th", { class: "num thread-col" }, swatch(i), ` thread ${t.thread} N / Q`)),
      h("th", { class: "bar-col" }, "visits by thread"),
    );
    const body = rows.map((m) => {
      const cells = threads.map((t, i) => {
        const own = perThread[i].get(m.move);
        const best = own && own.rank === 0;
        return h(
          "td",
          { class: `num${best ? " thread-best" : ""}`, title: best ? `thread ${t.thread}'s own best move` : "" },
          own ? `${count(own.visits)} / ${fixed(own.q, 3)}` : "–",
        );
      });
      const bar = h("div", { class: "merge-bar", "aria-label": `${m.san}: visits by thread` });
      threads.forEach((t, i) => {
        const own = perThread[i].get(m.move);
        if (!own || !own.visits) return;
        const seg = h("span", { class: `seg t${i % SERIES.length}`, title: `thread ${t.thread}: ${count(own.visits)} visits` });
        seg.style.width = `${(100 * own.visits) / maxVisits}%`;
        bar.append(seg);
      });
      return h(
        "tr",
        { class: m.move === stats.bestmove ? "best" : "" },
        h("td", { class: "san" }, m.san),
        h("td", { class: "num" }, `${count(m.visits)} (${percent(m.share, 0)})`),
        h("td", { class: "num" }, fixed(m.q, 3)),
        cells,
        h("td", { class: "bar-col" }, bar),
      );
    });
    table.replaceChildren(h("thead", {}, head), h("tbody", {}, body));
    const bests = new Set(threads.map((t) => (t.moves[0] ? t.moves[0].move : null)).filter(Boolean));
    setText(
      notes,
      bests.size > 1
        ? `The threads disagree on their best move (${[...bests].length} different choices): the merge settles it — ${rows[0] ? rows[0].san : "–"} for the merged table.`
        : "Every thread's own best move agrees with the merged choice.",
    );
  }

  return { render };
}

function swatch(i) {
  return h("span", { class: `swatch-dot t${i % SERIES.length}`, "aria-hidden": "true" });
}
