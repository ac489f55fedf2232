"""Self-play and gating games between evaluations, each weights file in its own process.

The learned evaluation's weights are constants baked into the numba kernels, so one
process holds one set. A :class:`Player` is a child process started with
``CANOPY_LEARNED_WEIGHTS`` naming its weights file (and a numba cache of its own, keyed
by the file's contents); it plays ``alphabeta`` with a fixed node budget, with the hand
or its learned evaluation, one move at a time on request. A node budget (not a clock)
keeps every game a pure function of its opening, its seed and the weights, so the
machine's speed and the number of processes never change a result.

A game is driven by the parent (:func:`play_game`): it holds the position, asks the
side to move's player for a move, and tells every player the move played.

Self-play always searches with an alpha-beta worker of its own (its principal
variations give the training positions). A gating match may instead be played with the
algorithm the weights are meant for (:class:`Searcher`, ``canopy train --gate-algo``): a
player then runs a :class:`~engine.search.controller.SearchController` of that
algorithm with a fixed number of iterations a move and a fixed seed, just as
reproducible.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.errors import CanopyError

if TYPE_CHECKING:
    from engine.search.controller import SearchController

SEARCH_PARAMS = {"max_depth": 64, "quiescence": True, "hash_mb": 4}
_ENV_LOCK = threading.Lock()


@dataclass(frozen=True)
class Searcher:
    """The search a player runs for each move, with a fixed budget (never a clock).

    ``algorithm=None`` is self-play's own player: an alpha-beta worker searching
    ``budget`` nodes, reporting its score and principal variation (the training
    positions). A registered algorithm's name plays through a search controller with
    ``budget`` iterations (single thread, seed 0, the tree kept from move to move)."""

    algorithm: str | None = None
    budget: int = 1500


class PlayerError(CanopyError):
    """A player process died or answered nonsense."""

    code = "player_failed"


class _AlphaBetaEngine:
    """Self-play's own player: an alpha-beta worker with a node budget, reporting its
    score and principal variation (the training positions)."""

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes
        self.worker: Any = None
        self.stop = np.zeros(1, dtype=np.uint8)

    def new(self, state: np.ndarray, evaluation: int) -> None:
        from engine.core.state import EVAL
        from engine.search.algorithms.alphabeta import AlphaBetaWorker

        state[EVAL] = evaluation
        self.worker = AlphaBetaWorker(state, dict(SEARCH_PARAMS))

    def go(self, keys: list[int]) -> tuple[int, float, list[int]]:
        worker = self.worker
        worker.history_keys = keys
        worker.run(self.nodes, self.stop)
        if worker.completed_depth > 0:
            move, score = int(worker.moves[0]), float(worker.scores[0])
            return move, score, [int(m) for m in worker.pvs[0][: int(worker.pv_lens[0])]]
        best = int(np.argmax(worker.static))
        move = int(worker.moves[best])
        return move, float(worker.static[best]), [move]

    def play(self, move: int) -> None:
        self.worker.advance(move)

    def close(self) -> None:
        pass


class _ControllerEngine:
    """A registered algorithm through a search controller. Only the move matters in the
    games it plays (gating): its score is reported as 0 and its principal variation as
    the move alone."""

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher
        self.controller: SearchController | None = None

    def new(self, state: np.ndarray, evaluation: int) -> None:
        from engine.core.state import CHESS, GAME
        from engine.eval.evaluate import EVAL_SLOTS
        from engine.rules.convert import state_to_fen
        from engine.search.controller import SearchController

        names = {slot: name for name, slot in EVAL_SLOTS.items()}

        self.close()
        self.controller = SearchController(
            "chess" if int(state[GAME]) == CHESS else "knight",
            state_to_fen(state),
            algorithm=str(self.searcher.algorithm),
            params={"eval": names.get(evaluation, "hand")},
            tree_size=0,
        )

    def go(self, keys: list[int]) -> tuple[int, float, list[int]]:
        from engine.rules.convert import uci_to_move

        controller = self.controller
        assert controller is not None  # the loop asks only after "new"
        info = controller.search(iterations=self.searcher.budget)
        move = uci_to_move(controller.root, info.bestmove or "")
        return move, 0.0, [move]

    def play(self, move: int) -> None:
        from engine.rules.convert import move_to_uci

        assert self.controller is not None
        self.controller.play(move_to_uci(move))

    def close(self) -> None:
        if self.controller is not None:
            self.controller.close()
            self.controller = None


def _serve(conn: Connection, searcher: Searcher) -> None:
    """The child's loop: ``("new", state, eval)``, ``("go", keys)``, ``("play", move)``,
    answered by self-play's alpha-beta player or, when ``searcher`` names an algorithm,
    by a search controller of it."""
    engine: _AlphaBetaEngine | _ControllerEngine = (
        _AlphaBetaEngine(searcher.budget)
        if searcher.algorithm is None
        else _ControllerEngine(searcher)
    )
    started = False
    try:
        while True:
            msg = conn.recv()
            if msg is None:
                return
            kind = msg[0]
            if kind == "new":
                engine.new(np.array(msg[1], dtype=np.uint64), msg[2])
                started = True
                conn.send(("ok",))
            elif kind == "go" and started:
                conn.send(engine.go(list(msg[1])))
            elif kind == "play" and started:
                engine.play(int(msg[1]))
            else:
                conn.send(("error", f"unexpected message {kind!r}"))
    finally:
        engine.close()


def is_nnue_file(path: Path) -> bool:
    """Whether ``path`` is an NNUE weights file (else the learned evaluation's)."""
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as data:
            return "kind" in data.files and str(data["kind"]) == "nnue"
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return False  # the loader in the player names the problem


def _set_environ(values: dict[str, str | None]) -> None:
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@contextlib.contextmanager
def environment(changes: dict[str, str | None]) -> Iterator[None]:
    """``os.environ`` with ``changes`` (None: unset) for the block, for the processes it
    starts; one block at a time, since the environment is the whole process's."""
    with _ENV_LOCK:
        saved = {key: os.environ.get(key) for key in changes}
        try:
            _set_environ(changes)
            yield
        finally:
            _set_environ(saved)


class Player:
    """One child process playing with one weights file (or the shipped one)."""

    def __init__(self, weights: Path | None, searcher: Searcher) -> None:
        from engine import weights_cache_environment
        from engine.eval import learned_weights, nnue_weights

        self.weights = weights
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, searcher), daemon=True)
        changes: dict[str, str | None] = {
            learned_weights.ENV_VAR: None,
            nnue_weights.ENV_VAR: None,
            **weights_cache_environment(weights),
        }
        if weights is not None:
            var = nnue_weights.ENV_VAR if is_nnue_file(weights) else learned_weights.ENV_VAR
            changes[var] = str(Path(weights).resolve())
        with environment(changes):  # the child inherits the environment at start
            self.process.start()
        child.close()

    def _recv(self) -> Any:
        try:
            return self.conn.recv()
        except (EOFError, OSError) as exc:
            raise PlayerError(
                f"a player process (weights {self.weights or 'shipped'}) died: {exc!r}"
            ) from None

    def new_game(self, state: np.ndarray, evaluation: int) -> None:
        """A new game from ``state``, searched with the ``evaluation`` slot's evaluation."""
        self.conn.send(("new", state, int(evaluation)))
        reply = self._recv()
        if reply != ("ok",):
            raise PlayerError(f"player refused a new game: {reply!r}")

    def go(self, keys: list[int]) -> tuple[int, float, list[int]]:
        """The move, its score for the side to move and its principal variation."""
        self.conn.send(("go", keys))
        reply = self._recv()
        if not (isinstance(reply, tuple) and len(reply) == 3 and isinstance(reply[0], int)):
            raise PlayerError(f"player answered {reply!r}")
        return reply

    def play(self, move: int) -> None:
        self.conn.send(("play", move))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


