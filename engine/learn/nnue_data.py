"""The NNUE's training positions: self-play games written as compact binary shards.

Engine writers train their networks on millions of positions from their own engine's
games, each scored by a search and labelled with the game's result. Canopy does the
same: ``alphabeta`` plays itself with a fixed node budget (a few thousand nodes a move,
so the games are quick and every game is a pure function of its opening and seed), from
the balanced openings followed by a few uniformly random plies for variety, and every
move's search gives up to two positions with the search's score: the position itself
when it is quiet (not in check, the move chosen neither a capture nor a promotion), and
the leaf of its principal variation (TD-leaf, as the learned evaluation's self-play
records, :class:`engine.learn.players.GameRecord`) — after the quiescence search, a quiet
position, where the search applied the evaluation — unless it is in check. Each position
is then labelled with the game's result from its side to move.

**Format.** A data directory holds ``data.json`` (what made it: game, seed, nodes, random
plies, the player's weights, the commands that wrote it; and the shards written) and shards
``positions-NNNNN.bin``, each the positions of a fixed block of games: a 16-byte
header (:data:`MAGIC`, the format version, the record count) and then 32-byte records
(:data:`RECORD`):

======== ======= ====================================================================
field    type    meaning
======== ======= ====================================================================
occ      u64     the occupied squares (a1 = bit 0)
pieces   u8[16]  a nibble per occupied square in square order: colour × 6 + piece type
score    i16     the search's score for the side to move, [-1, 1] × :data:`SCORE_SCALE`
result   i8      the game's result for the side to move: 1, 0, -1
stm      u8      the side to move: 0 White, 1 Black
ply      u16     plies played from the game's start
game     u16     the game's index within its shard
======== ======= ====================================================================

One million positions are 32 MB. A shard is written whole and atomically, so a run that
stops loses at most the shard in progress and resumes with the next one it lacks
(:func:`generate`); the same seed writes the same shards, on any machine and with any
number of processes. Positions repeat (the first plies of games from the same opening):
:func:`load` keeps each position once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from engine.core.state import (
    BLACK_BB,
    EP,
    HASH,
    KING,
    NO_SQUARE,
    PLY,
    STATE_SIZE,
    TURN,
    WHITE_BB,
)
from engine.core.zobrist import full_hash
from engine.errors import CanopyError
from engine.files import write_bytes_atomic

if TYPE_CHECKING:
    from engine.learn.players import GameRecord
    from engine.learn.train import GamePool

MAGIC = b"CNPYPOS1"
FORMAT_VERSION = 1
HEADER = np.dtype([("magic", "S8"), ("version", "<u4"), ("count", "<u4")])
RECORD = np.dtype(
    [
        ("occ", "<u8"),
        ("pieces", "u1", (16,)),
        ("score", "<i2"),
        ("result", "i1"),
        ("stm", "u1"),
        ("ply", "<u2"),
        ("game", "<u2"),
    ]
)
SCORE_SCALE = 32000
MANIFEST = "data.json"
MANIFEST_FORMAT = "canopy-nnue-positions"


class DataError(CanopyError):
    """A data directory or shard that cannot be used (names the file and the fix)."""

    code = "bad_data"


@dataclass(frozen=True)
class DataConfig:
    """What a data directory's games are: every field shapes the positions, so a
    directory is only ever extended with the same settings."""

    game: str = "chess"
    seed: int = 1
    nodes: int = 4000  # alphabeta nodes a move
    random_plies: int = 6  # uniformly random plies after the balanced opening
    games_per_shard: int = 64
    max_plies: int = 300  # a game still going then is a draw
    weights: str = "hand"  # the players' evaluation: "hand" or a network file's digest

    def check(self) -> None:
        checks = (
            ("game", self.game == "chess", "chess"),
            ("seed", self.seed >= 0, "0 or more"),
            ("nodes", self.nodes >= 1, "at least 1"),
            ("random_plies", 0 <= self.random_plies <= 40, "0..40"),
            ("games_per_shard", 1 <= self.games_per_shard <= 65535, "1..65535"),
            ("max_plies", self.max_plies >= 1, "at least 1"),
        )
        for name, ok, allowed in checks:
            if not ok:
                raise DataError(f"{name} must be {allowed}; got {getattr(self, name)!r}")


# ---------------------------------------------------------------- records


@njit(cache=True, nogil=True)
def _pack(states: np.ndarray, occ: np.ndarray, pieces: np.ndarray) -> None:
    """Each state's occupancy and its pieces as nibbles in square order."""
    for i in range(states.shape[0]):
        s = states[i]
        o = s[WHITE_BB] | s[BLACK_BB]
        occ[i] = o
        k = 0
        bb = o
        while bb:
            sq = np.uint64(0)
            low = bb & (~bb + np.uint64(1))
            while (low >> sq) != np.uint64(1):
                sq += np.uint64(1)
            bb ^= low
            colour = 0 if s[WHITE_BB] & low else 1
            code = 0
            for pt in range(KING + 1):
                if s[pt] & low:
                    code = colour * 6 + pt
                    break
            if k & 1:
                pieces[i, k >> 1] |= np.uint8(code << 4)
            else:
                pieces[i, k >> 1] = np.uint8(code)
            k += 1


