"""Reading the main line of one game from PGN text (or a FEN and moves), with line numbers.

python-chess's reader is lenient by design: it logs what it cannot read and
goes on, and it does not say on which line. A player pasting a game wants the
opposite: the first problem, named, with its line. So this reader walks the
text itself with one tokenizer, keeps the main line, and skips what an
analysis has no use for: comments (``{...}``, ``;...``), variations
(``(...)``, nested), NAGs (``$1``), move-suffix glyphs (``!?``) and ``%``
escape lines. SAN (and UCI, which python-chess's SAN parser also takes) is
checked move by move on the game's board; the first bad move stops the read
with a :class:`PgnError` naming its line, the side and the move number.

The game is chess unless a ``Variant`` tag names knight chess (any spelling
python-chess or Canopy's own export uses: ``Knight Chess``, ``knightchess``,
``knight-chess``), or the start position holds knights and nothing else. A
``FEN`` tag (with or without ``SetUp``) sets the start position. Text that
holds several games is read up to the end of the first, and the reader says
how many it saw. Text that starts with a FEN line instead of tags is a FEN
followed by moves.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import chess

from engine.errors import InvalidFenError
from engine.play.errors import PgnError, TooManyPliesError
from engine.rules.games import CHESS_GAME, KNIGHT_GAME, Game
from engine.rules.knight import KnightChessBoard

#: Variant tag values (lowercase, spaces and dashes removed) that name each game.
_CHESS_NAMES = frozenset({"", "chess", "standard", "normal", "fromposition"})
_KNIGHT_NAMES = frozenset({"knight", "knights", "knightchess"})
#: Tag pairs kept (the rest are read and dropped), and the length of a kept value.
MAX_TAGS = 40
MAX_TAG_VALUE = 200
_NULL_MOVES = frozenset({"--", "Z0", "0000", "@@@@"})

_TOKEN = re.compile(
    r"""
      (?P<escape>^%[^\n]*)
    | (?P<tag>^[ \t]*\[[^\n]*)
    | (?P<comment>\{[^}]*\}?)
    | (?P<rest>;[^\n]*)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<nag>\$\d*)
    | (?P<result>1-0|0-1|1/2-1/2|½-½|\*)
    | (?P<number>\d+[ \t]*\.+|\d+(?![\w/.-]))
    | (?P<glyph>[!?]+)
    | (?P<word>[^\s{}();\[\]$]+)
    | (?P<stray>[\[\]}])
    """,
    re.VERBOSE | re.MULTILINE,
)
_TAG_PAIR = re.compile(r'^\s*\[\s*([A-Za-z0-9_+#=:-]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_SUFFIX = re.compile(r"[!?]+$")


@dataclass(frozen=True)
class PgnGame:
    """The main line of the first game in a PGN: what an analysis needs of it."""

    game: Game
    start_fen: str
    moves: tuple[str, ...]  # UCI
    sans: tuple[str, ...]
    #: The tag pairs as written (user input: show them escaped), in their order.
    headers: dict[str, str] = field(default_factory=dict)
    #: How the text ended the game (``1-0``, ``0-1``, ``1/2-1/2``), or None (``*``, none).
    result: str | None = None
    #: Games the text holds (only the first is read).
    games: int = 1

    @property
    def notes(self) -> list[str]:
        """What the reader chose for the user, in words (several games: the first)."""
        if self.games > 1:
            return [f"The PGN holds {self.games} games; the first is analysed."]
        return []


@dataclass
class _Token:
    kind: str
    text: str
    line: int


def _tokens(text: str) -> Iterator[_Token]:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "stray"
        yield _Token(kind, m.group(), bisect.bisect_right(starts, m.start()))


def read_pgn(text: str, *, max_plies: int | None = None) -> PgnGame:
    """The first game of ``text`` (PGN, or a FEN line then moves); :class:`PgnError` names
    the first problem and its line, :class:`TooManyPliesError` a main line over ``max_plies``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    if not text.strip():
        raise PgnError("the PGN is empty: paste a game (tag pairs, then the moves)")
    first = next((i for i, line in enumerate(text.split("\n")) if line.strip()), 0)
    lines = text.split("\n")
    fen_line = _looks_like_fen(lines[first])
    headers: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    if fen_line:  # a FEN and moves: the FEN line plays the FEN tag's part
        headers["FEN"] = lines[first].strip()
        tag_lines["FEN"] = first + 1
        lines[first] = ""
        text = "\n".join(lines)
    tokens = _tokens(text)
    reader = _MainLine(headers, tag_lines, max_plies)
    for token in tokens:
        if not reader.feed(token):
            break
    game = reader.finish()
    games = 1 + _games_after(tokens, reader.stopped_by_tag)
    return PgnGame(
        game=game.game,
        start_fen=game.start_fen,
        moves=game.moves,
        sans=game.sans,
        headers=dict(list(headers.items())[:MAX_TAGS]),
        result=game.result,
        games=games,
    )


