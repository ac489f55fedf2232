"""The evaluation's weights: the hand-set starting values and the fitted file.

The fitted weights live in ``engine/data/eval/weights.npz`` (plain arrays, no pickle),
written by :mod:`engine.tune.texel` together with the command that produced them.
:mod:`engine.search.evaluation` loads the file once at import and bakes the arrays
into its numba kernels as constants; ``engine/__init__.py`` hashes the file into the
numba cache directory's name, so new weights never meet stale machine code.

The file names its features, so a file written for another feature set (features
added, removed or reordered) is refused with a message instead of being read into
the wrong slots.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.errors import CanopyError
from engine.files import read_npz, write_atomic
from engine.search.eval_features import CHESS_FEATURES, KNIGHT_FEATURES

FORMAT_VERSION = 1
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
            source=np.array(weights.source),
        ),
    )  # fmt: skip


def load_weights(path: Path = DEFAULT_PATH) -> EvalWeights:
    """The weights in ``path``; :class:`EvalWeightsError` naming the problem otherwise."""
    fix = "regenerate it with `python -m engine.tune.texel` (docs/algorithms.md, Evaluation)"
    needed = ("version", "chess_features", "knight_features", "chess_mg", "chess_eg",
              "knight_mg", "knight_eg")  # fmt: skip
    arrays = read_npz(path, needed, "evaluation weights", fix, EvalWeightsError)
    if int(arrays["version"]) != FORMAT_VERSION:
        raise EvalWeightsError(
            f"evaluation weights file {path} has format {int(arrays['version'])}, "
            f"expected {FORMAT_VERSION}; {fix}"
        )
    for game, names in (("chess", CHESS_FEATURES), ("knight", KNIGHT_FEATURES)):
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
    return EvalWeights(
        arrays["chess_mg"].astype(np.float64), arrays["chess_eg"].astype(np.float64),
        arrays["knight_mg"].astype(np.float64), arrays["knight_eg"].astype(np.float64),
        source=str(arrays["source"]) if "source" in arrays else "",
    )  # fmt: skip
