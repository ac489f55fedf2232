"""Canopy as a UCI engine (``canopy uci``): protocol, options, scores and time management."""

from __future__ import annotations

from engine.uci.engine import LineWriter, UciEngine, run

__all__ = ["LineWriter", "UciEngine", "run"]
