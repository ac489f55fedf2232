#!/usr/bin/env python3
"""Make the tactics suite ``tests/data/tactics.epd`` from Canopy's own match games.

Why our own games: the positions Canopy's engines actually reach (and blunder into) are
the ones that matter, and they are nobody else's test set. How,
reproducibly (fixed seed, single-threaded Stockfish at fixed depths, hash cleared
before every position, so the same command writes the same file):

1. **Scan** — every position of every chess game of the 100 ms study
   (``docs/results/study-100ms.pgn.gz``, whose records are in ``docs/results/matches.csv``;
   knight chess is not in Stockfish), a seeded sample of ``--sample`` of them, each
   searched by Stockfish to ``--scan-depth`` plies (skipping a halfmove clock above 80:
   the fifty-move rule could end the game first). A position is a candidate for
   ``mate1`` / ``mate2`` when Stockfish scores ``mate 1`` / ``mate 2``, and for
   ``capture`` when its best move is a capture that wins material outright by a rough
   static count (the victim, less the capturing piece if the square is defended).
2. **Confirm** — candidates, in seeded order, at most one per game and kind, are searched
   again to ``--depth`` plies (``--multipv`` lines for captures) and kept when:

   * ``mate1``: Stockfish scores ``mate 1``; ``bm`` is every mating move (python-chess
     checks each legal move, so the set is exact).
   * ``mate2``: Stockfish scores ``mate 2`` and no move mates at once; ``bm`` is every
     first move that forces mate in two (checked exhaustively with python-chess: every
     reply allows a mate in one).
   * ``capture``: the best line starts with a capture, is not a mate, and scores at least
     ``--min-win`` cp; ``bm`` is every line within ``--accept`` cp of it (all must be
     captures); the best line outside ``bm`` scores at least ``--gap`` cp less and
     within ±``--balance`` cp of even — without the capture the game is not decided, so
     the capture is what wins.

   Phases (opening: before move 20 with most pieces on; endgame: at most six pieces
   besides kings and pawns; else middlegame) are taken in turn so the kinds are varied.

Each EPD line holds ``bm`` (every accepted move, SAN), ``hmvc`` and ``fmvn`` (the move
counters), ``id`` (kind-number), ``c0`` naming the game (match, game number, ply) and the
phase, and ``c1`` Stockfish's verdict (score for the side to move: centipawns, or
``mate n`` = mate in n moves; the depth). A match is named ``chess-A-vs-B`` after its
players, and the matches are read in the order of those names (as ``NAME.pgn.gz``), so
the same games give the same sample. Run (about 20 minutes on one core, most of it
confirming captures)::

    nice -n 19 .venv/bin/python scripts/make_tactics.py --out tests/data/tactics.epd
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.match.probe import read_pgn  # noqa: E402
from scripts.match_records import RESULTS, player_name, read_records  # noqa: E402

STUDY = "study-100ms"
STOCKFISH = "/usr/games/stockfish"
KINDS = ("mate1", "mate2", "capture")
PHASES = ("opening", "middlegame", "endgame")
VALUE = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900}


@dataclass(frozen=True)
class Position:
    """One position of one game: where it comes from, and the board there."""

    source: str  # "file game N ply P"
    game: str  # "file game N": at most one position per game and kind
    fen: str
    phase: str


@dataclass(frozen=True)
class Tactic:
    kind: str
    position: Position
    bm: tuple[str, ...]  # UCI
    verdict: str  # Stockfish's score and depth, for the EPD comment


def phase_of(board: chess.Board) -> str:
    pieces = sum(
        len(board.pieces(kind, colour))
        for kind in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
        for colour in chess.COLORS
    )
    if pieces <= 6:
        return "endgame"
    return "opening" if board.fullmove_number < 20 and pieces >= 12 else "middlegame"


def study_matches() -> dict[str, list[chess.pgn.Game]]:
    """The 100 ms study's chess matches, ``chess-A-vs-B`` each, with their games in order."""
    rows = [
        r
        for r in read_records(RESULTS / "matches.csv")
        if r["group"] == STUDY and r["game"] == "chess"
    ]
    names = {
        r["id"]: f"chess-{player_name(r['engine'])}-vs-{player_name(r['opponent'])}" for r in rows
    }
    matches: dict[str, list[chess.pgn.Game]] = {name: [] for name in names.values()}
    for game in read_pgn(RESULTS / f"{STUDY}.pgn.gz"):
        if game.headers.get("Match") in names:
            matches[names[game.headers["Match"]]].append(game)
    return matches


