"""What a client may ask of a live game: one function per websocket frame.

Every request validates first and changes the game only once nothing can
refuse any more, so a refused request leaves the game exactly as it was.
Requests that change the game run under the game's lock (one at a time, in
the order they came); the steps they are made of (persist, cancel, request a
search, announce) are :class:`~app.live.LiveGame`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from app.bounds import engine_settings
from app.connection import Connection
from app.errors import GameNotFoundError, ShuttingDownError
from app.inside import NoTreeError, log_entry, node_details, step_positions
from app.live import LiveGame, same_position
from app.quiz import QuizUnavailableError, move_choices, selection_choices
from app.schemas import (
    GoFrame,
    MoveFrame,
    NodeFrame,
    PingFrame,
    PredictFrame,
    QuizFrame,
    RaceFrame,
    SearchFrame,
    SettingsFrame,
    SetupFrame,
    SubscribeFrame,
    UndoFrame,
)
from app.store import StorageError
from app.streaming import dumps, encode_step
from app.subscriptions import sync_tree_size
from engine.errors import CanopyError, GameOverError
from engine.explain.step import step_trace

log = logging.getLogger("canopy.app")

#: A step is one iteration (milliseconds); one slower than this is logged, because the
#: page waits for it with nothing to show (a compile, a stuck thread).
SLOW_STEP_S = 5.0


async def handle(game: LiveGame, conn: Connection, frame: Any) -> None:
    """Carry out one validated client frame (raises a ``CanopyError`` to refuse)."""
    game.last_activity = time.monotonic()
    if isinstance(frame, PingFrame):
        conn.outbox.put_reply(dumps({"type": "pong", "t": frame.t}))
        return
    if isinstance(frame, SubscribeFrame):
        if frame.tree is not None:
            conn.outbox.tree = frame.tree
        if frame.hz is not None:
            conn.outbox.hz = min(frame.hz, game.settings.stats_hz)
        if frame.tree_nodes is not None:
            conn.outbox.tree_nodes = frame.tree_nodes
        if frame.tree_format is not None:
            conn.outbox.tree_compact = frame.tree_format == "compact"
        sync_tree_size(game.settings, game.connections, game.controller)
        return
    if isinstance(frame, NodeFrame):
        await inspect_node(game, conn, frame.id)
        return
    if isinstance(frame, PredictFrame):  # a vote touches the tally only, never the game
        game.quiz.vote(conn, frame.question, frame.move, frame.node)
        return
    async with game.lock:
        if game.closed:
            raise GameNotFoundError(f"game {game.id} has been closed")
        if game.service.stopping:
            raise ShuttingDownError("the server is restarting; try again in a moment")
        paused = game.paused
        if isinstance(frame, RaceFrame):
            await race(game, frame)
        elif isinstance(frame, MoveFrame):
            await move(game, frame.uci)
        elif isinstance(frame, SearchFrame):
            await search(game, frame.action)
        elif isinstance(frame, SettingsFrame):
            await change_settings(game, frame)
        elif isinstance(frame, UndoFrame):
            await undo(game)
        elif isinstance(frame, SetupFrame):
            await setup(game, frame.fen)
        elif isinstance(frame, GoFrame):
            await go(game)
        elif isinstance(frame, QuizFrame):
            await quiz(game, frame)
        else:  # pragma: no cover - the union is exhaustive
            raise CanopyError(f"unhandled frame {frame!r}")
        if game.paused != paused and game.paused != game.saved.paused:
            with contextlib.suppress(StorageError):  # only a flag; the next save has it
                await game.persist()


async def _end_race(game: LiveGame) -> None:
    """A request was accepted: a race is about the position it started from, so any
    accepted change, or a search of the game's own, ends it. Called once a request has
    passed its checks, so a refused one (an illegal move, a typo in a parameter) leaves a
    running race alone."""
    if game.race.running:
        await game.race.stop()


async def move(game: LiveGame, uci: str) -> None:
    kept = game.kept_search(uci)  # what the engine thought here, kept with the move
    game.session.play(uci, by="human", search=kept)  # refuses without changing anything
    await game.persist()  # durable before it is acknowledged
    await _end_race(game)
    game.unwatched_stop = False
    await game.cancel()
    game.position_changed()
    game.broadcast_state()
    await game.controller_play(game.session.moves[-1])
    await game.after_change()


async def search(game: LiveGame, action: str) -> None:
    if action == "start":
        if game.session.is_over:
            raise GameOverError(f"the game is over ({game.session.result})")
        await _end_race(game)
        was_paused = game.paused
        if game.session.engine_to_move:
            game.paused = False
            await game.request("move")
        else:
            await game.request("analysis")
        if was_paused != game.paused:
            game.version += 1
    elif action == "stop":
        await _end_race(game)
        if (game.status != "idle" and game.purpose == "move") or game.session.engine_to_move:
            game.paused = True
        await game.cancel()
        game.version += 1
    else:
        await step(game)
    game.broadcast_state()


async def step(game: LiveGame) -> None:
    """Exactly one iteration (pauses the engine; stops a running search first)."""
    if game.session.is_over:
        raise GameOverError(f"the game is over ({game.session.result})")
    await _end_race(game)
    if game.session.engine_to_move:
        game.paused = True
    await game.cancel()
    started = time.perf_counter()
    ctl = await game.ensure_controller()
    trace = await asyncio.to_thread(step_trace, ctl)
    info = await asyncio.to_thread(ctl.info)
    seconds = time.perf_counter() - started
    if seconds > SLOW_STEP_S:
        log.warning("game %s: a step took %.1f s (%s)", game.id, seconds, ctl.algorithm.name)
    payload = trace.to_dict()
    payload.update(step_positions(info.fen, payload, game.session.board))
    game.step_log.append(log_entry(payload))
    # The step is the reveal of a selection question: its answer, then the step itself.
    levels = payload.get("selection") or []
    game.quiz.reveal("selection", levels[0]["chosen"]["move"] if levels else None)
    text = encode_step(payload, game.settings.ws_max_frame)
    for conn in list(game.connections):
        conn.outbox.put_reply(text)
    game.on_info(info)
    game.version += 1


async def go(game: LiveGame) -> None:
    """Engine, move now: the best move so far, or think with the budget and then move."""
    if game.session.is_over:
        raise GameOverError(f"the game is over ({game.session.result})")
    await _end_race(game)
    game.paused = False
    if game.status == "queued":
        game.purpose = "move"
        game.version += 1
        game.broadcast_state()
        return
    if game.status == "running":
        await game.cancel()
    if game.controller is not None:
        info = await asyncio.to_thread(game.controller.info)
        if info.bestmove and info.iterations > 0 and same_position(info.fen, game.session.fen):
            await game.play_engine(info)
            return
    await game.request("move")
    game.version += 1
    game.broadcast_state()


async def undo(game: LiveGame) -> None:
    game.session.undo()  # refuses without changing anything
    await game.persist()
    await _end_race(game)
    await game.cancel()
    if game.session.human == "none":
        game.paused = True  # taking back an engine game: let the user look first
    await game.controller_reset()
    game.position_changed()
    game.broadcast_state()
    await game.after_change()


async def setup(game: LiveGame, fen: str | None) -> None:
    game.session.setup(fen)  # InvalidFenError leaves the game as it was
    await game.persist()
    await _end_race(game)
    await game.cancel()
    if game.controller is not None:
        await asyncio.to_thread(game.controller.set_position, game.session.start_fen, ())
    game.position_changed()
    game.broadcast_state()
    await game.after_change()


async def change_settings(game: LiveGame, frame: SettingsFrame) -> None:
    new = engine_settings(game.settings, game.session.game.name, frame, base=game.session.engine)
    human = frame.human or game.session.human
    old = game.session.engine
    await _end_race(game)
    engine_changed = any(
        getattr(new, k) != getattr(old, k) for k in ("algorithm", "params", "threads", "seed")
    )
    resume = game.purpose if game.status != "idle" else None
    await game.cancel()
    if engine_changed and game.controller is not None:
        try:
            await asyncio.to_thread(
                game.controller.configure,
                algorithm=new.algorithm,
                params=dict(new.params),
                threads=new.threads,
                seed=new.seed,
            )
        except CanopyError:
            if resume:
                await game.request(resume)
            raise
        game.latest = None
        for conn in list(game.connections):
            conn.outbox.drop_stats()
    game.session.engine = new
    game.session.set_human(human)
    await game.persist()
    game.quiz.withdraw("the engine's settings changed")
    game.version += 1
    if resume == "analysis" and not game.session.engine_to_move:
        await game.request("analysis")
    game.broadcast_state()
    await game.after_change()


async def quiz(game: LiveGame, frame: QuizFrame) -> None:
    """Ask the room a question about what the search does next, or withdraw it.

    ``selection``: which child the next step's formula picks at the root. Like a step
    it stops a running search (pausing the engine on its move) so the tree holds
    still; the answer is only computed, and sent, when the player steps.
    ``bestmove``: which move the engine plays, asked on its move; the engine's move
    is the answer.
    """
    if frame.action == "withdraw":
        game.quiz.withdraw("the player withdrew it")
        return
    if game.session.is_over:
        raise QuizUnavailableError(f"the game is over ({game.session.result})")
    fen = game.session.fen
    if frame.kind == "bestmove":
        if not game.session.engine_to_move:
            raise QuizUnavailableError(
                "it is not the engine's move: ask which move it plays once it is its turn"
            )
        game.quiz.open(
            "bestmove", fen, move_choices(game.session.legal_moves(), game.session.san_of)
        )
        return
    ctl = await game.ensure_controller()
    try:
        details = await asyncio.to_thread(node_details, ctl, 0)
    except NoTreeError as exc:
        raise QuizUnavailableError(
            f"{exc}: there is no selection to predict; ask which move the engine plays instead"
        ) from exc
    choices, note = selection_choices(details)
    if game.status != "idle" or game.session.engine_to_move:
        if game.session.engine_to_move:
            game.paused = True
        await game.cancel()
        # The search ran on while the question was built: read the tree as it now stands.
        details = await asyncio.to_thread(node_details, ctl, 0)
        choices, note = selection_choices(details)
        game.version += 1
        game.broadcast_state()
    game.quiz.open("selection", fen, choices, note=note)


async def race(game: LiveGame, frame: RaceFrame) -> None:
    """Start or stop the game's race; a start stops the game's own search first."""
    if frame.action == "stop":
        await game.race.stop()
        return
    plan = game.race.plan(frame, game.session)  # refuses before anything changes
    await game.race.stop()
    await game.stop_for_race()
    await game.race.start(plan, game.session)


async def inspect_node(game: LiveGame, conn: Connection, node: int) -> None:
    """Answer a ``node`` request with the node's details (to that connection only)."""
    async with game.lock:  # no move or new position re-roots the tree meanwhile
        controller = game.controller
        if controller is None:
            raise NoTreeError("no search has run in this position yet: start or step one")
        details = await asyncio.to_thread(node_details, controller, node)
    conn.outbox.put_reply(dumps(details))
