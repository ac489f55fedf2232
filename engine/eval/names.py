"""The evaluation's feature names and their places in the feature vector.

A module of its own so the weights file's reader (:mod:`engine.eval.weights`)
can check a file's feature names without importing the feature kernels, which read
their piece-square tables from that same file when they are imported.
"""

from __future__ import annotations

# ---------------------------------------------------------------- chess feature indices
(
    C_PAWN, C_KNIGHT, C_BISHOP, C_ROOK, C_QUEEN,
    C_PST_MG, C_PST_EG,
    C_MOB_KNIGHT, C_MOB_BISHOP, C_MOB_ROOK, C_MOB_QUEEN,
    C_KING_SHIELD, C_KING_PRESSURE, C_KING_OPEN_FILES,
    C_DOUBLED, C_ISOLATED, C_PASSED, C_PASSED_RANK2,
    C_BISHOP_PAIR, C_ROOK_OPEN, C_ROOK_HALF_OPEN, C_TEMPO,
) = range(22)  # fmt: skip
CHESS_FEATURES = (
    "pawn", "knight", "bishop", "rook", "queen",
    "pst_mg", "pst_eg",
    "mobility_knight", "mobility_bishop", "mobility_rook", "mobility_queen",
    "king_shield", "king_pressure", "king_open_files",
    "doubled_pawns", "isolated_pawns", "passed_pawns", "passed_rank_squared",
    "bishop_pair", "rook_open_file", "rook_half_open_file", "tempo",
)  # fmt: skip
N_CHESS = len(CHESS_FEATURES)

# ---------------------------------------------------------------- knight-chess feature indices
(
    K_KNIGHTS, K_MOBILITY, K_CENTRE, K_ADVANCE, K_DEFENDED,
    K_STM_ATTACKS, K_STM_FREE_CAPTURES, K_STM_ATTACKED, K_STM_HANGING, K_TEMPO,
) = range(10)  # fmt: skip
KNIGHT_FEATURES = (
    "knights", "mobility", "centralisation", "advance", "defended",
    "stm_attacks", "stm_free_captures", "stm_attacked", "stm_hanging", "tempo",
)  # fmt: skip
N_KNIGHT = len(KNIGHT_FEATURES)
#: Each game's feature names, for code that is handed the game by name.
FEATURES = {"chess": CHESS_FEATURES, "knight": KNIGHT_FEATURES}
