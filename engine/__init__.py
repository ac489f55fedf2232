"""Canopy's engine: game rules, the numba core, the evaluation and the search family.

Numba's on-disk cache only notices edits to the file that defines a function,
not to the functions it calls nor to the arrays they bake in as constants (the
evaluation's weights), so an upgraded or edited core could run stale machine code.
The cache therefore lives in a directory named after a digest of every source file
holding numba code and of the weights files (the learned evaluation's and the NNUE's
too, or the files ``CANOPY_LEARNED_WEIGHTS`` and ``CANOPY_NNUE_WEIGHTS`` name instead);
any change starts a fresh cache. Set
``CANOPY_NUMBA_CACHE`` to choose the parent directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from pathlib import Path

_NUMBA_DIRS = ("core", "eval", "search")  # the packages holding @njit code
_NUMBA_DATA = ("data/eval", "data/learned")  # arrays the kernels bake in as constants
_LEARNED_ENV = "CANOPY_LEARNED_WEIGHTS"  # engine.eval.learned_weights.ENV_VAR
_NNUE_ENV = "CANOPY_NNUE_WEIGHTS"  # engine.eval.nnue_weights.ENV_VAR
#: ``NUMBA_CACHE_DIR`` as the user set it (None: Canopy chose the directory below). Training
#: starts processes with other learned weights and needs to know whose choice it was.
USER_NUMBA_CACHE_DIR: str | None = os.environ.get("NUMBA_CACHE_DIR")


def _source_digest() -> str:
    root = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    sources = [p for d in _NUMBA_DIRS for p in (root / d).rglob("*.py")]
    sources += [p for d in _NUMBA_DATA for p in (root / d).glob("*.npz")]
    for path in sorted(sources):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    overrides = [(b"learned-override", part) for part in
                 (os.environ.get(_LEARNED_ENV) or "").split(os.pathsep)]  # fmt: skip
    overrides.append((b"nnue-override", os.environ.get(_NNUE_ENV) or ""))
    for label, override in overrides:
        if not override:
            continue
        digest.update(label)  # other weights replace the shipped ones
        with contextlib.suppress(OSError):  # the loader reports it; hand eval still works
            digest.update(Path(override).read_bytes())
    return digest.hexdigest()[:16]


def weights_cache_environment(weights: Path | None) -> dict[str, str | None]:
    """``NUMBA_CACHE_DIR`` for a child process that loads other weights than this one (a
    training player, a match engine with its own network): unset, so the child names its
    cache after its own weights — inheriting this process's directory would load kernels
    with this process's weights baked in — or, when the user chose the directory, a
    subdirectory of it named after the weights (None: unset the variable)."""
    if not USER_NUMBA_CACHE_DIR:
        return {"NUMBA_CACHE_DIR": None}
    blob = Path(weights).read_bytes() if weights else b""
    digest = hashlib.sha1(blob).hexdigest()[:16]
    return {"NUMBA_CACHE_DIR": str(Path(USER_NUMBA_CACHE_DIR) / f"learned-{digest}")}


def _configure_numba_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    base = os.environ.get("CANOPY_NUMBA_CACHE") or str(Path.home() / ".cache" / "canopy" / "numba")
    path = Path(base) / f"py{sys.version_info[0]}{sys.version_info[1]}-{_source_digest()}"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # fall back to numba's default (__pycache__ beside the sources)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(path)


_configure_numba_cache()
