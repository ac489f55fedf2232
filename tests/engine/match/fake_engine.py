"""A deliberately bad UCI engine for the referee tests.

``python fake_engine.py MODE`` where MODE is ``first`` (plays the first legal
move), ``illegal`` (answers every ``go`` with e2e5 / an impossible move),
``crash`` (exits on the first ``go``) or ``silent`` (never answers ``go``).
"""

from __future__ import annotations

import sys

import chess


def main() -> None:
    mode = sys.argv[1]
    board = chess.Board()
    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0] == "uci":
            sys.stdout.write(f"id name fake-{mode}\nuciok\n")
        elif tokens[0] == "isready":
            sys.stdout.write("readyok\n")
        elif tokens[0] == "position":
            end = tokens.index("moves") if "moves" in tokens else len(tokens)
            board = (
                chess.Board() if tokens[1] == "startpos" else chess.Board(" ".join(tokens[2:end]))
            )
            for move in tokens[end + 1 :]:
                board.push_uci(move)
        elif tokens[0] == "go":
            if mode == "crash":
                sys.exit(3)
            if mode == "silent":
                continue
            move = "a1a1" if mode == "illegal" else next(iter(board.legal_moves)).uci()
            sys.stdout.write(f"info depth 1 score cp 0 pv {move}\nbestmove {move}\n")
        elif tokens[0] == "quit":
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()
