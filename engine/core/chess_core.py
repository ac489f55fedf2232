"""Chess on bitboards in numba: fully legal move generation and copy-make.

Legality is decided while generating, not by make-and-test: the king's
checkers give a mask that every non-king move must land in, pinned pieces may
only move along the line through their king, king steps are tested against
attacks with the king lifted off the board, and castling tests every square
the king crosses. Only en passant (which can uncover a check along the rank)
is verified by recomputing slider attacks on the resulting occupancy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.bits import FULL, U0, U1, lsb, msb, pop_lsb, popcount
from engine.core.state import (
    BISHOP,
    BLACK_BB,
    CASTLING,
    CHECKMATE,
    EP,
    FIFTY_MOVES,
    FLAG_CAPTURE,
    FLAG_CASTLE,
    FLAG_DOUBLE,
    FLAG_EP,
    HALFMOVE,
    HASH,
    INSUFFICIENT,
    KING,
    KNIGHT,
    NO_SQUARE,
    ONGOING,
    PAWN,
    PLY,
    QUEEN,
    ROOK,
    STALEMATE,
    TURN,
    WHITE,
    WHITE_BB,
)
from engine.core.tables import (
    BETWEEN,
    BISHOP_EMPTY,
    CASTLE_KEEP,
    DARK_SQUARES,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    LIGHT_SQUARES,
    LINE,
    NE,
    NW,
    PAWN_ATTACKS,
    RANK_2,
    RANK_7,
    RAYS,
    ROOK_EMPTY,
    SE,
    SW,
    ZOBRIST_CASTLE,
    ZOBRIST_EP,
    ZOBRIST_PIECE,
    ZOBRIST_SIDE,
    E,
    N,
    S,
    W,
)

SQ = np.array([1 << i for i in range(64)], dtype=np.uint64)

# Squares that must be empty / unattacked for each castling move, per rights bit.
_CASTLE_EMPTY = np.array([0x60, 0x0E, 0x60 << 56, 0x0E << 56], dtype=np.uint64)
_CASTLE_SAFE = np.array([(5, 6), (3, 2), (61, 62), (59, 58)], dtype=np.int64)
_CASTLE_KING = np.array([(4, 6), (4, 2), (60, 62), (60, 58)], dtype=np.int64)
U100 = np.uint64(100)  # the fifty-move rule, in plies of the halfmove clock


# ---------------------------------------------------------------- attacks


# The rays need no test for a blocker: a ray of an increasing direction (N, E, NE,
# NW) from h8 is empty, as is one of a decreasing direction from a1, so with that square
# added to the blockers the nearest blocker is h8 (a1) when there is none on the ray, and
# removing "the ray beyond it" removes nothing. The attack sets are the same; the
# branch they replace went either way at random (a blocker or not) on every ray traced.
_H8 = np.uint64(1) << np.uint64(63)
_A1 = np.uint64(1)


@njit(cache=True, nogil=True)
def _ray_up(d: int, sq: int, occ: np.uint64) -> np.uint64:
    ray = RAYS[d, sq]
    return ray ^ RAYS[d, lsb((ray & occ) | _H8)]


@njit(cache=True, nogil=True)
def _ray_down(d: int, sq: int, occ: np.uint64) -> np.uint64:
    ray = RAYS[d, sq]
    return ray ^ RAYS[d, msb((ray & occ) | _A1)]


@njit(cache=True, nogil=True)
def rook_attacks(sq: int, occ: np.uint64) -> np.uint64:
    return _ray_up(N, sq, occ) | _ray_up(E, sq, occ) | _ray_down(S, sq, occ) | _ray_down(W, sq, occ)


@njit(cache=True, nogil=True)
def bishop_attacks(sq: int, occ: np.uint64) -> np.uint64:
    return (
        _ray_up(NE, sq, occ)
        | _ray_up(NW, sq, occ)
        | _ray_down(SW, sq, occ)
        | _ray_down(SE, sq, occ)
    )


@njit(cache=True, nogil=True)
def attackers_of(s: np.ndarray, sq: int, occ: np.uint64, by: int) -> np.uint64:
    """Pieces of colour ``by`` attacking ``sq`` given occupancy ``occ``."""
    them = s[WHITE_BB + by]
    a = PAWN_ATTACKS[1 - by, sq] & s[PAWN]
    a |= KNIGHT_ATTACKS[sq] & s[KNIGHT]
    a |= KING_ATTACKS[sq] & s[KING]
    orth = (s[ROOK] | s[QUEEN]) & them
    if ROOK_EMPTY[sq] & orth:  # only trace rays when a slider stands on one
        a |= rook_attacks(sq, occ) & orth
    diag = (s[BISHOP] | s[QUEEN]) & them
    if BISHOP_EMPTY[sq] & diag:
        a |= bishop_attacks(sq, occ) & diag
    return a & them


@njit(cache=True, nogil=True)
def is_attacked(s: np.ndarray, sq: int, occ: np.uint64, by: int) -> bool:
    them = s[WHITE_BB + by]
    if PAWN_ATTACKS[1 - by, sq] & s[PAWN] & them:
        return True
    if KNIGHT_ATTACKS[sq] & s[KNIGHT] & them:
        return True
    if KING_ATTACKS[sq] & s[KING] & them:
        return True
    orth = (s[ROOK] | s[QUEEN]) & them
    if ROOK_EMPTY[sq] & orth and rook_attacks(sq, occ) & orth:
        return True
    diag = (s[BISHOP] | s[QUEEN]) & them
    return bool(BISHOP_EMPTY[sq] & diag and bishop_attacks(sq, occ) & diag)


@njit(cache=True, nogil=True)
def in_check(s: np.ndarray) -> bool:
    us = np.int64(s[TURN])
    king = s[KING] & s[WHITE_BB + us]
    if not king:
        return False
    return is_attacked(s, lsb(king), s[WHITE_BB] | s[BLACK_BB], 1 - us)


@njit(cache=True, nogil=True)
def may_give_check(s: np.ndarray, m: int) -> bool:
    """False only when legal move ``m`` certainly does not give check: a test of a few
    table lookups, before the copy, make and :func:`in_check` that decide it. A search
    that tries the quiet checks among thirty-odd quiet moves (the quiescence search's
    first plies in ``mcts``) otherwise plays every one of them to find the two or three.

    It may answer True for a move that gives no check (never the reverse): a direct
    check is tested on the empty board, a discovered one by any slider of ours of the
    right kind on the line through the king and the square left; castling, en passant
    and promotions are left to the full test."""
    if m & (FLAG_CASTLE | FLAG_EP) or (m >> 12) & 7:
        return True
    us = np.int64(s[TURN])
    king = s[KING] & s[WHITE_BB + 1 - us]
    if not king:
        return False
    k = lsb(king)
    frm = m & 63
    to = (m >> 6) & 63
    ours = s[WHITE_BB + us]
    line = LINE[k, frm]
    if line:  # the square left is on a line with the king: a slider behind it?
        if ROOK_EMPTY[k] & SQ[frm]:
            if line & (s[ROOK] | s[QUEEN]) & ours:
                return True
        elif line & (s[BISHOP] | s[QUEEN]) & ours:
            return True
    pt = piece_at(s, frm)
    if pt == KNIGHT:
        return bool(KNIGHT_ATTACKS[to] & king)
    if pt == PAWN:
        return bool(PAWN_ATTACKS[us, to] & king)
    if pt == KING:
        return False
    if pt in (ROOK, QUEEN) and ROOK_EMPTY[to] & king:
        return True
    return bool(pt in (BISHOP, QUEEN) and BISHOP_EMPTY[to] & king)


#: Pawns' worth of each piece type for :func:`exchange_balance` (the king: beyond any).
EXCHANGE_WORTH = np.array([1, 3, 3, 5, 9, 100], dtype=np.int64)


@njit(cache=True, nogil=True)
def exchange_balance(s: np.ndarray, m: int) -> int:
    """What move ``m`` wins, in pawns, if the opponent answers by taking the moved piece
    once and we retake no more than once: the piece captured (en passant a pawn) less
    what the mover risks on its new square — nothing when no enemy piece attacks it,
    all of it when none of ours defends it, else its worth above the cheapest attacker.
    A one-exchange static estimate (pins and longer exchanges are not seen): negative
    for a queen taking a defended pawn or a knight checking from a square a pawn
    covers, the moves a quiescence search may skip. Promotions are not judged (0)."""
    if (m >> 12) & 7:
        return 0
    frm = m & 63
    to = (m >> 6) & 63
    us = np.int64(s[TURN])
    gain = 0
    if m & FLAG_EP:
        gain = EXCHANGE_WORTH[PAWN]
    elif m & FLAG_CAPTURE:
        gain = EXCHANGE_WORTH[piece_at(s, to)]
    mover = piece_at(s, frm)
    if mover == KING:
        return gain  # a legal king move never stands attacked
    # The mover has left ``frm`` (it neither blocks a line to ``to`` nor defends itself)
    # and the piece it takes on ``to`` is gone.
    gone = SQ[frm] | SQ[to]
    occ = (s[WHITE_BB] | s[BLACK_BB]) & ~SQ[frm]
    risk = exchange_risk(s, to, occ, gone, 1 - us, EXCHANGE_WORTH[mover], EXCHANGE_WORTH)
    return gain - int(risk)


@njit(cache=True, nogil=True)
def exchange_risk(
    s: np.ndarray,
    sq: int,
    occ: np.uint64,
    gone: np.uint64,
    attacker: int,
    worth: float,
    worths: np.ndarray,
) -> float:
    """What a piece worth ``worth`` on ``sq`` stands to lose when colour ``attacker``
    takes it once and its owner retakes no more than once: nothing when no piece of
    ``attacker`` attacks ``sq``, all of it when none of the owner's defends it, else its
    worth above the cheapest attacker (never below 0). Lines run through the occupancy
    ``occ``; pieces on ``gone`` neither attack nor defend (a piece that has moved away).
    ``worths`` prices each piece type, in the unit of ``worth``: the quiescence search's
    filter (:func:`exchange_balance`) counts pawns before the move, the move-ordering
    prior (``engine.search.parts.prior``) centipawns after it — one rule for both. The
    result has the type of ``worth`` (numba compiles one version for each)."""
    attackers = attackers_of(s, sq, occ, attacker) & ~gone
    if not attackers:
        return 0
    if not attackers_of(s, sq, occ, 1 - attacker) & ~gone:
        return worth
    cheapest = worths[KING]
    while attackers:
        a = lsb(attackers)
        attackers = pop_lsb(attackers)
        cheapest = min(cheapest, worths[piece_at(s, a)])
    return max(0, worth - cheapest)


@njit(cache=True, nogil=True)
def piece_at(s: np.ndarray, sq: int) -> int:
    """Piece type on ``sq`` or -1.

    Without a branch: each type's bit on ``sq`` times the type, plus whether any is
    there, less one (a square holds one piece at most). A loop returning at the first
    type found took a different exit per piece type, which the move ordering and the
    exchange tests ask about at random, mispredicted a good part of the time."""
    sh = np.uint64(sq)
    t = np.int64((s[1] >> sh) & U1)
    t += 2 * np.int64((s[2] >> sh) & U1)
    t += 3 * np.int64((s[3] >> sh) & U1)
    t += 4 * np.int64((s[4] >> sh) & U1)
    t += 5 * np.int64((s[5] >> sh) & U1)
    occupied = np.int64(((s[0] | s[1] | s[2] | s[3] | s[4] | s[5]) >> sh) & U1)
    return t + occupied - 1


# ---------------------------------------------------------------- move generation


@njit(cache=True, nogil=True)
def add_targets(out: np.ndarray, n: int, frm: int, targets: np.uint64, enemy: np.uint64) -> int:
    """Append a move from ``frm`` to every target square, flagged as a capture on ``enemy``.

    Shared by both games' generators (a knight-chess jump is a chess knight move).
    """
    while targets:
        to = lsb(targets)
        targets = pop_lsb(targets)
        m = frm | (to << 6)
        if enemy & SQ[to]:
            m |= FLAG_CAPTURE
        out[n] = m
        n += 1
    return n


@njit(cache=True, nogil=True)
def _add_pawn_move(out: np.ndarray, n: int, m: int, to: int) -> int:
    if to >= 56 or to < 8:
        for promo in (QUEEN, ROOK, BISHOP, KNIGHT):
            out[n] = m | (promo << 12)
            n += 1
        return n
    out[n] = m
    return n + 1


@njit(cache=True, nogil=True, inline="always")
def generate_moves(s: np.ndarray, out: np.ndarray, first: bool) -> int:
    """Write the legal moves of ``s`` into ``out``; return how many. With ``first`` it
    stops as soon as it has written one (:func:`has_legal_move`): one generator serves
    both, and inlined with ``first`` a constant the stops cost :func:`legal_moves`
    nothing."""
    us = np.int64(s[TURN])
    them = 1 - us
    own = s[WHITE_BB + us]
    enemy = s[WHITE_BB + them]
    occ = own | enemy
    ksq = lsb(s[KING] & own)
    n = 0

    # King steps, tested with the king lifted so it cannot hide behind itself.
    lifted = occ ^ SQ[ksq]
    targets = KING_ATTACKS[ksq] & ~own
    while targets:
        to = lsb(targets)
        targets = pop_lsb(targets)
        if not is_attacked(s, to, lifted, them):
            m = ksq | (to << 6)
            if enemy & SQ[to]:
                m |= FLAG_CAPTURE
            out[n] = m
            n += 1
    if first and n:
        return n

    checkers = attackers_of(s, ksq, occ, them)
    if checkers & (checkers - U1):
        return n  # double check: only the king may move
    mask = BETWEEN[ksq, lsb(checkers)] | checkers if checkers else FULL
    mask &= ~own

    # Pinned pieces: own pieces alone between the king and an enemy slider.
    pinned = U0
    snipers = (
        (ROOK_EMPTY[ksq] & (s[ROOK] | s[QUEEN])) | (BISHOP_EMPTY[ksq] & (s[BISHOP] | s[QUEEN]))
    ) & enemy
    while snipers:
        sn = lsb(snipers)
        snipers = pop_lsb(snipers)
        b = BETWEEN[ksq, sn] & occ
        if b and not (b & (b - U1)) and (b & own):
            pinned |= b

    # Knights: a pinned knight can never move.
    pieces = s[KNIGHT] & own & ~pinned
    while pieces:
        frm = lsb(pieces)
        pieces = pop_lsb(pieces)
        n = add_targets(out, n, frm, KNIGHT_ATTACKS[frm] & mask, enemy)
        if first and n:
            return n

    # Sliders.
    pieces = (s[BISHOP] | s[QUEEN]) & own
    while pieces:
        frm = lsb(pieces)
        pieces = pop_lsb(pieces)
        t = bishop_attacks(frm, occ) & mask
        if pinned & SQ[frm]:
            t &= LINE[ksq, frm]
        n = add_targets(out, n, frm, t, enemy)
        if first and n:
            return n
    pieces = (s[ROOK] | s[QUEEN]) & own
    while pieces:
        frm = lsb(pieces)
        pieces = pop_lsb(pieces)
        t = rook_attacks(frm, occ) & mask
        if pinned & SQ[frm]:
            t &= LINE[ksq, frm]
        n = add_targets(out, n, frm, t, enemy)
        if first and n:
            return n

    # Pawns.
    step = 8 if us == WHITE else -8
    start_rank = RANK_2 if us == WHITE else RANK_7
    ep = np.int64(s[EP])
    pieces = s[PAWN] & own
    while pieces:
        frm = lsb(pieces)
        pieces = pop_lsb(pieces)
        allowed = mask
        if pinned & SQ[frm]:
            allowed &= LINE[ksq, frm]
        to = frm + step
        if not (occ & SQ[to]):
            if allowed & SQ[to]:
                n = _add_pawn_move(out, n, frm | (to << 6), to)
            if start_rank & SQ[frm]:
                to2 = to + step
                if not (occ & SQ[to2]) and (allowed & SQ[to2]):
                    out[n] = frm | (to2 << 6) | FLAG_DOUBLE
                    n += 1
        caps = PAWN_ATTACKS[us, frm] & enemy & allowed
        while caps:
            to = lsb(caps)
            caps = pop_lsb(caps)
            n = _add_pawn_move(out, n, frm | (to << 6) | FLAG_CAPTURE, to)
        if ep != NO_SQUARE and PAWN_ATTACKS[us, frm] & SQ[ep]:
            # Verify by recomputing what attacks the king once both pawns have moved.
            cap = ep - step
            occ2 = (occ ^ SQ[frm] ^ SQ[cap]) | SQ[ep]
            enemy2 = enemy ^ SQ[cap]
            hit = rook_attacks(ksq, occ2) & (s[ROOK] | s[QUEEN])
            hit |= bishop_attacks(ksq, occ2) & (s[BISHOP] | s[QUEEN])
            hit |= KNIGHT_ATTACKS[ksq] & s[KNIGHT]
            hit |= PAWN_ATTACKS[us, ksq] & s[PAWN]
            if not (hit & enemy2):
                out[n] = frm | (ep << 6) | FLAG_CAPTURE | FLAG_EP
                n += 1
        if first and n:
            return n

    # Castling: never out of check, never through an attacked square.
    if not checkers:
        rights = np.int64(s[CASTLING]) >> (2 * us)
        for side in range(2):
            if rights & (1 << side):
                k = 2 * us + side
                if (
                    not (occ & _CASTLE_EMPTY[k])
                    and not is_attacked(s, _CASTLE_SAFE[k, 0], occ, them)
                    and not is_attacked(s, _CASTLE_SAFE[k, 1], occ, them)
                ):
                    out[n] = _CASTLE_KING[k, 0] | (_CASTLE_KING[k, 1] << 6) | FLAG_CASTLE
                    n += 1
    return n


@njit(cache=True, nogil=True)
def legal_moves(s: np.ndarray, out: np.ndarray) -> int:
    """Write every legal move of ``s`` into ``out``; return how many."""
    return generate_moves(s, out, False)


@njit(cache=True, nogil=True)
def has_legal_move(s: np.ndarray, out: np.ndarray) -> bool:
    """Whether ``s`` has a legal move: :func:`legal_moves` stopped at the first one it
    writes into ``out`` (scratch). A quiescence search standing pat needs only this (a
    side without a move is stalemated, it does not stand pat); most positions answer at
    the king's first safe step or the first piece that can move."""
    return generate_moves(s, out, True) > 0


