"""Every search, pinned: a fixed budget and seed give the same moves and visit counts.

A change that means to leave the searches as they are (moving code, renaming, a faster
kernel) must leave these digests as they are. Each case searches a position from scratch
with seed 0, plays the best move and searches again on the kept tree (tree reuse), and
hashes every root move's visits and value at both searches. A digest that changes says
which algorithm, game and settings found something else; when a change is *meant* to
alter a search, the new digest is pinned in the same commit, with the reason.
"""

from __future__ import annotations

import hashlib

import pytest

from engine.search.controller import SearchController

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
#: A middlegame where one capture wins a piece (the tactics suite's capture-02).
TACTIC = "B2qk1nr/pb2b3/8/1p3ppp/3P4/6P1/PP2PP1P/R1BQK2R w KQk - 1 14"
#: An ending (capture-03), where the searches reach proofs and mates.
ENDING = "6k1/6b1/1qpr4/3pNPP1/3P4/4Q3/8/1B4K1 b - - 0 52"
KNIGHT_MIDDLE = "nnnnnnn1/nn1n1nn1/5nn1/3n4/8/1N2N3/NNNNNNNN/2N1NNNN w - - 2 5"

#: (case, game, fen, algorithm, params, threads): the default of every algorithm in both
#: games, and the switches a class flips to show what an idea is worth.
CASES: list[tuple[str, str, str | None, str, dict[str, object], int]] = [
    ("uct-chess", "chess", ITALIAN, "uct", {}, 1),
    ("uct-capture-first", "chess", TACTIC, "uct", {"policy": "capture_first"}, 1),
    ("uct-threads", "chess", None, "uct", {}, 2),
    ("uct-knight", "knight", KNIGHT_MIDDLE, "uct", {}, 1),
    ("uct-minimax-chess", "chess", TACTIC, "uct-minimax", {}, 1),
    ("uct-minimax-knight", "knight", None, "uct-minimax", {}, 1),
    ("bfms-chess", "chess", TACTIC, "bfms", {}, 1),
    ("bfms-static", "chess", ITALIAN, "bfms", {"leaf": "static"}, 1),
    ("bfms-knight", "knight", KNIGHT_MIDDLE, "bfms", {}, 1),
    ("alphabeta-chess", "chess", TACTIC, "alphabeta", {}, 1),
    ("alphabeta-knight", "knight", KNIGHT_MIDDLE, "alphabeta", {}, 1),
    ("mcts-chess", "chess", TACTIC, "mcts", {}, 1),
    ("mcts-start", "chess", None, "mcts", {}, 1),
    ("mcts-threads", "chess", ITALIAN, "mcts", {}, 2),
    ("mcts-lazy", "chess", ITALIAN, "mcts", {"expand": "lazy"}, 1),
    ("mcts-static-nosolver", "chess", TACTIC, "mcts", {"leaf": "static", "solver": False}, 1),
    ("mcts-ending", "chess", ENDING, "mcts", {}, 1),
    ("bfms-ending-solver", "chess", ENDING, "bfms", {"solver": True}, 1),
    ("mcts-knight", "knight", KNIGHT_MIDDLE, "mcts", {}, 1),
]

#: The digests the searches above gave when they were pinned.
PINNED = {
    "uct-chess": "3480c784263115b6",
    "uct-capture-first": "314bc128c09567d3",
    "uct-threads": "ed2527ef3a1bc9eb",
    "uct-knight": "31646678d57c05fe",
    "uct-minimax-chess": "a3c1fa06d39aa45f",
    "uct-minimax-knight": "778a49f73a915bd2",
    "bfms-chess": "61dc2d9fbb7cb8b6",
    "bfms-static": "0ed6aa5aeadfbb2f",
    "bfms-knight": "6328da5fe3b7e638",
    "alphabeta-chess": "4b8ebe031581df68",
    "alphabeta-knight": "0e56d1f5f227d515",
    "mcts-chess": "cbab9ac24450642c",
    "mcts-start": "adc11930a62c3710",
    "mcts-threads": "2f6d615b67eb734c",
    "mcts-lazy": "ef96abbd16d0b283",
    "mcts-static-nosolver": "5cc68cb1e23d0096",
    "mcts-ending": "74ba43afb6dae7db",
    "bfms-ending-solver": "59d465d5164ce6ec",
    "mcts-knight": "5904004d7990ca8b",
}


def fingerprint(
    game: str, fen: str | None, algorithm: str, params: dict[str, object], threads: int
) -> str:
    """Digest of two searches (one on the tree the first one's move kept) at a fixed
    budget: iterations for an MCTS, nodes for ``alphabeta``."""
    digest = hashlib.sha1()
    with SearchController(
        game, fen, algorithm=algorithm, params=params, threads=threads, seed=0, tree_size=0
    ) as controller:
        limit = {"iterations": 400} if controller.algorithm.mcts else {"nodes": 4000}
        for _ in range(2):
            info = controller.search(**limit)
            rows = [(m.move, m.visits, round(m.eval, 9), round(m.q, 9)) for m in info.moves]
            digest.update(repr((rows, info.bestmove, info.pv)).encode())
            assert info.bestmove is not None
            controller.play(info.bestmove)
    return digest.hexdigest()[:16]


@pytest.mark.parametrize(
    ("case", "game", "fen", "algorithm", "params", "threads"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_search_finds_what_it_found_when_pinned(
    case: str,
    game: str,
    fen: str | None,
    algorithm: str,
    params: dict[str, object],
    threads: int,
) -> None:
    assert fingerprint(game, fen, algorithm, params, threads) == PINNED[case]
