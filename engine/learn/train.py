"""``canopy train``: self-play → fit → gating match, generation after generation.

Each generation

1. plays ``games`` self-play games with the current best evaluation (the hand one
   before any generation was accepted): ``alphabeta`` with ``nodes`` nodes a move on
   both sides, from the match openings followed by a few seeded random plies;
2. fits the game's network — knight chess: the N-tuple network
   (:mod:`engine.learn.ntuple`); chess: a small network on the hand features
   (:mod:`engine.learn.chessnet`) — to the last ``window``
   generations' positions — the leaves of each move's principal variation, where the
   search applied the evaluation (TD-leaf; :class:`engine.learn.players.GameRecord`) —
   starting from the best weights (the linear layer over the hand features stays the
   hand evaluation's unless ``fit_linear``; knight chess's contact table zero unless
   ``fit_contact``), each position's target a blend of its
   game's result and the search's score (``lam · result + (1 − lam) · (score + 1) / 2``
   for the side to move there, ``lam = 0.7``; or with ``target = "td"`` the TD(λ)
   return over the searches that followed, :func:`td_targets`; or with ``target =
   "quiescence"`` some leaves and some of their children, each scored by a 1-ply
   search with quiescence, for searches that evaluate unsettled positions,
   :mod:`engine.learn.static_leaves`); one game in ten is held out and its
   cross-entropy reported;
3. plays a gating match of ``gate_games`` games (pairs of openings with colours
   swapped) of the candidate against the best so far, at the same node budget — or
   with ``gate_algo``, the algorithm the weights are for, at ``gate_budget``
   iterations a move; the candidate becomes the best if it scores at least half.

Everything lands in the output directory, each file written whole (temp file +
rename): ``gen-NNN/games.npz`` and ``gen-NNN/candidate.npz`` per generation (and with
``target = "quiescence"`` its scored leaves, ``gen-NNN/static.npz``),
``best.npz`` (the best weights; absent while the hand evaluation is best) and
``train.json`` (the settings and a record per generation). A run resumes from that
directory: finished generations are kept, a generation's self-play games are not
replayed. Node budgets make every game a pure function of the seed and the weights,
the fit is deterministic, so the same seed gives the same weights whatever
``threads`` is and however often the run was interrupted.

The games of a phase are independent :class:`GameTask` s, played by a :class:`GamePool`:
the local :class:`Pool` of player processes by default, or a Dask cluster
(:mod:`engine.learn.cluster`, ``scheduler``); either returns the records in the tasks'
order, so the backend never changes a result.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import queue
import shlex
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import numpy as np

from engine.core.state import HAND_EVAL, LEARNED_EVAL
from engine.errors import CanopyError
from engine.eval.learned_weights import (
    GAMES,
    MAX_HIDDEN,
    AnyWeights,
    LearnedWeightsError,
    load_weights,
    save_weights,
)
from engine.files import read_npz, write_atomic
from engine.learn.chessnet import DEFAULT_HIDDEN, ChessModel
from engine.learn.fitting import Network, cross_entropy, fit
from engine.learn.ntuple import DEFAULT_TUPLES, TUPLE_SETS, Model, tuple_squares
from engine.learn.players import (
    GameRecord,
    GameTask,
    Player,
    Searcher,
    opening_state,
    play_task,
)
from engine.learn.static_leaves import static_positions
from engine.search.registry import ALGORITHMS

STATE_FILE = "train.json"
BEST_FILE = "best.npz"
HOLDOUT = 10  # every tenth game is held out of the fit
TARGETS = ("blend", "td", "quiescence")  # what each position is fitted to (TrainConfig.target)
#: Each game's L2 pull towards the start (the hand evaluation). The chess network overfits
#: the few hundred games' results without a strong one (docs/learning.md, "Chess: which
#: model"); the knight-chess tuples are convex and were measured with the weak one.
L2 = {"knight": 1e-5, "chess": 1e-2}

Progress = Callable[[str, int, int], None]


class TrainError(CanopyError):
    """Training cannot start or go on (bad settings, output directory, weights)."""

    code = "train_failed"


@dataclass(frozen=True)
class TrainConfig:
    game: str = "knight"
    games: int = 200  # self-play games per generation
    generations: int = 5
    seed: int = 1
    nodes: int = 1500  # alphabeta nodes per move, self-play and gating
    gate_games: int = 40
    random_plies: int = 4
    window: int = 3  # generations of games the fit sees
    # blend: lam · result + (1 − lam) · search; td: TD(lam) (td_targets); quiescence: the
    # leaves and some of their children, lam · result + (1 − lam) · a 1-ply + quiescence
    # score (engine.learn.static_leaves), for searches with unsettled leaves
    target: str = "blend"
    lam: float = 0.7  # blend: the game's result's share of the target; td: the λ of TD(λ)
    l2: float | None = None  # the pull towards the start; None: the game's L2 below
    iterations: int = 150  # L-BFGS iterations per fit
    fit_linear: bool = False  # refit the hand features' weights too (measured: worse play)
    fit_contact: bool = False  # knight: learn the contact table too (measured: worse play)
    tuples: str = DEFAULT_TUPLES  # knight: the N-tuple network's tuples
    hidden: int = DEFAULT_HIDDEN  # chess: the network's hidden units
    max_plies: int = 400
    # The gating match's search: None for self-play's own alpha-beta player, else a
    # registered algorithm; and its budget a move (that player's nodes, the algorithm's
    # iterations), 0 meaning ``nodes``
    gate_algo: str | None = None
    gate_budget: int = 0

    @property
    def pull(self) -> float:
        """``l2`` once :meth:`__post_init__` has put the game's own in for None: the fits
        read it here, as the float it then always is."""
        assert self.l2 is not None
        return self.l2

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise TrainError(
                f"there is no learned evaluation for {self.game}; train --game "
                f"{' or --game '.join(GAMES)}"
            )
        if self.l2 is None:
            object.__setattr__(self, "l2", L2[self.game])
        checks = (
            ("games", self.games >= 1, "at least 1"),
            ("generations", self.generations >= 1, "at least 1"),
            ("seed", self.seed >= 0, "0 or more"),
            ("nodes", self.nodes >= 1, "at least 1"),
            ("gate_games", self.gate_games >= 2 and self.gate_games % 2 == 0, "even, >= 2"),
            ("random_plies", 0 <= self.random_plies <= 40, "0..40"),
            ("window", self.window >= 1, "at least 1"),
            ("lam", 0.0 <= self.lam <= 1.0, "0..1"),
            ("target", self.target in TARGETS, f"one of {', '.join(TARGETS)}"),
            ("l2", self.l2 is not None and self.l2 >= 0 and math.isfinite(self.l2), "0 or more"),
            ("iterations", self.iterations >= 1, "at least 1"),
            ("tuples", self.tuples in TUPLE_SETS, f"one of {', '.join(TUPLE_SETS)}"),
            ("hidden", 1 <= self.hidden <= MAX_HIDDEN, f"1..{MAX_HIDDEN}"),
            (
                "gate_algo",
                self.gate_algo is None or self.gate_algo in ALGORITHMS,
                f"one of {', '.join(ALGORITHMS)}",
            ),
            ("gate_budget", self.gate_budget >= 0, "0 or more"),
        )
        for name, ok, allowed in checks:
            if not ok:
                raise TrainError(f"{name} must be {allowed}; got {getattr(self, name)!r}")

    def fixed(self) -> dict[str, Any]:
        """The settings a resumed run must share: all but ``generations`` and those of the
        other game's network."""
        out = asdict(self)
        del out["generations"]
        for key in ("tuples", "fit_contact") if self.game == "chess" else ("hidden",):
            del out[key]
        # Left out at their defaults, so runs from before they existed still resume.
        for key, default in (("gate_algo", None), ("gate_budget", 0)):
            if out[key] == default:
                del out[key]
        return out

    @property
    def self_play_searcher(self) -> Searcher:
        return Searcher(None, self.nodes)

    @property
    def gate_searcher(self) -> Searcher:
        return Searcher(self.gate_algo, self.gate_budget or self.nodes)

    def network(self) -> Network:
        """The game's network, to be fitted."""
        if self.game == "chess":
            return ChessModel(self.hidden, self.fit_linear)
        return Model(tuple_squares(self.tuples), self.fit_linear, self.fit_contact)