# ---------------------------------------------------------------- make


@njit(cache=True, nogil=True)
def make_move(s: np.ndarray, m: int) -> None:
    """Play legal move ``m`` on ``s`` in place (callers copy first: copy-make)."""
    frm = m & 63
    to = (m >> 6) & 63
    promo = (m >> 12) & 7
    us = np.int64(s[TURN])
    them = 1 - us
    fb = SQ[frm]
    tb = SQ[to]
    h = s[HASH] ^ ZOBRIST_EP[s[EP]] ^ ZOBRIST_SIDE
    s[EP] = NO_SQUARE
    halfmove = s[HALFMOVE] + U1
    pt = piece_at(s, frm)

    if m & FLAG_CAPTURE:
        halfmove = U0
        if m & FLAG_EP:
            cap = to - 8 if us == WHITE else to + 8
            s[PAWN] ^= SQ[cap]
            s[WHITE_BB + them] ^= SQ[cap]
            h ^= ZOBRIST_PIECE[them, PAWN, cap]
        else:
            ct = piece_at(s, to)
            s[ct] ^= tb
            s[WHITE_BB + them] ^= tb
            h ^= ZOBRIST_PIECE[them, ct, to]

    s[pt] ^= fb | tb
    s[WHITE_BB + us] ^= fb | tb
    h ^= ZOBRIST_PIECE[us, pt, frm] ^ ZOBRIST_PIECE[us, pt, to]

    if pt == PAWN:
        halfmove = U0
        if promo:
            s[PAWN] ^= tb
            s[promo] ^= tb
            h ^= ZOBRIST_PIECE[us, PAWN, to] ^ ZOBRIST_PIECE[us, promo, to]
        elif m & FLAG_DOUBLE:
            ep = (frm + to) >> 1
            s[EP] = ep
            h ^= ZOBRIST_EP[ep]
    elif m & FLAG_CASTLE:
        if to > frm:
            rf, rt = frm + 3, frm + 1
        else:
            rf, rt = frm - 4, frm - 1
        s[ROOK] ^= SQ[rf] | SQ[rt]
        s[WHITE_BB + us] ^= SQ[rf] | SQ[rt]
        h ^= ZOBRIST_PIECE[us, ROOK, rf] ^ ZOBRIST_PIECE[us, ROOK, rt]

    old = s[CASTLING]
    new = old & CASTLE_KEEP[frm] & CASTLE_KEEP[to]
    if new != old:
        h ^= ZOBRIST_CASTLE[old] ^ ZOBRIST_CASTLE[new]
        s[CASTLING] = new
    s[HALFMOVE] = halfmove
    s[PLY] += U1
    s[TURN] = them
    s[HASH] = h


