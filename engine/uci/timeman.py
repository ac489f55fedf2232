"""Time management: how long to think from the UCI ``go`` clock fields.

The plan is two numbers: a *soft* limit, where the search stops unless its
best move is still changing, and a *hard* limit it never passes. A clock's
plan leaves ``Move Overhead`` for the GUI and the pipe.

* ``go movetime T``: soft = hard = T. UCI says "search exactly T ms", so the
  overhead is not taken off (Stockfish does the same); a GUI that needs a
  margin asks for less.
* A clock: the time left is shared over the moves still to play, plus most of
  the increment. Moves still to play: ``movestogo`` when given; in knight
  chess the game ends at ply 200, so the count is exact; in chess an estimate
  that shrinks from 45 to 20 as the game goes on. The soft limit never takes
  more than 40 % of what is left, the hard limit at most three times the soft
  one and never more than 60 % (80 % / 90 % on the last move before a control).
"""

from __future__ import annotations

from dataclasses import dataclass

KNIGHT_PLY_LIMIT = 200


@dataclass(frozen=True)
class Clock:
    """The side to move's time in milliseconds, as ``go`` gave it."""

    time_ms: float
    inc_ms: float = 0.0
    movestogo: int | None = None


@dataclass(frozen=True)
class Plan:
    soft_ms: float
    hard_ms: float


def moves_left(game: str, ply: int, movestogo: int | None) -> int:
    """How many moves (of ours) the remaining time must last."""
    if game == "knight":
        ours = max(1, (KNIGHT_PLY_LIMIT - ply + 1) // 2)
        return min(ours, movestogo) if movestogo else ours
    if movestogo:
        return movestogo
    fullmove = ply // 2 + 1
    return max(20, 45 - fullmove // 2)


def plan_movetime(movetime_ms: float) -> Plan:
    budget = max(1.0, float(movetime_ms))
    return Plan(budget, budget)


def plan_clock(clock: Clock, *, game: str, ply: int, overhead_ms: float) -> Plan:
    avail = max(1.0, clock.time_ms - overhead_ms)
    mtg = moves_left(game, ply, clock.movestogo)
    inc = max(0.0, clock.inc_ms)
    if mtg <= 1:
        return Plan(0.8 * avail, 0.9 * avail)
    soft = min(avail / mtg + 0.8 * inc, 0.4 * avail)
    hard = min(3.0 * soft, 0.6 * avail)
    return Plan(max(1.0, soft), max(1.0, hard))