@dataclass
class Generation:
    number: int
    games: int
    positions: int
    fit_loss: float
    holdout_loss: float | None  # candidate's cross-entropy on held-out games (None: none)
    holdout_loss_best: float | None  # the best-so-far weights' on the same games
    gate_wins: int
    gate_draws: int
    gate_losses: int
    score: float  # candidate's gating score
    elo: float
    accepted: bool
    opponent: str  # "hand" or "gen-NNN"
    seconds: float


# ---------------------------------------------------------------- files


@dataclass(frozen=True)
class RunState:
    """What a run's ``train.json`` holds (:meth:`Trainer.save_state` writes it)."""

    settings: dict[str, Any]  # the fixed settings a resumed run must match
    command: str
    generations: list[Generation]
    seconds: float


#: What :func:`read_state` raises for a file that is not a run's state.
STATE_ERRORS = (OSError, ValueError, KeyError, TypeError)


def read_state(path: Path) -> RunState:
    """The run state in ``path`` (a ``train.json``), read by a resumed run and by
    :mod:`engine.learn.publish`; one of :data:`STATE_ERRORS` if it cannot be read or is
    not a run's record (each caller says what that means for it)."""
    data = json.loads(path.read_text())
    command = data.get("command", "")
    if not isinstance(data["settings"], dict) or not isinstance(command, str):
        raise TypeError("settings must be an object and command text")
    gens = [Generation(**g) for g in data["generations"]]
    return RunState(data["settings"], command, gens, float(data.get("seconds", 0.0)))


