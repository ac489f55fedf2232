"""A UCI engine over :class:`~engine.search.controller.SearchController`.

The protocol runs on two threads. The *reader* (whoever calls
:meth:`UciEngine.handle` for each input line, usually :func:`run`) answers
every command at once: ``go`` starts a background search and returns, so
``isready`` (answered ``readyok`` even mid-search), ``stop`` and
``ponderhit`` are seen while the engine thinks. A *supervisor* thread per
search watches the clock and the search's snapshots, decides when to stop,
and prints the last ``info`` and the ``bestmove``. Throttled ``info`` lines
come from the controller's publishing thread. All output goes through one
:class:`LineWriter` so lines never interleave.

Nothing a GUI sends can crash the engine: unknown commands, malformed
arguments, impossible positions and illegal moves are answered with an
``info string`` naming the problem, and the engine keeps its last good
settings. A ``go`` on a position that is invalid or finished is answered
``bestmove (none)`` so a waiting GUI is never left hanging.

The protocol details (scores, nodes, depth for MCTS, time management) are
documented in ``docs/uci.md``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, BinaryIO, ClassVar, TextIO

import chess

from engine.errors import CanopyError
from engine.rules.games import get_game, outcome
from engine.search.controller import AT_BUDGET_NOTES, SearchController
from engine.search.info import MoveStats, SearchInfo
from engine.search.registry import ALGORITHMS, get_algorithm
from engine.uci.options import OptionSet, UciOptionError
from engine.uci.score import move_score, uci_depth, uci_nodes
from engine.uci.timeman import Clock, Plan, plan_clock, plan_movetime
from engine.warm import play_first_move

ENGINE_NAME = "Canopy"
ENGINE_AUTHOR = "the Canopy authors"
INFO_INTERVAL = 0.1  # seconds between controller snapshots
FAST_INFO_INTERVAL = 0.01  # ... while an MCTS depth limit or a mate limit is watched
PRINT_INTERVAL = 0.5  # seconds between info lines (sooner when the best move changes)
PRINT_MIN_GAP = 0.1
POLL = 0.005  # supervisor tick
TOP_MOVES = 5  # root moves in the ``info string`` line
VARIANT_GAME = {"chess": "chess", "knightchess": "knight"}
GO_INT_FIELDS = (
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
)
GO_KEYWORDS = frozenset((*GO_INT_FIELDS, "infinite", "ponder", "searchmoves"))


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("canopy")
    except Exception:  # not installed: running from a checkout
        return "dev"


class LineWriter:
    """Thread-safe line output (each line flushed at once, as GUIs expect)."""

    def __init__(self, stream: TextIO | Callable[[str], None]) -> None:
        self._lock = threading.Lock()
        self._stream = stream
        self.closed = False

    def send(self, line: str) -> None:
        with self._lock:
            if self.closed:
                return
            try:
                if callable(self._stream):
                    self._stream(line)
                else:
                    self._stream.write(line + "\n")
                    self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.closed = True  # the GUI went away; keep quiet from now on


@dataclass
class GoRequest:
    """The fields of one ``go`` command (milliseconds for times)."""

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    movetime: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[str] = field(default_factory=list)

    def clock(self, white: bool) -> Clock | None:
        time_ms = self.wtime if white else self.btime
        if time_ms is None:
            return None
        inc = (self.winc if white else self.binc) or 0
        return Clock(max(0, time_ms), max(0, inc), self.movestogo or None)


def parse_go(tokens: list[str]) -> tuple[GoRequest, list[str]]:
    """A :class:`GoRequest` and the problems found (unknown tokens, bad numbers)."""
    go = GoRequest()
    problems: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i].lower()
        if token in ("infinite", "ponder"):
            setattr(go, token, True)
            i += 1
        elif token == "searchmoves":
            i += 1
            while i < len(tokens) and tokens[i].lower() not in GO_KEYWORDS:
                go.searchmoves.append(tokens[i])
                i += 1
        elif token in GO_INT_FIELDS:
            if i + 1 >= len(tokens):
                problems.append(f"go {token} needs a number")
                i += 1
                continue
            try:
                value = int(float(tokens[i + 1]))
                if token in ("depth", "nodes", "mate", "movetime", "movestogo") and value <= 0:
                    raise ValueError
                setattr(go, token, value)
            except (ValueError, OverflowError):
                problems.append(f"go {token}: bad value {tokens[i + 1]!r} ignored")
            i += 2
        else:
            problems.append(f"go: unknown token {tokens[i]!r} ignored")
            i += 1
    return go, problems


@dataclass
class _Position:
    """The position the GUI last set (validated), kept apart from the controller's."""

    game: str
    fen: str  # root FEN (after validation)
    moves: list[str]
    board: chess.Board  # after the moves


