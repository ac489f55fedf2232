"""``canopy train --scheduler``: self-play and gating games on a Dask cluster.

Games are independent and each is a pure function of its :class:`GameTask` (opening,
node budget, which weights play which colour), so a cluster can play them anywhere and
the trainer gathers the records by index: the same seed gives the same weights as the
local :class:`engine.learn.train.Pool`. Dask ``distributed`` (an optional extra,
``pip install 'canopy[cluster]'``) does the scheduling, retries and data movement; we
add only what Canopy needs:

- **Weights travel with the task.** Remote workers share no file system, so each
  weights file's bytes (a small ``.npz``) are scattered once per batch; a worker writes
  them to a temporary file named by their SHA-1 and starts a :class:`Player` with
  ``CANOPY_LEARNED_WEIGHTS`` pointing at it. The learned weights are constants baked
  into the numba kernels, so one process holds one set: each worker process keeps idle
  players per weights digest and reuses them across tasks (the few most recent digests;
  older ones are closed), as the local pool keeps one set per weights file.
- **Same Canopy everywhere.** A worker with another Canopy would play other games, so
  on connect every worker reports :func:`identity` (version, git commit, weights
  format, a digest of the engine's code and data) and any difference is refused before
  anything is written; each task checks it again, for workers that join later.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import logging
import multiprocessing
import subprocess
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from engine import USER_NUMBA_CACHE_DIR
from engine.errors import CanopyError
from engine.files import write_atomic
from engine.learn.players import (
    GameRecord,
    GameTask,
    Player,
    Searcher,
    environment,
    play_task,
)

EXTRA = "pip install 'canopy[cluster]'"
LOCAL = "local"  # --scheduler local: a LocalCluster on this machine
KEEP_WEIGHTS = 3  # weights digests a worker process keeps players for (best, candidate, +1)
_ENGINE_ROOT = Path(__file__).resolve().parent.parent


class ClusterError(CanopyError):
    """The cluster cannot be used: not installed, unreachable, or another Canopy on it."""

    code = "cluster_failed"


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise ClusterError(
            f"--scheduler needs Dask distributed; install the optional extra: {EXTRA}"
        ) from None


# ---------------------------------------------------------------- identity


@functools.cache
def identity() -> dict[str, Any]:
    """What must match between this machine and every worker for games to repeat:
    Canopy's version, its git commit (None outside a checkout), the weights format, and a
    digest of the engine's code and data (which catches uncommitted edits too)."""
    from engine.eval.learned_weights import FORMAT_VERSION
    from engine.uci.engine import _version

    digest = hashlib.sha1()
    files = [p for p in _ENGINE_ROOT.rglob("*") if p.suffix in (".py", ".npz")]
    for path in sorted(files):
        digest.update(str(path.relative_to(_ENGINE_ROOT)).encode())
        digest.update(path.read_bytes())
    return {
        "version": _version(),
        "commit": _commit(),
        "format": FORMAT_VERSION,
        "engine": digest.hexdigest()[:12],
    }


def _commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(_ENGINE_ROOT.parent), "rev-parse", "--short=10", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:  # not a checkout (a wheel install), or no git
        return None
    return done.stdout.strip() or None


def _describe(ident: dict[str, Any]) -> str:
    return (
        f"Canopy {ident['version']} (commit {ident['commit'] or 'unknown'}, "
        f"engine {ident['engine']}, weights format {ident['format']})"
    )


def mismatch(mine: dict[str, Any], theirs: dict[str, Any], where: str) -> str | None:
    """A one-line refusal when ``theirs`` (a worker's :func:`identity`) differs from
    ``mine``; None when they match. A commit counts only when both sides know it (a
    wheel install has none; the engine digest still covers its code)."""
    keys = ["version", "format", "engine"]
    if mine["commit"] and theirs.get("commit"):
        keys.append("commit")
    if all(mine[k] == theirs.get(k) for k in keys):
        return None
    return (
        f"worker {where} runs {_describe(theirs)} but this machine runs {_describe(mine)}; "
        "install the same Canopy on every worker"
    )


def worker_identity() -> dict[str, Any]:
    """:func:`identity` as a worker sees it (run there by ``Client.run``)."""
    return identity()


# ---------------------------------------------------------------- the worker's side

_lock = threading.Lock()
_idle: OrderedDict[tuple[str | None, Searcher], list[Player]] = OrderedDict()


def _weights_file(digest: str, blob: bytes) -> Path:
    """The weights ``blob`` as a local file named by its digest (written once)."""
    if hashlib.sha1(blob).hexdigest() != digest:
        raise ClusterError(f"weights {digest[:12]} arrived damaged; run again")
    folder = Path(tempfile.gettempdir()) / "canopy-weights"
    folder.mkdir(exist_ok=True)
    path = folder / f"{digest}.npz"
    if not path.exists():  # another worker process may race us: both write whole files

        def write(out: BinaryIO) -> None:
            out.write(blob)

        write_atomic(path, write)
    return path


