"""One game being played: the board, who plays which side, the move list, undo and PGN.

Pure Python on top of python-chess (no web, no threads), so the web app, the
CLI and a UCI front end can share it. The search is not here: a session only
records what the engine decided (the move, its visits and Q) so that the move
list and the PGN can show it.

A game may also be played by two named engines, each side with its own
settings (:class:`Player`: an arena's bots), and be ended by a referee
before the rules end it (:class:`Adjudication`: an arena's move limit); the
session then reports that result everywhere (state, PGN, the stored row).
"""

from __future__ import annotations

import datetime as _dt
import io
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import chess
import chess.pgn

from engine.errors import GameOverError, IllegalMoveError
from engine.explain.summary import SearchSummary
from engine.play.errors import InvalidSettingError, NothingToUndoError, NotYourTurnError
from engine.rules.games import Game, get_game, outcome
from engine.search.registry import ALGORITHMS, DEFAULT_ALGORITHM

Side = Literal["white", "black"]
SIDES: tuple[Side, Side] = ("white", "black")
#: Who the human plays: one side, ``none`` (engine against engine) or ``both``
#: (the human moves for both sides; the engine only analyses or moves on request).
Human = Literal["white", "black", "none", "both"]
HUMAN_CHOICES: tuple[str, ...] = ("white", "black", "none", "both")
Budget = Literal["time", "iterations"]
Mover = Literal["human", "engine"]
RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2")


def color_name(color: chess.Color) -> Side:
    return "white" if color == chess.WHITE else "black"


@dataclass(frozen=True)
class EngineSettings:
    """How the engine searches: the algorithm, its parameters and its budget per move.

    ``budget`` says which of ``movetime_ms`` and ``iterations`` limits a move;
    both are kept so switching back and forth in the UI loses nothing.
    Algorithm names and parameter ranges are checked by the search registry
    (:func:`engine.search.registry.validate_params`), not here.
    """

    algorithm: str = DEFAULT_ALGORITHM
    params: Mapping[str, Any] = field(default_factory=dict)
    threads: int = 1
    budget: Budget = "time"
    movetime_ms: int = 1000
    iterations: int = 10_000
    seed: int = 0

    def __post_init__(self) -> None:
        if self.budget not in ("time", "iterations"):
            raise InvalidSettingError(f"budget must be 'time' or 'iterations', not {self.budget!r}")
        for name in ("threads", "movetime_ms", "iterations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidSettingError(f"{name} must be a whole number >= 1, not {value!r}")
        object.__setattr__(self, "params", dict(self.params))

    def limits(self) -> dict[str, int]:
        """Keyword arguments for ``SearchController.start``/``search``: one move's budget."""
        if self.budget == "iterations":
            return {"iterations": self.iterations}
        return {"movetime_ms": self.movetime_ms}

    def describe(self) -> str:
        """Short human label, e.g. ``uct c=1.4 · 1000 ms`` (player names, PGN)."""
        params = " ".join(f"{k}={_fmt(v)}" for k, v in sorted(self.params.items()))
        budget = (
            f"{self.iterations} iterations"
            if self.budget == "iterations"
            else f"{self.movetime_ms} ms"
        )
        threads = f" · {self.threads} threads" if self.threads > 1 else ""
        return " ".join(p for p in (self.algorithm, params) if p) + f" · {budget}{threads}"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["params"] = dict(self.params)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EngineSettings:
        """Settings as :meth:`to_dict` stored them, less any parameter their algorithm no
        longer has: a setting retired since the game was stored would make the search
        refuse the game, which must stay playable with the others."""
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        algorithm = ALGORITHMS.get(fields.get("algorithm", DEFAULT_ALGORITHM))
        if algorithm is not None and "params" in fields:
            known = {spec.name for spec in algorithm.params}
            fields["params"] = {k: v for k, v in dict(fields["params"]).items() if k in known}
        return cls(**fields)

    def updated(self, **changes: Any) -> EngineSettings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


@dataclass(frozen=True)
class EngineNote:
    """What the search said about the move the engine played (for the move list and PGN)."""

    visits: int  # visits of the chosen root move
    q: float  # its expected score in [0, 1] for the side that played it
    iterations: int  # iterations of the whole search (over every thread)
    elapsed_ms: float
    algorithm: str
    nodes: int = 0
    depth: int = 0


@dataclass(frozen=True)
class PlayedMove:
    uci: str
    san: str
    color: Side  # the side that played it
    by: Mover
    fen: str  # the position after the move
    check: bool  # the side to move after it is in check
    note: EngineNote | None = None
    #: What the engine thought when the move was made: the search that chose an engine
    #: move, or the search that was running (or had run) in the position of a human move.
    search: SearchSummary | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "uci": self.uci,
            "san": self.san,
            "color": self.color,
            "by": self.by,
            "fen": self.fen,
            "check": self.check,
        }
        if self.note is not None:
            out["note"] = asdict(self.note)
        if self.search is not None:
            out["search"] = self.search.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlayedMove:
        note = data.get("note")
        search = data.get("search")
        return cls(
            uci=data["uci"],
            san=data["san"],
            color=data["color"],
            by=data["by"],
            fen=data["fen"],
            check=bool(data.get("check", False)),
            note=EngineNote(**note) if note else None,
            search=SearchSummary.from_dict(search) if search else None,
        )


