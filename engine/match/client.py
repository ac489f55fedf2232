"""A small UCI client: the match runner's side of the pipe to each engine.

We drive engines ourselves rather than through ``chess.engine`` because the
runner needs things that client does not offer: setting ``VariantPath`` before
``UCI_Variant`` (Fairy-Stockfish learns ``knightchess`` only from the file),
measuring each move's wall time for the clocks, and killing a hung engine
without disturbing the other games. Lines are read by a thread into a queue,
so every wait has a timeout.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.errors import CanopyError


class EngineError(CanopyError):
    """An engine that would not start, answer, or follow the protocol."""

    code = "engine"


@dataclass
class SearchReport:
    """What an engine said about one move: its choice and its last ``info`` fields."""

    bestmove: str | None
    ponder: str | None = None
    elapsed_ms: float = 0.0
    depth: int | None = None
    nodes: int | None = None
    score_cp: int | None = None  # from the engine's side
    score_mate: int | None = None
    pv: list[str] = field(default_factory=list)
    infos: list[str] = field(default_factory=list)  # every info line, when asked for

    def comment(self) -> str:
        """A cutechess-style PGN comment: ``+0.35/12 0.101s`` (score for the mover)."""
        if self.score_mate is not None:
            sign = "+" if self.score_mate > 0 else "-"
            score = f"{sign}M{abs(self.score_mate)}"
        elif self.score_cp is not None:
            score = f"{self.score_cp / 100:+.2f}"
        else:
            score = "?"
        depth = f"/{self.depth}" if self.depth is not None else ""
        return f"{score}{depth} {self.elapsed_ms / 1000:.3f}s"


def parse_info(line: str, report: SearchReport) -> None:
    """Fold one ``info`` line's depth, nodes, score and pv into ``report``."""
    tokens = line.split()
    i = 1
    while i < len(tokens):
        token = tokens[i]
        try:
            if token == "string":
                return
            if token in ("depth", "nodes") and i + 1 < len(tokens):
                setattr(report, token, int(tokens[i + 1]))
                i += 2
            elif token == "score" and i + 2 < len(tokens):
                kind, value = tokens[i + 1], int(tokens[i + 2])
                if kind == "cp":
                    report.score_cp, report.score_mate = value, None
                elif kind == "mate":
                    report.score_mate, report.score_cp = value, None
                i += 3
            elif token == "pv":
                report.pv = tokens[i + 1 :]
                return
            else:
                i += 1
        except ValueError:
            i += 1


class UciClient:
    """One engine process spoken to over UCI."""

    def __init__(
        self, argv: Sequence[str], name: str, env: Sequence[tuple[str, str | None]] = ()
    ) -> None:
        self.argv = list(argv)
        self.name = name
        self.env = dict(env)  # the engine's environment changes (None: removed)
        self.options: dict[str, str] = {}  # announced option names (lower-case) → type line
        self.id_name = ""
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()

    # ------------------------------------------------------------ process
    def _environment(self) -> dict[str, str] | None:
        if not self.env:
            return None  # inherit ours
        env = dict(os.environ)
        for key, value in self.env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def start(self, timeout: float = 60.0) -> None:
        """Launch the engine and complete the ``uci`` handshake."""
        try:
            self._proc = subprocess.Popen(
                self.argv,
                env=self._environment(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                errors="replace",
            )
        except OSError as exc:
            raise EngineError(f"cannot start engine {self.name} ({self.argv[0]}): {exc}") from None
        self._lines = queue.Queue()
        threading.Thread(target=self._read, name=f"uci-reader-{self.name}", daemon=True).start()
        self.send("uci")
        for line in self._until(lambda s: s == "uciok", timeout, "uciok"):
            if line.startswith("id name "):
                self.id_name = line[8:].strip()
            elif line.startswith("option name "):
                rest = line[12:]
                name = rest.split(" type ")[0].strip()
                self.options[name.lower()] = rest

    def _read(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        for line in proc.stdout:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def send(self, line: str) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineError(f"engine {self.name} is not running")
        try:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineError(f"engine {self.name} closed its input") from None

    def _until(self, done: object, timeout: float, what: str) -> list[str]:
        """Lines up to and including the first for which ``done(line)`` holds."""
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineError(f"engine {self.name} did not answer {what} in {timeout:g} s")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EngineError(f"engine {self.name} exited (waiting for {what})")
            lines.append(line)
            if done(line.strip()):  # type: ignore[operator]
                return lines

    def quit(self) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            self.send("quit")
            proc.wait(timeout=3)
        except (EngineError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        self._proc = None

    def kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    # ------------------------------------------------------------ protocol
    def has_option(self, name: str) -> bool:
        return name.lower() in self.options

    def set_option(self, name: str, value: str | None = None) -> None:
        self.send(f"setoption name {name}" + ("" if value is None else f" value {value}"))

    def is_ready(self, timeout: float = 120.0) -> None:
        self.send("isready")
        self._until(lambda s: s == "readyok", timeout, "isready")

    def search(
        self, position: str, go: str, timeout: float, keep_info: bool = False
    ) -> SearchReport:
        """Send ``position`` and ``go``; wait for ``bestmove`` (``stop`` after ``timeout``)."""
        self.send(position)
        self.send(go)
        start = time.perf_counter()
        report = SearchReport(None)
        deadline = time.monotonic() + timeout
        stopped = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                if stopped:
                    raise EngineError(f"engine {self.name} gave no bestmove after stop")
                self.send("stop")
                stopped = True
                deadline = time.monotonic() + 2.0
                continue
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EngineError(f"engine {self.name} exited during a search")
            if line.startswith("info "):
                parse_info(line, report)
                if keep_info:
                    report.infos.append(line)
            elif line.startswith("bestmove"):
                report.elapsed_ms = (time.perf_counter() - start) * 1000.0
                parts = line.split()
                move = parts[1] if len(parts) > 1 else None
                report.bestmove = None if move in (None, "(none)", "0000") else move
                if len(parts) > 3 and parts[2] == "ponder":
                    report.ponder = parts[3]
                return report
