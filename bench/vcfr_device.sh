#!/usr/bin/env bash
# The VCFR reproduction's grids on a 16-core machine, unattended, in under 5 minutes; rerun to go on.
#
# Three grids side by side, 16 processes in all, each cell resumable (vcfr_runs.run_cell saves
# the agent every 4,000 hands; past the deadline a cell saves and stops):
#   8 processes: the acceptance grid, Leduc(5), reward_prior=fixed, 20,000 rounds, 5 envs of
#                vcfr, psrlcfr, random-interaction, naive-cfr (bench/results/vcfr/fixed_rounds20000)
#   3 processes: the paired claim's envs 5..9 of vcfr and random-interaction at 10,000 rounds
#                (20,000 hands; the runs are the same as the 20,000-round ones up to there)
#   5 processes: the bonus grid at 2,500 rounds on 2 envs (bench/results/vcfr/bonus_grid_rounds2500)
# Then bench/vcfr_paired.py pairs VCFR and random at 20,000 hands over envs 0..9 of both folders.
# Everything under bench/results/vcfr (finished cells and saved partial ones) comes back as
# $OUT/vcfr_results.tar.gz; unpack it in the checkout's root and run this again to go on:
#   tar -xzf vcfr_results.tar.gz
# Sizes for a tiny check: VCFR_ROUNDS, VCFR_PAIRED_ROUNDS, VCFR_GRID_ROUNDS, VCFR_GAME,
# VCFR_RESULTS (the results folder), VCFR_DEADLINE_MINUTES.
set -u
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/vcfr_out}
mkdir -p "$OUT"
results=${VCFR_RESULTS:-bench/results/vcfr}
game=${VCFR_GAME:-leduc5}
minutes=${VCFR_DEADLINE_MINUTES:-3.5}
rounds=${VCFR_ROUNDS:-20000}
paired=${VCFR_PAIRED_ROUNDS:-10000}
grid_rounds=${VCFR_GRID_ROUNDS:-2500}
common=(--games "$game" --reward-prior fixed --deadline-minutes "$minutes")
python bench/reproduce_vcfr.py "${common[@]}" --rounds "$rounds" \
    --agents vcfr,psrlcfr,random-interaction,naive-cfr --envs 5 --envs-other 5 --jobs 8 \
    --out "$results/fixed_rounds$rounds" > "$OUT/acceptance.log" 2>&1 &
python bench/reproduce_vcfr.py "${common[@]}" --rounds "$paired" \
    --agents vcfr,random-interaction --envs 10 --envs-other 10 --first-env 5 --jobs 3 \
    --out "$results/fixed_rounds$paired" > "$OUT/paired.log" 2>&1 &
python bench/vcfr_bonus_grid.py --game "$game" --reward-prior fixed --rounds "$grid_rounds" \
    --envs 2 --jobs 5 --deadline-minutes "$minutes" --out "$results/bonus_grid_rounds$grid_rounds" \
    > "$OUT/bonus_grid.log" 2>&1 &
wait
python bench/vcfr_paired.py --game "$game" --hands $((2 * paired)) \
    --folders "$results/fixed_rounds$rounds" "$results/fixed_rounds$paired" \
    --out "$results/paired_information_gain.md" > "$OUT/paired_report.log" 2>&1
tar -czf "$OUT/vcfr_results.tar.gz" "$results"
grep -h -E "NashConv|stopped|FAILED|to do" "$OUT"/*.log | sort | uniq -c | sort -rn | head -40