class UciEngine:
    """The protocol state machine; feed it lines with :meth:`handle`."""

    def __init__(self, writer: LineWriter) -> None:
        self.out = writer
        self.options = OptionSet.build()
        self.debug = False
        self._controller: SearchController | None = None
        self._ctrl_root: tuple[str, str] | None = None  # (game, root FEN) of the controller
        self._ctrl_moves: list[str] = []
        self._ctrl_budget = 0
        self._warm: set[tuple[str, str]] = set()
        self._reroot_ms: dict[str, float] = {}  # recent cost of re-rooting, per algorithm
        self._position: _Position | None = None
        self._position_error: str | None = None
        self._supervisor: threading.Thread | None = None
        self._stop_event = threading.Event()
        self._ponderhit_event = threading.Event()
        self._last_info: SearchInfo | None = None
        self._last_print = 0.0
        self._last_best: str | None = None
        self._best_changed_at = 0.0
        self._said_full = False  # this search's tree reached its budget, and we said so
        self._searchmoves: list[str] = []
        # the last `go depth` (None: none), kept by isready so preparing does not reconfigure
        self._depth_cap: int | None = None
        self._reset_position()

    # ------------------------------------------------------------ input
    def run(self, lines: Iterable[str]) -> None:
        """Handle lines until ``quit`` or the end of input."""
        for line in lines:
            if not self.handle(line):
                return
        self.handle("quit")

    def handle(self, line: str) -> bool:
        """Handle one input line; False once the engine should exit."""
        tokens = line.replace("\x00", " ").split()
        if not tokens:
            return True
        # UCI: skip unknown tokens before a known command ("joho debug on").
        for i, token in enumerate(tokens):
            command = self._COMMANDS.get(token)
            if command is not None:
                try:
                    return command(self, tokens[i + 1 :]) is not False
                except CanopyError as exc:
                    self._say(f"error: {exc}")
                except Exception as exc:  # never let one line take the engine down
                    self._say(f"internal error on {token!r}: {type(exc).__name__}: {exc}")
                return True
        self._say(f"unknown command: {_clip(line.strip())}")
        return True

    # ------------------------------------------------------------ commands
    def cmd_uci(self, _args: list[str]) -> None:
        self.out.send(f"id name {ENGINE_NAME} {_version()}")
        self.out.send(f"id author {ENGINE_AUTHOR}")
        for option in self.options:
            self.out.send(option.announce())
        self.out.send("uciok")

    def cmd_debug(self, args: list[str]) -> None:
        self.debug = bool(args) and args[0].lower() == "on"

    def cmd_isready(self, _args: list[str]) -> None:
        if not self.searching:
            self._prepare()
        self.out.send("readyok")

    def cmd_register(self, _args: list[str]) -> None:
        """No registration needed; accepted and ignored."""

    def cmd_setoption(self, args: list[str]) -> None:
        self._finish_search()
        lowered = [a.lower() for a in args]
        if not args or lowered[0] != "name":
            self._say("setoption expects: setoption name <id> [value <x>]")
            return
        if "value" in lowered:
            at = lowered.index("value")
            name, value = " ".join(args[1:at]), " ".join(args[at + 1 :])
        else:
            name, value = " ".join(args[1:]), ""
        try:
            option = self.options.set(name, value)
        except UciOptionError as exc:
            self._say(f"error: {exc}")
            return
        if option.name == "UCI_Variant":
            game = VARIANT_GAME[option.value]
            if self._position is None or self._position.game != game:
                self._reset_position()
        elif option.name == "Clear Hash":
            self._drop_tree()
        if self.debug:
            self._say(f"{option.name} = {option.value}")

    def cmd_ucinewgame(self, _args: list[str]) -> None:
        self._finish_search()
        self._drop_tree()
        self._reset_position()

    def cmd_position(self, args: list[str]) -> None:
        self._finish_search()
        game = self._game()
        try:
            self._position = self._parse_position(game, args)
            self._position_error = None
        except CanopyError as exc:
            self._position = None
            self._position_error = str(exc)
            self._say(f"error: {exc}")

    def cmd_go(self, args: list[str]) -> None:
        received = time.perf_counter()  # the clock runs from here, re-rooting included
        self._finish_search()
        go, problems = parse_go(args)
        for problem in problems:
            self._say(problem)
        position = self._position
        if position is None:
            self._say(f"no valid position ({self._position_error}); send position first")
            self.out.send("bestmove (none)")
            return
        forced = position.board.outcome(claim_draw=False)
        if forced is not None:
            result, reason = outcome(position.board)
            self._report_game_over(position.board, result or forced.result(), reason)
            self.out.send("bestmove (none)")
            return
        position = self._claimable(position)
        self._searchmoves = self._legal_subset(position.board, go.searchmoves)
        plan, flexible = self._plan(go, position)
        self._depth_cap = go.depth
        try:
            controller = self._sync(position, plan.soft_ms if plan is not None else None)
        except CanopyError as exc:
            self._say(f"error: {exc}")
            self.out.send("bestmove (none)")
            return
        limits: dict[str, int] = {}
        if go.nodes:
            mcts = controller.algorithm.mcts
            limits["iterations" if mcts else "nodes"] = go.nodes
        # MCTS depth and mate limits are checked on snapshots: publish them more often
        # (alphabeta's depth limit is its own max_depth, see _settings)
        watched = go.mate or (go.depth and controller.algorithm.mcts)
        controller.info_interval = FAST_INFO_INTERVAL if watched else INFO_INTERVAL
        self._stop_event.clear()
        self._ponderhit_event.clear()
        self._last_info = None
        self._last_best = None
        self._said_full = False
        self._last_print = time.perf_counter()
        self._best_changed_at = self._last_print
        try:
            controller.start(**limits)
        except CanopyError as exc:
            self._say(f"error: {exc}")
            self.out.send("bestmove (none)")
            return
        self._supervisor = threading.Thread(
            target=self._supervise,
            args=(controller, go, plan, flexible, position.board, received),
            name="canopy-uci-supervisor",
            daemon=True,
        )
        self._supervisor.start()

    def cmd_stop(self, _args: list[str]) -> None:
        self._finish_search()

    def cmd_ponderhit(self, _args: list[str]) -> None:
        if self.searching:
            self._ponderhit_event.set()

    def cmd_quit(self, _args: list[str]) -> bool:
        self._finish_search()
        if self._controller is not None:
            self._controller.close()
        return False

    def cmd_d(self, _args: list[str]) -> None:
        """Stockfish's ``d``: show the current position (not part of UCI)."""
        position = self._position
        if position is None:
            self._say(f"no valid position ({self._position_error})")
            return
        for row in str(position.board).splitlines():
            self.out.send(row)
        self.out.send(f"Fen: {position.board.fen()}")
        self.out.send(f"Variant: {self.options['UCI_Variant']}")

    _COMMANDS: ClassVar[dict[str, Callable[[UciEngine, list[str]], Any]]] = {
        "uci": cmd_uci,
        "debug": cmd_debug,
        "isready": cmd_isready,
        "register": cmd_register,
        "setoption": cmd_setoption,
        "ucinewgame": cmd_ucinewgame,
        "position": cmd_position,
        "go": cmd_go,
        "stop": cmd_stop,
        "ponderhit": cmd_ponderhit,
        "quit": cmd_quit,
        "d": cmd_d,
    }

    # ------------------------------------------------------------ state
    @property
    def searching(self) -> bool:
        thread = self._supervisor
        return thread is not None and thread.is_alive()

    def _game(self) -> str:
        return VARIANT_GAME[self.options["UCI_Variant"]]

    def _reset_position(self) -> None:
        game = get_game(self._game())
        board = game.board(None)
        self._position = _Position(game.name, board.fen(), [], board)
        self._position_error = None

    def _parse_position(self, game_name: str, args: list[str]) -> _Position:
        if not args:
            raise CanopyError("position expects startpos or fen <FEN>, then optionally moves")
        lowered = [a.lower() for a in args]
        end = lowered.index("moves") if "moves" in lowered else len(args)
        if lowered[0] == "startpos":
            fen: str | None = None
            if end != 1:
                raise CanopyError(f"unexpected {' '.join(args[1:end])!r} after startpos")
        elif lowered[0] == "fen":
            fen = " ".join(args[1:end])
            if not fen:
                raise CanopyError("position fen needs a FEN")
        else:
            raise CanopyError(f"position expects startpos or fen, not {args[0]!r}")
        game = get_game(game_name)
        board = game.board(fen)
        root_fen = board.fen()
        moves = args[end + 1 :]
        done = 0
        previous = self._position
        if (
            previous is not None
            and (previous.game, previous.fen) == (game.name, root_fen)
            and moves[: len(previous.moves)] == previous.moves
        ):
            # the usual case in a game: the last position plus a move or two
            board, done = previous.board.copy(), len(previous.moves)
        for uci in moves[done:]:
            try:
                move = chess.Move.from_uci(uci)
            except ValueError:
                raise CanopyError(f"not a UCI move: {_clip(uci)!r}") from None
            if move not in board.legal_moves:
                raise CanopyError(f"illegal move {uci} in {board.fen()}")
            board.push(move)
        return _Position(game.name, root_fen, list(moves), board)

    def _claimable(self, position: _Position) -> _Position:
        """A position where a draw could be claimed, made searchable.

        The rules layer (and so the controller) treats a claimable draw (fifty
        moves, threefold repetition) as the end of the game, but a GUI that has
        not claimed it still needs a move. We search the bare FEN (no history,
        fifty-move counter held at 99), so every line is scored as play goes on.
        """
        result, reason = outcome(position.board)
        if result is None:
            return position
        self._say(f"a draw can be claimed here ({reason}); searching on")
        board = position.board.copy(stack=False)
        board.halfmove_clock = min(board.halfmove_clock, 99)
        board = get_game(position.game).board(board.fen())
        return _Position(position.game, board.fen(), [], board)

    def _drop_tree(self) -> None:
        """Forget the search tree (the next search starts afresh)."""
        self._ctrl_root = None

    # ------------------------------------------------------------ controller
    def _settings(self, game: str) -> tuple[str, dict[str, Any], int, int]:
        """Algorithm, parameters, threads and seed for the next search in ``game``.

        ``go depth N`` on ``alphabeta`` lowers its ``max_depth`` to N for that
        search, so iterative deepening itself ends right after completing depth
        N and the last ``info`` and the ``bestmove`` come from depth N. Watching
        the snapshots instead overshot (``go depth 2`` reported depth 4), as a
        shallow iteration takes well under a snapshot interval. Changing
        ``max_depth`` reconfigures the controller, which drops the transposition
        table — only when the cap changes between two searches, never within a
        game played at a fixed depth.
        """
        algorithm = self.options["Algorithm"]
        cls = get_algorithm(algorithm)
        params = self.options.params_for(algorithm)
        threads = self.options["Threads"] if cls.mcts else 1
        names = {spec.name for spec in cls.params}
        if "hash_mb" in names:  # a transposition table: sized by the Hash option
            params["hash_mb"] = self.options["Hash"]
        if "max_depth" in names and self._depth_cap is not None:  # it deepens by itself
            own = cls.validate(params, game)["max_depth"]
            params["max_depth"] = min(own, self._depth_cap)
        return algorithm, params, threads, self.options["Seed"]

    def _sync(self, position: _Position, budget_ms: float | None = None) -> SearchController:
        """The controller, set to the current settings and ``position`` (reusing the tree
        when that is worth it for a search of ``budget_ms``)."""
        algorithm, params, threads, seed = self._settings(position.game)
        if threads != self.options["Threads"]:
            self._say(f"{algorithm} is single-threaded; Threads ignored")
        budget = self.options["NodeBudget"]
        controller = self._controller
        if (
            controller is None
            or controller.game.name != position.game
            or budget != self._ctrl_budget
        ):
            if controller is not None:
                controller.close()
            controller = SearchController(
                position.game,
                position.fen,
                moves=position.moves,
                algorithm=algorithm,
                params=params,
                threads=threads,
                seed=seed,
                node_budget=budget,
                tree_size=0,
                on_info=self._on_info,
                info_interval=INFO_INTERVAL,
            )
            self._controller, self._ctrl_budget = controller, budget
        else:
            full = ALGORITHMS[algorithm].validate(params, position.game)
            if (
                controller.algorithm.name != algorithm
                or controller.params != full
                or controller.threads != threads
                or controller.seed != seed
            ):
                controller.configure(algorithm=algorithm, params=params, threads=threads, seed=seed)
            self._move_root(controller, position, budget_ms)
        self._ctrl_root = (position.game, position.fen)
        self._ctrl_moves = list(position.moves)
        return controller

    def _move_root(
        self, controller: SearchController, position: _Position, budget_ms: float | None
    ) -> None:
        """Advance the root by the new moves when the position extends the old one.

        Re-rooting copies the kept subtree into fresh arrays, which costs time in
        proportion to the tree: negligible for ``uct`` or ``alphabeta`` (whose
        hash table survives only this way), but tens of milliseconds for a
        ``bfms`` tree of a few hundred thousand nodes. We time it, and when it
        took more than a tenth of the coming search's budget we start afresh
        instead (option ``TreeReuse`` turns reuse off altogether).
        """
        old = self._ctrl_moves
        same_root = self._ctrl_root == (position.game, position.fen)
        extends = same_root and position.moves[: len(old)] == old
        reuse = extends and self.options["TreeReuse"]
        if reuse and budget_ms is not None:
            reuse = self._reroot_ms.get(controller.algorithm.name, 0.0) <= 0.1 * budget_ms
        if not reuse:
            controller.set_position(position.fen, position.moves)
            return
        start = time.perf_counter()
        for uci in position.moves[len(old) :]:
            controller.play(uci)
        spent = (time.perf_counter() - start) * 1000.0
        name = controller.algorithm.name
        self._reroot_ms[name] = 0.5 * self._reroot_ms.get(name, spent) + 0.5 * spent

    def _prepare(self) -> None:
        """Get ready off the clock (``isready``): load every algorithm's search kernels for
        this game (compiled on first use, so a later ``setoption name Algorithm`` does not
        pay for it inside a search) and set the controller to the position, which
        allocates alpha-beta's hash table — slow on first touch of a large table."""
        for algorithm in ALGORITHMS:
            key = (self._game(), algorithm)
            if key not in self._warm:
                warm = SearchController(key[0], algorithm=algorithm, node_budget=4096, tree_size=0)
                warm.search(iterations=16)
                play_first_move(warm)  # tree reuse's kernels, loaded off the clock too
                self._warm.add(key)
        position = self._position
        if position is None or outcome(position.board)[0] is not None:
            return
        try:
            self._sync(position)
        except CanopyError as exc:
            self._say(f"error: {exc}")

    # ------------------------------------------------------------ time
    def _plan(self, go: GoRequest, position: _Position) -> tuple[Plan | None, bool]:
        """The time plan and whether it may stop early (only a clock allows that)."""
        overhead = self.options["Move Overhead"]
        if go.infinite or go.ponder:
            return None, False
        if go.movetime:
            return plan_movetime(go.movetime), False
        clock = go.clock(position.board.turn == chess.WHITE)
        if clock is None:
            return None, False
        plan = plan_clock(clock, game=position.game, ply=position.board.ply(), overhead_ms=overhead)
        return plan, True

    def _ponder_plan(self, go: GoRequest, board: chess.Board) -> tuple[Plan | None, bool]:
        """After ``ponderhit`` the ponder search becomes a normal one on our clock."""
        flat = GoRequest(**{**go.__dict__, "ponder": False})
        position = self._position
        game = position.game if position is not None else self._game()
        return self._plan(flat, _Position(game, board.fen(), [], board))

    # ------------------------------------------------------------ search thread
    def _supervise(
        self,
        controller: SearchController,
        go: GoRequest,
        plan: Plan | None,
        flexible: bool,
        board: chess.Board,
        started: float,
    ) -> None:
        final: SearchInfo | None = None
        try:
            pondering = go.ponder
            wait_for_stop = go.infinite or go.ponder
            single_reply = board.legal_moves.count() == 1
            shown = False  # the result of a search that ended while we wait for stop
            while not self._stop_event.is_set():
                controller.wait(POLL)
                finished = not controller.running
                now = time.perf_counter()
                if pondering and self._ponderhit_event.is_set():
                    pondering = wait_for_stop = False
                    started = now
                    plan, flexible = self._ponder_plan(go, board)
                if finished:
                    if wait_for_stop:
                        if not shown:
                            # e.g. `go infinite depth 3`: show the result now, not at `stop`
                            self._emit_info(controller.info())
                            shown = True
                        self._stop_event.wait(POLL)
                        continue
                    break
                if wait_for_stop:
                    continue
                info = self._last_info
                elapsed = (now - started) * 1000.0
                if plan is not None and self._time_is_up(plan, flexible, elapsed, info):
                    break
                if flexible and single_reply:
                    break
                if info is not None and self._limit_reached(go, info):
                    break
            final = controller.stop()
        except Exception as exc:
            self._say(f"search failed: {type(exc).__name__}: {exc}")
        self._finish(final, board)

    def _time_is_up(
        self, plan: Plan, flexible: bool, elapsed: float, info: SearchInfo | None
    ) -> bool:
        if elapsed >= plan.hard_ms:
            return True
        if elapsed >= plan.soft_ms:
            if not flexible:
                return True
            # keep thinking (up to the hard limit) while the best move is still changing
            changed_ago = (time.perf_counter() - self._best_changed_at) * 1000.0
            return changed_ago >= 0.25 * plan.soft_ms
        return flexible and info is not None and self._decided(info, plan, elapsed)

    @staticmethod
    def _decided(info: SearchInfo, plan: Plan, elapsed: float) -> bool:
        """Visit-count engines: the leader cannot be caught before the soft limit."""
        if not get_algorithm(info.algorithm).decides_by_visits(info.params):
            return False
        if len(info.moves) < 2 or info.iterations < 200 or elapsed < 0.1 * plan.soft_ms:
            return False
        rate = info.iterations / max(1e-3, info.elapsed_ms)
        remaining = rate * max(0.0, plan.soft_ms - elapsed)
        leader = info.moves[0].visits
        runner_up = max(m.visits for m in info.moves[1:])
        return leader - runner_up > remaining

    def _limit_reached(self, go: GoRequest, info: SearchInfo) -> bool:
        # alphabeta's depth limit is its max_depth (it ends by itself); MCTS's is the
        # mean depth of the tree, which only the snapshots show
        algorithm = get_algorithm(info.algorithm)
        if go.depth and algorithm.tree and uci_depth(info) >= go.depth:
            return True
        if go.mate and info.moves:
            score = move_score(info.algorithm, info.moves[0])
            return score.mate is not None and 0 < score.mate <= go.mate
        return False

    def _on_info(self, info: SearchInfo) -> None:
        """Controller callback (publishing thread): keep the snapshot, print now and then."""
        self._last_info = info
        if not info.running:
            return  # the supervisor prints the final line, right before bestmove
        full = info.extra.get("full")
        if full and not self._said_full:  # once a search: the search goes on regardless
            self._said_full = True
            self._say(AT_BUDGET_NOTES[full])
        now = time.perf_counter()
        best = self._pick(info)
        changed = best is not None and best.move != self._last_best
        if changed:
            self._last_best = best.move if best else None
            self._best_changed_at = now
        gap = now - self._last_print
        if gap >= PRINT_INTERVAL or (changed and gap >= PRINT_MIN_GAP):
            self._last_print = now
            self._emit_info(info)

    def _finish(self, final: SearchInfo | None, board: chess.Board) -> None:
        if final is not None and final.moves:
            self._emit_info(final)
        best = self._pick(final) if final is not None else None
        if best is None:
            legal = self._searchmoves or [m.uci() for m in board.legal_moves]
            if not legal:
                self.out.send("bestmove (none)")
                return
            self._say("no search result; playing the first legal move")
            self.out.send(f"bestmove {legal[0]}")
            return
        ponder = f" ponder {best.pv[1]}" if len(best.pv) > 1 else ""
        self.out.send(f"bestmove {best.move}{ponder}")

    def _finish_search(self) -> None:
        """Stop a running search and wait until its bestmove is out."""
        thread = self._supervisor
        if thread is None:
            return
        self._stop_event.set()
        thread.join()
        self._supervisor = None

    # ------------------------------------------------------------ output
    def _ranked(self, info: SearchInfo) -> list[MoveStats]:
        moves = list(info.moves)
        if self._searchmoves:
            allowed = set(self._searchmoves)
            moves = [m for m in moves if m.move in allowed]
        return moves

    def _pick(self, info: SearchInfo | None) -> MoveStats | None:
        if info is None:
            return None
        moves = self._ranked(info)
        return moves[0] if moves else None

    def _emit_info(self, info: SearchInfo) -> None:
        moves = self._ranked(info)
        if not moves:
            return
        elapsed = max(1, int(info.elapsed_ms))
        algorithm = get_algorithm(info.algorithm)
        depth, nodes = uci_depth(info), uci_nodes(info)
        seldepth = max(depth, int(info.extra.get("seldepth", info.max_depth)))
        hashfull = ""
        if algorithm.tree:  # the tree's node budget is its "hash"
            capacity = max(1, self._ctrl_budget * info.threads)
            hashfull = f" hashfull {min(1000, 1000 * info.nodes // capacity)}"
        nps = int(nodes * 1000 / elapsed)
        for k, move in enumerate(moves[: self.options["MultiPV"]], start=1):
            score = move_score(info.algorithm, move)
            win, draw, loss = score.wdl()
            pv = " ".join(move.pv or (move.move,))
            self.out.send(
                f"info depth {depth} seldepth {seldepth} multipv {k} score {score.uci()} "
                f"wdl {win} {draw} {loss} nodes {nodes} nps {nps}{hashfull} time {elapsed} pv {pv}"
            )
        top = " | ".join(
            f"{m.move} N={m.visits} ({100 * m.share:.1f}%) Q={m.q:.3f}" for m in moves[:TOP_MOVES]
        )
        self.out.send(f"info string {info.algorithm} visits: {top}")

    def _report_game_over(self, board: chess.Board, result: str, reason: str | None) -> None:
        if result == "1/2-1/2":
            self.out.send("info depth 0 score cp 0")
        elif (result == "1-0") != (board.turn == chess.WHITE):
            self.out.send("info depth 0 score mate 0")
        self._say(f"the game is over: {result} ({reason})")

    def _legal_subset(self, board: chess.Board, moves: list[str]) -> list[str]:
        legal = {m.uci() for m in board.legal_moves}
        kept = [m for m in moves if m in legal]
        if len(kept) != len(moves):
            self._say("searchmoves: illegal moves ignored")
        return kept

    def _say(self, text: str) -> None:
        self.out.send(f"info string {text}")


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run(stdin: BinaryIO, stdout: TextIO) -> None:
    """Serve UCI on a byte stream (undecodable bytes become U+FFFD, never an error)."""
    engine = UciEngine(LineWriter(stdout))

    def lines() -> Iterable[str]:
        while True:
            raw = stdin.readline()
            if not raw:
                return
            yield raw.decode("utf-8", errors="replace")

    engine.run(lines())
