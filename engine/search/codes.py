"""Numbers shared by the numba kernels and the Python side: batch return codes and trace slots."""

from __future__ import annotations

# Batch kernel return codes (EXHAUSTED: alphabeta reached its maximum depth).
DONE, FULL, STOPPED, ROOT_TERMINAL, EXHAUSTED = 0, 1, 2, 3, 4
GO_ON = -1  # from a batch guard: nothing stops the next iteration

MAX_PATH = 1024  # deepest path an iteration may walk (the descent stops there)

# int64 trace slots every iteration writes (``Worker.info``)
INFO_SIZE = 8
T_PATH_LEN, T_FIRST_NEW, T_NEW_COUNT, T_SIM_STATUS, T_SIM_PLIES, T_SIM_WHITE = range(6)
# float64 trace slots (``Worker.finfo``)
F_REWARD, F_SCORE = 0, 1
# T_SIM_STATUS beyond the game's own status codes: the leaf was terminal (no simulation),
# or a playout cut off by its ply cap was scored by the static evaluation.
SIM_TERMINAL, CUT_EVAL = -1, -2
