"""Borrowed array views: the same arrays without numba's reference counting.

numba counts references to every array a compiled function holds: each array
argument, and each array taken out of a tuple, is incremented on entry and
decremented on exit — with an atomic instruction each time. The searches pass
tuples of a dozen arrays or more (the tree's columns, the alpha-beta context) into
functions called hundreds of thousands of times a second: the optimised code of the
quiescence search increments 25 array counts on entry and decrements as many on its
way out — about 50 atomic operations a node, for arrays its caller holds alive
anyway (docs/performance.md has the profile and the speed before and after).

:func:`borrow` returns the same arrays (same type, data, shape and strides) with
their memory-info pointer cleared: numba skips the count of such an array (as for
an array made by ``numba.carray`` over foreign memory), so the functions that
receive them count nothing. The views own nothing: they are valid only while the
arrays they came from are alive, which a kernel's caller guarantees by holding the
originals until the kernel returns. A kernel borrows its arguments once at its top;
everything it calls gets the views. Never return a borrowed array to Python or keep
it beyond the call.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _cleared(context: Any, builder: Any, array_type: types.Array, value: Any) -> Any:
    """``value`` (an array of ``array_type``) with no memory-info and no parent object."""
    view = context.make_array(array_type)(context, builder, value=value)
    view.meminfo = ir.Constant(view.meminfo.type, None)
    view.parent = ir.Constant(view.parent.type, None)
    return view._getvalue()


def _members(tuple_type: Any) -> tuple[Any, ...]:
    """A tuple type's member types: every concrete numba tuple type has ``types``, but the
    ``BaseTuple`` the check above narrows to does not declare it, so the type checker is
    told here, once, instead of at each use."""
    return tuple(tuple_type.types)


@intrinsic
def borrow(typingctx: Any, arrays: Any) -> Any:
    """An array, or a tuple of arrays, as borrowed views of the same type (module doc)."""
    if isinstance(arrays, types.Array):
        members: tuple[types.Array, ...] | None = None
    elif isinstance(arrays, types.BaseTuple) and all(
        isinstance(t, types.Array) for t in _members(arrays)
    ):
        members = _members(arrays)
    else:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        (value,) = args
        if members is None:
            return _cleared(context, builder, arrays, value)
        for i, member in enumerate(members):
            item = builder.extract_value(value, i)
            value = builder.insert_value(value, _cleared(context, builder, member, item), i)
        return value

    return arrays(arrays), codegen