@dataclass(frozen=True)
class Side:
    """Who plays one colour: a player process and which evaluation it uses."""

    player: Player
    evaluation: int  # the EVAL slot it searches with (HAND_EVAL, LEARNED_EVAL, NNUE_EVAL)


@dataclass(frozen=True)
class GameRecord:
    """One game's training positions and result.

    The positions are the **leaves of the principal variations** (TD-leaf): for each
    move chosen, the position at the end of the search's expected line — usually after
    its quiescence search, a quiet position — which is where the search applied the
    static evaluation, scored there. A position where a capture is pending would teach
    the evaluation to guess at the exchange the search resolves anyway (measured: fitted
    to the positions where moves were chosen, generation 1 scored 46 % against the hand
    evaluation in gating).
    """

    states: np.ndarray  # (n, STATE_SIZE) uint64: PV leaves that are not game ends
    scores: np.ndarray  # (n,) the search's score for the leaf's side to move, in [-1, 1]
    white: float  # White's score: 1, 0.5, 0
    plies: int = 0  # plies the game lasted
    # The quiet positions the game passed through (not in check, the move chosen neither a
    # capture nor a promotion) with the search's score there: the NNUE's data records
    # them beside the leaves (engine.learn.nnue_data)
    roots: np.ndarray = field(default_factory=lambda: np.zeros((0, 16), dtype=np.uint64))
    root_scores: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass(frozen=True)