@dataclass(frozen=True)
class Player:
    """A named engine playing one side with its own settings (an arena's bot).

    ``label`` is its settings in a few words for people (``uct c=0.7``: the
    arena leaves out parameters at their defaults), shown beside the name on
    the game page and as ``WhiteEngine``/``BlackEngine`` in the PGN.
    """

    name: str
    engine: EngineSettings
    label: str = ""
    id: str = ""  # where the player comes from (the arena's bot id)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "id": self.id, **self.engine.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Player:
        return cls(
            name=str(data.get("name", "")),
            engine=EngineSettings.from_dict(data),
            label=str(data.get("label", "")),
            id=str(data.get("id", "")),
        )

    def describe(self) -> str:
        """``Ada (uct c=0.7)``: the name and, if known, the settings in words."""
        return f"{self.name} ({self.label})" if self.label else self.name


@dataclass(frozen=True)
class Adjudication:
    """A result a referee gave while the rules would let the game go on (``max plies``)."""

    result: str
    reason: str

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise InvalidSettingError(
                f"result must be one of {', '.join(RESULTS)}, not {self.result!r}"
            )
        if not isinstance(self.reason, str) or not self.reason.strip():
            raise InvalidSettingError("an adjudication needs a reason")


class GameSession:
    """A game in progress: rules from python-chess, sides, move list with engine notes.

    Every method that can refuse checks everything first and changes nothing
    when it raises, so a refused request leaves the game exactly as it was.
    """

    def __init__(
        self,
        game: str | Game = "chess",
        fen: str | None = None,
        *,
        human: str = "white",
        engine: EngineSettings | None = None,
        created: _dt.datetime | None = None,
        players: Mapping[Side, Player] | None = None,
        played_by: str | None = None,
    ) -> None:
        self.game: Game = get_game(game) if isinstance(game, str) else game
        self.human: Human = _check_human(human)
        self.engine: EngineSettings = engine or EngineSettings()
        #: Named engines with their own settings, by side (empty: the game's ``engine``
        #: plays every side the human does not).
        self.players: dict[Side, Player] = dict(players or {})
        #: What moves this game in place of its own engine (``"arena"``), else None: a
        #: server never starts the game's own search for it.
        self.played_by = played_by
        #: The referee's result, once it ended the game before the rules did.
        self.adjudication: Adjudication | None = None
        self.created = created or _dt.datetime.now(_dt.UTC)
        board = self.game.board(fen)  # validates; InvalidFenError names the problem
        self._start_fen = board.fen()
        self._board = board
        self.history: list[PlayedMove] = []
        self._result, self._reason = outcome(board)

    # ---------------------------------------------------------------- reading
    @property
    def start_fen(self) -> str:
        return self._start_fen

    @property
    def board(self) -> chess.Board:
        """A copy of the current board (callers cannot change the session through it)."""
        return self._board.copy()

    @property
    def fen(self) -> str:
        return self._board.fen()

    @property
    def turn(self) -> Side:
        return color_name(self._board.turn)

    @property
    def ply(self) -> int:
        return len(self.history)

    @property
    def result(self) -> str | None:
        """``1-0``, ``0-1``, ``1/2-1/2`` once the game is over (by the rules, else by the
        referee's :attr:`adjudication`), else ``None``."""
        return self.outcome[0]

    @property
    def reason(self) -> str | None:
        """Why the game ended (``checkmate``, ``200-ply limit``, ``max plies``, ...)."""
        return self.outcome[1]

    @property
    def outcome(self) -> tuple[str | None, str | None]:
        """(result, reason): the rules' if they ended the game, else the adjudication's."""
        if self._result is None and self.adjudication is not None:
            return self.adjudication.result, self.adjudication.reason
        return self._result, self._reason

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def check(self) -> bool:
        return self._board.is_check()

    @property
    def moves(self) -> list[str]:
        """The moves played since the start position, as UCI."""
        return [m.uci for m in self.history]

    def legal_moves(self) -> list[str]:
        """Legal moves as UCI (empty once the game is over)."""
        if self.is_over:
            return []
        return [m.uci() for m in self._board.legal_moves]

    def is_human(self, side: str) -> bool:
        return self.human == "both" or self.human == side

    @property
    def human_to_move(self) -> bool:
        return not self.is_over and self.is_human(self.turn)

    @property
    def engine_to_move(self) -> bool:
        """Whether the engine should be thinking about its move now."""
        return not self.is_over and not self.is_human(self.turn)

    def fen_at(self, ply: int) -> str:
        """The position after ``ply`` plies (0: the start position)."""
        if not 0 <= ply <= len(self.history):
            raise IndexError(f"ply {ply} is outside 0..{len(self.history)}")
        return self._start_fen if ply == 0 else self.history[ply - 1].fen

    def fen_after(self, moves: Iterable[str], *, base: chess.Board | None = None) -> str:
        """The position after playing ``moves`` (UCI) from the current one (PV previews)."""
        board = (base or self._board).copy(stack=False)
        for uci in moves:
            board.push(chess.Move.from_uci(uci))
        return board.fen()

    def san_of(self, uci: str) -> str:
        return self._board.san(self._parse(uci))

    # ---------------------------------------------------------------- changing
    def play(
        self,
        uci: str,
        *,
        by: Mover = "human",
        note: EngineNote | None = None,
        search: SearchSummary | None = None,
    ) -> PlayedMove:
        """Play ``uci`` for the side to move (``search``: what the engine thought, kept with it).

        A human move on the engine's turn raises :class:`NotYourTurnError`;
        ``by="engine"`` is allowed on either turn (the "engine, move now"
        button may move for the human too).
        """
        if self.is_over:
            raise GameOverError(f"the game is over ({self.result}, {self.reason})")
        if by == "human" and not self.is_human(self.turn):
            whose = "the engine's" if self.human != "none" else "an engine-only game's"
            raise NotYourTurnError(f"it is {whose} turn to move ({self.turn} to play)")
        move = self._parse(uci)
        san = self._board.san(move)
        color = self.turn
        self._board.push(move)
        played = PlayedMove(
            uci=move.uci(),
            san=san,
            color=color,
            by=by,
            fen=self._board.fen(),
            check=self._board.is_check(),
            note=note,
            search=search,
        )
        self.history.append(played)
        self._result, self._reason = outcome(self._board)
        return played

    def adjudicate(self, result: str, reason: str) -> None:
        """End the game with ``result`` though the rules would go on (an arena's move
        limit); refused once the game is over. Undo and a new start clear it."""
        verdict = Adjudication(result, reason)  # checks both before anything changes
        if self.is_over:
            raise GameOverError(f"the game is over ({self.result}, {self.reason})")
        self.adjudication = verdict

    def undo(self) -> list[PlayedMove]:
        """Take back the last move, or the last move *pair* against the engine.

        Playing one side against the engine, undo goes back to the human's
        previous turn: it removes the engine's reply and the human's move
        before it (or only the human's move while the engine is still
        thinking about its reply). Otherwise it removes one ply. Returns the
        removed moves, oldest first.
        """
        if not self.history:
            raise NothingToUndoError("no move to take back")
        if self.human in ("white", "black"):
            last_human = max(
                (i for i, m in enumerate(self.history) if m.by == "human"), default=None
            )
            if last_human is None:
                raise NothingToUndoError("no move of yours to take back")
            keep = last_human
        else:
            keep = len(self.history) - 1
        removed = self.history[keep:]
        self._rebuild(self.history[:keep])
        self.adjudication = None
        return removed

    def setup(self, fen: str | None) -> None:
        """Start again from ``fen`` (``None``: the game's start position); clears the moves."""
        board = self.game.board(fen)  # raises before anything changes
        self._start_fen = board.fen()
        self._board = board
        self.history = []
        self._result, self._reason = outcome(board)
        self.adjudication = None

    def set_human(self, human: str) -> None:
        self.human = _check_human(human)

    def _rebuild(self, history: list[PlayedMove]) -> None:
        board = self.game.board(self._start_fen)
        for m in history:
            board.push(chess.Move.from_uci(m.uci))
        self._board = board
        self.history = list(history)
        self._result, self._reason = outcome(board)

    def _parse(self, uci: str) -> chess.Move:
        if not isinstance(uci, str):
            raise IllegalMoveError(f"a move is a UCI string like 'e2e4', not {uci!r}")
        try:
            move = chess.Move.from_uci(uci.strip())
        except ValueError:
            raise IllegalMoveError(
                f"{uci!r} is not a UCI move (expected e.g. 'e2e4' or 'e7e8q')"
            ) from None
        if not self._board.is_legal(move):
            raise IllegalMoveError(f"illegal move {uci} in {self._board.fen()}")
        return move

    # ---------------------------------------------------------------- PGN
    def player_name(self, side: Side) -> str:
        player = self.players.get(side)
        if player is not None:
            return player.name
        if self.is_human(side):
            return "Human"
        return f"Canopy {self.engine.algorithm}"

    def pgn(self, *, event: str | None = None, site: str = "Canopy", round: str = "-") -> str:
        """The game as PGN: the search settings in the headers, engine notes as comments.

        Each engine move carries ``{N=<visits> Q=<q> iters=<iterations>
        ms=<elapsed>}`` (and ``algo=<name>`` when it differs from the header,
        i.e. the settings changed mid-game). A game of two :class:`Player` names
        them in ``White``/``Black`` and their settings in ``WhiteEngine``/``BlackEngine``
        instead of one ``Algorithm``. Names (``event``, the players') are written with
        quotes and backslashes escaped, as the PGN standard says (python-chess writes tag
        values as they are), so no name can add a tag.
        """
        game = self.game.pgn_game()
        h = game.headers
        h["Event"] = _tag(event) if event else f"Canopy {self.game.title}"
        h["Site"] = site
        h["Date"] = self.created.strftime("%Y.%m.%d")
        h["Round"] = round
        h["White"] = _tag(self.player_name("white"))
        h["Black"] = _tag(self.player_name("black"))
        e = self.engine
        algorithms = {"white": e.algorithm, "black": e.algorithm}
        for side in SIDES:
            player = self.players.get(side)
            if player is not None:
                h[f"{side.capitalize()}Engine"] = _tag(player.label or player.engine.describe())
                algorithms[side] = player.engine.algorithm
        h["Result"] = self.result or "*"
        if not self.players:  # one engine's settings (players name theirs above)
            h["Algorithm"] = e.algorithm
            h["AlgorithmParams"] = ",".join(f"{k}={_fmt(v)}" for k, v in sorted(e.params.items()))
        h["Threads"] = str(e.threads)
        if e.budget == "iterations":
            h["Iterations"] = str(e.iterations)
        else:
            h["ThinkTime"] = f"{e.movetime_ms}ms"
        if not self.players:
            h["Seed"] = str(e.seed)
        h["Human"] = self.human
        result, reason = self.outcome
        termination = "adjudication" if self.adjudication and not self._result else "normal"
        h["Termination"] = termination if result else "unterminated"
        if reason:
            h["EndReason"] = reason

        game.setup(self.game.board(self._start_fen))  # FEN/SetUp when not the start position
        node: chess.pgn.GameNode = game
        for m in self.history:
            node = node.add_variation(chess.Move.from_uci(m.uci))
            if m.note is not None:
                node.comment = _note_comment(m.note, algorithms[m.color])
        if reason:
            node.comment = " ".join(p for p in (node.comment, f"{reason}.") if p)
        out = io.StringIO()
        game.accept(chess.pgn.FileExporter(out, headers=True, comments=True, variations=False))
        return out.getvalue().strip() + "\n"

    # ---------------------------------------------------------------- persistence
    def to_dict(self) -> dict[str, Any]:
        """Plain data a store can save; :meth:`from_dict` rebuilds the same session.

        ``players``, ``played_by`` and ``adjudication`` appear only when set, so an
        ordinary game's data is what it always was."""
        out: dict[str, Any] = {
            "game": self.game.name,
            "start_fen": self._start_fen,
            "human": self.human,
            "engine": self.engine.to_dict(),
            "created": self.created.isoformat(),
            "history": [m.to_dict() for m in self.history],
        }
        if self.players:
            out["players"] = {side: p.to_dict() for side, p in self.players.items()}
        if self.played_by:
            out["played_by"] = self.played_by
        if self.adjudication is not None:
            out["adjudication"] = asdict(self.adjudication)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameSession:
        players = data.get("players") or {}
        session = cls(
            data["game"],
            data["start_fen"],
            human=data["human"],
            engine=EngineSettings.from_dict(data["engine"]),
            created=_dt.datetime.fromisoformat(data["created"]),
            players={side: Player.from_dict(players[side]) for side in SIDES if side in players},
            played_by=data.get("played_by") or None,
        )
        session._rebuild([PlayedMove.from_dict(m) for m in data["history"]])
        verdict = data.get("adjudication")
        if verdict and not session.is_over:
            session.adjudication = Adjudication(verdict["result"], verdict["reason"])
        return session


def _check_human(human: str) -> Human:
    if human not in HUMAN_CHOICES:
        raise InvalidSettingError(f"human must be one of {', '.join(HUMAN_CHOICES)}, not {human!r}")
    return human  # type: ignore[return-value]


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _tag(value: str) -> str:
    """A PGN tag value with its backslashes and quotes escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _note_comment(note: EngineNote, header_algorithm: str) -> str:
    parts = [f"N={note.visits}", f"Q={note.q:.3f}", f"iters={note.iterations}"]
    parts.append(f"ms={note.elapsed_ms:.0f}")
    if note.algorithm != header_algorithm:
        parts.append(f"algo={note.algorithm}")
    return " ".join(parts)
