"""The prefetch hint (engine.core.prefetch): compiled to LLVM's prefetch, it changes nothing.

The leaf table's read in ``mcts`` is preceded by one; a search's results must not
depend on it, so what matters is that it is really emitted (or the speed-up is gone)
and that it neither writes nor faults.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from engine.core.prefetch import prefetch


@njit
def read_after_prefetch(a: np.ndarray, i: int) -> int:
    prefetch(a, i)
    return a[i]


def test_it_emits_llvm_prefetch_and_leaves_the_array_as_it_was() -> None:
    a = np.arange(1000, dtype=np.uint64) * np.uint64(3)
    before = a.copy()
    assert read_after_prefetch(a, 999) == 2997
    assert np.array_equal(a, before)
    ir = read_after_prefetch.inspect_llvm(read_after_prefetch.signatures[0])
    assert "llvm.prefetch" in ir


def test_it_takes_only_one_dimensional_arrays() -> None:
    @njit
    def two_d(a: np.ndarray) -> None:
        prefetch(a, 0)

    with pytest.raises(TypingError):
        two_d(np.zeros((2, 2)))