class GameTask:
    """One game, fully determined by its fields (so any process, here or on another
    machine, plays it the same way). The same weights file on both sides means one
    engine plays both colours, sharing its hash table, as self-play always has."""

    start: np.ndarray  # (STATE_SIZE,) uint64: the opening after its random plies
    white: Path | None  # weights file of White's engine (None: the shipped build)
    black: Path | None
    white_eval: int  # the EVAL slot White searches with (HAND_EVAL, LEARNED_EVAL, NNUE_EVAL)
    black_eval: int
    max_plies: int
    searcher: Searcher  # both sides' search and its budget a move

    @property
    def one_engine(self) -> bool:
        return self.white == self.black


def play_task(task: GameTask, white: Player, black: Player) -> GameRecord:
    """Play ``task`` with these engines (``black`` is ``white`` when ``task.one_engine``)."""
    return play_game(
        task.start,
        Side(white, task.white_eval),
        Side(black, task.black_eval),
        task.max_plies,
    )


def opening_state(fen: str, game: str, seed: int, index: int, random_plies: int) -> np.ndarray:
    """The opening ``fen`` followed by ``random_plies`` uniformly random plies (seeded)."""
    from engine.core.walk import random_line
    from engine.rules.convert import state_from_fen

    rng = np.random.default_rng([seed, index])
    return random_line(state_from_fen(fen, game), random_plies, rng)[-1]


def play_game(start: np.ndarray, white: Side, black: Side, max_plies: int = 400) -> GameRecord:
    """Play from ``start`` to the end (the rules' end, or a draw after ``max_plies``)."""
    from engine.core.games import in_check, legal_moves, make_move, result, status
    from engine.core.state import FLAG_CAPTURE, HALFMOVE, HASH, MAX_MOVES, ONGOING, TURN

    s = start.copy()
    if white.player is black.player and white.evaluation != black.evaluation:
        raise ValueError("one player process plays both colours with one evaluation")
    players = [white.player] if white.player is black.player else [white.player, black.player]
    players[0].new_game(s, white.evaluation)
    if len(players) == 2:
        players[1].new_game(s, black.evaluation)
    buf = np.zeros(MAX_MOVES, dtype=np.int32)
    keys = [int(s[HASH])]
    states: list[np.ndarray] = []
    scores: list[float] = []
    roots: list[np.ndarray] = []
    root_scores: list[float] = []
    white_score = 0.5
    plies = 0
    while True:
        n = legal_moves(s, buf)
        code = status(s, n)
        if code != ONGOING:
            white_score = (result(s, code) + 1) / 2
            break
        if plies >= max_plies:
            break
        side = white if s[TURN] == 0 else black
        move, score, pv = side.player.go(keys[:-1])
        if move not in buf[:n]:
            raise PlayerError(f"player chose an illegal move {move}")
        plies += 1
        if not (move & FLAG_CAPTURE or (move >> 12) & 7) and not in_check(s):
            roots.append(s.copy())
            root_scores.append(max(-1.0, min(1.0, score)))
        leaf, flips = pv_leaf(s, pv, buf)
        if leaf is not None:
            states.append(leaf)
            scores.append(max(-1.0, min(1.0, -score if flips else score)))
        make_move(s, move)
        for p in players:
            p.play(move)
        if s[HALFMOVE] == 0:
            keys = []
        keys.append(int(s[HASH]))
    return GameRecord(
        np.array(states, dtype=np.uint64).reshape(-1, start.shape[0]),
        np.array(scores),
        white_score,
        plies,
        np.array(roots, dtype=np.uint64).reshape(-1, start.shape[0]),
        np.array(root_scores),
    )


def pv_leaf(s: np.ndarray, pv: list[int], buf: np.ndarray) -> tuple[np.ndarray | None, bool]:
    """The position at the end of ``pv`` from ``s`` (legal moves only), and whether its
    side to move is the other side; None when the line ends the game."""
    from engine.core.games import legal_moves, make_move, status
    from engine.core.state import ONGOING

    leaf = s.copy()
    scratch = np.zeros_like(buf)
    applied = 0
    for m in pv:
        n = legal_moves(leaf, scratch)
        if status(leaf, n) != ONGOING or m not in scratch[:n]:
            break
        make_move(leaf, m)
        applied += 1
    if status(leaf, legal_moves(leaf, scratch)) != ONGOING:
        return None, False
    return leaf, applied % 2 == 1