def game_positions() -> Iterator[Position]:
    """Every position (before each move) of every chess game, in match and game order."""
    matches = study_matches()
    # sorted as "NAME.pgn.gz" ("bfms-t2" before "bfms"): the order the suite was made in
    for stem in sorted(matches, key=lambda name: f"{name}.pgn.gz"):
        for number, game in enumerate(matches[stem], start=1):
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                yield Position(
                    f"{stem} game {number} ply {ply}",
                    f"{stem} game {number}",
                    board.fen(),
                    phase_of(board),
                )
                board.push(move)


def mating_moves(board: chess.Board) -> list[chess.Move]:
    """Every legal move that checkmates at once."""
    found = []
    for move in board.legal_moves:
        if board.gives_check(move):
            board.push(move)
            if board.is_checkmate():
                found.append(move)
            board.pop()
    return found


def mate_in_two_moves(board: chess.Board) -> list[chess.Move]:
    """Every first move after which each reply allows a mate in one (not a mate itself)."""
    found = []
    for move in board.legal_moves:
        board.push(move)
        replies = list(board.legal_moves)
        forced = bool(replies)
        for reply in replies:
            board.push(reply)
            forced = bool(mating_moves(board))
            board.pop()
            if not forced:
                break
        board.pop()
        if forced:
            found.append(move)
    return found


def rough_gain(board: chess.Board, move: chess.Move) -> int:
    """What a capture wins by a static count: the victim (and a promotion), less the
    capturing piece when the opponent defends the square — a cheap filter only."""
    if board.is_en_passant(move):
        victim = 100
    else:
        captured = board.piece_type_at(move.to_square)
        victim = VALUE.get(captured, 0) if captured else 0
    mover = board.piece_type_at(move.from_square)
    gain = victim + (VALUE[move.promotion] - 100 if move.promotion else 0)
    if mover is not None and board.is_attacked_by(not board.turn, move.to_square):
        gain -= VALUE.get(mover, 0)
    return gain


def cp(score: chess.engine.PovScore) -> int | None:
    """Centipawns for the side to move, None for a mate score."""
    return score.relative.score()


def scan(
    engine: chess.engine.SimpleEngine, sample: list[Position], depth: int
) -> dict[str, list[Position]]:
    """The candidates of each kind among ``sample``, from one shallow search each."""
    found: dict[str, list[Position]] = {kind: [] for kind in KINDS}
    for i, position in enumerate(sample):
        board = chess.Board(position.fen)
        if board.halfmove_clock > 80:  # the fifty-move rule could end the game first
            continue
        info = engine.analyse(board, chess.engine.Limit(depth=depth), game=position.source)
        score, pv = info["score"].relative, info.get("pv") or []
        if score.mate() == 1:
            found["mate1"].append(position)
        elif score.mate() == 2:
            found["mate2"].append(position)
        elif pv and board.is_capture(pv[0]) and rough_gain(board, pv[0]) >= 300:
            found["capture"].append(position)
        if (i + 1) % 2000 == 0:
            counts = ", ".join(f"{kind} {len(found[kind])}" for kind in KINDS)
            print(f"scanned {i + 1}/{len(sample)}: {counts}", file=sys.stderr, flush=True)
    return found


def confirm(
    engine: chess.engine.SimpleEngine, kind: str, position: Position, args: argparse.Namespace
) -> Tactic | None:
    """The position as a tactic of ``kind`` if a deeper search bears it out, else None."""
    board = chess.Board(position.fen)
    limit = chess.engine.Limit(depth=args.depth)
    if kind != "capture":
        info = engine.analyse(board, limit, game=position.source)
        mate, depth = info["score"].relative.mate(), info.get("depth")
        mates = mating_moves(board)
        if kind == "mate1" and mate == 1 and mates:
            return Tactic(kind, position, tuple(m.uci() for m in mates), f"mate 1 depth {depth}")
        if kind == "mate2" and mate == 2 and not mates:
            firsts = mate_in_two_moves(board)
            if firsts:
                bm = tuple(m.uci() for m in firsts)
                return Tactic(kind, position, bm, f"mate 2 depth {depth}")
        return None
    lines = engine.analyse(board, limit, multipv=args.multipv, game=position.source)
    scored = [(cp(line["score"]), line["pv"][0]) for line in lines if line.get("pv")]
    if len(scored) < 2 or scored[0][0] is None or not board.is_capture(scored[0][1]):
        return None
    best = scored[0][0]
    accepted = [m for s, m in scored if s is not None and s >= best - args.accept]
    rest = [s for s, m in scored if m not in accepted]
    if not rest or any(not board.is_capture(m) for m in accepted):
        return None
    second = max(-100_000 if s is None else s for s in rest)  # a mate against: lost
    if best < args.min_win or best - second < args.gap or abs(second) >= args.balance:
        return None
    verdict = f"cp {best}, next best {second}, depth {lines[0].get('depth')}"
    return Tactic(kind, position, tuple(m.uci() for m in accepted), verdict)


