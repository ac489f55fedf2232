"""Argument parsing and output for every ``canopy`` sub-command.

With ``--json`` the last line printed is one JSON object. Bad input (a
malformed FEN, an impossible position, a negative depth, an unknown option)
ends with exit status 2 and a single line on stderr naming the problem —
never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from canopy.arguments import emit_json, nonnegative_int, positive_int
from engine.errors import CanopyError

Handler = Callable[[argparse.Namespace], int]


class UsageError(CanopyError):
    code = "usage"


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage problem on one line instead of a usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _interval(text: str) -> float:
    """Seconds between log lines, within the range the search controller accepts."""
    from engine.search.controller import MAX_INFO_INTERVAL, MIN_INFO_INTERVAL

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not MIN_INFO_INTERVAL <= value <= MAX_INFO_INTERVAL:
        raise argparse.ArgumentTypeError(
            f"must be between {MIN_INFO_INTERVAL:g} and {MAX_INFO_INTERVAL:g} seconds, got {text}"
        )
    return value


# ---------------------------------------------------------------- perft


def cmd_perft(args: argparse.Namespace) -> int:
    from engine.core.games import make_move
    from engine.core.perft import perft
    from engine.rules.convert import legal_move_array, move_to_uci, state_from_fen

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
    from app.bench import register as register_app_benchmarks
    from engine import bench

    register_app_benchmarks()  # the streaming figures need the web app
    results = []
    for result in bench.run(args.only or None, quick=args.quick):
        results.append(result.as_dict())
        base = f"{result.baseline_label} {result.baseline:,.1f}" if result.baseline else ""
        ratio = f"ratio {result.ratio:,.2f}x" if result.ratio else ""
        print(
            f"{result.name:<58} {result.value:>16,.1f} {result.unit:<13} {base:>26}  {ratio}",
            flush=True,
        )
    if args.json:
        emit_json({"results": results, "quick": args.quick})
    return 0


# ---------------------------------------------------------------- search


def parse_params(items: list[str] | None) -> dict[str, str]:
    """``--param K=V`` items as a dict (keys and values stripped); a UsageError names an
    item without a key or an ``=``. The scripts that take ``--param`` read it here too."""
    params: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--param expects key=value, got {item!r}")
        params[key.strip()] = value.strip()
    return params


def _search_table(info: Any) -> list[str]:
    lines = [
        f"{'move':<7} {'san':<8} {'N':>9} {'N%':>6} {'Q':>7} {'score':>9} {'eval':>8}  PV",
    ]
    for m in info.moves:
        score = "inf" if m.score == float("inf") else f"{m.score:.4f}"
        bound = "<=" if m.bound == "upper" else ""
        lines.append(
            f"{m.move:<7} {m.san:<8} {m.visits:>9} {100 * m.share:>5.1f}% {m.q:>7.4f} "
            f"{score:>9} {bound}{m.eval:>8.4f}  {' '.join(m.pv_san[:12])}"
        )
    return lines


def cmd_search(args: argparse.Namespace) -> int:
    from engine.search.controller import AT_BUDGET_NOTES, SearchController

    if args.iterations is None and args.movetime is None and args.nodes is None:
        args.iterations = 10_000
    last = [0.0]
    said_full = [False]

    def log(info: Any) -> None:
        now = time.perf_counter()
        if args.json or not info.running:
            return
        full = info.extra.get("full")
        if full and not said_full[0]:  # once: the search goes on regardless
            said_full[0] = True
            print(f"info {AT_BUDGET_NOTES[full]}", flush=True)
        if now - last[0] < args.interval:
            return
        last[0] = now
        best = info.moves[0] if info.moves else None
        print(
            f"info iterations {info.iterations} nps {info.nps:.0f} nodes {info.nodes} "
            f"depth {info.max_depth} time {info.elapsed_ms:.0f} ms best {info.bestmove} "
            f"q {best.q if best else 0:.4f} pv {' '.join(info.pv_san[:10])}",
            flush=True,
        )

    controller = SearchController(
        args.game,
        args.fen,
        algorithm=args.algo,
        params=parse_params(args.param),
        threads=args.threads,
        seed=args.seed,
        node_budget=args.node_budget,
        tree_size=0,
        on_info=log,
        info_interval=min(0.25, args.interval),
    )
    info = controller.search(
        iterations=args.iterations, movetime_ms=args.movetime, nodes=args.nodes
    )
    seconds = info.elapsed_ms / 1000.0
    if args.json:
        emit_json(
            {
                "bestmove": info.bestmove,
                "iterations": info.iterations,
                "seconds": seconds,
                "nps": info.nps,
                "nodes": info.nodes,
                "stop_reason": info.stop_reason,
                "full": info.extra.get("full"),
                "algorithm": info.algorithm,
                "params": info.params,
                "threads": info.threads,
                "seed": info.seed,
                "moves": [
                    {
                        "move": m.move,
                        "san": m.san,
                        "visits": m.visits,
                        "share": m.share,
                        "q": m.q,
                        "score": None if m.score == float("inf") else m.score,
                        "eval": m.eval,
                        "bound": m.bound,
                        "pv": list(m.pv),
                    }
                    for m in info.moves
                ],
                "pv": list(info.pv),
                "threads_stats": [
                    {"thread": t.thread, "iterations": t.iterations, "nodes": t.nodes}
                    for t in info.thread_stats
                ],
            }
        )
        return 0
    print(
        f"{info.algorithm} {info.params} threads {info.threads} seed {info.seed}: "
        f"{info.iterations} iterations in {seconds:.3f} s ({info.nps:,.0f}/s), "
        f"{info.nodes} nodes, max depth {info.max_depth}, stopped by {info.stop_reason}"
    )
    if info.extra.get("full"):
        print(AT_BUDGET_NOTES[info.extra["full"]])
    for line in _search_table(info):
        print(line)
    print(f"bestmove {info.bestmove}  pv {' '.join(info.pv_san)}")
    return 0


# ---------------------------------------------------------------- warm


def cmd_warm(args: argparse.Namespace) -> int:
    from engine.warm import warm

    def progress(done: int, total: int, label: str) -> None:
        """A cold compile takes a minute: say which part is compiling (stderr, so the
        ``--json`` line stays the last line of stdout)."""
        if done < total:
            print(f"compiling {label} ({done}/{total})", file=sys.stderr, flush=True)

    seconds = warm(progress, jobs=args.jobs)
    if args.json:
        emit_json({"seconds": seconds})
    else:
        print(f"numba kernels ready in {seconds:.1f} s")
    return 0


# ---------------------------------------------------------------- uci


def cmd_uci(args: argparse.Namespace) -> int:
    from engine.uci.engine import LineWriter, UciEngine

    engine = UciEngine(LineWriter(sys.stdout))
    if args.game == "knight":
        engine.handle("setoption name UCI_Variant value knightchess")

    def lines() -> Any:
        while True:
            raw = sys.stdin.buffer.readline()
            if not raw:
                return
            yield raw.decode("utf-8", errors="replace")

    engine.run(lines())
    return 0


# ---------------------------------------------------------------- match


def cmd_match(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from engine.match.openings import load_openings
    from engine.match.report import progress_line, summary, summary_lines
    from engine.match.runner import Match, MatchConfig, MatchState, TimeControl
    from engine.match.spec import parse_spec
    from engine.match.stats import Sprt

    if not args.engine or len(args.engine) != 2:
        raise UsageError("a match needs exactly two --engine SPECs")
    engines = (parse_spec(args.engine[0], args.game), parse_spec(args.engine[1], args.game))
    if args.tc is not None:
        tc = TimeControl.parse(args.tc)
    else:
        tc = TimeControl(movetime_ms=args.movetime)
    cores = os.cpu_count() or 1
    need = max(e.threads for e in engines)
    concurrency = args.concurrency or max(1, cores // need)
    if concurrency * need > cores:
        print(
            f"canopy match: warning: {concurrency} games × {need} threads on {cores} cores",
            file=sys.stderr,
        )
    config = MatchConfig(
        game=args.game,
        engines=engines,
        games=args.games,
        openings=load_openings(args.openings, args.game),
        tc=tc,
        pgn=Path(args.pgn) if args.pgn else None,
        concurrency=concurrency,
        max_plies=args.max_plies,
        sprt=Sprt.parse(args.sprt) if args.sprt else None,
        ci_target=args.ci_target,
        min_games=args.min_games,
        decided=args.decided,
        seed=args.seed,
        timemargin_ms=args.timemargin,
        event=args.event,
    )
    tty = sys.stderr.isatty()

    def progress(state: MatchState) -> None:
        if args.quiet:
            return
        line = progress_line(state)
        print(("\r" + line) if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)

    state = Match(config, progress=progress).run()
    if tty and not args.quiet:
        print(file=sys.stderr)
    data = summary(config, state)
    for line in summary_lines(data):
        print(line)
    if args.json:
        emit_json(data)
    return 0


# ---------------------------------------------------------------- serve


class PortInUseError(CanopyError):
    """The port ``canopy serve`` was asked for is taken (often a Canopy already running)."""

    code = "port_in_use"


def check_port(host: str, port: int) -> None:
    """Raise :class:`PortInUseError` when ``host:port`` cannot be bound, before uvicorn
    starts: uvicorn would log ``[Errno 98] address already in use`` among its start-up
    lines and exit, and ``make run`` would add its own error, with no word on what to do."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError:
        return  # a name that does not resolve: uvicorn says so itself
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            try:
                probe.bind(address)
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    return  # e.g. a privileged port: uvicorn's own message names it
                raise PortInUseError(
                    f"port {port} on {host} is already in use (is Canopy already running?); "
                    f"pick another: canopy serve --port {port + 1}, or make run PORT={port + 1}"
                ) from None