# ---------------------------------------------------------------- end of game


@njit(cache=True, nogil=True)
def _insufficient_for(s: np.ndarray, color: int) -> bool:
    """Mirror of python-chess ``has_insufficient_material`` (same rules, same order)."""
    own = s[WHITE_BB + color]
    opp = s[WHITE_BB + 1 - color]
    if own & (s[PAWN] | s[ROOK] | s[QUEEN]):
        return False
    if own & s[KNIGHT]:
        return popcount(own) <= 2 and not (opp & ~s[KING] & ~s[QUEEN])
    if own & s[BISHOP]:
        same = not (s[BISHOP] & DARK_SQUARES) or not (s[BISHOP] & LIGHT_SQUARES)
        return same and not s[PAWN] and not s[KNIGHT]
    return True


@njit(cache=True, nogil=True)
def insufficient_material(s: np.ndarray) -> bool:
    return _insufficient_for(s, 0) and _insufficient_for(s, 1)


@njit(cache=True, nogil=True)
def status(s: np.ndarray, n_legal: int) -> int:
    """Why the game is over (a status code) or ONGOING, given the legal-move count.

    Priority follows python-chess ``outcome(claim_draw=True)``; repetition is not
    visible in a single state and is left to the caller.
    """
    # The common case first, in one test: moves to play, a clock short of 100, and a pawn,
    # rook or queen on the board (so neither side can lack mating material). Every ply of
    # every playout comes through here; the full checks below cost three times as much.
    if n_legal and s[HALFMOVE] < U100 and (s[PAWN] | s[ROOK] | s[QUEEN]):
        return ONGOING
    if n_legal == 0 and in_check(s):
        return CHECKMATE
    if insufficient_material(s):
        return INSUFFICIENT
    if n_legal == 0:
        return STALEMATE
    if s[HALFMOVE] >= 100:
        return FIFTY_MOVES
    return ONGOING


@njit(cache=True, nogil=True)
def result(s: np.ndarray, code: int) -> int:
    """+1 / 0 / -1 from White's point of view for a finished game."""
    if code == CHECKMATE:
        return -1 if s[TURN] == WHITE else 1
    return 0