def pick(
    engine: chess.engine.SimpleEngine,
    kind: str,
    candidates: list[Position],
    args: argparse.Namespace,
    rng: random.Random,
) -> list[Tactic]:
    """Up to ``--per-kind`` confirmed tactics, one per game, the phases taken in turn."""
    by_phase = {phase: [p for p in candidates if p.phase == phase] for phase in PHASES}
    for group in by_phase.values():
        rng.shuffle(group)
    kept: list[Tactic] = []
    games: set[str] = set()
    fens: set[str] = set()
    while len(kept) < args.per_kind and any(by_phase.values()):
        for phase in PHASES:
            group = by_phase[phase]
            while group and len(kept) < args.per_kind:
                position = group.pop()
                board_key = " ".join(position.fen.split()[:4])
                if position.game in games or board_key in fens:
                    continue
                tactic = confirm(engine, kind, position, args)
                if tactic is not None:
                    kept.append(tactic)
                    games.add(position.game)
                    fens.add(board_key)
                    break
    print(f"{kind}: kept {len(kept)} of {len(candidates)} candidates", file=sys.stderr)
    return kept


def epd_line(tactic: Tactic, number: int) -> str:
    board = chess.Board(tactic.position.fen)
    return board.epd(
        bm=[chess.Move.from_uci(uci) for uci in tactic.bm],
        hmvc=board.halfmove_clock,
        fmvn=board.fullmove_number,
        id=f"{tactic.kind}-{number:02d}",
        c0=f"{tactic.position.source} {tactic.position.phase}",
        c1=f"stockfish 15.1 {tactic.verdict}",
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--sample", type=int, default=12_000, help="positions scanned")
    ap.add_argument("--scan-depth", type=int, default=8)
    ap.add_argument("--depth", type=int, default=18, help="confirming search depth")
    ap.add_argument("--multipv", type=int, default=4)
    ap.add_argument("--per-kind", type=int, default=25)
    ap.add_argument("--min-win", type=int, default=200, help="cp the capture must reach")
    ap.add_argument("--gap", type=int, default=300, help="cp over the best move outside bm")
    ap.add_argument("--accept", type=int, default=100, help="cp below the best still in bm")
    ap.add_argument("--balance", type=int, default=300, help="|cp| of the best move outside bm")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    positions = list(game_positions())
    sample = rng.sample(positions, min(args.sample, len(positions)))
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    try:
        engine.configure({"Threads": 1, "Hash": 16})
        candidates = scan(engine, sample, args.scan_depth)
        tactics = {kind: pick(engine, kind, candidates[kind], args, rng) for kind in KINDS}
    finally:
        engine.quit()
    command = "nice -n 19 .venv/bin/python scripts/make_tactics.py " + " ".join(sys.argv[1:])
    header = [
        "# Canopy's tactics suite: positions from our own chess match games (the 100 ms",
        "# study's, docs/results/study-100ms.pgn.gz), confirmed by Stockfish 15.1 (one thread,",
        "# hash cleared per position). Made by scripts/make_tactics.py (its docstring has the",
        "# rules):",
        f"#   {command}",
        f"# seed {args.seed}, {len(sample)} positions scanned at depth {args.scan_depth}, "
        f"confirmed at depth {args.depth} (captures: multipv {args.multipv}, win >= "
        f"{args.min_win} cp, gap >= {args.gap} cp, next best within +-{args.balance} cp).",
        "# bm: every accepted move (SAN); c0: match, game, ply and phase; c1: Stockfish's",
        "# score for the side to move (cp, or mate in n moves) at the depth it reached.",
    ]
    lines = header + [
        epd_line(tactic, number) for kind in KINDS for number, tactic in enumerate(tactics[kind], 1)
    ]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(", ".join(f"{kind} {len(tactics[kind])}" for kind in KINDS), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
