"""Bit tricks and a seeded random number generator for the numba core.

Numba has no popcount/bitscan builtins for uint64, so they are LLVM intrinsics
(one machine instruction each). Everything here works on ``np.uint64``: mixing
uint64 with Python ints in numba silently produces float64, so every constant
used in bitboard arithmetic is a named ``np.uint64``.

The RNG is splitmix64 held in a one-element uint64 array. Owning the generator
(rather than numba's per-thread ``np.random``) makes every playout and search
repeat exactly for a given seed, in any thread.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

U0 = np.uint64(0)
U1 = np.uint64(1)
U8 = np.uint64(8)
U32 = np.uint64(32)
U63 = np.uint64(63)
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    sig = types.uint64(types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, nogil=True)
def popcount(x: np.uint64) -> int:
    """Number of set bits."""
    return np.int64(_ctpop(x))


@njit(cache=True, nogil=True)
def lsb(x: np.uint64) -> int:
    """Index of the lowest set bit (x must be non-zero)."""
    return np.int64(trailing_zeros(x))


@njit(cache=True, nogil=True)
def msb(x: np.uint64) -> int:
    """Index of the highest set bit (x must be non-zero)."""
    return np.int64(63) - np.int64(leading_zeros(x))


@njit(cache=True, nogil=True)
def pop_lsb(x: np.uint64) -> np.uint64:
    """x with its lowest set bit cleared."""
    return x & (x - U1)


@njit(cache=True, nogil=True, inline="always")
def table_slot(table: np.ndarray, key: np.uint64) -> int:
    """The slot of ``key`` in a hash table of a power of two of entries (its low bits):
    the one formula the transposition, evaluation and leaf tables and their prefetch
    share, so a prefetch asks for the very slot the read then takes."""
    return np.int64(key & np.uint64(table.shape[0] - 1))


# ---------------------------------------------------------------- random numbers

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)


def new_rng(seed: int) -> np.ndarray:
    """A fresh generator state for ``seed`` (any Python int)."""
    return np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)


@njit(cache=True, nogil=True)
def rng_next(rng: np.ndarray) -> np.uint64:
    """Next 64 random bits (splitmix64)."""
    rng[0] += GOLDEN
    z = rng[0]
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@njit(cache=True, nogil=True)
def rng_below(rng: np.ndarray, n: int) -> int:
    """Uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift, no modulo bias worth noting)."""
    return np.int64(((rng_next(rng) >> U32) * np.uint64(n)) >> U32)
