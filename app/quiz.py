"""The class quiz: one question at a time about what the search will do next, and its tally.

A teacher's room watches one game. The player asks a question — *which child will
the selection formula pick at the root?* (``selection``, in step mode) or *which move
will the engine play?* (``bestmove``, while it is the engine's move) — and everyone
watching, player and spectators alike, votes from their own browser with a
``predict`` frame. Each vote is answered by a broadcast of the tally (counts only,
never who voted what). The question closes at the reveal: the next step's selection
(the server takes that step only when asked, so nobody can read the answer early
from the websocket), or the engine's move (which waits, once its budget is spent, until
the player reveals it). Anything else that changes what the
question is about (another position, a search that grows the tree, new settings)
withdraws it.

Nothing here touches the game: a question lives in memory next to the game, holds
its choices, the counts and the set of connections that voted, and is dropped with
the next question or the game. One vote per connection per question; predict frames
have their own token bucket per connection (:class:`app.limits.TokenBucket`) on top
of the socket's, so a flood of clicks is refused with ``rate_limited``.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.connection import Connection
from app.limits import Clock, TokenBucket
from engine.errors import CanopyError

Kind = Literal["selection", "bestmove"]
QuizState = Literal["open", "closed", "withdrawn"]

#: Predict frames a connection may send per second on average, and in a burst: far more
#: than a person clicking needs, far fewer than a script flooding the tally.
PREDICT_RATE = 1.0
PREDICT_BURST = 5
#: The tally text lists at most this many moves ("Nf3 14 · e4 9 · d4 3 · …").
TALLY_TEXT_MOVES = 8

PROMPTS: dict[Kind, str] = {
    "selection": "Which move will the selection formula pick at the root?",
    "bestmove": "Which move will the engine play?",
}


class QuizError(CanopyError):
    """A refused quiz request; ``code`` names the problem for the client."""

    code = "quiz"


class QuizUnavailableError(QuizError):
    """The question cannot be asked now (no tree, not the engine's move, the game is over)."""

    code = "quiz_unavailable"


class UnknownQuestionError(QuizError):
    code = "unknown_question"


class QuestionClosedError(QuizError):
    """The question was revealed (or withdrawn): votes are over."""

    code = "question_closed"


class AlreadyVotedError(QuizError):
    code = "already_voted"


class UnknownChoiceError(QuizError):
    """A vote for a node or move that is not one of the question's choices."""

    code = "unknown_choice"


class PredictRateError(QuizError):
    code = "rate_limited"


@dataclass(frozen=True)
class Choice:
    """One answer a question offers: a root move, and its node in thread 0's tree (selection)."""

    move: str
    san: str
    node: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"move": self.move, "san": self.san}
        if self.node is not None:
            out["node"] = self.node
        return out


class Question:
    """One question: its choices, the votes so far, and how it ended."""

    def __init__(
        self, qid: int, kind: Kind, fen: str, choices: Sequence[Choice], *, note: str = ""
    ) -> None:
        if not choices:
            raise ValueError("a question needs at least one choice")
        self.id = qid
        self.kind: Kind = kind
        self.fen = fen
        self.choices = tuple(choices)
        self.note = note
        self.state: QuizState = "open"
        self.answer: Choice | None = None
        self.reason: str | None = None
        self.counts: dict[str, int] = {}
        self.voters: set[Connection] = set()
        self._by_move = {c.move: c for c in self.choices}
        self._by_node = {c.node: c for c in self.choices if c.node is not None}

    @property
    def is_open(self) -> bool:
        return self.state == "open"

    def choice(self, move: str | None, node: int | None) -> Choice:
        """The choice a vote names (by node id and/or move; both must agree)."""
        by_node = by_move = None
        if node is not None:
            by_node = self._by_node.get(node)
            if by_node is None:
                raise UnknownChoiceError(
                    f"node {node} is not one of question {self.id}'s choices"
                    + ("" if self._by_node else " (this question is about moves, not nodes)")
                )
        if move is not None:
            by_move = self._by_move.get(move)
            if by_move is None:
                raise UnknownChoiceError(f"{move!r} is not one of question {self.id}'s moves")
        if by_node is not None and by_move is not None and by_node is not by_move:
            raise UnknownChoiceError(f"node {node} is {by_node.move}, not {move}")
        chosen = by_node or by_move
        if chosen is None:  # pragma: no cover - the frame model requires one of them
            raise UnknownChoiceError("a vote names a node or a move")
        return chosen

    def tally(self) -> list[dict[str, Any]]:
        """Choices with votes, most votes first (ties in the order of the choices)."""
        order = {c.move: i for i, c in enumerate(self.choices)}
        moves = sorted(self.counts, key=lambda m: (-self.counts[m], order[m]))
        return [
            {"move": m, "san": self._by_move[m].san, "votes": self.counts[m]}
            for m in moves
            if self.counts[m]
        ]

    def to_frame(self) -> dict[str, Any]:
        """The ``quiz`` frame every watcher gets (no voter is ever named)."""
        tally = self.tally()
        shown = tally[:TALLY_TEXT_MOVES]
        text = " · ".join(f"{row['san']} {row['votes']}" for row in shown)
        if len(tally) > len(shown):
            text += " · …"
        answer = self.answer
        return {
            "type": "quiz",
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "open": self.is_open,
            "prompt": PROMPTS[self.kind],
            "note": self.note,
            "fen": self.fen,
            "choices": [c.to_dict() for c in self.choices],
            "votes": sum(self.counts.values()),
            "tally": tally,
            "text": text,
            "answer": answer.to_dict() if answer is not None else None,
            "right": self.counts.get(answer.move, 0) if answer is not None else None,
            "reason": self.reason,
        }


