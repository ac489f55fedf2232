"""A cache prefetch for the numba core: ask for an array slot's line before it is read.

The search's transposition tables are read at random: a slot is rarely in the cache,
and the read stalls for a main-memory latency (about a tenth of a microsecond) while
the core waits. When the slot is known some work before it is read, issuing a
prefetch first lets that work hide the wait. LLVM's ``llvm.prefetch`` is a hint: it
never faults and changes no value, so a search that prefetches finds exactly what it
found without.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_I32 = ir.IntType(32)


@intrinsic
def prefetch(typingctx: Any, array: Any, index: Any) -> Any:
    """Prefetch ``array[index]`` (a 1-d array, ``index`` in range) for reading."""
    if not isinstance(array, types.Array) or array.ndim != 1:
        return None
    if not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], signature.args[1], types.intp)
        address = builder.bitcast(builder.gep(ary.data, [idx]), ir.IntType(8).as_pointer())
        fnty = ir.FunctionType(ir.VoidType(), [address.type, _I32, _I32, _I32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch")
        # read (0), high temporal locality (3), data cache (1)
        builder.call(fn, [address, _I32(0), _I32(3), _I32(1)])
        return context.get_dummy_value()

    return sig, codegen