#: ``--target quiescence``: a generation's scored leaves, kept beside its games.
STATIC_FILE = "static.npz"
STATIC_KEYS = ("positions", "result", "score", "game")
GAMES_KEYS = ("states", "scores", "game", "white", "plies")  # a generation's games.npz


def _save_games(path: Path, records: list[GameRecord]) -> None:
    states = np.concatenate([r.states for r in records])
    scores = np.concatenate([r.scores for r in records])
    game_of = np.concatenate([np.full(len(r.states), i) for i, r in enumerate(records)])
    white = np.array([r.white for r in records])
    plies = np.array([r.plies for r in records])
    write_atomic(
        path,
        lambda out: np.savez_compressed(
            out, states=states, scores=scores, game=game_of, white=white, plies=plies
        ),
    )


def _load_games(path: Path) -> dict[str, np.ndarray]:
    return read_npz(path, GAMES_KEYS, "self-play", "delete it to replay", TrainError)


def check_writable(out: Path) -> None:
    """:class:`TrainError` unless ``out`` is (or can become) a writable directory."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise TrainError(f"cannot write to the output directory {out}: {exc.strerror}") from None


def _digest(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()[:16]


# ---------------------------------------------------------------- players


class Pool:
    """Player processes by weights file and search, ``threads`` of each, started on first
    use: the default way to play a batch of games
    (:class:`engine.learn.cluster.ClusterPool` sends them to a Dask cluster instead)."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.players: dict[tuple[str, Searcher], list[Player]] = {}

    def get(self, weights: Path | None, searcher: Searcher) -> list[Player]:
        key = (str(weights) if weights else "hand", searcher)
        if key not in self.players:
            self.players[key] = [Player(weights, searcher) for _ in range(self.threads)]
        return self.players[key]

    def play(self, tasks: list[GameTask], progress: Callable[[int], None]) -> list[GameRecord]:
        """Every task, ``threads`` at once; the records in the tasks' order."""
        for weights, searcher in dict.fromkeys(
            (w, t.searcher) for t in tasks for w in (t.white, t.black)
        ):
            self.get(weights, searcher)  # started here, not by the game threads at once

        def one(index: int, slot: int) -> GameRecord:
            task = tasks[index]
            white = self.get(task.white, task.searcher)[slot]
            black = white if task.one_engine else self.get(task.black, task.searcher)[slot]
            return play_task(task, white, black)

        return _run_games(len(tasks), self.threads, one, progress)

    def drop(self, weights: Path | None) -> None:
        name = str(weights) if weights else "hand"
        for key in [k for k in self.players if k[0] == name]:
            for p in self.players.pop(key):
                p.close()

    def close(self) -> None:
        for players in self.players.values():
            for p in players:
                p.close()
        self.players.clear()


