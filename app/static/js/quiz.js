// The class quiz: the room predicts what the search does next. The player asks (from the
// Step tab: which child the next step's formula picks at the root, or which move the
// engine will play); the server sends a `quiz` frame to everyone watching — the player,
// every spectator, the projector — with the choices; each browser votes once with a
// `predict` frame, and every vote comes back to all as the tally (counts only). At the
// reveal (the step, the engine's move) the same card shows the answer and how the room
// voted. The card sits at the top of the search column, so it is seen whatever tab is
// open, in large type and on a phone. State is the latest frame; one render per frame.
//
// While a question is open, every page but the teacher's (the game's player) keeps the
// answer out of sight (`secretKind`): for "which move will the formula pick" the selection
// score column, the best-move star, the arrows, the node card and the step panels; for
// "which move will the engine play" every view of the search. All come back at the reveal.

import { h, setText } from "./dom.js";

const KIND_TITLES = { selection: "Predict the selection", bestmove: "Predict the engine's move" };

const SECRET_NOTES = {
  selection: "Until the reveal, this screen hides what gives the pick away: the selection scores, the best-move star, the arrows and the step details.",
  bestmove: "Until the engine's move reveals the answer, this screen hides its search: the table, the arrows and the other views.",
};

/** The kind of the open question whose answer this page must not show ("selection" or
 * "bestmove"), or null: no question is open, or this is the teacher's page (the player
 * asks, steps and reveals; a student's page and the projector are the room's). */
export function secretKind(s) {
  const q = s.quiz;
  if (!q || !q.open || !s.game || s.game.role === "player") return null;
  return sameBoard(q.fen, s.game.fen, true) ? q.kind : null;
}

