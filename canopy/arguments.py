"""What every ``canopy`` sub-command shares, whichever module defines it: the argument
types that turn a bad number into one line on stderr, and the ``--json`` line.

Both canopy/cli.py and the modules of commands it registers (canopy/train_cli.py) import
these, so neither needs the other's private names.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def emit_json(obj: dict[str, Any]) -> None:
    """Print ``obj`` as one compact JSON line (with ``--json``, the last line printed)."""
    print(json.dumps(obj, separators=(",", ":")), flush=True)


def whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def nonnegative_int(text: str) -> int:
    value = whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def positive_int(text: str) -> int:
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
