"""A move-quality probe: one engine setting's moves on fixed game positions, each scored by
a reference engine (Stockfish) as centipawns lost against its own best move.

Why beside ``canopy match``: a 40-game match between close engines has a standard error
of about 7 points, so a change worth 20 Elo needs hundreds of games to show. The probe
asks a narrower, quieter question — how good is the move this setting picks in these
300 positions, at this time per move — with every setting facing the same positions.
It screens candidates before a match (and explains a match: how much time ``mcts``
needs to pick moves as well as ``alphabeta``). It measures single moves, not games:
from a fresh tree, or (``reuse``) after searching the position two plies before and
playing the game's moves into the tree, as a game's engine does — what a setting carries
from move to move shows only there. Strength is still only ever *quoted* from
``canopy match``.

The reference engine's scores are cached per position and per (position, move): a
setting's run after the first costs only its own searches and the moves not seen yet.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import chess
import chess.engine
import chess.pgn

from engine.match.stats import mean_and_error
from engine.search.controller import SearchController

#: A move's loss is counted up to this many centipawns: a blunder in a position already
#: lost (or won) a hundred ways over would otherwise outweigh every other position.
LOSS_CAP = 1000
#: A mate is scored this far from zero (a mate in n: ``MATE_CP - n``), above the cap.
MATE_CP = 3000
#: Losses at or above these count as a mistake and as a blunder.
MISTAKE_CP, BLUNDER_CP = 100, 300


def read_pgn(path: Path) -> Iterator[chess.pgn.Game]:
    """The games of a ``.pgn`` or ``.pgn.gz`` file, in order."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            yield game


@dataclass(frozen=True)
class ProbePosition:
    """A position to probe, with the game's line into it from ``lead`` plies before: a
    search with tree reuse starts there and plays the line, as an engine in a game
    searched its previous move and kept the subtree of the moves then played."""

    fen: str
    earlier: str
    line: tuple[str, ...]
    #: the move the game played here (UCI), so a probe can ask whether a setting plays it
    played: str = ""


def _positions_of(
    game: chess.pgn.Game, lead: int
) -> Iterator[tuple[int, int, bool, ProbePosition]]:
    """Each position of ``game`` before one of its moves: the move's index, the plies
    played before it, the side to move and the position (with the line into it from
    ``lead`` plies before, and the move played there)."""
    board = game.board()
    boards: list[str] = []
    played: list[str] = []
    for index, move in enumerate(game.mainline_moves()):
        fen = board.fen()
        boards.append(fen)
        start = max(0, index - lead)
        position = ProbePosition(fen, boards[start], tuple(played[start:]), move.uci())
        yield index, board.ply(), board.turn, position
        played.append(move.uci())
        board.push(move)


def probe_positions(
    games: Iterable[chess.pgn.Game],
    *,
    every: int = 5,
    first_ply: int = 16,
    last_ply: int = 100,
    limit: int | None = None,
    lead: int = 2,
) -> list[ProbePosition]:
    """Every ``every``-th position of each game from ``first_ply`` to ``last_ply`` (plies
    played before the position), in game order, at most ``limit``: past the opening
    book, through the middlegame and into the endgames where matches are lost. Each
    comes with the position ``lead`` plies before it and the moves between."""
    if every < 1:
        raise ValueError(f"every must be at least 1; got {every}")
    found: list[ProbePosition] = []
    for game in games:
        for index, ply, _, position in _positions_of(game, lead):
            if first_ply <= ply <= last_ply and index % every == 0:
                found.append(position)
                if limit is not None and len(found) >= limit:
                    return found
    return found


def centipawn_loss(best_cp: int, move_cp: int, cap: int = LOSS_CAP) -> int:
    """What a move gave away against the best move, both scored for the side to move:
    never below 0 (a deeper look may rate the move above the reference's own best),
    never above ``cap``."""
    return max(0, min(cap, best_cp - move_cp))


class Referee(Protocol):
    """Scores for the side to move: of the position (its best move) and of one move."""

    def best(self, fen: str) -> int: ...

    def after(self, fen: str, move: str) -> int: ...