export function createQuiz({ mount, send, scheduleRender }) {
  let question = null; // the latest quiz frame
  let dismissed = null; // id of a finished question the user closed
  let built = null; // the frame the buttons were last built for
  const mine = new Map(); // question id -> the move this browser voted for

  const title = h("h2", { class: "quiz-title" });
  const prompt = h("p", { class: "quiz-prompt" });
  const note = h("p", { class: "quiz-note hint" });
  const choices = h("div", { class: "quiz-choices", role: "group", "aria-label": "Choices" });
  const tallyText = h("p", { class: "quiz-tally-text", id: "quiz-tally-text", role: "status" });
  const bars = h("ol", { class: "quiz-bars", "aria-label": "How the room voted" });
  const verdict = h("p", { class: "quiz-verdict", id: "quiz-verdict", role: "status" });
  const secret = h("p", { class: "quiz-secret hint", id: "quiz-secret", hidden: true });
  const withdraw = h("button", { type: "button", class: "quiz-withdraw", title: "Cancel this question" }, "Withdraw");
  const close = h("button", { type: "button", class: "quiz-close", "aria-label": "Close the quiz card", title: "Close" }, "×");
  const card = h(
    "section",
    { class: "card quiz-card", id: "quiz-card", "aria-label": "Class quiz", hidden: true },
    h("div", { class: "card-head quiz-head" }, title, withdraw, close),
    prompt,
    note,
    choices,
    verdict,
    tallyText,
    bars,
    secret,
  );
  mount.prepend(card);
  withdraw.addEventListener("click", () => send({ type: "quiz", action: "withdraw" }));
  close.addEventListener("click", () => {
    if (question) dismissed = question.id;
    scheduleRender();
  });

  function vote(choice) {
    if (!question || !question.open || mine.has(question.id)) return;
    const frame = { type: "predict", question: question.id, move: choice.move };
    if (choice.node !== undefined && choice.node !== null) frame.node = choice.node;
    if (send(frame)) {
      mine.set(question.id, choice.move);
      built = null;
      scheduleRender();
    }
  }

  function onFrame(frame) {
    if (question && frame.id !== question.id) dismissed = null;
    question = frame;
    scheduleRender();
  }

  /** A refused vote: this browser may try again, unless it had already voted. */
  function onError(frame) {
    if (frame.request !== "predict" || !question) return;
    if (frame.code !== "already_voted") mine.delete(question.id);
    built = null;
    scheduleRender();
  }

  /** Ask the room (players only): "selection" or "bestmove". */
  function ask(kind) {
    return send({ type: "quiz", action: "ask", kind });
  }

  function buildChoices(q) {
    const voted = mine.get(q.id);
    const answer = q.answer ? q.answer.move : null;
    choices.replaceChildren(
      ...q.choices.map((c) => {
        const cls = ["quiz-choice"];
        if (c.move === voted) cls.push("mine");
        if (c.move === answer) cls.push("answer");
        const b = h(
          "button",
          {
            type: "button",
            class: cls.join(" "),
            dataset: { move: c.move },
            disabled: !q.open || voted !== undefined,
            "aria-pressed": String(c.move === voted),
            title: c.move === voted ? "Your vote" : `Vote ${c.san}`,
          },
          c.san,
        );
        b.addEventListener("click", () => vote(c));
        return b;
      }),
    );
  }

  function render(st) {
    const q = question;
    const game = st.game;
    const visible = !!q && dismissed !== q.id && !!game && sameBoard(q.fen, game.fen, q.open);
    card.hidden = !visible;
    document.body.dataset.quiz = q ? q.state : "";
    if (!visible) return;
    card.dataset.state = q.state;
    card.dataset.kind = q.kind;
    setText(title, `${KIND_TITLES[q.kind] || "Quiz"} · question ${q.id}`);
    setText(prompt, q.prompt);
    setText(note, q.note || "");
    note.hidden = !q.note;
    withdraw.hidden = !(q.open && game.role === "player");
    close.hidden = q.open;
    if (built !== q) {
      built = q;
      buildChoices(q);
    }
    const voted = mine.get(q.id);
    setText(tallyText, q.votes ? q.text : "No votes yet");
    bars.replaceChildren(
      ...q.tally.map((row) => {
        const fill = h("span", { class: "quiz-bar-fill" });
        fill.style.setProperty("--share", `${(100 * row.votes) / Math.max(1, q.votes)}%`); // CSSOM: the CSP allows it
        return h(
          "li",
          { class: q.answer && row.move === q.answer.move ? "answer" : "" },
          h("span", { class: "quiz-bar-label" }, row.san),
          h("span", { class: "quiz-bar" }, fill),
          h("span", { class: "quiz-bar-count" }, String(row.votes)),
        );
      }),
    );
    setText(verdict, verdictText(q, voted, game));
    const hiding = secretKind(st);
    secret.hidden = !hiding;
    setText(secret, hiding ? SECRET_NOTES[hiding] : "");
  }

  return { onFrame, onError, ask, render, get question() { return question; } };
}

/** One line under the choices: how to vote, or the answer and how the room did. */
function verdictText(q, voted, game) {
  const votes = `${q.votes} vote${q.votes === 1 ? "" : "s"}`;
  // A bestmove question holds the engine's move once its budget is spent (the server
  // pauses it): the player reveals it with Move now.
  const held = q.open && q.kind === "bestmove" && game.search.status === "idle" && game.search.paused;
  if (held) {
    const how = game.role === "player" ? "press Move now (G) to reveal its move" : "the player reveals its move";
    return `The engine waits: ${how}. ${votes} so far.`;
  }
  if (q.state === "withdrawn") return `Withdrawn: ${q.reason || "the question no longer applies"}.`;
  if (q.state === "closed" && q.answer) {
    const you = voted === undefined ? "" : voted === q.answer.move ? " You got it." : " Not your pick this time.";
    const how = q.kind === "selection" ? "The formula picked" : "The engine played";
    return `${how} ${q.answer.san}: ${q.right} of ${votes} got it right.${you}`;
  }
  if (voted !== undefined) return `You voted. ${votes} so far; the answer comes with the ${q.kind === "selection" ? "next step" : "engine's move"}.`;
  return `Click your prediction (${votes} so far).`;
}

/** A question stays on screen while the board is its position, and its result for a while
 * after the position moved on (the engine's move answers a bestmove question). */
function sameBoard(questionFen, boardFen, open) {
  if (!open) return true;
  const key = (fen) => (fen || "").split(" ").slice(0, 2).join(" ");
  return key(questionFen) === key(boardFen);
}
