#!/usr/bin/env python3
"""Which final-move rule plays the best moves: ``mcts``'s root statistics, judged by Stockfish.

Why: ``mcts`` plays its most visited move. In the positions where it lost material to
`alphabeta`, the move Stockfish preferred often had the higher mean reward (Q) but fewer
visits — which suggests choosing by Q. Positions picked because the engine went wrong
favour any other rule, though, so this script judges the rules on an unbiased sample:
positions where Canopy was to move in its games against `alphabeta` (two per game at
random, from ply 16 on, more than four pieces on the board), each searched from scratch at
``--movetime``; every rule picks from the same root statistics, and Stockfish (fixed
nodes) scores each move picked. A rule's gain is the Stockfish score of its move less that
of the most visited move, in centipawns, capped at ±300 (a mate score would swamp the mean).
Positions with a proven move are left out (the proof decides there).

``--versus ALGO`` also searches each position with another algorithm and scores its move the
same way: how far apart two engines' moves are by this measure (for `alphabeta` it is one
number of the same kind as the rules')::

    .venv/bin/python scripts/final_rules.py --positions 300 --versus alphabeta \\
        docs/results/300ms/chess-mcts-vs-alphabeta-s*-session4[48].pgn.gz

Timed searches: run it on an idle machine, never beside a match. Needs ``stockfish``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn
from endgame_openings import against_alphabeta, games

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.match.stats import mean_and_error  # noqa: E402
from engine.search.info import MoveStats  # noqa: E402
from engine.search.tactics import search_fresh  # noqa: E402

#: Gains beyond this many centipawns count as this many (mate scores, lost positions).
CAP = 300
#: A move "better" or "worse" than the most visited one by more than this, in centipawns.
CLEAR = 50


@dataclass(frozen=True)
class Root:
    """One searched position: its FEN and the root's unproven visited moves."""

    fen: str
    moves: tuple[MoveStats, ...]


Rule = Callable[[tuple[MoveStats, ...]], MoveStats]


def most_visited(moves: tuple[MoveStats, ...]) -> MoveStats:
    return max(moves, key=lambda m: (m.visits, m.q))


def best_of_near(fraction: int, key: Callable[[MoveStats], float]) -> Rule:
    """The move with the highest ``key`` among those visited at least 1/``fraction`` as
    often as the most visited one (``final = value`` is this with the minimax value, 3)."""

    def rule(moves: tuple[MoveStats, ...]) -> MoveStats:
        top = max(m.visits for m in moves)
        return max((m for m in moves if m.visits * fraction >= top), key=key)

    return rule


def mean_and_minimax(m: MoveStats) -> float:
    return m.q + 0.5 * (1.0 + max(-1.0, min(1.0, m.eval)))


RULES: dict[str, Rule] = {
    "visits (the default)": most_visited,
    "Q, visits >= 1/2": best_of_near(2, lambda m: m.q),
    "Q, visits >= 1/3": best_of_near(3, lambda m: m.q),
    "Q, visits >= 1/4": best_of_near(4, lambda m: m.q),
    "Q, visits >= 1/10": best_of_near(10, lambda m: m.q),
    "minimax, >= 1/3 (final=value)": best_of_near(3, lambda m: m.eval),
    "Q + minimax, >= 1/3": best_of_near(3, mean_and_minimax),
}


def sample_positions(paths: list[Path], count: int, seed: int) -> list[str]:
    """Two positions a game where Canopy was to move, shuffled, the first ``count``."""
    rng = random.Random(seed)
    fens: list[str] = []
    for game in games(paths):
        if not against_alphabeta(game):
            continue
        canopy = not game.headers["White"].startswith("alphabeta")
        board = game.board()
        candidates = []
        for ply, move in enumerate(game.mainline_moves()):
            if board.turn == canopy and ply >= 16 and len(board.piece_map()) > 4:
                candidates.append(board.fen())
            board.push(move)
        fens += rng.sample(candidates, min(2, len(candidates)))
    rng.shuffle(fens)
    return fens[:count]


