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
# SHIPPED=1 runs the two stages the shipped file came from (docs/algorithms.md, "How the
# weights were fitted"): the default run below (the first fit, 722c61f, 2026-11-25: 1,500
# games at 2,000 nodes, seed 1), then 20,000 games at 4,000 nodes (seed 2) played with
# *those* weights, fitted with the tables (b970ae4, 2026-11-29). The second stage does not
# reset to the hand-set weights: its games are played with the first stage's. Each stage's
# data file is named in the weights' `source` with its sha256 (stage 1 0b12439d10907036,
# stage 2 89e88d8843a57a2f), so a re-run can be checked against the shipped file's; the
# 20,000 games take about half an hour on two cores.
#
#   scripts/fit_evaluation.sh                 # the first fit (stage 1)
#   SHIPPED=1 scripts/fit_evaluation.sh       # the shipped weights (stages 1 and 2)
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
SHIPPED=${SHIPPED:-0}
JOBS=${JOBS:-2}  # processes; the output does not depend on it
DATA=${DATA:-data/tune}
FIT_FLAGS=""
if [ "$SHIPPED" = 1 ] && { [ "$SEED" != 1 ] || [ "$CHESS_GAMES" != 1500 ] \
        || [ "$NODES" != 2000 ] || [ "$TABLES" != 0 ] || [ "$FIT_KNIGHT" != 0 ]; }; then
    echo "SHIPPED=1 is the shipped chain: leave SEED, CHESS_GAMES, NODES, TABLES and FIT_KNIGHT unset" >&2
    exit 2
fi
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

if [ "$SHIPPED" = 1 ]; then
    # stage 2: self-play with stage 1's weights (no reset), then the fit with the tables
    "$PY" -m engine.tune.selfplay --game chess --games 20000 --seed 2 --nodes 4000 \
        --jobs "$JOBS" --out "$DATA/chess-s52.tsv.gz"
    "$PY" -m engine.tune.texel --chess "$DATA/chess-s52.tsv.gz" --tables
fi
