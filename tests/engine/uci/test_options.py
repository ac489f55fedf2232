"""The options' descriptions agree with the code they describe."""

from __future__ import annotations

from pathlib import Path

import engine.uci.options as options
from engine.search.tree import BYTES_PER_NODE

DOCS = Path(__file__).resolve().parents[3] / "docs" / "uci.md"


def test_node_budget_text_quotes_the_trees_bytes_per_node() -> None:
    # The tree's arrays take BYTES_PER_NODE per allocated node and grow by doubling,
    # so up to twice that per node in use; a stale figure misleads whoever sizes it.
    assert options.__doc__ is not None
    docstring = " ".join(options.__doc__.split())
    docs = DOCS.read_text(encoding="utf-8")
    for text in (docstring, docs):
        assert f"{BYTES_PER_NODE} bytes per allocated node" in text
        assert f"{2 * BYTES_PER_NODE} bytes per node in use" in text