class Quiz:
    """A game's quiz: the current (or last) question, and each connection's predict bucket.

    ``send`` broadcasts a frame to every watcher of the game; ``clock`` is the rate
    limit's, injectable so tests pin it without sleeping.
    """

    def __init__(
        self, send: Callable[[dict[str, Any]], None], clock: Clock = time.monotonic
    ) -> None:
        self._send = send
        self._clock = clock
        self.current: Question | None = None
        self._next_id = 1
        self._buckets: weakref.WeakKeyDictionary[Connection, TokenBucket] = (
            weakref.WeakKeyDictionary()
        )

    def open(self, kind: Kind, fen: str, choices: Sequence[Choice], *, note: str = "") -> Question:
        """Ask a new question (an open one it replaces is withdrawn first)."""
        self.withdraw("a new question was asked")
        question = Question(self._next_id, kind, fen, choices, note=note)
        self._next_id += 1
        self.current = question
        self._send(question.to_frame())
        return question

    def vote(self, conn: Connection, qid: int, move: str | None, node: int | None) -> Question:
        """Count one vote, then broadcast the tally. Refusals change nothing."""
        bucket = self._buckets.get(conn)
        if bucket is None:
            bucket = self._buckets[conn] = TokenBucket(PREDICT_RATE, PREDICT_BURST, self._clock)
        if not bucket.allow():
            raise PredictRateError(
                f"more than {PREDICT_BURST} predictions at once "
                f"(then {PREDICT_RATE:g} a second); this one was dropped"
            )
        question = self.current
        if question is None or question.id != qid:
            raise UnknownQuestionError(
                f"no question {qid} here"
                + (f" (the current one is {question.id})" if question is not None else "")
            )
        if not question.is_open:
            why = "votes closed at the reveal" if question.state == "closed" else "it was withdrawn"
            raise QuestionClosedError(f"question {qid} is {question.state}: {why}")
        if conn in question.voters:
            raise AlreadyVotedError(f"this connection already voted on question {qid}")
        choice = question.choice(move, node)
        question.voters.add(conn)
        question.counts[choice.move] = question.counts.get(choice.move, 0) + 1
        self._send(question.to_frame())
        return question

    def reveal(self, kind: Kind, move: str | None) -> Question | None:
        """The answer is known (the step's choice, the engine's move): close and broadcast.

        A move outside the choices (a child the node card did not list) is still the
        answer; ``move`` None withdraws the question instead (nothing was chosen).
        """
        question = self.current
        if question is None or not question.is_open or question.kind != kind:
            return None
        if move is None:
            self.withdraw("nothing was chosen")
            return question
        known = {c.move: c for c in question.choices}
        question.answer = known.get(move) or Choice(move, move)
        question.state = "closed"
        self._send(question.to_frame())
        return question

    def withdraw(self, reason: str, kinds: Iterable[Kind] | None = None) -> None:
        """Cancel the open question (of one of ``kinds``, if given): what it asked is moot."""
        question = self.current
        if question is None or not question.is_open:
            return
        if kinds is not None and question.kind not in set(kinds):
            return
        question.state = "withdrawn"
        question.reason = reason
        self._send(question.to_frame())

    def forget(self) -> None:
        """The position changed: withdraw an open question and drop the last one's result."""
        self.withdraw("the position changed")
        self.current = None

    def is_open(self, kind: Kind) -> bool:
        """Whether a question of ``kind`` is waiting for its reveal."""
        return self.current is not None and self.current.is_open and self.current.kind == kind

    def frame(self) -> dict[str, Any] | None:
        """The current question's frame, for a watcher who just arrived."""
        return self.current.to_frame() if self.current is not None else None


def selection_choices(details: Mapping[str, Any]) -> tuple[list[Choice], str]:
    """The root's children (a ``node`` frame of node 0) as choices, and a note for the room.

    Refuses while the root is not fully expanded: the next step would then add an
    untried move instead of choosing one by the formula, which is no question to ask.
    """
    children = list(details.get("children") or [])
    total = int(details.get("children_total") or 0)
    legal = details.get("legal_moves")
    if not children:
        raise QuizUnavailableError(
            "nothing to choose yet: the root has no children in the tree; step once first"
        )
    if legal is not None and total < int(legal):
        raise QuizUnavailableError(
            f"the root has {total} of its {legal} moves in the tree: the next step adds an "
            "untried move instead of choosing by the formula; step until every move is added"
        )
    choices = sorted(
        (Choice(str(c["move"]), str(c.get("san") or c["move"]), int(c["id"])) for c in children),
        key=lambda c: c.san,  # as move_choices: easy to find, no hint of the tree's order
    )
    note = f"N = {int(details.get('visits') or 0)} at the root"
    if total > len(children):
        note += f"; the {len(children)} most visited of {total} children"
    return choices, note


def move_choices(legal: Iterable[str], san_of: Callable[[str], str]) -> list[Choice]:
    """Every legal move as a choice, in SAN order (no hint of the engine's preference)."""
    choices = [Choice(uci, san_of(uci)) for uci in legal]
    choices.sort(key=lambda c: c.san)  # pieces first (capitals sort first), then pawns
    return choices