def pack_record(record: GameRecord, game: int) -> np.ndarray:
    """The positions of one self-play game as :data:`RECORD` rows (leaves in check and
    game ends already left out by the caller)."""
    states = record.states
    out = np.zeros(len(states), dtype=RECORD)
    if len(states) == 0:
        return out
    occ = np.zeros(len(states), dtype=np.uint64)
    pieces = np.zeros((len(states), 16), dtype=np.uint8)
    _pack(states, occ, pieces)
    stm = states[:, TURN].astype(np.int64)
    white = 2.0 * record.white - 1.0  # +1 White won, 0 draw, −1
    out["occ"] = occ
    out["pieces"] = pieces
    out["score"] = np.rint(np.clip(record.scores, -1.0, 1.0) * SCORE_SCALE).astype(np.int16)
    out["result"] = np.where(stm == 0, white, -white).astype(np.int8)
    out["stm"] = stm.astype(np.uint8)
    out["ply"] = np.minimum(states[:, PLY], 65535).astype(np.uint16)
    out["game"] = game
    return out


def write_shard(path: Path, records: np.ndarray) -> None:
    header = np.zeros(1, dtype=HEADER)
    header["magic"], header["version"], header["count"] = MAGIC, FORMAT_VERSION, len(records)
    write_bytes_atomic(path, header.tobytes() + records.tobytes())


def read_shard(path: Path) -> np.ndarray:
    """A shard's records; :class:`DataError` naming the file when it is not one."""
    fix = "delete it and run the data generation again to rewrite it"
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise DataError(f"positions file {path} is unreadable ({exc})") from None
    if len(blob) < HEADER.itemsize:
        raise DataError(f"positions file {path} is too short for its header; {fix}")
    header = np.frombuffer(blob[: HEADER.itemsize], dtype=HEADER)[0]
    if header["magic"] != MAGIC:
        raise DataError(f"{path} is not a Canopy positions file (no {MAGIC!r} header); {fix}")
    if int(header["version"]) != FORMAT_VERSION:
        raise DataError(
            f"positions file {path} has format version {int(header['version'])}; this "
            f"Canopy reads version {FORMAT_VERSION}; {fix}"
        )
    count = int(header["count"])
    body = len(blob) - HEADER.itemsize
    if body != count * RECORD.itemsize:
        raise DataError(
            f"positions file {path} is truncated or corrupt: its header says {count} "
            f"records ({count * RECORD.itemsize} bytes), the file holds {body}; {fix}"
        )
    return np.frombuffer(blob, dtype=RECORD, offset=HEADER.itemsize).copy()


@njit(cache=True, nogil=True)
def unpack_boards(occ: np.ndarray, pieces: np.ndarray, board: np.ndarray) -> None:
    """``board[i, sq]``: the piece code (colour × 6 + type) on each square, -1 if empty."""
    for i in range(occ.shape[0]):
        k = 0
        for sq in range(64):
            board[i, sq] = -1
            if (occ[i] >> np.uint64(sq)) & np.uint64(1):
                byte = pieces[i, k >> 1]
                board[i, sq] = (byte >> 4) if k & 1 else (byte & 15)
                k += 1


