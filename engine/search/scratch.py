"""The arrays one tree iteration works in, by name.

A :class:`~engine.search.algorithm.Worker` owns them and hands them to its algorithm's
numba kernel as one :class:`Scratch` — a named tuple, which numba compiles like a plain
tuple (each field read is the same load), so the kernels read ``scratch.path``
instead of unpacking ten arrays by position. They are reused from one iteration to the
next; what an iteration leaves in ``path``, ``info``, ``finfo`` and ``record`` is its
trace (the step view reads it).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Scratch(NamedTuple):
    #: uint64[STATE_SIZE]: the position the iteration stands on (the root's, then each
    #: node's on the way down, then the playout's).
    state: np.ndarray
    #: int32[MAX_MOVES]: the legal moves of ``state``.
    moves: np.ndarray
    #: uint64[STATE_SIZE]: a child's position, made from ``state`` (expansion, scoring).
    child_state: np.ndarray
    #: int32[MAX_MOVES]: the legal moves of ``child_state``.
    child_moves: np.ndarray
    #: uint64[ply_cap + 1]: a random playout's position keys (its repetitions).
    hist: np.ndarray
    #: int32: the moves of the playout or the leaf's search line when tracing; empty
    #: otherwise, so no kernel spends a write on it.
    record: np.ndarray
    #: int32[MAX_PATH]: the nodes walked, the root first.
    path: np.ndarray
    #: int64[INFO_SIZE]: the iteration's trace slots (``T_*`` in :mod:`engine.search.codes`).
    info: np.ndarray
    #: float64: the reward and the leaf's score (``F_*`` in :mod:`engine.search.codes`).
    finfo: np.ndarray
    #: uint64[HIST_MAX + MAX_PATH + 1]: the positions' keys, the game's before the root
    #: and the path's (:mod:`engine.search.parts.path`).
    keys: np.ndarray
