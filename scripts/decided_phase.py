#!/usr/bin/env python3
"""Where Canopy's games against `alphabeta` were decided: opening, middlegame or endgame.

Why: to know which phase a strength change should aim at. Each decisive game is placed by
the position where `alphabeta`'s own score (its move comments, ``+1.62/8``) first reached
±``--margin`` pawns and stayed beyond it, on the same side, to the end; the phase is the
count of knights, bishops, rooks and queens there (both sides): ``open`` with 10 or more,
``mid`` with 6–9, ``end`` with 5 or fewer. Games whose score never settled are ``-``.

    .venv/bin/python scripts/decided_phase.py docs/results/300ms/chess-*-session3[345].pgn.gz

``--entry N`` asks instead how the endgame was converted: each game is placed by
`alphabeta`'s score at its first move with at most N knights, bishops, rooks and queens
left — Canopy ahead (score at most −``--margin``), `alphabeta` ahead (at least
``--margin``) or level (within ±``--level``) — and Canopy's score is counted in each; the
draws Canopy let slip from ahead are counted by how they ended (a repetition is a
perpetual check when each of `alphabeta`'s last six moves gave check)::

    .venv/bin/python scripts/decided_phase.py --entry 6 --margin 1 \
        docs/results/300ms/chess-mcts-vs-alphabeta-s5[5-8]-session44.pgn.gz

``--lead P`` asks who won material and who converted it, by the board alone (no engine's
opinion): a side *led* when its material (pawn 1, knight and bishop 3, rook 5, queen 9) was
at least ``P`` pawns ahead in each of ``--hold`` consecutive positions (so an exchange in
progress is not a lead). A game can count for both sides. Canopy's score where it led is
its conversion rate; where `alphabeta` led, one minus that is `alphabeta`'s::

    .venv/bin/python scripts/decided_phase.py --lead 2 \
        docs/results/300ms/chess-mcts-vs-alphabeta-s*-session4[1-8].pgn.gz

``--opponent NAME`` reads another opponent's games the same way (the player whose name
starts with NAME; its move comments must carry its scores, as the match runner writes a
UCI engine's ``info score``): the games against Stockfish at a fixed ``UCI_Elo`` say where
the ladder's rungs are lost, by Stockfish's own judgement (session 60)::

    .venv/bin/python scripts/decided_phase.py --opponent stockfish \
        docs/results/300ms/chess-mcts-vs-stockfish-elo2000-s2[1-4]-session52-tables.pgn.gz
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
from endgame_openings import SCORE, games, pieces

#: A mate score in a move comment (``+M4/4``, as the match runner writes it); ``SCORE``
#: reads centipawn scores only.
MATE = re.compile(r"([+-])M\d+/")
#: A mate read as a lead of this many pawns: beyond any margin.
MATE_PAWNS = 100.0
#: The opponent whose move comments are read, unless ``--opponent`` names another.
OPPONENT = "alphabeta"


def plays(game: chess.pgn.Game, opponent: str) -> bool:
    """A chess game that ``opponent`` (a player's name prefix) played against Canopy."""
    names = (game.headers.get("White", ""), game.headers.get("Black", ""))
    return not game.headers.get("Variant") and sum(n.startswith(opponent) for n in names) == 1


def comment_score(comment: str) -> float | None:
    """The score a move comment gives, in pawns (a mate as ±``MATE_PAWNS``), or None."""
    if found := SCORE.search(comment):
        return float(found.group(1))
    if found := MATE.search(comment):
        return MATE_PAWNS if found.group(1) == "+" else -MATE_PAWNS
    return None


def phase(board: chess.Board) -> str:
    count = pieces(board)
    return "open" if count >= 10 else "mid" if count >= 6 else "end"


def canopy_outcome(game: chess.pgn.Game, opponent: str = OPPONENT) -> tuple[bool, str]:
    """(whether Canopy had White, Canopy's result: win, loss or draw)."""
    canopy_white = not game.headers["White"].startswith(opponent)
    result = game.headers["Result"]
    outcome = (
        "draw" if result == "1/2-1/2" else "win" if (result == "1-0") == canopy_white else "loss"
    )
    return canopy_white, outcome


def decided(game: chess.pgn.Game, margin: float, opponent: str = OPPONENT) -> tuple[str, str]:
    """(Canopy's result, phase where the game was decided) for one game."""
    canopy_white, outcome = canopy_outcome(game, opponent)
    board = game.board()
    scores: list[tuple[float, str]] = []  # the opponent's view, with the phase it was given in
    for node in game.mainline():
        if board.turn != canopy_white and (found := SCORE.search(node.comment or "")):
            scores.append((float(found.group(1)), phase(board)))
        board.push(node.move)
    for index, (score, where) in enumerate(scores):
        tail = scores[index:]
        if abs(score) >= margin and all(
            abs(s) >= margin and (s > 0) == (score > 0) for s, _ in tail
        ):
            return outcome, where
    return outcome, "-"


def entry(
    game: chess.pgn.Game, most: int, opponent: str = OPPONENT
) -> tuple[str, float | None, str, int]:
    """(Canopy's result, the opponent's score at its first move with at most ``most``
    pieces — None if the game never got there —, how the game ended, how many of
    the opponent's last six moves gave check)."""
    canopy_white, outcome = canopy_outcome(game, opponent)
    board = game.board()
    score: float | None = None
    checks: list[bool] = []
    for node in game.mainline():
        mover_is_opponent = board.turn != canopy_white
        if score is None and mover_is_opponent and pieces(board) <= most:
            score = comment_score(node.comment or "")
        board.push(node.move)
        if mover_is_opponent:
            checks.append(board.is_check())
    return outcome, score, ending(board), sum(checks[-6:])


def ending(board: chess.Board) -> str:
    """How a finished game's last position ended it (the runner claims draws)."""
    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient material"
    if board.can_claim_threefold_repetition():
        return "repetition"
    return "fifty moves" if board.can_claim_fifty_moves() else "other"


VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def material(board: chess.Board, colour: chess.Color) -> int:
    """``colour``'s material less its opponent's, in pawns."""
    return sum(
        value * (len(board.pieces(kind, colour)) - len(board.pieces(kind, not colour)))
        for kind, value in VALUES.items()
    )


def leads(
    game: chess.pgn.Game, pawns: float, hold: int, opponent: str = OPPONENT
) -> tuple[str, bool, bool, str]:
    """(Canopy's result, whether Canopy led by ``pawns`` for ``hold`` positions in a row,
    whether the opponent did, how the game ended)."""
    canopy_white, outcome = canopy_outcome(game, opponent)
    board = game.board()
    balance: list[int] = []  # Canopy's material lead after each move
    for move in game.mainline_moves():
        board.push(move)
        balance.append(material(board, canopy_white))
    windows = [balance[i : i + hold] for i in range(len(balance) - hold + 1)]
    canopy_led = any(min(w) >= pawns for w in windows)
    opponent_led = any(max(w) <= -pawns for w in windows)
    return outcome, canopy_led, opponent_led, ending(board)


def print_leads(paths: list[Path], pawns: float, hold: int, opponent: str = OPPONENT) -> None:
    """Who won material and who converted it (``--lead``)."""
    counts: Counter[tuple[str, str]] = Counter()
    slipped: Counter[str] = Counter()
    played = 0
    they = f"{opponent} led"
    for game in games(paths):
        if not plays(game, opponent):
            continue
        played += 1
        outcome, canopy_led, opponent_led, end = leads(game, pawns, hold, opponent)
        for who, led in (("canopy led", canopy_led), (they, opponent_led)):
            if led:
                counts[(who, outcome)] += 1
        if not (canopy_led or opponent_led):
            counts[("neither", outcome)] += 1
        if canopy_led and outcome == "draw":
            slipped[end] += 1
    print(f"{played} games; a lead of {pawns:g} pawns held for {hold} positions")
    print("who led                games    +W    =D    -L  Canopy's score  leader's score")
    for who in ("canopy led", they, "neither"):
        win, draw, loss = (counts[(who, o)] for o in ("win", "draw", "loss"))
        total = win + draw + loss
        if not total:
            print(f"{who:20}{0:8}")
            continue
        score = (win + draw / 2) / total
        converted = score if who == "canopy led" else 1 - score
        leader = "" if who == "neither" else f"{100 * converted:.1f} %"
        print(f"{who:20}{total:8}{win:6}{draw:6}{loss:6}  {100 * score:12.1f} %  {leader:>14}")
    print("Canopy's draws from a lead: " + ", ".join(f"{n} {k}" for k, n in slipped.most_common()))


def print_entries(
    paths: list[Path], most: int, margin: float, level: float, opponent: str = OPPONENT
) -> None:
    """Canopy's score by who was ahead entering the endgame (``--entry``)."""
    counts: Counter[tuple[str, str]] = Counter()
    slipped: Counter[str] = Counter()
    they = f"{opponent} ahead"
    for game in games(paths):
        if not plays(game, opponent):
            continue
        outcome, score, end, checks = entry(game, most, opponent)
        if score is None:
            where = "never"
        elif score <= -margin:
            where = "canopy ahead"
        elif score >= margin:
            where = they
        else:
            where = "level" if abs(score) <= level else "-"
        counts[(where, outcome)] += 1
        if where == "canopy ahead" and outcome == "draw":
            slipped["perpetual check" if end == "repetition" and checks == 6 else end] += 1
    print("entering the endgame   games    +W    =D    -L  Canopy's score")
    for where in ("canopy ahead", they, "level", "never"):
        win, draw, loss = (counts[(where, o)] for o in ("win", "draw", "loss"))
        total = win + draw + loss
        share = f"{100 * (win + draw / 2) / total:.1f} %" if total else "-"
        print(f"{where:20}{total:8}{win:6}{draw:6}{loss:6}  {share}")
    print("Canopy's draws from ahead: " + ", ".join(f"{n} {k}" for k, n in slipped.most_common()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="+", type=Path)
    parser.add_argument("--margin", type=float, default=1.5, help="pawns")
    parser.add_argument(
        "--entry", type=int, metavar="N", help="by the score entering an N-piece endgame"
    )
    parser.add_argument("--level", type=float, default=0.3, help="pawns (--entry)")
    parser.add_argument("--lead", type=float, metavar="P", help="by who held a P-pawn lead")
    parser.add_argument("--hold", type=int, default=6, help="positions in a row (--lead)")
    parser.add_argument(
        "--opponent", default=OPPONENT, help="the opponent's name prefix (its scores are read)"
    )
    args = parser.parse_args()
    if args.lead is not None:
        print_leads(args.pgn, args.lead, args.hold, args.opponent)
        return
    if args.entry is not None:
        print_entries(args.pgn, args.entry, args.margin, args.level, args.opponent)
        return
    counts: Counter[tuple[str, str]] = Counter()
    for game in games(args.pgn):
        if plays(game, args.opponent):
            counts[decided(game, args.margin, args.opponent)] += 1
    print("result  open  mid  end  -")
    for outcome in ("win", "loss", "draw"):
        row = [counts[(outcome, where)] for where in ("open", "mid", "end", "-")]
        print(f"{outcome:6}" + "".join(f"{n:6}" for n in row))


if __name__ == "__main__":
    main()