def cmd_serve(args: argparse.Namespace) -> int:
    from app.lan import WILDCARD_HOSTS, room_urls
    from app.server import serve
    from app.settings import Settings

    settings = Settings()  # CANOPY_* fill in the rest, e.g. ws_max_size
    host = "0.0.0.0" if args.lan else (args.host or settings.host)
    port = args.port or settings.port
    check_port(host, port)

    def tell_the_room() -> None:
        """Bound to every interface: print the links students type (and the teacher's)."""
        if host not in WILDCARD_HOSTS:
            return
        urls = room_urls(host, port)
        lines = [f"Canopy is serving the room. On this machine: http://127.0.0.1:{port}"]
        if urls:
            lines.append("Students open (phones and laptops on the same network):")
            lines.extend(f"    {url}" for url in urls)
        else:
            lines.append("No network address found: is this machine on the room's network?")
        print("\n".join(lines), flush=True)

    serve(host, port, settings, on_started=tell_the_room)
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
    where = p.add_mutually_exclusive_group()
    where.add_argument("--host", default=None, help="default: CANOPY_HOST or 127.0.0.1")
    where.add_argument(
        "--lan",
        action="store_true",
        help="serve a class: listen on every interface (0.0.0.0) and print the links students type",
    )
    p.add_argument("--port", type=int, default=None, help="default: CANOPY_PORT or 8000")

    p = command("perft", cmd_perft, "count the leaves of the legal-move tree")
    p.add_argument("fen", metavar="FEN", help="a FEN, or 'startpos'")
    p.add_argument("depth", metavar="DEPTH", type=nonnegative_int)
    p.add_argument("--divide", action="store_true", help="also print the count under each move")

    p = command("search", cmd_search, "one search, printing the root moves like an engine log")
    p.add_argument("--fen", default=None, help="a FEN, or 'startpos' (default)")
    p.add_argument(
        "--algo", default="mcts", help="mcts (the default), uct, uct-minimax, bfms or alphabeta"
    )
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--iterations", type=positive_int, default=None)
    limit.add_argument("--movetime", type=positive_int, default=None, metavar="MS")
    limit.add_argument("--nodes", type=positive_int, default=None, help="tree-node limit")
    p.add_argument("--threads", type=positive_int, default=1, help="root-parallel threads")
    p.add_argument("--seed", type=nonnegative_int, default=0)
    p.add_argument("--param", action="append", metavar="K=V", help="algorithm parameter")
    p.add_argument("--node-budget", type=positive_int, default=5_000_000)
    p.add_argument(
        "--interval", type=_interval, default=0.5, metavar="SECONDS",
        help="seconds between log lines (0.001 to 3600)",
    )  # fmt: skip

    p = command("warm", cmd_warm, "compile or load every numba kernel (run once after install)")
    p.add_argument(
        "--jobs", type=positive_int, default=min(2, os.cpu_count() or 1),
        help="processes compiling at once (default: 2 where there are two cores)",
    )  # fmt: skip

    p = command("bench", cmd_bench, "benchmark suite, each figure beside python-chess")
    p.add_argument("--quick", action="store_true", help="smaller workloads (for tests)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks")

    command("uci", cmd_uci, "a UCI engine on stdin/stdout (for chess GUIs and python-chess)")

    p = command(
        "match",
        cmd_match,
        "engine-vs-engine match: score, Elo difference and its confidence interval",
    )
    p.add_argument(
        "--engine",
        action="append",
        metavar="SPEC",
        help="ALGO[:k=v,...] (e.g. bfms:threads=2) or uci:COMMAND[:Option=v,...]; give two",
    )
    p.add_argument("--games", type=positive_int, default=20, help="games to play (at most)")
    clock = p.add_mutually_exclusive_group()
    clock.add_argument("--movetime", type=positive_int, default=100, metavar="MS")
    clock.add_argument(
        "--tc", default=None, metavar="BASE+INC", help="clock in seconds, e.g. 10+0.1"
    )
    p.add_argument("--openings", default=None, metavar="FILE", help="FEN/EPD per line")
    p.add_argument("--pgn", default=None, metavar="OUT", help="write the games here")
    p.add_argument("--concurrency", type=positive_int, default=None, help="games in parallel")
    p.add_argument("--max-plies", type=positive_int, default=None, help="adjudicate a draw")
    p.add_argument("--sprt", default=None, metavar="ELO0,ELO1[,ALPHA,BETA]")
    p.add_argument(
        "--ci-target",
        type=float,
        default=None,
        metavar="ELO",
        help="stop once the 95%% interval is within ±ELO (after --min-games games)",
    )
    p.add_argument(
        "--decided",
        type=float,
        default=None,
        metavar="ELO",
        help="stop once the whole 95%% interval lies beyond ±ELO (after --min-games games)",
    )
    p.add_argument(
        "--min-games",
        type=positive_int,
        default=20,
        help="games before --ci-target or --decided may stop the match (default 20)",
    )
    p.add_argument("--seed", type=nonnegative_int, default=1)
    p.add_argument("--timemargin", type=nonnegative_int, default=500, metavar="MS")
    p.add_argument("--event", default="Canopy match")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    from canopy.train_cli import add_train_command

    add_train_command(command)

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
