#!/bin/sh
# Regenerate engine/data/eval/weights.npz from nothing, as docs/algorithms.md (Evaluation)
# describes: reset to the hand-set weights, play self-play games with them, fit by Texel's
# method. The same SEED (and game counts) gives the same weights file.
#
# Knight chess keeps its hand-set weights unless FIT_KNIGHT=1: the weights fitted on 800
# games lost to the hand-set ones (42.5 %, -53 Elo over 60 games; docs/algorithms.md).
#
# TABLES=1 fits chess's piece-square tables entry by entry too (engine/tune/texel_tables.py).
#
#   scripts/fit_evaluation.sh                 # the shipped weights
#   SEED=2 CHESS_GAMES=200 scripts/fit_evaluation.sh
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
SEED=${SEED:-1}
CHESS_GAMES=${CHESS_GAMES:-1500}
KNIGHT_GAMES=${KNIGHT_GAMES:-800}
NODES=${NODES:-2000}
FIT_KNIGHT=${FIT_KNIGHT:-0}
TABLES=${TABLES:-0}
JOBS=${JOBS:-2}  # processes; the output does not depend on it
DATA=${DATA:-data/tune}
FIT_FLAGS=""
if [ "$TABLES" = 1 ]; then
    FIT_FLAGS="--tables"
fi

"$PY" -m engine.tune.texel --hand
"$PY" -m engine.tune.selfplay --game chess --games "$CHESS_GAMES" --seed "$SEED" \
    --nodes "$NODES" --jobs "$JOBS" --out "$DATA/chess-$SEED.tsv.gz"
if [ "$FIT_KNIGHT" = 1 ]; then
    "$PY" -m engine.tune.selfplay --game knight --games "$KNIGHT_GAMES" --seed "$SEED" \
        --nodes "$NODES" --jobs "$JOBS" --out "$DATA/knight-$SEED.tsv.gz"
    "$PY" -m engine.tune.texel --chess "$DATA/chess-$SEED.tsv.gz" --knight "$DATA/knight-$SEED.tsv.gz" $FIT_FLAGS
else
    "$PY" -m engine.tune.texel --chess "$DATA/chess-$SEED.tsv.gz" $FIT_FLAGS
fi
