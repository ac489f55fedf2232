"""The evaluation's weights: the hand-set starting values and the fitted file.

The fitted weights live in ``engine/data/eval/weights.npz`` (plain arrays, no pickle),
written by :mod:`engine.tune.texel` together with the command that produced them.
:mod:`engine.eval.evaluate` loads the file once at import and bakes the arrays
into its numba kernels as constants; ``engine/__init__.py`` hashes the file into the
numba cache directory's name, so new weights never meet stale machine code.

The file names its features, so a file written for another feature set (features
added, removed or reordered) is refused with a message instead of being read into
the wrong slots. Since format 2 it also holds the chess piece-square tables (whole
centipawns, fitted by :mod:`engine.tune.texel_tables`); a format-1 file, written before
they were fitted, reads with the hand-made tables.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.errors import CanopyError
from engine.eval.names import CHESS_FEATURES, FEATURES, KNIGHT_FEATURES
from engine.eval.tables import hand_piece_square_tables
from engine.files import read_npz, write_atomic

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # 1: no tables (the hand-made ones are read)
TABLE_SHAPE = (6, 64)  # piece type × square, White's view
DEFAULT_PATH = Path(__file__).resolve().parent.parent / "data" / "eval" / "weights.npz"


class EvalWeightsError(CanopyError):
    """The evaluation's weights file is missing, corrupt or for other features."""

    code = "bad_eval_weights"


@dataclass(frozen=True)
class EvalWeights:
    """Middlegame and endgame weights per game, in centipawns per unit of each feature."""

    chess_mg: np.ndarray
    chess_eg: np.ndarray
    knight_mg: np.ndarray
    knight_eg: np.ndarray
    source: str = ""  # how the weights were made (the command line)
    #: The chess piece-square tables, middlegame and endgame (whole centipawns).
    chess_tables: tuple[np.ndarray, np.ndarray] = field(default_factory=hand_piece_square_tables)

    def for_game(self, game: str) -> tuple[np.ndarray, np.ndarray]:
        if game == "chess":
            return self.chess_mg, self.chess_eg
        return self.knight_mg, self.knight_eg


# Hand-set values (mg, eg): the starting point of the fit and its prior. Material and
# the piece-square tables are the evaluation Canopy had before the other features.
HAND_CHESS: dict[str, tuple[float, float]] = {
    "pawn": (100, 120), "knight": (320, 300), "bishop": (330, 320),
    "rook": (500, 530), "queen": (950, 950),
    "pst_mg": (1, 0), "pst_eg": (0, 1),
    "mobility_knight": (4, 4), "mobility_bishop": (5, 5),
    "mobility_rook": (2, 4), "mobility_queen": (1, 2),
    "king_shield": (10, 0), "king_pressure": (6, 1), "king_open_files": (-15, 0),
    "doubled_pawns": (-10, -20), "isolated_pawns": (-10, -15),
    "passed_pawns": (5, 10), "passed_rank_squared": (1, 3),
    "bishop_pair": (30, 50), "rook_open_file": (25, 10), "rook_half_open_file": (12, 6),
    "tempo": (10, 5),
}  # fmt: skip
HAND_KNIGHT: dict[str, tuple[float, float]] = {
    "knights": (100, 130), "mobility": (4, 2), "centralisation": (3, 2), "advance": (0, 0),
    "defended": (5, 5), "stm_attacks": (5, 5), "stm_free_captures": (40, 60),
    "stm_attacked": (-5, -5), "stm_hanging": (-15, -20), "tempo": (10, 10),
}  # fmt: skip


def _columns(table: dict[str, tuple[float, float]], names: tuple[str, ...]) -> np.ndarray:
    return np.array([table[n] for n in names], dtype=np.float64).T.copy()


def hand_weights() -> EvalWeights:
    chess = _columns(HAND_CHESS, CHESS_FEATURES)
    knight = _columns(HAND_KNIGHT, KNIGHT_FEATURES)
    return EvalWeights(chess[0], chess[1], knight[0], knight[1], source="hand-set")


def save_weights(path: Path, weights: EvalWeights) -> None:
    """Write ``weights`` to ``path`` atomically (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(
        path,
        lambda out: np.savez(
            out,
            version=np.array(FORMAT_VERSION),
            chess_features=np.array(CHESS_FEATURES),
            knight_features=np.array(KNIGHT_FEATURES),
            chess_mg=weights.chess_mg, chess_eg=weights.chess_eg,
            knight_mg=weights.knight_mg, knight_eg=weights.knight_eg,
            chess_table_mg=weights.chess_tables[0], chess_table_eg=weights.chess_tables[1],
            source=np.array(weights.source),
        ),
    )  # fmt: skip


def load_weights(path: Path = DEFAULT_PATH) -> EvalWeights:
    """The weights in ``path``; :class:`EvalWeightsError` naming the problem otherwise."""
    fix = "regenerate it with `python -m engine.tune.texel` (docs/algorithms.md, Evaluation)"
    needed = ("version", "chess_features", "knight_features", "chess_mg", "chess_eg",
              "knight_mg", "knight_eg")  # fmt: skip
    arrays = read_npz(path, needed, "evaluation weights", fix, EvalWeightsError)
    version = int(arrays["version"])
    if version not in READABLE_VERSIONS:
        raise EvalWeightsError(
            f"evaluation weights file {path} has format {version}, "
            f"expected one of {READABLE_VERSIONS}; {fix}"
        )
    for game, names in FEATURES.items():
        stored = tuple(str(n) for n in arrays[f"{game}_features"])
        if stored != names:
            raise EvalWeightsError(
                f"evaluation weights file {path} is for other {game} features "
                f"({len(stored)} stored, {len(names)} expected: {list(names)}); {fix}"
            )
        for phase in ("mg", "eg"):
            w = arrays[f"{game}_{phase}"]
            if w.shape != (len(names),) or not np.all(np.isfinite(w)):
                raise EvalWeightsError(
                    f"evaluation weights file {path}: {game}_{phase} has shape {w.shape}, "
                    f"expected ({len(names)},) of finite numbers; {fix}"
                )
    tables = hand_piece_square_tables()
    if version >= 2:
        tables = _read_tables(arrays, path, fix)
    return EvalWeights(
        arrays["chess_mg"].astype(np.float64), arrays["chess_eg"].astype(np.float64),
        arrays["knight_mg"].astype(np.float64), arrays["knight_eg"].astype(np.float64),
        source=str(arrays["source"]) if "source" in arrays else "", chess_tables=tables,
    )  # fmt: skip


def _read_tables(
    arrays: dict[str, np.ndarray], path: Path, fix: str
) -> tuple[np.ndarray, np.ndarray]:
    """A format-2 file's piece-square tables, checked: whole numbers, the right shape."""
    tables = []
    for phase in ("mg", "eg"):
        name = f"chess_table_{phase}"
        table = arrays.get(name)
        if (
            table is None
            or table.shape != TABLE_SHAPE
            or table.dtype.kind not in "iuf"
            or not np.all(np.isfinite(table))
            or not np.array_equal(table, np.rint(table))
        ):
            shape = "missing" if table is None else f"shape {table.shape}"
            raise EvalWeightsError(
                f"evaluation weights file {path}: {name} is {shape}, expected {TABLE_SHAPE} "
                f"whole numbers; {fix}"
            )
        tables.append(table.astype(np.int64))
    return tables[0], tables[1]


@functools.cache
def shipped_weights() -> EvalWeights:
    """The shipped weights file, read once: the feature kernels (its tables) and the
    evaluation (its weights) are compiled with it."""
    return load_weights(DEFAULT_PATH)
