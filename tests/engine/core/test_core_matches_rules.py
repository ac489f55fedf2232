"""The numba core agrees with the python-chess rules layer on positions from seeded random games.

Both representations play the same random games side by side; at every
position the legal move sets, the terminal status and result, the FEN and the
Zobrist key (incremental vs. recomputed) must agree. Random games alone end
in only a few ways, so the tests also check that every ending was reached, and
a list of set-up endings (mates by en passant and promotion, stalemate and
insufficient material together, the half-move clock at 99, 100 and 150, the
200th ply of knight chess) pins the rarer ones and their priority.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import chess
import numpy as np
import pytest

from engine.core.games import make_move, result, status
from engine.core.state import (
    CHECKMATE,
    FIFTY_MOVES,
    HASH,
    INSUFFICIENT,
    NO_KNIGHTS,
    NO_MOVES,
    ONGOING,
    PLY_CAP,
    REPETITION,
    STALEMATE,
)
from engine.core.zobrist import full_hash
from engine.rules.convert import (
    legal_move_array,
    move_to_uci,
    state_from_board,
    state_to_fen,
    uci_to_move,
)
from engine.rules.games import CHESS_GAME, KNIGHT_GAME, Game

CHESS_TERMINATIONS = {
    chess.Termination.CHECKMATE: CHECKMATE,
    chess.Termination.STALEMATE: STALEMATE,
    chess.Termination.INSUFFICIENT_MATERIAL: INSUFFICIENT,
    chess.Termination.FIFTY_MOVES: FIFTY_MOVES,
    chess.Termination.SEVENTYFIVE_MOVES: FIFTY_MOVES,
}
KNIGHT_REASONS = {
    "no knights left": NO_KNIGHTS,
    "200-ply limit": PLY_CAP,
    "no legal move": NO_MOVES,
}
RESULTS = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}


def _agree(game: Game, board: chess.Board, state: np.ndarray) -> int:
    """Assert that the core and the rules layer agree on this position; its status code.

    ``REPETITION`` means python-chess ended the game by repetition, which the core
    cannot see (it holds one position, not the game's history): nothing more compared.
    """
    ours = {move_to_uci(int(m)) for m in legal_move_array(state)}
    if not (game is KNIGHT_GAME and board.is_variant_end()):
        # (python-chess lists no moves once a knight-chess game is over)
        assert ours == {m.uci() for m in board.legal_moves}, board.fen()
    assert state_to_fen(state) == board.fen()
    assert state[HASH] == full_hash(state)
    code = status(state, len(ours))
    outcome = board.outcome(claim_draw=True)
    if outcome is not None and outcome.termination == chess.Termination.THREEFOLD_REPETITION:
        return REPETITION
    if game is KNIGHT_GAME:
        expected = KNIGHT_REASONS.get(board.end_reason() or "", ONGOING)
    elif outcome is None or (
        # python-chess lets a player at 99 claim on announcing a non-zeroing move;
        # the core ends the game once the clock reaches 100, one ply later.
        outcome.termination == chess.Termination.FIFTY_MOVES and board.halfmove_clock < 100
    ):
        expected = ONGOING
    else:
        expected = CHESS_TERMINATIONS[outcome.termination]
    assert code == expected, board.fen()
    if code != ONGOING:
        assert outcome is not None
        assert outcome.termination != chess.Termination.FIFTY_MOVES or code == FIFTY_MOVES
        assert result(state, code) == RESULTS[outcome.result()], board.fen()
    return code


def _mates(board: chess.Board, legal: list[chess.Move]) -> list[chess.Move]:
    """The moves that checkmate (only checking moves can)."""
    found = []
    for move in legal:
        if board.gives_check(move):
            board.push(move)
            if board.is_checkmate():
                found.append(move)
            board.pop()
    return found


@dataclass
class Tally:
    """Positions compared, and how the games ended: (status code, result for White)."""

    positions: int = 0
    endings: Counter[tuple[int, int]] = field(default_factory=Counter)

    @property
    def codes(self) -> set[int]:
        return {code for code, _ in self.endings}


def _play(
    game: Game, seed: int, games: int, capture_bias: float, take_mates: bool = False
) -> Tally:
    """Seeded random games, both representations side by side, compared at every position.

    ``capture_bias``: how often a capture (or promotion) is chosen when one exists;
    ``take_mates``: play a mating move whenever there is one (random play almost never
    finds one by chance: 20 uniform games ended by insufficient material, fifty moves,
    repetition and stalemate, never by mate).
    """
    rng = random.Random(seed)
    tally = Tally()
    for _ in range(games):
        board = game.board()
        state = state_from_board(board)
        while True:
            code = _agree(game, board, state)
            tally.positions += 1
            if code == REPETITION:
                break
            if code != ONGOING:
                tally.endings[code, int(result(state, code))] += 1
                break
            legal = list(board.legal_moves)
            mates = _mates(board, legal) if take_mates else []
            captures = [m for m in legal if board.is_capture(m) or m.promotion]
            if mates:
                move = rng.choice(mates)
            else:
                move = rng.choice(captures if captures and rng.random() < capture_bias else legal)
            make_move(state, uci_to_move(state, move.uci()))
            board.push(move)
    return tally


def _tally(parts: list[Tally]) -> Tally:
    total = Tally()
    for part in parts:
        total.positions += part.positions
        total.endings.update(part.endings)
    return total


def test_core_and_rules_agree_on_random_game_positions_in_chess() -> None:
    tally = _tally([
        _play(CHESS_GAME, seed=7, games=4, capture_bias=0.0),
        # A bias towards captures reaches endgames, promotions and bare kings.
        _play(CHESS_GAME, seed=11, games=6, capture_bias=0.7),
        _play(CHESS_GAME, seed=5, games=8, capture_bias=0.7, take_mates=True),
    ])  # fmt: skip
    assert tally.positions >= 500
    # Every way a chess game ends was reached and agreed on, and mates by both sides.
    assert tally.codes == {CHECKMATE, STALEMATE, INSUFFICIENT, FIFTY_MOVES}, tally.endings
    assert tally.endings[CHECKMATE, 1] and tally.endings[CHECKMATE, -1], tally.endings


def test_core_and_rules_agree_on_random_game_positions_in_knight_chess() -> None:
    tally = _tally([
        _play(KNIGHT_GAME, seed=7, games=4, capture_bias=0.0),
        _play(KNIGHT_GAME, seed=11, games=6, capture_bias=0.7),
    ])  # fmt: skip
    assert tally.positions >= 500
    # Uniform games run to the 200-ply limit, capture-biased ones to the last knight.
    # ("no legal move" cannot happen: the knight's graph on 8×8 is connected, so a side
    # all of whose jumps land on its own knights would fill the board.)
    assert tally.codes == {NO_KNIGHTS, PLY_CAP}, tally.endings
    assert tally.endings[NO_KNIGHTS, 1] and tally.endings[NO_KNIGHTS, -1], tally.endings


# (FEN, moves played from it by both representations, status code, result for White)
CHESS_ENDINGS = [
    # checkmate, by each kind of move
    (chess.STARTING_FEN, ["f2f3", "e7e5", "g2g4", "d8h4"], CHECKMATE, -1),  # fool's mate
    ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", ["a1a8"], CHECKMATE, 1),  # back rank
    ("6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1", ["g5f7"], CHECKMATE, 1),  # smothered
    ("6k1/4Pppp/8/8/8/8/8/6K1 w - - 0 1", ["e7e8q"], CHECKMATE, 1),  # promotion
    ("6bn/5Ppk/6pp/8/8/8/8/K7 w - - 0 1", ["f7f8n"], CHECKMATE, 1),  # under-promotion
    # en passant opens the fifth rank to the rook (the double step played by the core too)
    ("8/3p3B/7p/R3P2k/6pp/8/8/2K5 b - - 0 1", ["d7d5", "e5d6"], CHECKMATE, 1),
    ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 99 60", ["a1a8"], CHECKMATE, 1),  # mate beats 50
    # stalemate
    ("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", ["f1f7"], STALEMATE, 0),
    ("8/8/8/8/8/2k5/p7/K7 b - - 0 1", ["c3b3"], STALEMATE, 0),  # White stalemated
    ("7k/8/6K1/8/8/8/8/5Q2 w - - 99 80", ["f1f7"], STALEMATE, 0),  # stalemate beats 50
    # insufficient material (python-chess's rules, which the core mirrors), by a capture
    ("8/8/8/8/8/k7/8/1qK5 w - - 0 1", ["c1b1"], INSUFFICIENT, 0),  # bare kings
    ("8/8/8/4k3/8/2p5/8/1N2K3 w - - 0 1", ["b1c3"], INSUFFICIENT, 0),  # K+N v K
    ("8/8/3b4/4k3/8/4p3/8/2B1K3 w - - 0 1", ["c1e3"], INSUFFICIENT, 0),  # same-colour bishops
    ("k7/2K5/1p6/8/8/4B3/8/8 w - - 0 1", ["e3b6"], INSUFFICIENT, 0),  # and stalemate too
    ("8/8/2b5/4k3/8/4p3/8/2B1K3 w - - 0 1", ["c1e3"], ONGOING, 0),  # opposite bishops
    ("8/8/8/4k3/8/2p5/8/1NN1K3 w - - 0 1", ["b1c3"], ONGOING, 0),  # two knights
    ("8/8/8/4k3/3n4/2p5/8/1N2K3 w - - 0 1", ["b1c3"], ONGOING, 0),  # a knight each
    ("3q4/8/8/4k3/8/2p5/8/1N2K3 w - - 0 1", ["b1c3"], ONGOING, 0),  # K+N v K+Q
    # fifty moves (and seventy-five), counted by the core's own half-move clock
    ("8/8/8/4k3/8/8/3R4/4K3 w - - 99 80", ["d2d3"], FIFTY_MOVES, 0),
    ("8/8/8/4k3/8/8/3R4/4K3 w - - 150 120", [], FIFTY_MOVES, 0),
    ("8/8/8/4k3/8/8/3R4/4K3 w - - 98 80", ["d2d3"], ONGOING, 0),  # 99: not yet
    ("8/8/8/4k3/3r4/8/3R4/4K3 w - - 99 80", ["d2d4"], ONGOING, 0),  # a capture resets
]
KNIGHT_ENDINGS = [
    ("8/8/8/3n4/8/4N3/8/N7 w - - 0 1", ["e3d5"], NO_KNIGHTS, 1),
    ("8/8/8/3n4/8/4N3/8/8 b - - 0 1", ["d5e3"], NO_KNIGHTS, -1),
    ("8/8/8/3n4/8/4N3/8/8 b - - 0 100", ["d5e3"], NO_KNIGHTS, -1),  # on the 200th ply
    ("8/8/8/3n4/8/8/8/N6N b - - 3 100", ["d5c3"], PLY_CAP, 1),
    ("8/8/8/3n4/8/8/8/N7 b - - 3 100", ["d5c3"], PLY_CAP, 0),
    ("8/8/8/3n4/8/8/5n2/N7 b - - 3 100", ["d5c3"], PLY_CAP, -1),
    ("8/8/8/3n4/8/8/8/N7 b - - 3 99", ["d5c3"], ONGOING, 0),  # ply 198
]


@pytest.mark.parametrize(
    ("game", "fen", "moves", "code", "white_result"),
    [(CHESS_GAME, *case) for case in CHESS_ENDINGS]
    + [(KNIGHT_GAME, *case) for case in KNIGHT_ENDINGS],
)
def test_core_and_rules_agree_on_how_a_game_ends(
    game: Game, fen: str, moves: list[str], code: int, white_result: int
) -> None:
    board = game.board(fen)
    state = state_from_board(board)
    for uci in moves:
        assert _agree(game, board, state) == ONGOING
        make_move(state, uci_to_move(state, uci))
        board.push_uci(uci)
    assert _agree(game, board, state) == code
    if code != ONGOING:
        assert result(state, code) == white_result


def test_ending_positions_cover_every_ending_either_layer_can_reach() -> None:
    chess_codes = {code for *_, code, _ in CHESS_ENDINGS}
    assert chess_codes >= {CHECKMATE, STALEMATE, INSUFFICIENT, FIFTY_MOVES}
    assert {(code, r) for *_, code, r in KNIGHT_ENDINGS} >= {
        (NO_KNIGHTS, 1), (NO_KNIGHTS, -1), (PLY_CAP, 1), (PLY_CAP, 0), (PLY_CAP, -1)
    }  # fmt: skip


def test_core_agrees_on_tricky_chess_positions() -> None:
    """Pins, en passant discovering a rank check, castling through attack, promotions."""
    fens = [
        "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",  # en passant would expose the king on the rank
        "8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1",  # en passant with both pawns on the king's rank
        "r3k2r/8/8/8/8/8/8/R3K1rR w KQkq - 0 1",  # castling through and out of attack
        "4k3/1P6/8/8/8/8/6p1/4K2R w K - 0 1",  # promotions on both sides
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/8/8/8/3b4/R3K2R w KQ - 0 1",  # in check from a bishop: no castling
        "K7/8/8/3Q4/4q3/8/8/7k w - - 0 1",  # queen pinned on the diagonal
    ]
    for fen in fens:
        board = chess.Board(fen)
        state = state_from_board(board)
        assert {move_to_uci(int(m)) for m in legal_move_array(state)} == {
            m.uci() for m in board.legal_moves
        }, fen
