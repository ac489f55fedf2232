// The arena's tables, drawn from its state (the same on the students' page, the teacher's
// and the projector): the standings, the crosstable, the games and the bots. Every name is
// a student's text: it reaches the page through text nodes only (dom.js's h).

import {
  activeBots,
  allParams,
  botName,
  botsById,
  engineText,
  formatElo,
  formatPoints,
  formatScore,
  resultFor,
} from "./arena-data.js";
import { h } from "./dom.js";

/** Rank, bot, points, games, score % and Elo ± (the last once the server gives one). */
export function renderStandings(table, arena, { mine = null } = {}) {
  const bots = botsById(arena);
  const rows = arena.standings || [];
  const withElo = rows.some((r) => r.elo !== null && r.elo !== undefined);
  table.replaceChildren(
    h("caption", { class: "visually-hidden" }, "Standings: points (a win 1, a draw ½), games played, score and Elo against the field"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col", class: "num" }, "#"),
        h("th", { scope: "col" }, "Bot"),
        h("th", { scope: "col", class: "num" }, "Points"),
        h("th", { scope: "col", class: "num" }, "Games"),
        h("th", { scope: "col", class: "num" }, "Score"),
        withElo ? h("th", { scope: "col", class: "num", title: "Elo against the field, with its 95 % interval" }, "Elo") : null,
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((r, i) => {
        const bot = bots.get(r.bot_id);
        return h(
          "tr",
          { dataset: { botId: r.bot_id, points: String(r.points), games: String(r.games) }, class: r.bot_id === mine ? "mine" : undefined },
          h("td", { class: "num rank" }, String(r.rank ?? i + 1)),
          h(
            "td",
            { class: "bot" },
            h("span", { class: "bot-name" }, r.name || botName(arena, r.bot_id)),
            bot ? h("span", { class: "bot-engine", title: allParams(bot) }, engineText(bot)) : null,
          ),
          h("td", { class: "num points" }, formatPoints(r.points)),
          h("td", { class: "num" }, String(r.games)),
          h("td", { class: "num" }, formatScore(r.score ?? (r.games ? r.points / r.games : 0), r.games)),
          withElo ? h("td", { class: "num elo" }, formatElo(r)) : null,
        );
      }),
    ),
  );
}

/** Points of each row's bot against each column's bot, out of the games they played; the
 * columns are numbered as the rows are ranked. */
export function renderCrosstable(table, arena, { mine = null } = {}) {
  const cross = arena.crosstable || { order: [], cells: [] };
  const order = cross.order || [];
  table.replaceChildren(
    h("caption", { class: "visually-hidden" }, "Crosstable: the row's points against the column's bot, out of the games they played"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Bot"),
        order.map((id, j) => h("th", { scope: "col", class: "num", title: botName(arena, id) }, String(j + 1))),
        h("th", { scope: "col", class: "num" }, "Points"),
      ),
    ),
    h(
      "tbody",
      {},
      order.map((rowId, i) => {
        const cells = (cross.cells && cross.cells[i]) || [];
        const total = cells.reduce((sum, c) => sum + (c ? c.points : 0), 0);
        return h(
          "tr",
          { dataset: { botId: rowId }, class: rowId === mine ? "mine" : undefined },
          h("th", { scope: "row" }, h("span", { class: "cross-rank" }, `${i + 1}`), " ", botName(arena, rowId)),
          order.map((colId, j) => {
            const c = cells[j];
            if (i === j || !c) return h("td", { class: "num self", dataset: { row: rowId, col: colId } }, i === j ? "" : "·");
            return h(
              "td",
              { class: `num ${cellKind(c)}`, dataset: { row: rowId, col: colId, points: String(c.points), games: String(c.games) } },
              c.games ? `${formatPoints(c.points)} of ${c.games}` : "·",
            );
          }),
          h("td", { class: "num points" }, formatPoints(total)),
        );
      }),
    ),
  );
}

function cellKind(c) {
  if (!c.games) return "unplayed";
  const share = c.points / c.games;
  return share > 0.5 ? "ahead" : share < 0.5 ? "behind" : "even";
}

const RESULT_WORDS = { won: "won", lost: "lost", draw: "draw" };

/** The games as a list: round, who plays whom, the result or "playing", a link to watch.
 * With `botId`, only that bot's games, each result from its side. */
export function renderGames(list, arena, { botId = null } = {}) {
  const games = (arena.games || []).filter((g) => !botId || g.white === botId || g.black === botId);
  list.replaceChildren(
    ...games.map((g) => {
      const status = g.result ? "done" : g.status || "pending";
      const mine = botId ? resultFor(g, botId) : null;
      const outcome = g.result
        ? `${g.result}${mine ? ` · ${RESULT_WORDS[mine]}` : ""}${g.reason ? ` (${g.reason})` : ""}`
        : status === "playing"
          ? "playing now"
          : "to play";
      const players = h("span", { class: "players" }, h("span", { class: "white" }, botName(arena, g.white)), " – ", h("span", { class: "black" }, botName(arena, g.black)));
      const watchable = status !== "pending" && g.id;
      return h(
        "li",
        { dataset: { gameId: g.id || "", status, result: g.result || "", outcome: mine || "" } },
        g.round ? h("span", { class: "round" }, `R${g.round}`) : null,
        watchable ? h("a", { href: `/games/${encodeURIComponent(g.id)}/watch`, class: "watch" }, players) : players,
        h("span", { class: `outcome ${mine || status}` }, outcome),
      );
    }),
  );
}

/** The bots: each one's name and engine; with `onRemove`, a Remove button each (the teacher). */
export function renderBots(list, arena, { mine = null, onRemove = null } = {}) {
  list.replaceChildren(
    ...activeBots(arena).map((bot) =>
      h(
        "li",
        { dataset: { botId: bot.id }, class: bot.id === mine ? "mine" : undefined },
        h("span", { class: "bot-name" }, bot.name),
        h("span", { class: "bot-engine", title: allParams(bot) }, engineText(bot)),
        onRemove ? h("button", { type: "button", class: "remove", "aria-label": `Remove ${bot.name}`, onclick: () => onRemove(bot) }, "Remove") : null,
      ),
    ),
  );
}
