"""Borrowed views (engine.core.borrow): the same arrays, uncounted, of the same type.

What must hold for the kernels to use them: a view reads and writes its array's
memory (no copy), keeps shape and strides, has the very numba type of the array (so
every function it is passed to keeps its one compiled specialisation), and carries
no memory-info pointer — the point of it: numba counts no references to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from llvmlite import ir
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from engine.core.borrow import borrow


@intrinsic
def counted(typingctx: Any, array: Any) -> Any:
    """Whether ``array`` carries a memory-info pointer (numba counts references to it)."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        view = context.make_array(array)(context, builder, value=args[0])
        null = ir.Constant(view.meminfo.type, None)
        return builder.icmp_unsigned("!=", view.meminfo, null)

    return types.boolean(array), codegen


@njit
def write_through(a: np.ndarray, tup: tuple) -> None:
    view = borrow(a)
    view[1] = 7.0
    views = borrow(tup)
    views[0][2] = 5
    views[1][1, 0] = 9


@njit
def counted_flags(a: np.ndarray, tup: tuple) -> tuple[bool, bool, bool, bool]:
    views = borrow(tup)
    return counted(a), counted(borrow(a)), counted(views[0]), counted(views[1])


@njit
def shapes(tup: tuple) -> tuple[int, int, int, int]:
    views = borrow(tup)
    return views[1].shape[0], views[1].shape[1], views[1].strides[0], views[0].size


@njit
def total(a: np.ndarray) -> float:
    return a.sum()


@njit
def total_of_view(a: np.ndarray) -> float:
    return total(borrow(a))


def arrays() -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    return np.zeros(3), (np.arange(4, dtype=np.int64), np.zeros((3, 2), dtype=np.int32))


def test_views_write_the_arrays_own_memory() -> None:
    a, tup = arrays()
    write_through(a, tup)
    assert a.tolist() == [0.0, 7.0, 0.0]
    assert tup[0].tolist() == [0, 1, 5, 3]
    assert tup[1][1, 0] == 9


def test_views_keep_shape_and_strides() -> None:
    _, tup = arrays()
    assert shapes(tup) == (3, 2, tup[1].strides[0], 4)


def test_views_are_not_counted_and_the_arrays_are() -> None:
    a, tup = arrays()
    assert counted_flags(a, tup) == (True, False, False, False)


@njit
def uniform_flags(tup: tuple) -> tuple[bool, bool, float]:
    views = borrow(tup)
    views[1][0] = 3.0
    return counted(views[0]), counted(views[1]), views[0].sum() + views[1].sum()


def test_a_tuple_of_one_array_type_is_borrowed_too() -> None:
    """numba lays such a tuple out as an array, not a structure: both must work."""
    tup = (np.ones(2), np.zeros(3))
    assert uniform_flags(tup) == (False, False, 5.0)
    assert tup[1][0] == 3.0


def test_a_view_has_the_arrays_type() -> None:
    """The function a view is passed to is the one compiled for the array itself."""
    a = np.arange(5.0)
    assert total_of_view(a) == total(a) == 10.0
    assert len(total.signatures) == 1


def test_anything_but_arrays_is_refused() -> None:
    @njit
    def bad(x: int) -> int:
        return borrow(x)

    with pytest.raises(TypingError):
        bad(3)
