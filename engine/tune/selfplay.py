"""Canopy-vs-Canopy games that label positions with their game's result.

Texel's method needs positions and the result of the game each came from. These
come from Canopy's own games (no outside data): ``alphabeta`` with a fixed node
budget a move plays both sides, from the match openings
(``engine/data/openings/*.epd``) followed by a few uniformly random plies so no two
games repeat. A node budget (not a clock) keeps every game a pure function of the
seed, the machine's speed does not enter, and games are independent, so ``--jobs``
spreads them over processes without changing a byte of the output::

    python -m engine.tune.selfplay --game chess --games 1200 --seed 1 --out chess.tsv.gz

The output is a gzip text file (written with a zero timestamp, so the same seed
gives the same bytes): ``#`` comment lines naming the command, then one row per
position where the engine chose a move::

    fen <TAB> result <TAB> ply <TAB> flags <TAB> static_cp <TAB> search

``result`` is the game's score for White (1, 0.5, 0); ``flags`` holds ``c`` if the
side to move was in check, ``x`` if the move played captured or promoted and ``p``
if the move before it captured; ``static_cp`` is the evaluation for the side to move
and ``search`` the search's score (in [-1, 1], or a mate score). The fit keeps the
quiet positions (no flag).
"""

from __future__ import annotations

import argparse
import gzip
import io
import multiprocessing
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.core.games import in_check, legal_moves, make_move, result, status
from engine.core.state import FLAG_CAPTURE, HALFMOVE, HASH, MAX_MOVES, ONGOING
from engine.core.walk import random_line
from engine.eval.evaluate import centipawns
from engine.match.openings import load_openings
from engine.rules.convert import state_from_fen, state_to_fen
from engine.rules.games import get_game
from engine.search.algorithms.alphabeta import AlphaBetaWorker

CHESS_MAX_PLIES = 400  # a chess game still going after this many plies is scored a draw
PROMOTION_BITS = 7 << 12


@dataclass(frozen=True)
class SelfPlayConfig:
    game: str = "chess"
    games: int = 100
    seed: int = 1
    nodes: int = 2000
    random_plies: int = 2

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"games must be at least 1, got {self.games}")
        if self.nodes < 1:
            raise ValueError(f"nodes must be at least 1, got {self.nodes}")
        if not 0 <= self.random_plies <= 40:
            raise ValueError(f"random_plies must be in 0..40, got {self.random_plies}")


@dataclass(frozen=True)
class Position:
    fen: str
    ply: int
    flags: str
    static_cp: float
    search: float


def _engine_move(worker: AlphaBetaWorker, nodes: int) -> tuple[int, float]:
    """The move ``alphabeta`` picks within ``nodes`` nodes, and its score."""
    worker.run(nodes, np.zeros(1, dtype=np.uint8))
    if worker.completed_depth > 0:
        return int(worker.moves[0]), float(worker.scores[0])
    best = int(np.argmax(worker.static))
    return int(worker.moves[best]), float(worker.static[best])


def play_game(config: SelfPlayConfig, index: int) -> tuple[list[Position], float]:
    """Game ``index`` of the run: its recorded positions and White's score (1, 0.5, 0)."""
    rng = np.random.default_rng([config.seed, index])
    openings = load_openings(None, config.game)
    opening = state_from_fen(openings[index % len(openings)].fen, config.game)
    s = random_line(opening, config.random_plies, rng)[-1]
    buf = np.zeros(MAX_MOVES, dtype=np.int32)

    params = {"max_depth": 64, "quiescence": True, "hash_mb": 4}
    worker = AlphaBetaWorker(s, params)
    keys = [int(s[HASH])]  # positions since the last irreversible move, for repetition
    seen: dict[int, int] = {int(s[HASH]): 1}
    positions: list[Position] = []
    chess = get_game(config.game).name == "chess"
    after_capture = False
    white = 0.5
    while True:
        n = legal_moves(s, buf)
        code = status(s, n)
        if code != ONGOING:
            white = (result(s, code) + 1) / 2
            break
        if chess and (seen[int(s[HASH])] >= 3 or len(positions) >= CHESS_MAX_PLIES):
            break  # threefold repetition or too long: a draw
        worker.history_keys = keys[:-1]
        move, score = _engine_move(worker, config.nodes)
        flags = ("c" if in_check(s) else "") + (
            "x" if move & (FLAG_CAPTURE | PROMOTION_BITS) else ""
        )
        flags += "p" if after_capture else ""
        positions.append(Position(state_to_fen(s), len(positions), flags, centipawns(s), score))
        after_capture = bool(move & FLAG_CAPTURE)
        make_move(s, move)
        worker.advance(move)
        if s[HALFMOVE] == 0:
            keys = []
        keys.append(int(s[HASH]))
        seen[int(s[HASH])] = seen.get(int(s[HASH]), 0) + 1
    return positions, white


