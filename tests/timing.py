"""Wall-clock bounds in tests: one that holds on a loaded machine, the strict one apart.

A test that times the code (a stop within 100 ms, a 300 ms search ending near
its deadline) states the goal, but on a two-core machine running another test
suite beside this one the goal is missed for reasons that have nothing to do
with the code. :func:`limits` runs such a test twice: with a bound that still
catches the bug it is about (a stop that waits for the search's budget, a
deadline ignored) in every run, and with the goal itself under the ``timing``
marker, which ``make test`` leaves out and ``make test-all`` runs on a quiet
machine.
"""

from __future__ import annotations

from typing import Any

import pytest


def limits(strict: float, loaded: float, name: str = "limit") -> Any:
    """``@limits(0.1, 2.0)``: parametrize ``name`` with the loaded bound, then the strict one.

    A bound is an upper limit on seconds, or (``name="snapshots"``) a lower limit on a
    count; either way ``strict`` is the goal and ``loaded`` what a busy machine still meets.
    """
    return pytest.mark.parametrize(
        name,
        [
            pytest.param(loaded, id="loaded"),
            pytest.param(strict, id="strict", marks=pytest.mark.timing),
        ],
    )