class UciReferee:
    """A UCI engine (Stockfish) at a fixed depth, with a JSON cache of its scores."""

    def __init__(self, command: str, depth: int, cache: Path | None = None) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1; got {depth}")
        self.depth = depth
        self.cache_path = cache
        self.scores: dict[str, int] = {}
        if cache is not None and cache.exists():
            self.scores = {k: int(v) for k, v in json.loads(cache.read_text()).items()}
        self.engine = chess.engine.SimpleEngine.popen_uci(command)

    def _score(self, fen: str, move: str | None) -> int:
        key = f"{self.depth} {fen}" + (f" {move}" if move else "")
        if key not in self.scores:
            board = chess.Board(fen)
            root = [chess.Move.from_uci(move)] if move else None
            info = self.engine.analyse(board, chess.engine.Limit(depth=self.depth), root_moves=root)
            self.scores[key] = info["score"].pov(board.turn).score(mate_score=MATE_CP)
        return self.scores[key]

    def best(self, fen: str) -> int:
        return self._score(fen, None)

    def after(self, fen: str, move: str) -> int:
        return self._score(fen, move)

    def close(self) -> None:
        self.engine.quit()
        if self.cache_path is not None:
            self.cache_path.write_text(json.dumps(self.scores))


def chosen_moves(
    positions: Iterable[ProbePosition],
    algorithm: str,
    params: Mapping[str, Any],
    *,
    movetime_ms: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    reuse: bool = False,
) -> list[str]:
    """The move ``algorithm`` plays in each position: searched from a fresh tree, or with
    ``reuse`` as in a game — the same search first from the position ``lead`` plies
    before, then the game's moves played into the tree (its subtree kept)."""
    moves = []
    for position in positions:
        replay = reuse and bool(position.line)
        start = position.earlier if replay else position.fen
        controller = SearchController("chess", start, algorithm=algorithm, params=params, seed=seed)
        if replay:
            controller.search(movetime_ms=movetime_ms, iterations=iterations)
            for uci in position.line:
                controller.play(uci)
        info = controller.search(movetime_ms=movetime_ms, iterations=iterations)
        if info.bestmove is None:
            raise ValueError(f"{algorithm} found no move in {position.fen}")
        moves.append(info.bestmove)
    return moves


def lost_positions(
    games: Iterable[chess.pgn.Game],
    referee: Referee,
    player: str,
    *,
    min_loss: int = MISTAKE_CP,
    limit: int | None = None,
    lead: int = 2,
) -> list[ProbePosition]:
    """The positions where ``player`` (a name in the games' White and Black tags) played a
    move the referee scores at least ``min_loss`` centipawns below its own best, in game
    order, at most ``limit``.

    Why: a match is lost on a few moves, and whether a new setting still plays *those*
    says more about it than its average over every fifth position: this is how it was found
    that ``mcts`` at ten times the match's time still chose most of the quiet moves it
    lost to Stockfish's 2000 with (docs/results.md). The referee scores every move the
    player made, twice (the position and the move), so a set of 120 games takes a while
    the first time; its cache makes the second run free.
    """
    if min_loss < 1:
        raise ValueError(f"min_loss must be at least 1 centipawn; got {min_loss}")
    found: list[ProbePosition] = []
    for game in games:
        sides = {side for side, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black"))
                 if game.headers.get(tag) == player}  # fmt: skip
        for _, _, turn, position in _positions_of(game, lead):
            if turn not in sides:
                continue
            best = referee.best(position.fen)
            if centipawn_loss(best, referee.after(position.fen, position.played)) >= min_loss:
                found.append(position)
                if limit is not None and len(found) >= limit:
                    return found
    return found


@dataclass(frozen=True)
class ProbeResult:
    """Each position's loss in centipawns, and the figures a comparison needs."""

    losses: tuple[int, ...]

    @property
    def positions(self) -> int:
        return len(self.losses)

    @property
    def average(self) -> float:
        """Average centipawn loss (lower is better)."""
        return sum(self.losses) / len(self.losses) if self.losses else 0.0

    @property
    def mistakes(self) -> int:
        return sum(loss >= MISTAKE_CP for loss in self.losses)

    @property
    def blunders(self) -> int:
        return sum(loss >= BLUNDER_CP for loss in self.losses)

    def as_dict(self) -> dict[str, Any]:
        return {
            "positions": self.positions,
            "average_loss": round(self.average, 1),
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "losses": list(self.losses),
        }


def score_moves(fens: Iterable[str], moves: Iterable[str], referee: Referee) -> ProbeResult:
    """Each move's centipawn loss against the referee's best move in its position."""
    return ProbeResult(
        tuple(
            centipawn_loss(referee.best(fen), referee.after(fen, move))
            for fen, move in zip(fens, moves, strict=True)
        )
    )


def paired_difference(a: ProbeResult, b: ProbeResult) -> tuple[float, float]:
    """``a``'s average loss minus ``b``'s on the same positions, and the standard error of
    that difference (from the per-position differences): pairing removes the positions'
    own difficulty, which is most of the spread between two settings' figures."""
    if a.positions != b.positions or a.positions < 2:
        raise ValueError("paired results need the same positions, at least two")
    return mean_and_error([x - y for x, y in zip(a.losses, b.losses, strict=True)])