def _play(args: tuple[SelfPlayConfig, int]) -> tuple[list[Position], float]:
    return play_game(*args)


def play_games(config: SelfPlayConfig, jobs: int = 1) -> Iterator[tuple[list[Position], float]]:
    """Every game of the run in index order (the same whatever ``jobs`` is)."""
    tasks = [(config, i) for i in range(config.games)]
    if jobs <= 1:
        yield from map(_play, tasks)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap(_play, tasks, chunksize=1)


def write_games(
    path: Path, config: SelfPlayConfig, games: Iterator[tuple[list[Position], float]], command: str
) -> tuple[int, int]:
    """Write the run to ``path`` (gzip, zero timestamp); return (games, positions)."""
    text = io.StringIO()
    text.write(f"# canopy self-play for Texel tuning: {command}\n")
    text.write(
        f"# game={config.game} games={config.games} seed={config.seed} "
        f"nodes={config.nodes} random_plies={config.random_plies}\n"
    )
    text.write("# fen\tresult\tply\tflags\tstatic_cp\tsearch\n")
    count = rows = 0
    for positions, white in games:
        count += 1
        for p in positions:
            text.write(
                f"{p.fen}\t{white:g}\t{p.ply}\t{p.flags}\t{p.static_cp:.1f}\t{p.search:.4f}\n"
            )
            rows += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as out:
        out.write(text.getvalue().encode())
    tmp.replace(path)
    return count, rows


def data_rows(path: Path) -> Iterator[list[str]]:
    """The fields of each position row of a self-play file (its ``#`` lines skipped)."""
    with gzip.open(path, "rt") as data:
        for line in data:
            if not line.startswith("#") and line.strip():
                yield line.rstrip("\n").split("\t")


def read_positions(path: Path) -> tuple[list[str], np.ndarray, list[str], np.ndarray]:
    """The fen, White's result, flags and ply columns of a self-play file."""
    fens: list[str] = []
    results: list[float] = []
    flags: list[str] = []
    plies: list[int] = []
    for fields in data_rows(path):
        fens.append(fields[0])
        results.append(float(fields[1]))
        plies.append(int(fields[2]))
        flags.append(fields[3])
    return fens, np.array(results), flags, np.array(plies)


def search_score(fields: list[str]) -> float:
    """A position row's ``search`` column as White's expected score.

    The search scored the position for its side to move, in [-1, 1] (a mate score is
    larger and clips to ±1); a blended Texel target (:func:`engine.tune.fitting.quiet_targets`)
    wants it from White's side and on the result's scale, 0 to 1."""
    score = min(1.0, max(-1.0, float(fields[5])))
    white = fields[0].split(" ")[1] == "w"
    return 0.5 * (1.0 + (score if white else -score))


def read_search_scores(path: Path) -> np.ndarray:
    """:func:`search_score` of every position row of a self-play file."""
    return np.array([search_score(fields) for fields in data_rows(path)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.tune.selfplay",
        description="Canopy-vs-Canopy games recording positions and results for Texel tuning",
    )
    parser.add_argument("--game", choices=("chess", "knight"), default="chess")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=2000, help="alphabeta nodes per move")
    parser.add_argument(
        "--random-plies", type=int, default=2, help="random plies after the opening"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes (does not change the output)"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        config = SelfPlayConfig(args.game, args.games, args.seed, args.nodes, args.random_plies)
    except ValueError as exc:
        parser.error(str(exc))
    command = "python -m engine.tune.selfplay " + shlex.join([
        "--game", config.game, "--games", str(config.games), "--seed", str(config.seed),
        "--nodes", str(config.nodes), "--random-plies", str(config.random_plies),
        "--out", str(args.out),
    ])  # fmt: skip
    games, rows = write_games(args.out, config, play_games(config, args.jobs), command)
    print(f"{games} games, {rows} positions -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
