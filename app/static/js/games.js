// The recent-games page: in the browser that created a game (it holds the game's token,
// see main.js), the human player is "you". Text only: names never pass through HTML.

const TOKEN_KEY = (id) => `canopy:token:${id}`;

for (const row of document.querySelectorAll("#recent-games tr[data-game-id]")) {
  const players = row.querySelector("td.players");
  if (!players || players.dataset.human === "none" || !localStorage.getItem(TOKEN_KEY(row.dataset.gameId))) continue;
  players.textContent = players.textContent.replace(/^player\b/, "you").replace(/ player \(/, " you (");
  players.classList.add("yours");
}
