"""Numbers shared by the numba kernels and the Python side: batch return codes and trace slots."""

from __future__ import annotations

# Batch kernel return codes (EXHAUSTED: alphabeta reached its maximum depth; SOLVED: the
# root's game-theoretic value is proven, so no iteration can change the move). RECYCLED:
# a step found the tree at its node budget and folded it to make room instead of running
# an iteration (Worker.recycle); the next step goes on.
DONE, FULL, STOPPED, ROOT_TERMINAL, EXHAUSTED, SOLVED, RECYCLED = 0, 1, 2, 3, 4, 5, 6
GO_ON = -1  # from a batch guard: nothing stops the next iteration

MAX_PATH = 1024  # deepest path an iteration may walk (the descent stops there)

# int64 trace slots every iteration writes (``Worker.info``)
INFO_SIZE = 9
T_PATH_LEN, T_FIRST_NEW, T_NEW_COUNT, T_SIM_STATUS, T_SIM_PLIES, T_SIM_WHITE = range(6)
T_SIM_DEPTH = 6  # mcts: plies of alpha-beta search before the leaf's quiescence search
# mcts, a node whose children were scored (an evaluating expansion, a rescore, a resumed
# scoring): the child whose score became the best in that scoring, i.e. the node's new
# value (-1: none beat the best scored before it), and how its score came (BEST_*). When
# tracing, the record holds that child's move and the line its search left.
T_SIM_BEST = 7
T_SIM_HOW = 8
# BEST_EARLIER: no child scored now beat the best scored earlier; BEST_SEARCHED: an exact
# search (its line follows the move); BEST_CACHED: the table of leaf evaluations;
# BEST_TERMINAL: the move ends the game; BEST_MATE: a search that found a forced mate,
# which proves the child (its line follows the move).
BEST_EARLIER, BEST_SEARCHED, BEST_CACHED, BEST_TERMINAL, BEST_MATE = range(5)
# float64 trace slots (``Worker.finfo``)
F_REWARD, F_SCORE = 0, 1
# T_SIM_STATUS beyond the game's own status codes: the leaf was terminal (no simulation),
# a playout cut off by its ply cap was scored by the static evaluation, or (mcts) the
# leaf's score came from the transposition table of leaf evaluations, or (mcts,
# ``expand=evaluate``) the leaf was expanded and every child scored: its minimax value is
# the reward, or (mcts, ``rescore``) a node with children had its untried children scored
# again, deeper: its new minimax value is the reward.
SIM_TERMINAL, CUT_EVAL, SIM_CACHED, SIM_EXPANDED, SIM_RESCORED = -1, -2, -3, -4, -5
