"""Engine-vs-engine matches: scheduling, the referee, clocks and PGN.

Every player is a UCI child process (ours run ``python -m canopy uci``), so
each engine measures its own time in its own process and one cannot starve
the other of the interpreter. A *seat* is one pair of engine processes; the
runner keeps ``concurrency`` seats, each playing one game at a time and
reusing its processes from game to game (``ucinewgame``), restarting an
engine only after it crashed or hung.

Scheduling: the openings are shuffled once with the match seed and each is
played twice, once with each engine as White (games 2k and 2k+1), so any
prefix of the match is balanced in colour and draws openings evenly.

The referee is Canopy's rules layer (:func:`engine.rules.games.outcome`):
checkmate, stalemate, insufficient material, fifty moves and threefold
repetition (claimed at once) in chess; extinction, no legal move and the
200-ply limit in knight chess — engines that do not know that rule
(Fairy-Stockfish) are adjudicated by it. An illegal move, a crash or a
silent engine loses the game; so does a flag fall with a clock
(``--tc``), beyond ``timemargin``. With ``movetime`` late moves are
counted and reported, not punished.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import chess
import chess.pgn

from engine.errors import CanopyError
from engine.match.client import EngineError, SearchReport, UciClient
from engine.match.openings import Opening
from engine.match.spec import EngineSpec
from engine.match.stats import MatchScore, Sprt
from engine.rules.games import get_game, outcome

READY_TIMEOUT = 300.0  # first isready may compile the search kernels


@dataclass(frozen=True)
class TimeControl:
    """Either a fixed time per move or a clock (base + increment), in ms."""

    movetime_ms: int | None = 100
    base_ms: int | None = None
    inc_ms: int = 0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``BASE+INC`` in seconds, e.g. ``10+0.1`` (cutechess's notation)."""
        base, _, inc = text.partition("+")
        try:
            base_s, inc_s = float(base), float(inc or 0)
        except ValueError:
            raise CanopyError(
                f"--tc expects BASE+INC in seconds, e.g. 10+0.1; got {text!r}"
            ) from None
        if base_s <= 0 or inc_s < 0:
            raise CanopyError(f"--tc needs a positive base and no negative increment; got {text!r}")
        return cls(None, int(base_s * 1000), int(inc_s * 1000))

    def describe(self) -> str:
        if self.base_ms is not None:
            return f"{self.base_ms / 1000:g}+{self.inc_ms / 1000:g}"
        return f"{self.movetime_ms} ms/move"

    def pgn(self) -> str:
        if self.base_ms is not None:
            return f"{self.base_ms / 1000:g}+{self.inc_ms / 1000:g}"
        return f"1/{(self.movetime_ms or 0) / 1000:g}"  # one move per that many seconds


@dataclass
class MatchConfig:
    game: str
    engines: tuple[EngineSpec, EngineSpec]
    games: int
    openings: list[Opening]
    tc: TimeControl = field(default_factory=TimeControl)
    pgn: Path | None = None
    concurrency: int = 1
    max_plies: int | None = None
    sprt: Sprt | None = None
    ci_target: float | None = None
    min_games: int = 20  # before --ci-target or --decided may stop the match
    decided: float | None = None  # stop once the whole interval lies beyond ±decided Elo
    seed: int = 1
    timemargin_ms: int = 500
    event: str = "Canopy match"