def searches(
    fens: list[str], algorithm: str, params: dict[str, str], movetime: float
) -> Iterator[tuple[str, tuple[MoveStats, ...], str]]:
    """(FEN, the root's moves, the move played) for each position, searched from scratch."""
    for fen in fens:
        info = search_fresh(fen, algorithm, params, movetime_ms=movetime)
        assert info.bestmove is not None  # a move was played from every sampled position
        yield fen, tuple(info.moves), info.bestmove


class Judge:
    """Stockfish's score of a move (after it, for the side that played it), cached."""

    def __init__(self, path: str, nodes: int) -> None:
        self.engine = chess.engine.SimpleEngine.popen_uci(path)
        self.engine.configure({"Threads": 1, "Hash": 64})
        self.limit = chess.engine.Limit(nodes=nodes)
        self.scores: dict[tuple[str, str], int] = {}

    def score(self, fen: str, move: str) -> int:
        if (fen, move) not in self.scores:
            board = chess.Board(fen)
            mover = board.turn
            board.push_uci(move)
            info = self.engine.analyse(board, self.limit)
            self.scores[(fen, move)] = info["score"].pov(mover).score(mate_score=3000)
        return self.scores[(fen, move)]

    def gain(self, fen: str, move: str, than: str) -> int:
        if move == than:
            return 0
        return max(-CAP, min(CAP, self.score(fen, move) - self.score(fen, than)))

    def close(self) -> None:
        self.engine.quit()


def summary(name: str, gains: list[int]) -> str:
    mean, error = mean_and_error(gains) if len(gains) > 1 else (float(gains[0]), 0.0)
    better = sum(g > CLEAR for g in gains)
    worse = sum(g < -CLEAR for g in gains)
    return (
        f"{name:32}{mean:+7.1f} cp (SE {error:.1f})"
        f"  better by >{CLEAR}: {better:3}  worse by >{CLEAR}: {worse:3}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="+", type=Path)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--movetime", type=float, default=300.0, help="ms a search")
    parser.add_argument("--seed", type=int, default=49, help="which positions")
    parser.add_argument("--param", action="append", default=[], metavar="K=V", help="mcts's")
    parser.add_argument("--versus", metavar="ALGO", help="also score this algorithm's move")
    parser.add_argument("--nodes", type=int, default=150_000, help="Stockfish's, a move")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args()
    params = dict(item.split("=", 1) for item in args.param)
    fens = sample_positions(args.pgn, args.positions, args.seed)
    list(searches(fens[:1], "mcts", params, 50.0))  # compile (or load) the kernels first
    roots: list[Root] = []
    for fen, moves, _ in searches(fens, "mcts", params, args.movetime):
        unproven = tuple(m for m in moves if m.visits > 0 and not m.proof)
        if len(unproven) >= 2 and not any(m.proof for m in moves):
            roots.append(Root(fen, unproven))
    other: list[str] = []
    if args.versus:
        judged = [root.fen for root in roots]  # only the positions the rules are judged on
        list(searches(judged[:1], args.versus, {}, 50.0))
        other = [best for _, _, best in searches(judged, args.versus, {}, args.movetime)]
    judge = Judge(args.stockfish, args.nodes)
    try:
        print(f"{len(roots)} of {len(fens)} positions (the rest had a proof or one move)")
        for name, rule in RULES.items():
            gains = [
                judge.gain(r.fen, rule(r.moves).move, most_visited(r.moves).move) for r in roots
            ]
            print(summary(name, gains))
        if args.versus:
            gains = [
                judge.gain(r.fen, move, most_visited(r.moves).move)
                for r, move in zip(roots, other, strict=True)
            ]
            print(summary(f"{args.versus}'s own move", gains))
    finally:
        judge.close()


if __name__ == "__main__":
    main()
