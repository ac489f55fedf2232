"""Argument parsing and output for every ``canopy`` sub-command.

With ``--json`` the last line printed is one JSON object. Bad input (a
malformed FEN, an impossible position, a negative depth, an unknown option)
ends with exit status 2 and a single line on stderr naming the problem —
never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from engine.errors import CanopyError

Handler = Callable[[argparse.Namespace], int]


class UsageError(CanopyError):
    code = "usage"


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage problem on one line instead of a usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def emit_json(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, separators=(",", ":")), flush=True)


def _nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def _positive_int(text: str) -> int:
    value = _nonnegative_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


# ---------------------------------------------------------------- perft


def cmd_perft(args: argparse.Namespace) -> int:
    from engine.core.convert import legal_move_array, move_to_uci, state_from_fen
    from engine.core.games import make_move
    from engine.core.perft import perft

    state = state_from_fen(args.fen, args.game)
    if args.depth > 12:
        raise UsageError(f"depth {args.depth} is too deep for a perft run (at most 12)")
    divide: dict[str, int] = {}
    perft(state, 1)  # load the compiled kernels before the clock starts
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        child = state.copy()
        for m in legal_move_array(state):
            child[:] = state
            make_move(child, int(m))
            divide[move_to_uci(int(m))] = perft(child, args.depth - 1)
        nodes = sum(divide.values())
    else:
        nodes = perft(state, args.depth)
    seconds = time.perf_counter() - start
    nps = nodes / seconds if seconds > 0 else 0.0
    for move, count in divide.items():
        print(f"{move}: {count}")
    if args.json:
        emit_json(
            {
                "fen": args.fen,
                "game": args.game,
                "depth": args.depth,
                "nodes": nodes,
                "seconds": seconds,
                "nps": nps,
                **({"divide": divide} if divide else {}),
            }
        )
    else:
        print(f"nodes {nodes}  time {seconds:.3f} s  nps {nps / 1e6:.1f} M")
    return 0


# ---------------------------------------------------------------- bench


def cmd_bench(args: argparse.Namespace) -> int:
    from engine import bench

    results = []
    for result in bench.run(args.only or None, quick=args.quick):
        results.append(result.as_dict())
        base = f"{result.baseline:,.1f}" if result.baseline else "-"
        ratio = f"{result.ratio:,.1f}x" if result.ratio else "-"
        print(
            f"{result.name:<58} {result.value:>16,.1f} {result.unit:<12} "
            f"python-chess {base:>12}  ratio {ratio}",
            flush=True,
        )
    if args.json:
        emit_json({"results": results, "quick": args.quick})
    return 0


# ---------------------------------------------------------------- serve


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    uvicorn.run("app.main:create_app", factory=True, host=args.host, port=args.port)
    return 0


# ---------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="canopy", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--game", choices=["chess", "knight"], default="chess")
        p.add_argument("--json", action="store_true", help="last line of output is one JSON object")
        p.set_defaults(func=handler)
        return p

    p = command("serve", cmd_serve, "serve the web app")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)

    p = command("perft", cmd_perft, "count the leaves of the legal-move tree")
    p.add_argument("fen", metavar="FEN", help="a FEN, or 'startpos'")
    p.add_argument("depth", metavar="DEPTH", type=_nonnegative_int)
    p.add_argument("--divide", action="store_true", help="also print the count under each move")

    p = command("bench", cmd_bench, "benchmark suite, each figure beside python-chess")
    p.add_argument("--quick", action="store_true", help="smaller workloads (for tests)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks")

    for extra in _EXTRA_COMMANDS:
        extra(command)
    return parser


# Sub-commands defined in other modules add themselves here.
_EXTRA_COMMANDS: list[Callable[[Callable[[str, Handler, str], argparse.ArgumentParser]], None]] = []


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    name = argv[0] if argv and not argv[0].startswith("-") else "canopy"
    try:
        args = parser.parse_args(argv)
        return int(args.func(args))
    except CanopyError as exc:
        print(f"canopy {name}: error: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"canopy {name}: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
