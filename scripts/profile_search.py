"""Run a search under ``perf`` with numba's compiled functions named in the profile.

``perf`` sees numba's code as anonymous memory: without a map, every sample in a search
kernel is a bare address. This script searches, then writes ``/tmp/perf-<pid>.map``
(the format ``perf report`` reads for code generated at run time) from the addresses
of every function in numba's code libraries, so a report names ``qsearch``,
``chess_features``, ``score_children`` and the rest::

    perf record -k CLOCK_MONOTONIC -F 999 -o /tmp/search.data \\
        .venv/bin/python scripts/profile_search.py --work 60000
    perf report -i /tmp/search.data --no-children --sort symbol --time START,END

Functions loaded from numba's on-disk cache keep no library to read their addresses
from, so the script points numba at an empty cache directory of its own before it
imports anything compiled, and the run compiles everything first (a minute or two). A
short search compiles the kernels before the measured ones; the script prints the
measured searches' START and END on the monotonic clock, which ``perf record -k
CLOCK_MONOTONIC`` also stamps its samples with, so ``--time`` leaves the compiler out.
A function LLVM inlined into its caller is counted as its caller's.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
from pathlib import Path

# Before numba is imported: a cache of our own, empty, so every kernel is compiled here.
os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="canopy-profile-")

from numba.core.registry import CPUDispatcher
from search_speed import one_round  # the same searches its fingerprints cover

POSITIONS = (
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
)
#: A gap this large between two functions' addresses is another library, not a function.
MAX_SIZE = 1 << 20


def compiled_functions() -> dict[int, str]:
    """Entry address → symbol of every function defined in numba's code libraries."""
    symbols: dict[int, str] = {}
    for obj in gc.get_objects():
        if not isinstance(obj, CPUDispatcher):
            continue
        for result in obj.overloads.values():
            library = result.library
            for function in library._final_module.functions:
                if function.is_declaration:
                    continue
                address = library.get_pointer_to_function(function.name)
                if address:
                    symbols[address] = function.name
    return symbols


def write_map(symbols: dict[int, str], path: Path) -> None:
    """``perf``'s map: each function runs to the next one's address (LLVM emits no
    sizes we can read here), at most :data:`MAX_SIZE`."""
    addresses = sorted(symbols)
    with path.open("w") as out:
        for i, address in enumerate(addresses):
            gap = addresses[i + 1] - address if i + 1 < len(addresses) else MAX_SIZE
            out.write(f"{address:x} {min(gap, MAX_SIZE):x} {symbols[address]}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algorithm", default="mcts")
    parser.add_argument(
        "--work", type=int, default=60_000, help="iterations a position (alphabeta: nodes)"
    )
    parser.add_argument("--fen", action="append", help="positions (default: two middlegames)")
    args = parser.parse_args()
    fens = args.fen or list(POSITIONS)
    one_round(args.algorithm, fens[:1], 200)  # compiles every kernel the searches run
    start = time.clock_gettime(time.CLOCK_MONOTONIC)
    one_round(args.algorithm, fens, args.work)
    end = time.clock_gettime(time.CLOCK_MONOTONIC)
    print(f"measured searches: --time {start:.6f},{end:.6f}")
    symbols = compiled_functions()
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    write_map(symbols, path)
    print(f"{len(symbols)} functions mapped in {path}")


if __name__ == "__main__":
    main()