@dataclass
class GameRecord:
    round: int  # 1-based
    white: int  # index of the engine playing White
    opening: Opening
    moves: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    result: str = "*"
    reason: str = ""
    termination: str = "normal"  # the PGN Termination tag

    def points(self, engine: int) -> float:
        """Points of ``engine`` (0 or 1) in this game."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == (engine == self.white) else 0.0


@dataclass
class EngineStats:
    """Per-engine time keeping, to show both really had the time per move."""

    moves: int = 0
    total_ms: float = 0.0
    late: int = 0  # moves over the allotted movetime by more than the margin
    worst_over_ms: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "moves": self.moves,
            "mean_ms": self.total_ms / self.moves if self.moves else 0.0,
            "late_moves": self.late,
            "worst_overrun_ms": self.worst_over_ms,
        }


@dataclass
class MatchState:
    """What the progress bar and the final report read (engine 0's point of view)."""

    planned: int
    records: list[GameRecord] = field(default_factory=list)
    score: MatchScore = field(default_factory=lambda: MatchScore(0, 0, 0))
    stats: tuple[EngineStats, EngineStats] = field(
        default_factory=lambda: (EngineStats(), EngineStats())
    )
    stop_reason: str | None = None
    started: float = field(default_factory=time.perf_counter)
    sprt_llr: float | None = None
    sprt_decision: str | None = None

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started


ProgressCallback = Callable[[MatchState], None]


class _Seat:
    """One pair of engine processes, reused from game to game."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.clients: list[UciClient | None] = [None, None]

    def engine(self, index: int) -> UciClient:
        client = self.clients[index]
        if client is None or not client.alive:
            client = self._launch(self.config.engines[index])
            self.clients[index] = client
        return client

    def _launch(self, spec: EngineSpec) -> UciClient:
        client = UciClient(spec.argv, spec.name, spec.env)
        client.start()
        for name, value in spec.options:
            if not client.has_option(name):
                client.quit()
                raise EngineError(f"engine {spec.name} has no option {name!r}")
            client.set_option(name, value)
        variant = get_game(self.config.game).uci_variant
        if client.has_option("UCI_Variant"):
            client.set_option("UCI_Variant", variant)
        elif variant != "chess":
            client.quit()
            raise EngineError(
                f"engine {spec.name} has no UCI_Variant option: cannot play {variant}"
            )
        client.is_ready(READY_TIMEOUT)
        return client

    def drop(self, index: int) -> None:
        client = self.clients[index]
        if client is not None:
            client.kill()
        self.clients[index] = None

    def close(self) -> None:
        for client in self.clients:
            if client is not None:
                client.quit()
        self.clients = [None, None]


class Match:
    """Runs a match; :meth:`run` returns the final :class:`MatchState`."""

    def __init__(self, config: MatchConfig, progress: ProgressCallback | None = None) -> None:
        if config.games < 1:
            raise CanopyError("a match needs at least one game")
        self.config = config
        self.progress = progress
        self.state = MatchState(planned=config.games)
        self._lock = threading.Lock()
        self._next_round = 0
        self._stop = threading.Event()
        self._errors: list[BaseException] = []
        order = list(range(len(config.openings)))
        random.Random(config.seed).shuffle(order)
        self._order = order
        if config.pgn is not None:
            config.pgn.parent.mkdir(parents=True, exist_ok=True)
            config.pgn.write_text("")

    # ------------------------------------------------------------ scheduling
    def run(self) -> MatchState:
        workers = [
            threading.Thread(target=self._worker, name=f"match-seat-{k}", daemon=True)
            for k in range(max(1, self.config.concurrency))
        ]
        for w in workers:
            w.start()
        try:
            for w in workers:
                while w.is_alive():
                    w.join(0.2)
        except KeyboardInterrupt:
            self._stop.set()
            self.state.stop_reason = "interrupted"
            raise
        if self._errors and not self.state.records:
            raise self._errors[0]
        if self.state.stop_reason is None:
            self.state.stop_reason = "games"
        return self.state

    def _claim_round(self) -> int | None:
        with self._lock:
            if self._stop.is_set() or self._next_round >= self.config.games:
                return None
            self._next_round += 1
            return self._next_round

    def _worker(self) -> None:
        seat = _Seat(self.config)
        try:
            while (round_no := self._claim_round()) is not None:
                record = self._play(seat, round_no)
                self._record(record)
        except BaseException as exc:  # an engine that cannot even start stops the match
            self._errors.append(exc)
            self._stop.set()
            if self.state.stop_reason is None:
                self.state.stop_reason = f"error: {exc}"
        finally:
            seat.close()

    def _record(self, record: GameRecord) -> None:
        with self._lock:
            state = self.state
            state.records.append(record)
            points = record.points(0)
            old = state.score
            state.score = MatchScore(
                old.wins + (points == 1.0),
                old.draws + (points == 0.5),
                old.losses + (points == 0.0),
            )
            self._write_pgn(record)
            self._check_stop()
        if self.progress is not None:
            self.progress(self.state)

    def _check_stop(self) -> None:
        config, state = self.config, self.state
        if config.sprt is not None:
            state.sprt_llr = config.sprt.llr(state.score)
            decision = config.sprt.decision(state.score)
            if decision is not None:
                state.sprt_decision = decision
                state.stop_reason = f"SPRT {decision} accepted"
                self._stop.set()
        if config.ci_target is not None and state.score.games >= config.min_games:
            error = state.score.elo_error()
            if error is not None and error <= config.ci_target:
                state.stop_reason = f"95% interval within ±{config.ci_target:g} Elo"
                self._stop.set()
        if config.decided is not None and state.score.games >= config.min_games:
            # A whitewash never narrows to ±100 Elo (it has no bound on one side) and a
            # near-whitewash only after hundreds of games (a 95 % score is ±250 wide at
            # n = 100); once the whole interval is beyond ±decided the verdict cannot change.
            low, high = state.score.elo_ci95()
            if (low is not None and low > config.decided) or (
                high is not None and high < -config.decided
            ):
                state.stop_reason = f"95% interval beyond ±{config.decided:g} Elo"
                self._stop.set()

    # ------------------------------------------------------------ one game
    def _opening(self, round_no: int) -> tuple[Opening, int]:
        pair = (round_no - 1) // 2
        opening = self.config.openings[self._order[pair % len(self._order)]]
        white = 0 if round_no % 2 == 1 else 1
        return opening, white

    def _play(self, seat: _Seat, round_no: int) -> GameRecord:
        config = self.config
        opening, white = self._opening(round_no)
        record = GameRecord(round_no, white, opening)
        game = get_game(config.game)
        board = game.board(opening.fen)
        engines = {chess.WHITE: white, chess.BLACK: 1 - white}
        for index in (0, 1):
            client = seat.engine(index)
            spec = config.engines[index]
            if spec.internal and not spec.fixed_seed:
                client.set_option("Seed", str(config.seed * 100_003 + round_no))
            client.send("ucinewgame")
            client.is_ready(READY_TIMEOUT)
        clocks = {
            chess.WHITE: float(config.tc.base_ms or 0),
            chess.BLACK: float(config.tc.base_ms or 0),
        }
        while True:
            result, reason = outcome(board)
            if result is not None:
                record.result, record.reason = result, reason or ""
                break
            if config.max_plies and len(record.moves) >= config.max_plies:
                record.result, record.termination = "1/2-1/2", "adjudication"
                record.reason = f"adjudicated a draw after {config.max_plies} plies"
                break
            turn = board.turn
            index = engines[turn]
            spec = config.engines[index]
            go, allotted = self._go(spec, clocks)
            position = f"position fen {opening.fen}"
            if record.moves:
                position += " moves " + " ".join(record.moves)
            loser = "0-1" if turn == chess.WHITE else "1-0"
            side = "White" if turn == chess.WHITE else "Black"
            clocked = config.tc.base_ms is not None and spec.limits.go() is None
            asked = time.perf_counter()
            try:
                client = seat.engine(index)
                timeout = self._timeout(allotted, clocks[turn] if clocked else None)
                report = client.search(position, go, timeout=timeout)
            except EngineError as exc:
                seat.drop(index)
                record.result = loser
                waited = (time.perf_counter() - asked) * 1000.0
                if clocked and waited > clocks[turn] + config.timemargin_ms:
                    record.termination = "time forfeit"
                    record.reason = f"{side} ({spec.name}) lost on time (no move)"
                else:
                    record.termination = "abandoned"
                    record.reason = f"{side} ({spec.name}) failed: {exc}"
                break
            self._time(index, report, allotted)
            if clocked:
                clocks[turn] -= report.elapsed_ms
                if clocks[turn] < -config.timemargin_ms:
                    record.result, record.termination = loser, "time forfeit"
                    record.reason = f"{side} ({spec.name}) lost on time"
                    break
                clocks[turn] += config.tc.inc_ms
            move = self._legal(board, report)
            if move is None:
                record.result, record.termination = loser, "rules infraction"
                record.reason = f"{side} ({spec.name}) played an illegal move: {report.bestmove}"
                break
            board.push(move)
            record.moves.append(move.uci())
            record.comments.append(report.comment())
        return record

    def _go(self, spec: EngineSpec, clocks: dict[bool, float]) -> tuple[str, float | None]:
        """The ``go`` command for this engine and the milliseconds it is allotted."""
        own = spec.limits.go()
        if own is not None:
            return own, float(spec.limits.movetime) if spec.limits.movetime else None
        tc = self.config.tc
        if tc.base_ms is None:
            return f"go movetime {tc.movetime_ms}", float(tc.movetime_ms or 0)
        wtime = max(1, int(clocks[chess.WHITE]))
        btime = max(1, int(clocks[chess.BLACK]))
        inc = tc.inc_ms
        return f"go wtime {wtime} btime {btime} winc {inc} binc {inc}", None

    def _timeout(self, allotted: float | None, clock: float | None) -> float:
        """Seconds before we send ``stop`` (and then give up) on a silent engine."""
        if clock is not None:  # past the flag (and the margin) nothing can save it
            return max(0.0, clock + self.config.timemargin_ms) / 1000.0 + 0.5
        if allotted:
            return allotted / 1000.0 + 10.0
        return 600.0  # fixed nodes or depth: no clock

    def _time(self, index: int, report: SearchReport, allotted: float | None) -> None:
        with self._lock:
            stats = self.state.stats[index]
            stats.moves += 1
            stats.total_ms += report.elapsed_ms
            if allotted:
                over = report.elapsed_ms - allotted
                stats.worst_over_ms = max(stats.worst_over_ms, over)
                if over > self.config.timemargin_ms:
                    stats.late += 1

    @staticmethod
    def _legal(board: chess.Board, report: SearchReport) -> chess.Move | None:
        if report.bestmove is None:
            return None
        try:
            move = chess.Move.from_uci(report.bestmove)
        except ValueError:
            return None
        return move if move in board.legal_moves else None

    # ------------------------------------------------------------ PGN
    def pgn_game(self, record: GameRecord) -> chess.pgn.Game:
        config = self.config
        game = get_game(config.game)
        pgn = game.pgn_game()
        pgn.setup(game.board(record.opening.fen))
        white, black = config.engines[record.white], config.engines[1 - record.white]
        pgn.headers.update(
            {
                "Event": config.event,
                "Site": "canopy match",
                "Date": date.today().strftime("%Y.%m.%d"),
                "Round": str(record.round),
                "White": white.name,
                "Black": black.name,
                "Result": record.result,
                "TimeControl": config.tc.pgn(),
                "Termination": record.termination,
                "Opening": record.opening.id,
                "PlyCount": str(len(record.moves)),
            }
        )
        node: chess.pgn.GameNode = pgn
        for uci, comment in zip(record.moves, record.comments, strict=True):
            node = node.add_variation(chess.Move.from_uci(uci), comment=comment)
        if record.reason:
            node.comment = (node.comment + " " if node.comment else "") + record.reason
        return pgn

    def _write_pgn(self, record: GameRecord) -> None:
        if self.config.pgn is None:
            return
        with self.config.pgn.open("a") as handle:
            handle.write(f"{self.pgn_game(record)}\n\n")
