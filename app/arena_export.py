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


def arena_pgn(record: ArenaRecord, sessions: dict[str, dict[str, Any]]) -> str:
    """Every finished game (``sessions``: stored sessions by game id) in playing order.

    Each is the game's own PGN (``White``/``Black`` the bots' names,
    ``WhiteEngine``/``BlackEngine`` their algorithm and changed parameters, the
    arena's result: a game the move limit ended is adjudicated a draw), with
    ``Event`` the arena's name and ``Round`` the round.
    """
    out = []
    for g in record.games:
        data = sessions.get(g.game_id)
        if g.status != "done" or data is None or g.black is None:
            continue
        out.append(GameSession.from_dict(data).pgn(event=record.name, round=str(g.round)))
    return "\n".join(out)
