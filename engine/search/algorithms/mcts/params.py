"""``mcts``'s parameters: what a user or a teacher switches, each with its meaning in one
line and its defaults per game, and the record the kernel reads them from."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.search.params import ParamSpec, kernel_record

PARAMS = (
    ParamSpec(
        "c_puct", "float", 1.0,
        "exploration weight c in c·P·sqrt(N_parent) / (1 + N)", min=0.0, max=10.0,
        game_defaults={"chess": 0.25},  # results.md: pooled 34 % (200 games), c = 1 30 % (170)
    ),
    ParamSpec(
        "c_root", "float", 0.0,
        "exploration weight at the root alone (0: c_puct there too): the root's moves "
        "are the ones played, so each candidate's value is checked more evenly while "
        "the lines below stay narrow", min=0.0, max=10.0,
        game_defaults={"chess": 1.0},  # docs/results.md (code 38de02b): +10.3 points a
        # game against alphabeta (160 paired, SE 4.5); on Stockfish's ladder -1.7 over
        # 120 (SE 6.0), though -27.5 against 1750, where an earlier trial had lost too
    ),
    ParamSpec(
        "alpha", "float", 0.3,
        "weight α of the implicit minimax value in (1 − α)·Q + α·minimax (0: off)",
        min=0.0, max=1.0,
        game_defaults={"chess": 1.0},  # with every child scored, minimax leads
        # (docs/results.md, against alphabeta, 160 paired: 0.8 -3.4 points a game, 0.9
        # -7.5)
    ),
    ParamSpec(
        "fpu", "float", 0.1,
        "first-play urgency: an unvisited child counts as the parent's own evaluation "
        "(as an expected score) less this",
        min=-1.0, max=1.0,
    ),
    ParamSpec(
        "prior", "choice", "order",
        "order: move-ordering prior (captures, promotions, checks, pieces en prise); "
        "none: every move alike",
        choices=("order", "none"),
    ),
    ParamSpec(
        "prior_temp", "float", 100.0,
        "softmax temperature of the prior, in centipawns of estimated gain",
        min=10.0, max=2000.0,
        # docs/results.md: 200 scored -0.8 points a game against UCI_Elo 2000 (120
        # paired openings, SE 4.4), 60 scored -2.5 (SE 4.3); neither adopted
    ),
    ParamSpec(
        "prior_mix", "float", 0.1,
        "share of the uniform prior mixed in, so every move is tried in time",
        min=0.0, max=1.0,
    ),
    ParamSpec(
        "expand", "choice", "lazy",
        "lazy: children are created with a move-ordering prior and each is scored when "
        "first chosen; evaluate: every child is scored when its parent is expanded and "
        "the prior is a softmax of those scores",
        choices=("lazy", "evaluate"),
        game_defaults={"chess": "evaluate"},  # measured: docs/algorithms.md
    ),
    ParamSpec(
        "leaf", "choice", "quiescence",
        "leaf evaluation: quiescence search (captures, promotions, evasions) or the "
        "static evaluation alone",
        choices=("quiescence", "static"),
    ),
    ParamSpec(
        "root_depth", "int", 0,
        "plies of search that flow down from the root: a node p plies below it is "
        "scored by an alpha-beta search of max(0, root_depth − p) plies before its "
        "quiescence search (0: the quiescence search alone everywhere)", min=0, max=6,
        game_defaults={"chess": 3},  # docs/results.md (code 0c555c9): +2.5 points a game
        # over 2 (240 paired games against alphabeta, SE 3.5); 4 scored 10 points less (80)
    ),
    ParamSpec(
        "refresh", "bool", False,
        "expand=evaluate: after a move, the kept tree's leaves near the new root are "
        "scored again at the depth root_depth gives them there (they were scored two "
        "plies further down, by shallower searches)",
        game_defaults={"chess": True},  # docs/results.md (code 555aa75): +5.6 points a
        # game over the default before it on 160 paired games from fresh openings (SE 3.6)
    ),
    ParamSpec(
        "rescore", "int", 0,
        "plies at most added to the searches that score a node's untried children as "
        "the node gathers visits: at 32 visits (and at 4, 16 … times as many) they are "
        "scored again one ply deeper (0: off)", min=0, max=3,
        game_defaults={"chess": 2},  # docs/results.md (code d8fb853): +3.3 points a game
        # against alphabeta (240 paired, SE 3.5), +0.8 on Stockfish's ladder (120)
    ),
    ParamSpec(
        "qchecks", "int", 2,
        "plies at the start of the quiescence search that also try quiet checks "
        "(mates and forks that begin with a check)", min=0, max=4,
        game_defaults={"knight": 0},  # knight chess has no check
    ),
    ParamSpec(
        "qprune", "bool", False,
        "the quiescence search skips captures and quiet checks that lose the exchange "
        "by a one-exchange estimate (a queen taking a defended pawn); knight chess has "
        "no such loss",
        game_defaults={"chess": True},  # docs/results.md (code 9a6cdab)
    ),
    ParamSpec("solver", "bool", True, "prove wins, losses and draws (MCTS-Solver)"),
    ParamSpec(
        "tt", "bool", True,
        "share leaf evaluations between transpositions (a Zobrist-keyed table)",
    ),
    ParamSpec("tt_mb", "int", 4, "size of that table in MB", min=1, max=256),
)  # fmt: skip

#: What the kernel reads, by name (:func:`kernel_params` builds it from the parameters).
KERNEL_PARAMS = np.dtype(
    [
        ("c_puct", np.float64),
        ("c_root", np.float64),  # 0: c_puct at the root too
        ("alpha", np.float64),
        ("fpu", np.float64),
        ("prior_temp", np.float64),
        ("prior_mix", np.float64),
        ("uniform", np.bool_),  # prior = none
        ("quiesce", np.bool_),  # leaf = quiescence (else the static evaluation)
        ("solver", np.bool_),
        ("tt", np.bool_),
        ("evaluate", np.bool_),  # expand = evaluate (else lazy)
        ("root_depth", np.int64),
        ("rescore", np.int64),
    ],
    align=True,
)


def kernel_params(params: dict[str, Any]) -> np.record:
    """The kernel's record of validated ``params``."""
    return kernel_record(
        KERNEL_PARAMS,
        c_puct=params["c_puct"],
        c_root=params["c_root"],
        alpha=params["alpha"],
        fpu=params["fpu"],
        prior_temp=params["prior_temp"],
        prior_mix=params["prior_mix"],
        uniform=params["prior"] == "none",
        quiesce=params["leaf"] == "quiescence",
        solver=params["solver"],
        tt=params["tt"],
        evaluate=params["expand"] == "evaluate",
        root_depth=params["root_depth"],
        rescore=params["rescore"],
    )