class GamePool(Protocol):
    """Where a batch of independent games is played: :class:`Pool` or a cluster."""

    def play(self, tasks: list[GameTask], progress: Callable[[int], None]) -> list[GameRecord]: ...

    def drop(self, weights: Path | None) -> None: ...

    def close(self) -> None: ...


def _run_games(
    count: int,
    threads: int,
    play: Callable[[int, int], GameRecord],
    progress: Callable[[int], None],
) -> list[GameRecord]:
    """``play(index, slot)`` for every game index, ``threads`` at once; results by index."""
    slots: queue.Queue[int] = queue.Queue()
    for k in range(threads):
        slots.put(k)
    done = 0

    def one(index: int) -> GameRecord:
        slot = slots.get()
        try:
            return play(index, slot)
        finally:
            slots.put(slot)

    out: list[GameRecord] = []
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for record in pool.map(one, range(count)):
            out.append(record)
            done += 1
            progress(done)
    return out


# ---------------------------------------------------------------- the run


class Trainer:
    def __init__(
        self,
        config: TrainConfig,
        out: Path,
        threads: int = 1,
        init: Path | None = None,
        command: str = "",
        progress: Progress | None = None,
        scheduler: str | None = None,
        scheduler_timeout: float = 10.0,
    ) -> None:
        if threads < 1:
            raise TrainError(f"threads must be at least 1; got {threads}")
        if scheduler_timeout <= 0:
            raise TrainError(f"scheduler_timeout must be more than 0; got {scheduler_timeout}")
        self.config = config
        self.out = Path(out)
        self.threads = threads
        self.scheduler = scheduler
        self.scheduler_timeout = scheduler_timeout
        self.workers = threads  # processes playing games (a cluster's: its worker threads)
        self.command = command
        self.progress = progress or (lambda phase, done, total: None)
        self.model = config.network()
        self.init = init
        self.init_weights = self._check_weights(init) if init is not None else None
        self.generations: list[Generation] = []
        self.seconds = 0.0

    # -------------------------------------------------------- state
    def _check_weights(self, path: Path) -> AnyWeights:
        try:
            w = load_weights(path, self.config.game)
        except LearnedWeightsError as exc:
            raise TrainError(str(exc)) from None
        why = self.model.fits(w)
        if why is not None:
            c = self.config
            option = f"--hidden {c.hidden}" if c.game == "chess" else f"--tuples {c.tuples}"
            raise TrainError(f"weights {path} {why}: they do not fit {option}")
        return w

    def _fixed(self) -> dict[str, Any]:
        fixed = self.config.fixed()
        fixed["init"] = _digest(self.init) if self.init is not None else None
        return fixed

    def load_state(self) -> None:
        """Resume from ``out/train.json`` if present (same settings required)."""
        path = self.out / STATE_FILE
        if not path.exists():
            return
        try:
            state = read_state(path)
        except STATE_ERRORS as exc:
            raise TrainError(f"{path} is unreadable ({exc}); use another --out") from None
        fixed = state.settings
        if fixed != self._fixed():
            diff = sorted(k for k in set(fixed) | set(self._fixed())
                          if fixed.get(k) != self._fixed().get(k))  # fmt: skip
            raise TrainError(
                f"{self.out} holds a run with other settings ({', '.join(diff)}); "
                "use another --out or the same settings to resume"
            )
        best = self.best_path()
        if best is not None:
            self._check_weights(best)
        self.generations = state.generations
        self.seconds = state.seconds

    def save_state(self) -> None:
        data = {
            "settings": self._fixed(),
            "command": self.command,
            "generations": [asdict(g) for g in self.generations],
            "seconds": self.seconds,
            "best": self.best_name(),
        }
        text = (json.dumps(data, indent=1) + "\n").encode()

        def write(out: BinaryIO) -> None:
            out.write(text)

        write_atomic(self.out / STATE_FILE, write)

    def best_name(self) -> str:
        for g in reversed(self.generations):
            if g.accepted:
                return f"gen-{g.number:03d}"
        return "init" if self.init is not None else "hand"

    def best_path(self) -> Path | None:
        name = self.best_name()
        if name == "hand":
            return None
        if name == "init":
            assert self.init is not None
            return self.init
        return self.out / name / "candidate.npz"

    def best_weights(self) -> AnyWeights | None:
        path = self.best_path()
        return None if path is None else self._check_weights(path)

    # -------------------------------------------------------- phases
    def _openings(self) -> list[str]:
        from engine.match.openings import load_openings

        return [o.fen for o in load_openings(None, self.config.game)]

    def self_play(self, number: int, pool: GamePool) -> list[GameRecord]:
        gen_dir = self.out / f"gen-{number:03d}"
        path = gen_dir / "games.npz"
        if path.exists():
            data = _load_games(path)
            records = []
            for i in range(len(data["white"])):
                rows = data["game"] == i
                records.append(
                    GameRecord(
                        data["states"][rows],
                        data["scores"][rows],
                        float(data["white"][i]),
                        int(data["plies"][i]),
                    )
                )
            return records
        best = self.best_path()
        openings = self._openings()
        c = self.config
        learned = LEARNED_EVAL if best is not None else HAND_EVAL
        tasks = []
        for index in range(c.games):
            start = opening_state(
                openings[(number * 7919 + index) % len(openings)], c.game,
                c.seed * 1_000_003 + number, index, c.random_plies,
            )  # fmt: skip
            tasks.append(
                GameTask(start, best, best, learned, learned, c.max_plies, c.self_play_searcher)
            )
        records = pool.play(tasks, lambda d: self.progress(f"gen {number}: self-play", d, c.games))
        gen_dir.mkdir(parents=True, exist_ok=True)
        _save_games(path, records)
        return records

    def training_data(self, number: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """States, targets and a held-out mask from the last ``window`` generations."""
        states, targets, held = [], [], []
        c = self.config
        for g in range(max(1, number - c.window + 1), number + 1):
            if c.target == "quiescence":
                self.progress(f"gen {number}: score", g - max(1, number - c.window + 1), c.window)
                positions, result, score, game_of = self.static_leaves(g)
                states.append(positions)
                targets.append(c.lam * result + (1.0 - c.lam) * score)
                held.append(game_of % HOLDOUT == HOLDOUT - 1)
                continue
            data = _load_games(self.out / f"gen-{g:03d}" / "games.npz")
            game_of = data["game"]
            white = data["white"][game_of]
            turn = data["states"][:, 8].astype(np.int64)  # TURN
            result = np.where(turn == 0, white, 1.0 - white)
            search = (data["scores"] + 1.0) / 2.0
            states.append(data["states"])
            if c.target == "td":
                targets.append(td_targets(search, turn, game_of, data["white"], c.lam))
            else:
                targets.append(c.lam * result + (1.0 - c.lam) * search)
            held.append(game_of % HOLDOUT == HOLDOUT - 1)
        return np.concatenate(states), np.concatenate(targets), np.concatenate(held)

    def static_leaves(self, g: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Generation ``g``'s scored leaves for ``--target quiescence``
        (:func:`static_positions` of its games), scored once and kept in
        ``gen-NNN/static.npz``: every later generation in the window needs the same
        positions again, and scoring them is a Python loop of one search per position
        (about a minute for 1,200 games). They are a pure function of the games and the
        seed, so the file changes nothing; the games are read only to score them, and a
        kept file that cannot be read (missing, truncated, not an archive) is scored
        afresh."""
        gen_dir = self.out / f"gen-{g:03d}"
        path = gen_dir / STATIC_FILE
        try:
            kept = read_npz(path, STATIC_KEYS, "scored leaves", "rescoring", TrainError)
            return kept["positions"], kept["result"], kept["score"], kept["game"]
        except TrainError:
            pass
        data = _load_games(gen_dir / "games.npz")
        scored = static_positions(
            data["states"], data["game"], data["white"], self.config.seed * 1_000_003 + g
        )
        p, r, sc, go = scored
        write_atomic(
            path,
            lambda out: np.savez_compressed(out, positions=p, result=r, score=sc, game=go),
        )
        return scored

    def fit_candidate(self, number: int) -> tuple[AnyWeights, float, float | None, float | None]:
        self.progress(f"gen {number}: fit", 0, 1)
        states, target, held = self.training_data(number)
        rows = self.model.rows(states[~held])
        held_rows = self.model.rows(states[held])
        best = self.best_weights()
        prior = self.model.start()
        start = self.model.pack(best) if best is not None else prior
        theta, loss, _ = fit(
            self.model, rows, target[~held], start, prior, self.config.pull,
            self.config.iterations,
        )  # fmt: skip
        meta = {"generation": number, "positions": len(rows), "seed": self.config.seed,
                "settings": self._fixed()}  # fmt: skip
        w = self.model.unpack(theta, self.command, meta)
        cand_loss = best_loss = None
        if len(held_rows):
            cand_loss = cross_entropy(self.model, theta, held_rows, target[held])
            best_loss = cross_entropy(self.model, start, held_rows, target[held])
        self.progress(f"gen {number}: fit", 1, 1)
        return w, loss, cand_loss, best_loss

    def gate(self, number: int, candidate: Path, pool: GamePool) -> tuple[int, int, int]:
        best = self.best_path()
        openings = self._openings()
        c = self.config
        tasks = []
        for index in range(c.gate_games):
            pair = index // 2
            start = opening_state(
                openings[(number * 104729 + pair) % len(openings)], c.game,
                c.seed * 1_000_003 + 500_000 + number, pair, c.random_plies,
            )  # fmt: skip
            cand = (candidate, LEARNED_EVAL)
            other = (best, LEARNED_EVAL if best is not None else HAND_EVAL)
            (white, wl), (black, bl) = (cand, other) if index % 2 == 0 else (other, cand)
            tasks.append(GameTask(start, white, black, wl, bl, c.max_plies, c.gate_searcher))
        records = pool.play(
            tasks, lambda d: self.progress(f"gen {number}: gating", d, c.gate_games)
        )
        wins = draws = losses = 0
        for i, r in enumerate(records):
            score = r.white if i % 2 == 0 else 1.0 - r.white
            wins += score == 1.0
            draws += score == 0.5
            losses += score == 0.0
        return wins, draws, losses

    # -------------------------------------------------------- loop
    def open_pool(self) -> GamePool:
        """The local :class:`Pool`, or the Dask cluster ``scheduler`` names — connected and
        checked (same Canopy on every worker) before anything is written."""
        if self.scheduler is None:
            return Pool(self.threads)
        from engine.learn.cluster import ClusterPool

        cluster = ClusterPool.connect(self.scheduler, self.threads, self.scheduler_timeout)
        self.workers = cluster.worker_threads
        return cluster

    def run(self) -> dict[str, Any]:
        pool = self.open_pool()
        try:
            check_writable(self.out)
            self.load_state()
            for number in range(len(self.generations) + 1, self.config.generations + 1):
                started = time.monotonic()
                opponent = self.best_name()
                self.self_play(number, pool)
                weights, loss, cand_loss, best_loss = self.fit_candidate(number)
                gen_dir = self.out / f"gen-{number:03d}"
                path = gen_dir / "candidate.npz"
                save_weights(path, weights)
                wins, draws, losses = self.gate(number, path, pool)
                n = wins + draws + losses
                score = (wins + 0.5 * draws) / n
                accepted = score >= 0.5
                old_best = self.best_path()
                elo = _elo(score)
                self.seconds += time.monotonic() - started
                self.generations.append(
                    Generation(
                        number,
                        self.config.games,
                        int(weights.meta["positions"]),
                        loss,
                        cand_loss,
                        best_loss,
                        wins,
                        draws,
                        losses,
                        score,
                        elo,
                        accepted,
                        opponent,
                        time.monotonic() - started,
                    )
                )
                if accepted:
                    pool.drop(old_best)
                else:
                    pool.drop(path)
                # Every generation, kept or not: best.npz's meta carries the whole record,
                # so its learning curve shows the rejected candidates too.
                self._publish_best()
                self.save_state()
        finally:
            pool.close()
        return self.summary()

    def _publish_best(self) -> None:
        """Copy the best weights to ``out/best.npz``, their meta completed."""
        w = self.best_weights()
        if w is None:
            return
        record = [asdict(g) for g in self.generations]
        save_weights(self.out / BEST_FILE, with_record(w, self.command, record, self.seconds))

    def summary(self) -> dict[str, Any]:
        return {
            "game": self.config.game,
            "out": str(self.out),
            "generations": len(self.generations),
            "best": self.best_name(),
            "weights": str(self.out / BEST_FILE) if self.best_path() is not None else None,
            "seconds": round(self.seconds, 1),
            "seed": self.config.seed,
            "scheduler": self.scheduler,
            "workers": self.workers,
            "history": [asdict(g) for g in self.generations],
        }


def with_record(
    w: AnyWeights, command: str, generations: list[dict[str, Any]], seconds: float,
    generation: int | None = None,
) -> AnyWeights:  # fmt: skip
    """``w`` with its run's ``command``, record of ``generations`` and training ``seconds``
    in its meta (and, given, the ``generation`` it is): what the Learning view reads to draw
    the curve. ``best.npz`` is completed this way, and :mod:`engine.learn.publish` completes
    a chosen generation's candidate the same way."""
    meta = dict(w.meta)
    meta["generations"] = generations
    meta["seconds"] = seconds
    if generation is not None:
        meta["generation"] = generation
    return replace(w, command=command, meta=meta)


def td_targets(
    search: np.ndarray, turn: np.ndarray, game_of: np.ndarray, white: np.ndarray, lam: float
) -> np.ndarray:
    """TD(λ) targets: each position's λ-return over the searches that followed it in its
    game, the result closing it, for the side to move there.

    ``search`` is each move's search score as an expected score in [0, 1] for the side
    to move at its principal-variation leaf, in game order (``game_of`` numbers the game
    of each row, ``white`` is White's result of each game). From White's view the target
    of move ``t`` is ``G_t = (1 − λ) · v_{t+1} + λ · G_{t+1}``, the last move's the
    result: the next searches (which looked further than this one could) teach it most,
    the result less the further away it is. λ = 1 is the result alone.
    """
    v = np.where(turn == 0, search, 1.0 - search)  # White's view
    g_white = np.empty_like(v)
    for game in np.unique(game_of):
        rows = np.flatnonzero(game_of == game)
        ret = float(white[game])
        for i in rows[::-1]:
            g_white[i] = ret
            ret = (1.0 - lam) * v[i] + lam * ret
    return np.where(turn == 0, g_white, 1.0 - g_white)


def _elo(score: float) -> float:
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / score - 1.0)


def command_line(
    config: TrainConfig, out: Path, threads: int, init: Path | None, scheduler: str | None = None
) -> str:
    network = ["--hidden", str(config.hidden)] if config.game == "chess" else [
        "--tuples", config.tuples]  # fmt: skip
    parts = ["canopy", "train", "--game", config.game, "--games", str(config.games),
             "--generations", str(config.generations), "--seed", str(config.seed),
             "--nodes", str(config.nodes), "--gate-games", str(config.gate_games),
             *network, "--out", str(out), "--threads", str(threads)]  # fmt: skip
    if config.target != "blend" or config.lam != 0.7:
        parts += ["--target", config.target, "--lam", str(config.lam)]
    if config.gate_algo is not None:
        parts += ["--gate-algo", config.gate_algo]
    if config.gate_budget:
        parts += ["--gate-budget", str(config.gate_budget)]
    if config.fit_linear:
        parts.append("--fit-linear")
    if config.fit_contact and config.game == "knight":
        parts.append("--fit-contact")
    if init is not None:
        parts += ["--init", str(init)]
    if scheduler is not None:
        parts += ["--scheduler", scheduler]
    return shlex.join(parts)
