"""Opening positions for matches: one FEN or EPD per line.

Lines may be full FENs or EPD records (four fields, then opcodes such as
``hmvc 0; fmvn 4; id "kc-017";``); ``#`` starts a comment. The move counters
matter in knight chess, where the 200-ply limit counts from the fullmove
number, so the shipped files carry ``fmvn``. Every position is validated by
the rules layer and must not be finished.

The files shipped in ``engine/data/openings`` are made by
``scripts/make_openings.py`` (see ``docs/results.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import chess

from engine.errors import CanopyError, InvalidFenError
from engine.rules.games import get_game, outcome

PACKAGED = {"chess": "chess.epd", "knight": "knight.epd"}


@dataclass(frozen=True)
class Opening:
    id: str
    fen: str


def default_openings_path(game: str) -> Path:
    name = PACKAGED[get_game(game).name]
    return Path(str(resources.files("engine.data.openings").joinpath(name)))


def parse_line(line: str, game: str) -> tuple[chess.Board, str | None]:
    """The board a FEN/EPD line describes and its ``id`` opcode (if any)."""
    g = get_game(game)
    fields = line.split()
    opening_id = None
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].rstrip(";").isdigit():
        fen = " ".join(fields[:6])
    else:
        try:
            board, ops = g.board_class.from_epd(line)
        except ValueError as exc:
            raise InvalidFenError(f"bad EPD {line!r}: {exc}") from None
        fen = board.fen()
        if isinstance(ops.get("id"), str):
            opening_id = str(ops["id"])
    return g.board(fen), opening_id


def load_openings(path: str | Path | None, game: str) -> list[Opening]:
    """All openings in ``path`` (default: the packaged file for ``game``)."""
    source = Path(path) if path is not None else default_openings_path(game)
    try:
        text = source.read_text()
    except OSError as exc:
        raise CanopyError(f"cannot read openings file {str(source)!r}: {exc.strerror}") from None
    openings = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            board, opening_id = parse_line(line, game)
        except CanopyError as exc:
            raise CanopyError(f"{source.name} line {number}: {exc}") from None
        if outcome(board)[0] is not None:
            raise CanopyError(f"{source.name} line {number}: the game is already over")
        openings.append(Opening(opening_id or f"{source.stem}-{number}", board.fen()))
    if not openings:
        raise CanopyError(f"openings file {str(source)!r} holds no positions")
    return openings
