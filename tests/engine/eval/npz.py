"""Rewriting a weights file's arrays, for the tests of how bad files are refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def rewrite(path: Path, **changes: object) -> None:
    """Rewrite ``path`` with some arrays replaced (None: removed)."""
    with np.load(path) as data:
        arrays = {key: data[key] for key in data.files}
    for key, value in changes.items():
        if value is None:
            arrays.pop(key)
        else:
            arrays[key] = np.asarray(value)
    with open(path, "wb") as out:
        np.savez(out, **arrays)
