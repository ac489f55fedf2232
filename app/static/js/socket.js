// A reconnecting websocket for one game (or one arena). The server sends the whole
// state (a game's `state` frame, an arena's `arena` frame) on every (re)connection, so
// nothing needs replaying after a drop: the page just shows "reconnecting…" and picks
// up the latest state.

const CLOSE_NOT_FOUND = 4404;

export function connectGame({ gameId, token, onFrame, onStatus }) {
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  return connectSocket({ path: `/ws/games/${encodeURIComponent(gameId)}${query}`, onFrame, onStatus });
}

/** A reconnecting websocket to `path` on this server (backing off up to 8 s between tries;
 * a 4404 close means the thing watched is gone: no more tries). */
export function connectSocket({ path, onFrame, onStatus }) {
  let ws = null;
  let attempt = 0;
  let closedByUs = false;
  let timer = null;

  const url = () => {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}${path}`;
  };

  function open() {
    onStatus(attempt === 0 ? "connecting" : "reconnecting");
    ws = new WebSocket(url());
    ws.addEventListener("open", () => {
      attempt = 0;
      onStatus("open");
    });
    ws.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return; // the server only sends JSON; ignore anything else
      }
      onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      ws = null;
      if (closedByUs) return;
      if (event.code === CLOSE_NOT_FOUND) {
        onStatus("gone");
        return;
      }
      onStatus("closed");
      attempt += 1;
      const delay = Math.min(8000, 400 * 2 ** Math.min(attempt, 5)) * (0.75 + Math.random() / 2);
      timer = setTimeout(open, delay);
    });
  }

  open();

  return {
    /** Send one frame; false when the socket is not open (the caller tells the user). */
    send(frame) {
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(JSON.stringify(frame));
      return true;
    },
    close() {
      closedByUs = true;
      clearTimeout(timer);
      if (ws) ws.close(1000);
    },
  };
}
