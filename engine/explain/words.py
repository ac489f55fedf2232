"""Numbers, sides and lines of moves as people read them: the formats of every sentence the
explanations write.

Each function is the Python twin of the page's own formatting (``app/static/js/notation.js``
and ``state.js``), so a sentence written here reads exactly like the tables the page draws
beside it: ``fixed`` rounds as JavaScript's ``toFixed`` does (half away from zero, on the
number's exact binary value), ``signed`` writes a real minus sign, ``count`` groups
thousands, and a line of moves carries its move numbers ("12. Nf3 Nc6", "12… Nc6 13. Nf3").

Numbers reach people rounded to :data:`SHOWN_DIGITS` decimals (:func:`rounded`: the step,
stats and node frames all carry them so), and a sentence is written from those same
numbers: a worked example never disagrees with the table above it in the last digit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

#: Decimals a number keeps on its way to a page (frames, the worked examples' inputs).
SHOWN_DIGITS = 4
#: What a missing number reads as.
DASH = "–"
MINUS = "−"


def rounded(x: float | None, digits: int = SHOWN_DIGITS) -> float | None:
    """A number as it is shown: rounded, and None for None, NaN and infinities (an
    unvisited child's UCB1 is infinite; JSON has no infinity)."""
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return None
    return round(x, digits)


def rounded_all(obj: Any, digits: int = SHOWN_DIGITS) -> Any:
    """``obj`` (dicts, lists, tuples, numbers) with every float :func:`rounded`."""
    if isinstance(obj, float):
        return rounded(obj, digits)
    if isinstance(obj, dict):
        return {k: rounded_all(v, digits) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [rounded_all(v, digits) for v in obj]
    return obj


def _to_fixed(x: float, digits: int) -> str:
    """JavaScript's ``Number.prototype.toFixed``: ties go away from zero on the exact
    binary value, and a zero has no sign."""
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        x = 0.0
    return f"{Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP):f}"


def fixed(x: float | None, digits: int = 3) -> str:
    """``0.500``; a dash for a missing number."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return DASH
    return _to_fixed(float(x), digits)


def signed(x: float | None, digits: int = 2) -> str:
    """``+0.25`` / ``−0.25`` with a real minus sign; a mate score (beyond ±1) as ``mate +``."""
    if x is None:
        return DASH
    if abs(x) > 1.0001:
        return "mate +" if x > 0 else f"mate {MINUS}"
    return ("+" if x >= 0 else MINUS) + _to_fixed(abs(float(x)), digits)


def count(n: float | None) -> str:
    """``12,345``: rounded half up, thousands grouped."""
    if n is None:
        return DASH
    return f"{math.floor(n + 0.5):,}"


def plies(n: int) -> str:
    """``1 ply``, ``3 plies``."""
    return f"{n} {'ply' if n == 1 else 'plies'}"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` … ``11th``, ``12th``, ``13th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def number(x: float | int) -> str:
    """A number as JavaScript writes it into text: ``2`` for 2.0, ``1.5``, ``0.00001``."""
    if isinstance(x, bool) or not isinstance(x, float):
        return str(x)
    if x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    text = repr(x)
    if "e" in text and 1e-7 <= abs(x) < 1e21:
        return f"{Decimal(text):f}"
    return text


def capitalised(text: str) -> str:
    """ "The root position" at the start of a sentence (a line of moves starts with a digit)."""
    return text[:1].upper() + text[1:]


def formula_text(formula: str | None) -> str:
    """A formula as the search writes it, with square roots as the sign."""
    return (formula or "").replace("sqrt", "√")


# ---------------------------------------------------------------- sides


def opposite(color: str) -> str:
    return "black" if color == "white" else "white"


def turn_of(fen: str | None) -> str:
    """The side to move in a FEN ("white" when there is none)."""
    fields = (fen or "").split(" ")
    return "black" if len(fields) > 1 and fields[1] == "b" else "white"


def side_name(game: str, color: str) -> str:
    """What a side is called: knight chess keeps its original colours (the first mover
    black, the second pink)."""
    if game == "knight":
        return "Black knights" if color == "white" else "Pink knights"
    return "White" if color == "white" else "Black"


def chooses(game: str) -> str:
    """The verb after :func:`side_name` ("White chooses", "Black knights choose")."""
    return "choose" if game == "knight" else "chooses"


def proof_text(proof: int, mate: int | None) -> str:
    """``mate in 2``, ``mated in 3``, ``proven win``, ``proven draw`` … or "" (not proven);
    for the side the proof is for."""
    if not proof:
        return ""
    if proof == 2:
        return "proven draw"
    won = proof > 0
    if mate is not None:
        moves = math.ceil(mate / 2)
        return f"mate in {moves}" if won else f"mated in {moves}"
    return "proven win" if won else "proven loss"


def proof_for(game: str, proof: int | None, mate: int | None, mover: str) -> str:
    """A proof as words for the side that wins it ("mate in 2 for White"), "proven draw",
    or "" (not proven); ``proof`` is for ``mover``, the side that moved into the node."""
    if not proof:
        return ""
    if proof == 2:
        return "proven draw"
    winner = mover if proof > 0 else opposite(mover)
    return f"{proof_text(1, mate)} for {side_name(game, winner)}"


# ---------------------------------------------------------------- lines of moves


def line_words(sans: Sequence[str], fen: str | None) -> list[str]:
    """Each ply of a line from ``fen`` with its move number where one is written:
    ``["8. Bxg5", "Qxg5"]``, or ``["8… Qxg5", "9. Nf3"]`` with Black to move first."""
    fields = (fen or "").split(" ")
    black = len(fields) > 1 and fields[1] == "b"
    try:
        move_number = int(fields[5]) if len(fields) > 5 else 1
    except ValueError:
        move_number = 1
    move_number = move_number or 1
    out = []
    for i, san in enumerate(sans):
        if not black:
            out.append(f"{move_number}. {san}")
        else:
            out.append(f"{move_number}… {san}" if i == 0 else san)
            move_number += 1
        black = not black
    return out


def format_line(sans: Sequence[str], fen: str | None, limit: int = 40) -> str:
    """``12. e4 e5 13. Nf3`` (``12… e5 13. Nf3`` when Black moves first), cut at ``limit``
    plies with an ellipsis."""
    if not sans:
        return ""
    out = line_words(sans[:limit], fen)
    if len(sans) > limit:
        out.append("…")
    return " ".join(out)