def _looks_like_fen(line: str) -> bool:
    placement = line.strip().split(" ", 1)[0]
    return placement.count("/") == 7 and not line.lstrip().startswith("[")


def _games_after(tokens: Iterator[_Token], stopped_by_tag: bool) -> int:
    """Games that start after the first one: a block of tag pairs, or moves after a result."""
    games = 1 if stopped_by_tag else 0
    state = "tags" if stopped_by_tag else "between"
    for token in tokens:
        kind = token.kind
        if kind in ("escape", "comment", "rest"):
            continue
        if kind == "result":
            state = "between"
        elif kind == "tag":
            if state != "tags":
                games += 1
            state = "tags"
        else:
            if state == "between":
                games += 1
            state = "moves"
    return games


@dataclass(frozen=True)
class _Read:
    game: Game
    start_fen: str
    moves: tuple[str, ...]
    sans: tuple[str, ...]
    result: str | None


class _MainLine:
    """The state of one game's read: tags first, then the main line's moves."""

    def __init__(
        self, headers: dict[str, str], tag_lines: dict[str, int], max_plies: int | None
    ) -> None:
        self.headers = headers
        self.tag_lines = tag_lines
        self.max_plies = max_plies
        self.board: chess.Board | None = None
        self.game: Game = CHESS_GAME
        self.moves: list[str] = []
        self.sans: list[str] = []
        self.depth = 0
        self.open_line = 0  # where the innermost open variation began
        self.result: str | None = None
        self.last_line = 1
        self.stopped_by_tag = False

    def feed(self, token: _Token) -> bool:
        """Take one token; False once the game has ended (a result, or the next game)."""
        self.last_line = token.line
        kind = token.kind
        if kind in ("escape", "rest"):
            return True
        if kind == "comment":
            if not token.text.endswith("}"):
                raise PgnError("a comment '{' opened here is never closed", token.line)
            return True
        if kind == "tag":
            if self.board is None:
                self._tag(token)
                return True
            if self.depth == 0:  # the next game's tags: this one ended without a result
                self.stopped_by_tag = True
                return False
            raise PgnError(
                f"a tag pair inside a variation (the '(' on line {self.open_line} is never closed)",
                token.line,
            )
        if kind == "open":
            if self.depth == 0:
                self.open_line = token.line
            self.depth += 1
            return True
        if kind == "close":
            if self.depth == 0:
                raise PgnError("')' closes no variation", token.line)
            self.depth -= 1
            return True
        if self.depth > 0 or kind in ("nag", "number", "glyph"):
            return True
        board = self._board(token.line)
        if kind == "result":
            self.result = None if token.text == "*" else token.text.replace("½-½", "1/2-1/2")
            return False
        if kind == "stray":
            raise PgnError(f"unexpected {token.text!r} in the moves", token.line)
        self._move(board, token)
        return True

    def _tag(self, token: _Token) -> None:
        m = _TAG_PAIR.match(token.text)
        if m is None:
            raise PgnError(
                'malformed tag pair: expected [Name "value"], e.g. [White "Carlsen"]', token.line
            )
        name, value = m.group(1), re.sub(r"\\(.)", r"\1", m.group(2))
        if name not in self.headers:
            self.headers[name] = value[:MAX_TAG_VALUE]
            self.tag_lines[name] = token.line

    def _board(self, line: int) -> chess.Board:
        """The start position, set up from the tags when the first move token arrives."""
        if self.board is None:
            self.game, self.board = self._setup(line)
        return self.board

    def _setup(self, line: int) -> tuple[Game, chess.Board]:
        variant = self.headers.get("Variant", "")
        key = re.sub(r"[\s_-]", "", variant.lower())
        where = self.tag_lines.get("Variant", line)
        if key in _KNIGHT_NAMES:
            game: Game | None = KNIGHT_GAME
        elif key in _CHESS_NAMES:
            game = None  # chess, unless the FEN holds knights and nothing else
        else:
            raise PgnError(
                f"the variant {variant[:40]!r} is not one Canopy plays (chess, knight chess)",
                where,
            )
        fen = self.headers.get("FEN")
        if fen is None:
            return (game or CHESS_GAME), (game or CHESS_GAME).board()
        fen_line = self.tag_lines.get("FEN", line)
        try:
            return (game or CHESS_GAME), (game or CHESS_GAME).board(fen)
        except InvalidFenError as exc:
            if game is None:
                try:
                    return KNIGHT_GAME, KNIGHT_GAME.board(fen)
                except InvalidFenError:
                    pass
            raise PgnError(f"the start position (FEN): {exc}", fen_line) from None

    def _move(self, board: chess.Board, token: _Token) -> None:
        word = _SUFFIX.sub("", token.text)
        if word.endswith("e.p."):
            word = word[:-4]
        side = "White" if board.turn == chess.WHITE else "Black"
        if self.game is KNIGHT_GAME:
            side = "the first mover" if board.turn == chess.WHITE else "the second mover"
        where = f"{side}'s move {board.fullmove_number}"
        if word in _NULL_MOVES:
            raise PgnError(
                f"{word!r} ({where}) is a null move, which cannot be analysed", token.line
            )
        over = board.outcome(claim_draw=False)  # a draw a player could claim does not end it
        if over is not None:
            raise PgnError(
                f"{token.text!r} comes after the end of the game ({over.result()}, "
                f"{_ending(board, over)})",
                token.line,
            )
        try:
            move = board.parse_san(word)
        except chess.AmbiguousMoveError:
            raise PgnError(
                f"{token.text!r} ({where}) is ambiguous: several pieces can make it; "
                "name the one that moves (e.g. Nbd2)",
                token.line,
            ) from None
        except chess.IllegalMoveError:
            after = f"after {self.sans[-1]}" if self.sans else "in the start position"
            raise PgnError(f"{token.text!r} ({where}) is not legal {after}", token.line) from None
        except chess.InvalidMoveError:
            raise PgnError(
                f"{token.text!r} ({where}) is not a move (expected SAN like Nf3 or UCI like g1f3)",
                token.line,
            ) from None
        if self.max_plies is not None and len(self.moves) >= self.max_plies:
            raise TooManyPliesError(
                f"the game is longer than {self.max_plies} plies, the most analysed here "
                f"(line {token.line} holds ply {len(self.moves) + 1})"
            )
        self.sans.append(board.san(move))
        self.moves.append(move.uci())
        board.push(move)

    def finish(self) -> _Read:
        if self.depth > 0:
            raise PgnError("a variation '(' opened here is never closed", self.open_line)
        board = self._board(self.last_line)
        if not self.moves:
            raise PgnError("the game has no moves to analyse", self.last_line)
        start = board.copy()
        while start.move_stack:
            start.pop()
        return _Read(self.game, start.fen(), tuple(self.moves), tuple(self.sans), self.result)


def _ending(board: chess.Board, over: chess.Outcome) -> str:
    if isinstance(board, KnightChessBoard):
        return board.end_reason() or "game over"
    return over.termination.name.lower().replace("_", " ")
