"""The tactics suite: positions with a known answer, and whether a search finds it.

The suite (``tests/data/tactics.epd``, made by ``scripts/make_tactics.py`` from Canopy's
own match games and confirmed by Stockfish) holds three kinds — ``mate1``, ``mate2``
and ``capture`` (a capture that wins material) — each an EPD record whose ``bm`` lists
every accepted move. ``scripts/check_tactics.py`` runs it at a time limit, the unit
test at a fixed iteration budget; both read it and judge a search here, so the two
cannot disagree on what "found" means.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess

from engine.errors import CanopyError
from engine.search.controller import SearchController
from engine.search.info import SearchInfo

KINDS = ("mate1", "mate2", "capture")


@dataclass(frozen=True)
class Tactic:
    id: str  # "mate2-07": the kind, then a number
    kind: str  # one of KINDS
    fen: str
    bm: frozenset[str]  # every accepted move, UCI
    source: str  # where it comes from (the EPD's c0) and Stockfish's verdict (c1)


def load_tactics(path: str | Path) -> list[Tactic]:
    """Every record of the suite at ``path``, in file order (``#`` lines are comments)."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise CanopyError(f"cannot read tactics file {str(path)!r}: {exc.strerror}") from None
    tactics = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            board, ops = chess.Board.from_epd(line)
        except ValueError as exc:
            raise CanopyError(f"{path}:{number}: bad EPD: {exc}") from None
        name, moves = str(ops.get("id", "")), ops.get("bm")
        kind = name.rsplit("-", 1)[0]
        if kind not in KINDS or not isinstance(moves, list) or not moves:
            raise CanopyError(f"{path}:{number}: needs an id of a known kind and a bm")
        source = " · ".join(str(ops[key]) for key in ("c0", "c1") if key in ops)
        bm = frozenset(move.uci() for move in moves if isinstance(move, chess.Move))
        tactics.append(Tactic(name, kind, board.fen(), bm, source))
    return tactics


def search_fresh(
    fen: str,
    algorithm: str,
    params: Mapping[str, Any] | None = None,
    *,
    iterations: int | None = None,
    movetime_ms: float | None = None,
    seed: int = 0,
) -> SearchInfo:
    """One search of a chess position from scratch (a fresh tree and tables), closed after."""
    controller = SearchController(
        "chess", fen, algorithm=algorithm, params=params, seed=seed, tree_size=0
    )
    try:
        return controller.search(iterations=iterations, movetime_ms=movetime_ms)
    finally:
        controller.close()


def found(tactic: Tactic, info: SearchInfo) -> bool:
    """Whether the search would play one of the accepted moves."""
    return info.bestmove in tactic.bm
