"""The arena's exports: the crosstable as CSV (``engine.arena.standings``) and every
finished game as one PGN file, each game's headers naming the bots and their settings.
"""

from __future__ import annotations

from typing import Any

from app.arena_store import ArenaRecord
from app.arenas import bot_of, results_of
from engine.arena.standings import crosstable_csv
from engine.play import GameSession


def arena_csv(record: ArenaRecord) -> str:
    return crosstable_csv([bot_of(b) for b in record.bots], results_of(record))


def _tag(value: str) -> str:
    """A PGN tag value: backslash and quote escaped (python-chess writes them as they are)."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def arena_pgn(record: ArenaRecord, sessions: dict[str, dict[str, Any]]) -> str:
    """Every finished game (``sessions``: stored sessions by game id) in playing order.

    ``White``/``Black`` are the bots' names, ``WhiteEngine``/``BlackEngine`` their
    algorithm and changed parameters, ``Event`` the arena's name, ``Round`` the round;
    the result is the arena's (a game adjudicated at the move limit is a draw).
    """
    bots = {b.id: bot_of(b) for b in record.bots}
    out = []
    for g in record.games:
        data = sessions.get(g.game_id)
        if g.status != "done" or data is None or g.black is None:
            continue
        white, black = bots[g.white], bots[g.black]
        text = GameSession.from_dict(data).pgn(event=_tag(record.name))
        head, _, body = text.partition("\n\n")
        tags = {
            "Round": str(g.round),
            "White": _tag(white.name),
            "Black": _tag(black.name),
            "Result": g.result or "*",
        }
        lines = []
        for line in head.splitlines():
            key = line[1:].split(" ", 1)[0]
            if key in tags:
                line = f'[{key} "{tags[key]}"]'
            lines.append(line)
            if key == "Black":
                lines.append(f'[WhiteEngine "{_tag(white.engine(record.game))}"]')
                lines.append(f'[BlackEngine "{_tag(black.engine(record.game))}"]')
        if g.result and body.rstrip().endswith("*"):
            body = body.rstrip()[:-1] + g.result + "\n"
        out.append("\n".join(lines) + "\n\n" + body)
    return "\n".join(out)