def _checkout(digest: str | None, blob: bytes | None, searcher: Searcher) -> Player:
    key = (digest, searcher)
    with _lock:
        players = _idle.get(key)
        if players:
            _idle.move_to_end(key)
            return players.pop()
        stale = [k for k in _idle if k != key][: max(0, len(_idle) - KEEP_WEIGHTS + 1)]
        closing = [p for k in stale for p in _idle.pop(k)]
    for p in closing:
        p.close()
    path = None if digest is None or blob is None else _weights_file(digest, blob)
    return Player(path, searcher)


def _checkin(digest: str | None, searcher: Searcher, player: Player) -> None:
    with _lock:
        _idle.setdefault((digest, searcher), []).append(player)
        _idle.move_to_end((digest, searcher))


def _allow_children() -> None:
    """Dask's nanny starts worker processes as daemons, and a daemonic process may not
    start children; our players are daemonic children themselves, so they still end
    with the worker."""
    process = multiprocessing.current_process()
    if process.daemon:
        process.daemon = False


def play_remote(
    task: GameTask,
    white: tuple[str | None, bytes | None],
    black: tuple[str | None, bytes | None],
    expected: dict[str, Any],
) -> GameRecord:
    """Run on a worker: one game, with engines for these weights (digest, bytes)."""
    refusal = mismatch(expected, identity(), _distributed().get_worker().address)
    if refusal:
        raise ClusterError(refusal)
    _allow_children()
    engines = [(white[0], _checkout(*white, task.searcher))]
    if not task.one_engine:
        engines.append((black[0], _checkout(*black, task.searcher)))
    try:
        record = play_task(task, engines[0][1], engines[-1][1])
    except BaseException:
        for _, player in engines:  # it may have stopped mid-search: never reuse it
            player.close()
        raise
    for digest, player in engines:
        _checkin(digest, task.searcher, player)
    return record


# ---------------------------------------------------------------- the client's side


class ClusterPool:
    """Plays batches of games on a Dask cluster (same interface as the local Pool)."""

    def __init__(self, client: Any, cluster: Any) -> None:
        self.client = client
        self.cluster = cluster  # the LocalCluster we started, or None
        self.shipped: dict[Path, tuple[str, Any]] = {}  # weights file → (digest, future)
        self.worker_threads = sum(client.nthreads().values())

    @classmethod
    def connect(cls, address: str, threads: int, timeout: float) -> ClusterPool:
        """Connect (``local``: start a LocalCluster of ``threads`` worker processes),
        wait for a worker and check every worker's Canopy; :class:`ClusterError` if any
        of that fails, within ``timeout`` seconds for each step."""
        distributed = _distributed()
        cluster = client = None
        try:
            if address == LOCAL:
                # The workers inherit our environment, where engine/__init__ set a numba
                # cache directory for this process's weights; their players choose their own.
                with environment({"NUMBA_CACHE_DIR": USER_NUMBA_CACHE_DIR}):
                    cluster = distributed.LocalCluster(
                        n_workers=threads, threads_per_worker=1, processes=True,
                        dashboard_address=None, silence_logs=logging.ERROR,
                    )  # fmt: skip
                client = distributed.Client(cluster, timeout=timeout)
            else:
                try:
                    client = distributed.Client(address, timeout=timeout)
                except (OSError, TimeoutError, ValueError) as exc:
                    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise ClusterError(
                        f"cannot reach the Dask scheduler at {address} within "
                        f"{timeout:g} s ({reason}); is `dask scheduler` running there?"
                    ) from None
            try:
                client.wait_for_workers(1, timeout=timeout)
            except TimeoutError:
                raise ClusterError(
                    f"the Dask scheduler at {address} has no workers after {timeout:g} s; "
                    f"start `dask worker {address}` on each machine"
                ) from None
            mine = identity()
            for where, theirs in sorted(client.run(worker_identity).items()):
                refusal = mismatch(mine, theirs, where)
                if refusal:
                    raise ClusterError(refusal)
            return cls(client, cluster)
        except BaseException:
            _close(client, cluster)
            raise

    def _ship(self, weights: Path | None) -> tuple[str | None, Any]:
        if weights is None:
            return None, None
        if weights not in self.shipped:
            blob = Path(weights).read_bytes()
            digest = hashlib.sha1(blob).hexdigest()
            self.shipped[weights] = (digest, self.client.scatter(blob, hash=False))
        return self.shipped[weights]

    def play(self, tasks: list[GameTask], progress: Callable[[int], None]) -> list[GameRecord]:
        """Every task on the cluster; the records in the tasks' order."""
        distributed = _distributed()
        mine = identity()
        futures = []
        for task in tasks:
            white, black = self._ship(task.white), self._ship(task.black)
            futures.append(self.client.submit(play_remote, task, white, black, mine, pure=False))
        try:
            for done, _ in enumerate(distributed.as_completed(futures), 1):
                progress(done)
            return [f.result() for f in futures]
        finally:
            for f in futures:
                f.release()

    def drop(self, weights: Path | None) -> None:
        shipped = self.shipped.pop(weights, None) if weights is not None else None
        if shipped is not None:
            shipped[1].release()

    def close(self) -> None:
        self.shipped.clear()
        _close(self.client, self.cluster)


def _close(client: Any, cluster: Any) -> None:
    if client is not None:
        client.close()
    if cluster is not None:
        cluster.close()
