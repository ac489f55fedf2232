"""Logging: one JSON object per line (or plain text), with the request and game id.

Where the lines go decides their form (``CANOPY_LOG_FORMAT=auto``, the default): a
person running ``canopy serve`` or ``make run`` in a terminal reads short coloured
lines like uvicorn's (``12:04:31 INFO     GET / 200``), while a container, a service
manager or a pipe — anything where stderr is not a terminal — gets JSON lines for a
log collector. The rotating file is always JSON: it is read by tools, not people.
``json`` or ``text`` force one form everywhere.

``configure_logging`` installs one handler on the root logger (stderr, and a
rotating file in the data directory) that uvicorn's loggers share, so access
lines, app lines and errors look alike and can be followed by ``request_id``
or ``game_id``. Both ids live in context variables: the middleware sets the
request id for every HTTP request and websocket, the websocket route sets the
game id, and every record logged while handling them carries both; both are
reset when the request or websocket ends, and background work runs in a
:func:`background_context` (no request id, its own game's id or none).

Tokens never reach a log: uvicorn logs a websocket's path *with* its query
string (``/ws/games/ID?token=...``), so a filter on the handlers rewrites any
``token=...`` in a message to ``token=[redacted]`` before it is written.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import logging.handlers
import re
import sys
from pathlib import Path

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "canopy_request_id", default=None
)
game_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "canopy_game_id", default=None
)


def background_context(game_id: str | None = None) -> contextvars.Context:
    """The context for work that outlives the request or websocket that started it (a
    background task, a signal's callback): a copy of the current one without the request
    id, and with the id of the game the work is for (None: server-wide work).

    Tasks and loop callbacks copy the context they are created in, so without this a
    task spawned by one request logs that request's id long after it ended, the next
    queued game is admitted under the id of the game that freed the slot, and a signal
    handler that happens to interrupt a request stamps its lines with that request's id.
    """
    ctx = contextvars.copy_context()
    ctx.run(request_id_var.set, None)
    ctx.run(game_id_var.set, game_id)
    return ctx


_TOKEN = re.compile(r"(token\"?\s*[=:]\s*\"?)[^&\s\"',;}]+", re.IGNORECASE)
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """``...?token=abc`` → ``...?token=[redacted]`` (also ``"token": "abc"``-like text)."""
    return _TOKEN.sub(lambda m: m.group(1) + REDACTED, text)


class RedactTokens(logging.Filter):
    """Rewrites the formatted message without tokens (and keeps the ids on the record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to the formatter to report
            return True
        if "token" in message.lower():
            record.msg = redact(message)
            record.args = None
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        if not hasattr(record, "game_id"):
            record.game_id = game_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key in ("request_id", "game_id"):
            value = getattr(record, key, None)
            if value:
                out[key] = value
        if record.exc_info:
            out["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s%(ids)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        ids = [
            f"{k}={getattr(record, k)}"
            for k in ("request_id", "game_id")
            if getattr(record, k, None)
        ]
        record.ids = f" [{' '.join(ids)}]" if ids else ""
        text = super().format(record)
        return redact(text) if record.exc_info else text


_LEVEL_COLOURS = {
    "DEBUG": "\033[36m",  # cyan
    "INFO": "\033[32m",  # green, as uvicorn's
    "WARNING": "\033[33m",
    "ERROR": "\033[31m",
    "CRITICAL": "\033[1;31m",
}
_DIM = "\033[2m"
_RESET = "\033[0m"


class ConsoleFormatter(logging.Formatter):
    """Short lines for a person at a terminal: time, level, message, and the game's id.

    The request id is left out (it is for following one request through JSON logs);
    the game id stays, dimmed, since it tells which of the class's games a line is
    about. ``colour`` paints the level as uvicorn does.
    """

    def __init__(self, colour: bool = True) -> None:
        super().__init__()
        self.colour = colour

    def format(self, record: logging.LogRecord) -> str:
        clock = dt.datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        level = f"{record.levelname:<8}"
        game = getattr(record, "game_id", None)
        suffix = f"  game={game}" if game else ""
        if self.colour:
            level = f"{_LEVEL_COLOURS.get(record.levelname, '')}{level}{_RESET}"
            suffix = f"{_DIM}{suffix}{_RESET}" if suffix else ""
        text = f"{clock} {level} {record.getMessage()}{suffix}"
        if record.exc_info:
            text += "\n" + redact(self.formatException(record.exc_info))
        return text


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def stream_formatter(fmt: str, stream: object) -> logging.Formatter:
    """The formatter for stderr: ``auto`` is readable lines on a terminal, JSON elsewhere."""
    if fmt == "json" or (fmt == "auto" and not _is_terminal(stream)):
        return JsonFormatter()
    if fmt == "auto":
        return ConsoleFormatter(colour=True)
    return TextFormatter()


def configure_logging(
    fmt: str = "json", level: str = "info", file: Path | None = None
) -> list[logging.Handler]:
    """Route every logger (ours and uvicorn's) through one formatter and the token filter.

    ``fmt`` is ``auto`` (see the module's docstring), ``json`` or ``text``.
    """
    stream = logging.StreamHandler(sys.stderr)
    stream.setFormatter(stream_formatter(fmt, sys.stderr))
    handlers: list[logging.Handler] = [stream]
    if file is not None:
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            rotating = logging.handlers.RotatingFileHandler(
                file, maxBytes=10_000_000, backupCount=3
            )
            rotating.setFormatter(TextFormatter() if fmt == "text" else JsonFormatter())
            handlers.append(rotating)
        except OSError as exc:  # a read-only data dir must not stop the server
            print(f"canopy: cannot write the log file {file}: {exc}", file=sys.stderr)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    for handler in handlers:
        handler.addFilter(RedactTokens())
        root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
        logger.setLevel(level.upper())
    return handlers