@njit(cache=True, nogil=True)
def _states(occ: np.ndarray, pieces: np.ndarray, stm: np.ndarray, out: np.ndarray) -> None:
    board = np.empty((occ.shape[0], 64), dtype=np.int64)
    unpack_boards(occ, pieces, board)
    for i in range(occ.shape[0]):
        out[i, EP] = NO_SQUARE
        out[i, TURN] = stm[i]
        for sq in range(64):
            code = board[i, sq]
            if code >= 0:
                bit = np.uint64(1) << np.uint64(sq)
                out[i, code % 6] |= bit
                out[i, WHITE_BB + code // 6] |= bit


def states_of(records: np.ndarray) -> np.ndarray:
    """The chess positions the records hold (pieces and side to move; no castling rights
    or en-passant square, which a record does not keep), with their Zobrist keys."""
    out = np.zeros((len(records), STATE_SIZE), dtype=np.uint64)
    _states(np.ascontiguousarray(records["occ"]), np.ascontiguousarray(records["pieces"]),
            np.ascontiguousarray(records["stm"]), out)  # fmt: skip
    for s in out:
        s[HASH] = full_hash(s)
    return out


def unique(records: np.ndarray) -> np.ndarray:
    """The records with each position (pieces and side to move) kept once, the first."""
    if len(records) == 0:
        return records
    key = np.zeros((len(records), 25), dtype=np.uint8)
    key[:, :8] = np.ascontiguousarray(records["occ"]).view(np.uint8).reshape(-1, 8)
    key[:, 8:24] = records["pieces"]
    key[:, 24] = records["stm"]
    _, first = np.unique(key.view(np.dtype((np.void, 25))).ravel(), return_index=True)
    return records[np.sort(first)]


# ---------------------------------------------------------------- the directory


def read_manifest(out: Path) -> dict[str, Any] | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise DataError(
            f"{path} is unreadable ({exc}); delete the directory to start anew"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise DataError(f"{path} is not a Canopy positions directory's {MANIFEST}")
    return manifest


def _write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    write_bytes_atomic(out / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True).encode())


def shard_path(out: Path, index: int) -> Path:
    return out / f"positions-{index:05d}.bin"


def load(dirs: list[Path]) -> np.ndarray:
    """Every shard the manifests of ``dirs`` list, concatenated, each position kept once."""
    parts = []
    for d in dirs:
        manifest = read_manifest(d)
        if manifest is None:
            raise DataError(f"{d} has no {MANIFEST}: not a positions directory")
        for index in sorted(int(k) for k in manifest["shards"]):
            parts.append(read_shard(shard_path(d, index)))
    if not parts:
        return np.zeros(0, dtype=RECORD)
    return unique(np.concatenate(parts))


def _opening_fens(game: str) -> list[str]:
    from engine.match.openings import load_openings

    return [o.fen for o in load_openings(None, game)]


def _tasks(config: DataConfig, shard: int, weights: Path | None, fens: list[str]) -> list[Any]:
    from engine.core.state import HAND_EVAL, NNUE_EVAL
    from engine.learn.players import GameTask, Searcher, opening_state

    evaluation = HAND_EVAL if weights is None else NNUE_EVAL
    tasks = []
    for k in range(config.games_per_shard):
        index = shard * config.games_per_shard + k
        start = opening_state(
            fens[index % len(fens)], config.game, config.seed, index, config.random_plies
        )
        tasks.append(
            GameTask(
                start, weights, weights, evaluation, evaluation, config.max_plies,
                Searcher(None, config.nodes),
            )
        )  # fmt: skip
    return tasks


def positions_of(record: GameRecord) -> GameRecord:
    """A game's training positions: the quiet positions it passed through and its PV leaves
    whose side to move is not in check, each with its search score."""
    from engine.core.games import in_check
    from engine.learn.players import GameRecord

    keep = np.array([not in_check(s) for s in record.states], dtype=bool)
    states, scores = record.states[keep], record.scores[keep]
    if len(record.roots):
        states = np.concatenate([record.roots, states])
        scores = np.concatenate([record.root_scores, scores])
    return GameRecord(states.reshape(-1, record.states.shape[1]), scores, record.white,
                      record.plies)  # fmt: skip


def generate(
    out: Path,
    config: DataConfig,
    shards: int,
    pool: GamePool,
    weights: Path | None = None,
    command: str = "",
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Write shards ``0 .. shards − 1`` of ``out`` that it lacks; return the manifest.

    ``weights`` is the network the players search with (None: the hand evaluation);
    its digest is part of the settings, so a directory holds one generation's games.
    A directory made with other settings is refused by name, never mixed."""
    config.check()
    out.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(out)
    settings = asdict(config)
    if manifest is None:
        manifest = {
            "format": MANIFEST_FORMAT, "version": FORMAT_VERSION, "settings": settings,
            "commands": [], "shards": {},
        }  # fmt: skip
    elif manifest["settings"] != settings:
        differ = sorted(k for k in settings if manifest["settings"].get(k) != settings[k])
        raise DataError(
            f"{out} holds positions made with other settings ({', '.join(differ)}); "
            "use another directory or the same settings"
        )
    todo = [i for i in range(shards) if str(i) not in manifest["shards"]]
    if todo and command:
        manifest["commands"].append(command)
    per = config.games_per_shard
    fens = _opening_fens(config.game)  # read once, not once a shard
    for n, index in enumerate(todo):
        started = time.monotonic()
        tasks = _tasks(config, index, weights, fens)

        def tick(done: int, n: int = n) -> None:
            if progress:
                progress("self-play games", (shards - len(todo) + n) * per + done, shards * per)

        records = pool.play(tasks, tick)
        rows = unique(
            np.concatenate([pack_record(positions_of(r), g) for g, r in enumerate(records)])
        )
        write_shard(shard_path(out, index), rows)
        manifest["shards"][str(index)] = {
            "games": len(records),
            "positions": len(rows),
            "plies": int(sum(r.plies for r in records)),
            "seconds": round(time.monotonic() - started, 2),
        }
        _write_manifest(out, manifest)
    return manifest
