#!/bin/sh
# The A/B runs of the training recipe (issue 23), one option per run, Panda Head, seed 12: every
# run evaluates on the same 1,000 deals per line-up, so their curves compare row by row. Each
# run is resumable (rerun the line). Two at a time fit a 2-core machine (--threads 1 each).
# Results: policies/ab/{run}.csv (the curve) and {run}.settings.json; docs/train_your_agent.md.
set -e
OUT=${1:-runs/ab}
B="panda-core train --game head --seed 12 --num-envs 256 --decisions 30000000 --eval-every 3000000 --eval-games 1000 --threads 1 --quiet"
R="$B --target round"
# First wave: the target, against today's trainer.
$B --out "$OUT/head-base" & $R --out "$OUT/head-round" & wait
# Second wave: on top of the winner (--target round), one option each.
$B --target mix:0.5 --out "$OUT/head-mix05" & $R --ema 0.999 --out "$OUT/head-r-ema999" & wait
$R --skip-forced --out "$OUT/head-r-skip" & $R --lr-schedule cosine --warmup 1000000 --out "$OUT/head-r-cosine" & wait
# Stopped at 12M decisions (behind the round run at every row): Ctrl-C once its 12M row is in.
$R --opponents heuristic:0.25,past:0.25 --out "$OUT/head-r-opp"
# Session 30: the warm start distilled from ISMCTS, `spin`, against the shipped spin run's first
# 6M decisions (the same seed and settings, so the same evaluation deals: curve_spin.csv's rows).
panda-core selfplay --game spin --players 4 --bots ismcts:400 --episodes 250 --shard-episodes 25 \
    --seed 31 --search-stats --move-features --workers 1 --quiet --out "$OUT/spin-ismcts400"
panda-core train --game spin --seed 12 --num-envs 64 --eval-every 1500000 --eval-games 1000 \
    --target round --decisions 6000000 --warm-start "$OUT/spin-ismcts400" --warm-start-epochs 4 \
    --quiet --out "$OUT/spin-warm-start"
# Session 34: fine-tunes of the shipped `year` policy (its 40M checkpoint, --init shipped, before
# it was replaced), seed 13, against each other; every checkpoint's held-out rate (the deals
# make_policies.py chooses on) is in {run}.held_out.csv. The third won and is make_policies.py's
# FINE_TUNES["year"]. (To redo them today, give --init the first run's checkpoint: `shipped` is
# the fine-tuned policy now.)
T="panda-core train --game year --seed 13 --init shipped --target round --lr 0.0001 --eval-every 1500000 --eval-games 1000 --threads 1 --quiet"
$T --lr-schedule linear --decisions 9000000 --out "$OUT/year-tune-self" & $T --opponents heuristic:0.5 --decisions 18000000 --out "$OUT/year-tune-heur50" & wait
$T --opponents heuristic:0.75 --decisions 15000000 --out "$OUT/year-tune-heur75"
