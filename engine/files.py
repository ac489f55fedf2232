"""Files the engine writes and reads back whole: written atomically, read with clear errors.

Weights files (the evaluation's, the learned evaluation's) and a training run's state
must never be seen half-written — a crash or a full disk leaves the old file, not a
truncated one — and a file that is missing, unreadable or lacks an array must be
refused with a message naming the file and how to make a good one, not a ``KeyError``
deep in a loader.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np


def write_atomic(path: Path, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write`` on a temporary file beside ``path``, then rename it over ``path``
    (world-readable: what the engine writes is for every user); on any failure the
    temporary file goes and ``path`` is untouched."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
        os.chmod(tmp, 0o644)  # mkstemp makes it private
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """:func:`write_atomic` of ``data``."""

    def write(out: BinaryIO) -> None:
        out.write(data)

    write_atomic(path, write)


def read_npz(
    path: Path, needed: Iterable[str], label: str, fix: str, error: type[Exception]
) -> dict[str, np.ndarray]:
    """Every array in the ``.npz`` at ``path`` (no pickles); ``error`` saying "``label``
    file ``path`` is missing / unreadable / lacks [...]; ``fix``" otherwise."""
    if not path.is_file():
        raise error(f"{label} file {path} is missing; {fix}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise error(f"{label} file {path} is unreadable ({exc}); {fix}") from exc
    missing = [key for key in needed if key not in arrays]
    if missing:
        raise error(f"{label} file {path} lacks {missing}; {fix}")
    return arrays


def provenance(arrays: dict[str, np.ndarray]) -> tuple[str, dict[str, Any]]:
    """A weights file's ``command`` and ``meta`` (JSON), each empty when absent or
    unreadable: they say where the weights came from, and never stop a file loading."""
    command = str(arrays["command"]) if "command" in arrays else ""
    try:
        meta = json.loads(str(arrays["meta"])) if "meta" in arrays else {}
    except ValueError:
        meta = {}
    return command, meta if isinstance(meta, dict) else {}
