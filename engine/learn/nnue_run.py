"""``canopy train --model nnue``: generations of self-play data, training and gating.

The recipe engine writers follow, one generation at a time:

1. **data** — the best network so far (at first: the hand evaluation) plays itself with
   ``alphabeta`` at a fixed node budget; every move's principal-variation leaf becomes a
   training position (:mod:`engine.learn.nnue_data`), in ``gen-NNN/positions``;
2. **training** — a new network is fitted on the positions of the last ``window``
   generations (:mod:`engine.learn.nnue_fit`) and quantised to ``gen-NNN/nnue.npz``;
3. **gating** — ``canopy match`` at a fixed time a move, balanced openings, colours
   swapped: ``alphabeta`` with the candidate against ``alphabeta`` with the best so far.
   The candidate becomes the best when it scores more than half.

Generation N + 1's data is played by generation N's best network, so the data improves
with the network. The run directory keeps everything (``run.json``: settings, history;
each generation's positions, network and match PGN) and a run that stops resumes where
it stopped: finished shards, networks and matches are kept.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import CanopyError
from engine.eval.nnue_weights import NNUEWeights, load, save
from engine.files import write_bytes_atomic
from engine.learn.nnue_data import DataConfig, generate
from engine.learn.nnue_data import load as load_positions
from engine.learn.nnue_distill import children
from engine.learn.nnue_fit import FitConfig, fit

Progress = Callable[[str, int, int], None]
#: Plays a gating match: (generation, candidate file, best file or None) → the match summary.
Gate = Callable[[int, Path, Path | None], dict[str, Any]]


class RunError(CanopyError):
    code = "train_failed"


@dataclass(frozen=True)
class RunConfig:
    seed: int = 1
    games: int = 12800  # self-play games a generation (in shards of 64)
    nodes: int = 5000
    random_plies: int = 6
    hidden: int = 128
    epochs: int = 12
    lam: float = 0.3
    window: int = 2  # generations of positions a network is trained on
    gate_games: int = 60
    gate_movetime: int = 100  # ms a move in the gating match
    distill: int = 6_000_000  # generation 1: hand-labelled children to start from (0: none)
    distill_epochs: int = 3

    def check(self) -> None:
        checks = (
            ("games", self.games >= 1, "at least 1"),
            ("window", self.window >= 1, "at least 1"),
            ("gate_games", self.gate_games >= 2 and self.gate_games % 2 == 0, "even, >= 2"),
            ("gate_movetime", self.gate_movetime >= 1, "at least 1 ms"),
        )
        for name, ok, allowed in checks:
            if not ok:
                raise RunError(f"{name} must be {allowed}; got {getattr(self, name)!r}")
        self.fit_config(1).check()

    def fit_config(self, threads: int) -> FitConfig:
        return FitConfig(hidden=self.hidden, epochs=self.epochs, lam=self.lam, seed=self.seed,
                         threads=threads)  # fmt: skip

    def data_config(self, weights: str, number: int) -> DataConfig:
        """Generation ``number``'s data: a seed of its own, so a generation played by the
        same evaluation as the one before plays other games, not the same ones again."""
        return DataConfig(seed=self.seed + 1000 * number, nodes=self.nodes,
                          random_plies=self.random_plies, games_per_shard=self.per_shard,
                          weights=weights)  # fmt: skip

    @property
    def per_shard(self) -> int:
        return min(DataConfig.games_per_shard, self.games)

    @property
    def shards(self) -> int:
        return -(-self.games // self.per_shard)


def _digest(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()[:16]


class Run:
    """One run directory: its settings, its history, its generations."""

    def __init__(
        self,
        out: Path,
        config: RunConfig,
        pool_factory: Callable[[], Any],
        threads: int,
        command: str,
        progress: Progress,
        gate: Gate | None = None,
    ) -> None:
        config.check()
        self.play_gate = gate or self.match
        self.out = Path(out)
        self.config = config
        self.pool_factory = pool_factory
        self.threads = threads
        self.command = command
        self.progress = progress
        self.state_path = self.out / "run.json"
        self.state: dict[str, Any] = {"settings": asdict(config), "commands": [],
                                      "generations": [], "best": None}  # fmt: skip
        if self.state_path.exists():
            try:
                stored = json.loads(self.state_path.read_text())
            except (OSError, ValueError) as exc:
                raise RunError(f"{self.state_path} is unreadable ({exc})") from None
            if stored.get("settings") != asdict(config):
                differ = sorted(k for k, v in asdict(config).items()
                                if stored.get("settings", {}).get(k) != v)  # fmt: skip
                raise RunError(
                    f"{self.out} is a run with other settings ({', '.join(differ)}); "
                    "resume it with the same settings or use another --out"
                )
            self.state = stored

    def _save(self) -> None:
        write_bytes_atomic(
            self.state_path, json.dumps(self.state, indent=1, sort_keys=True).encode()
        )

    def gen_dir(self, number: int) -> Path:
        return self.out / f"gen-{number:03d}"

    def best(self) -> Path | None:
        return Path(self.state["best"]) if self.state["best"] else None

    def run(self, generations: int) -> dict[str, Any]:
        """Play, train and gate until ``generations`` networks have been tried."""
        self.out.mkdir(parents=True, exist_ok=True)
        self.state["commands"].append(self.command)
        self._save()
        started = time.monotonic()
        pool = None
        try:
            while len(self.state["generations"]) < generations:
                number = len(self.state["generations"]) + 1
                if pool is None:
                    pool = self.pool_factory()
                self.data(number - 1, pool)
                entry = self.generation(number)
                self.state["generations"].append(entry)
                if entry["accepted"]:
                    self.state["best"] = entry["weights"]
                self._save()
        finally:
            if pool is not None:
                pool.close()
        return {**self.state, "seconds": time.monotonic() - started}

    def data(self, number: int, pool: Any) -> dict[str, Any]:
        """Generation ``number``'s positions, played by the best network so far."""
        best = self.best()
        config = self.config.data_config(_digest(best) if best else "hand", number)
        return generate(
            self.gen_dir(number) / "positions", config, self.config.shards, pool, best,
            self.command, self.progress,
        )  # fmt: skip

    def generation(self, number: int) -> dict[str, Any]:
        """Train generation ``number`` on the last ``window`` generations' positions and
        gate it against the best so far."""
        c = self.config
        sources = [self.gen_dir(g) / "positions"
                   for g in range(max(0, number - c.window), number)]  # fmt: skip
        records = load_positions(sources)
        path = self.gen_dir(number) / "nnue.npz"
        if path.exists():
            net = load(path)
        else:
            meta = {"generation": number, "data": [str(s) for s in sources],
                    "positions": len(records), "seed": c.seed, "nodes": c.nodes}  # fmt: skip
            start = self.start(number, records, meta)
            config = c.fit_config(self.threads)
            if start is not None:  # a network that knows something: smaller steps
                config = replace(config, lr=config.lr / 4)
            result = fit(records, config, self.progress, self.command, meta, start=start)
            net = result.weights
            path.parent.mkdir(parents=True, exist_ok=True)
            save(path, net)
        gate = self.gate(number, path)
        accepted = gate["score"] > 0.5
        net.meta["gate"] = {k: gate[k] for k in ("games", "score", "elo", "elo_ci95")}
        save(path, net)
        return {
            "number": number,
            "weights": str(path),
            "positions": len(records),
            "train_loss": net.meta.get("train_loss", []),
            "held_loss": net.meta.get("held_loss", []),
            "gate": gate,
            "opponent": str(self.best() or "hand"),
            "accepted": accepted,
        }

    def start(self, number: int, records: np.ndarray, meta: dict[str, Any]) -> NNUEWeights | None:
        """Where generation ``number``'s training starts: the best network so far; for the
        first, the hand evaluation distilled into a network (:mod:`engine.learn.nnue_distill`)."""
        c = self.config
        best = self.best()
        if best is not None:
            net = load(best)
            if net.hidden == c.hidden:
                meta["start"] = str(best)
                return net
        if not c.distill:
            return None
        kids = children(records, c.distill)
        config = replace(c.fit_config(self.threads), epochs=c.distill_epochs, lam=0.0,
                         batch=16384)  # fmt: skip
        first = fit(kids, config, self.progress)
        meta["start"] = "distilled"
        meta["distilled"] = {
            "positions": len(kids), "epochs": c.distill_epochs,
            "held_loss": first.held_loss, "train_loss": first.train_loss,
        }  # fmt: skip
        return first.weights

    def gate(self, number: int, candidate: Path) -> dict[str, Any]:
        """The gating match's summary, played once (kept in ``gate.json``)."""
        stored = self.gen_dir(number) / "gate.json"
        if stored.exists():
            return dict(json.loads(stored.read_text()))
        data = self.play_gate(number, candidate, self.best())
        write_bytes_atomic(stored, json.dumps(data, indent=1, sort_keys=True).encode())
        return data

    def match(self, number: int, candidate: Path, best: Path | None) -> dict[str, Any]:
        """``canopy match``: alphabeta with the candidate against alphabeta with the best."""
        from engine.match.openings import load_openings
        from engine.match.report import summary
        from engine.match.runner import Match, MatchConfig, TimeControl
        from engine.match.spec import parse_spec

        c = self.config
        mine = f"alphabeta:eval=nnue,nnue={candidate},name=gen-{number}"
        theirs = (f"alphabeta:eval=nnue,nnue={best},name=best" if best
                  else "alphabeta:eval=hand,name=hand")  # fmt: skip
        config = MatchConfig(
            game="chess", engines=(parse_spec(mine), parse_spec(theirs)), games=c.gate_games,
            openings=load_openings(None, "chess"), tc=TimeControl(movetime_ms=c.gate_movetime),
            pgn=self.gen_dir(number) / "gate.pgn", concurrency=1, seed=c.seed + number,
        )  # fmt: skip

        def tick(state: Any) -> None:
            self.progress(f"gen {number}: gating", len(state.records), c.gate_games)

        data = summary(config, Match(config, progress=tick).run())
        data["command"] = (
            f"canopy match --engine {shlex.quote(mine)} --engine {shlex.quote(theirs)} "
            f"--games {c.gate_games} --movetime {c.gate_movetime} --concurrency 1 "
            f"--seed {c.seed + number}"
        )
        return data
