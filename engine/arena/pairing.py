"""Who plays whom: a round robin by the circle method, or Swiss rounds.

Every meeting is two games on the same opening with the colours swapped, so neither
the opening nor the first move decides a pairing: what is left is the bots. Openings
are dealt in order (index modulo the book's length), one per meeting, so a
tournament is a pure function of its bots' order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.arena.rules import ArenaError
from engine.arena.standings import Result, points_by_bot

#: Pairings a Swiss round tries before it accepts a rematch (the search for a pairing
#: without one is exponential in the worst case; a class is at most a few dozen bots).
SWISS_TRIES = 20_000


@dataclass(frozen=True)
class Pairing:
    """One game: its round (from 1), the bots by colour and the opening's index.

    ``black`` is None for a Swiss bye: ``white`` scores a point without a game (record
    ``Result(white, None, "1-0")``) and ``opening`` is -1.
    """

    round: int
    white: str
    black: str | None
    opening: int

    @property
    def bye(self) -> bool:
        return self.black is None


def _check(bot_ids: list[str], openings: int) -> None:
    if len(set(bot_ids)) != len(bot_ids):
        raise ArenaError("bad_request", "bot ids must be distinct")
    if openings < 1:
        raise ArenaError("bad_request", f"openings must be at least 1; got {openings}")


def _meeting(round_no: int, a: str, b: str, opening: int) -> list[Pairing]:
    """The two games of a meeting: ``a`` White first, then the colours swapped."""
    return [Pairing(round_no, a, b, opening), Pairing(round_no, b, a, opening)]


def round_robin(bot_ids: list[str], rounds: int, openings: int) -> list[Pairing]:
    """Every pair meets ``rounds`` times (two games each), scheduled by the circle method.

    With n bots (one more, a rest, when n is odd) a cycle has n − 1 rounds; in each the
    first bot stays and the others turn one place, so every pair meets once a cycle and
    nobody waits more than one round for a game.
    """
    _check(bot_ids, openings)
    if rounds < 1:
        raise ArenaError("bad_request", f"rounds must be at least 1; got {rounds}")
    if len(bot_ids) < 2:
        return []
    circle: list[str | None] = list(bot_ids)
    if len(circle) % 2:
        circle.append(None)  # whoever meets it rests this round
    n = len(circle)
    out: list[Pairing] = []
    dealt = 0
    for cycle in range(rounds):
        order = list(circle)
        for r in range(n - 1):
            round_no = cycle * (n - 1) + r + 1
            for i in range(n // 2):
                a, b = order[i], order[n - 1 - i]
                if a is None or b is None:
                    continue
                if (i == 0 and r % 2 == 1) != (cycle % 2 == 1):
                    a, b = b, a  # the fixed bot does not always start with White
                out += _meeting(round_no, a, b, dealt % openings)
                dealt += 1
            order = [order[0], order[-1], *order[1:-1]]
    return out


def swiss_round(
    bot_ids: list[str], results: list[Result], round_no: int, openings: int
) -> list[Pairing]:
    """The pairings of Swiss round ``round_no`` (from 1) given the results so far.

    Dutch-style: the bots sorted by points (ties in ``bot_ids`` order) are paired from
    the top, each with the highest bot below it it has not met; the first pairing found
    without a rematch wins; only when none exists (or none is found within
    ``SWISS_TRIES`` steps) are rematches allowed, as few times
    over as can be (pairs that met once before pairs that met twice). With an odd count
    the lowest bot that has not had a bye gets one.
    """
    _check(bot_ids, openings)
    if round_no < 1:
        raise ArenaError("bad_request", f"round_no must be at least 1; got {round_no}")
    points = points_by_bot(results)
    seed = {b: i for i, b in enumerate(bot_ids)}
    ranked = sorted(bot_ids, key=lambda b: (-points.get(b, 0.0), seed[b]))
    met = Counter(frozenset((r.white, r.black)) for r in results if r.black is not None)
    out: list[Pairing] = []
    if len(ranked) % 2:
        had_bye = {r.white for r in results if r.black is None}
        resting = next((b for b in reversed(ranked) if b not in had_bye), ranked[-1])
        ranked.remove(resting)
        out.append(Pairing(round_no, resting, None, -1))
    pairs: list[tuple[str, str]] | None = None
    allowed = 0
    while pairs is None:  # once ``allowed`` reaches the most meetings, nothing is forbidden
        pairs = _pair(ranked, {m for m, times in met.items() if times > allowed})
        allowed += 1
    first = (round_no - 1) * (len(ranked) // 2)
    for k, (a, b) in enumerate(pairs):
        out += _meeting(round_no, a, b, (first + k) % openings)
    return out


def _pair(ranked: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    """Pairs of ``ranked`` (even length) with no pair in ``met``, the top bot of each
    pair first; None if none is found within ``SWISS_TRIES`` steps."""
    tries = [0]

    def solve(left: list[str]) -> list[tuple[str, str]] | None:
        if not left:
            return []
        top, rest = left[0], left[1:]
        for i, other in enumerate(rest):
            tries[0] += 1
            if tries[0] > SWISS_TRIES:
                return None
            if frozenset((top, other)) in met:
                continue
            tail = solve(rest[:i] + rest[i + 1 :])
            if tail is not None:
                return [(top, other), *tail]
        return None

    return solve(ranked)
