#!/usr/bin/env bash
# One unattended call on the lent 16-core H200 machine (2026-11-26): timings (the
# range solver on 2 pinned cores, the batched torch sweep on the GPU) beside the VCFR reproduction's
# grids on the other cores. Results land under $OUT; nothing here is needed by tests or CI.
set -u
export PYTHONUNBUFFERED=1
FINAL=${OUT:-/tmp/device_out}
# At most 8 files come back from a call: everything is written under $OUT=/tmp/device_work and
# packed into one archive at the end, beside copies of the main tables.
OUT=/tmp/device_work
mkdir -p "$OUT" "$FINAL"
# The device image has numpy, numba and torch but not our other dependencies: the wheels and
# pure-Python packages travel in the ignored .devsite/ folder (see bench/results/device.md).
if [ -d .devsite ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
        .devsite/whl/*.whl > "$OUT/pip.log" 2>&1
    export PYTHONPATH=/tmp/site:$PWD/.devsite/site:$PWD
fi
python -c "import pokerzoo, numba, torch; print(numba.__version__, torch.__version__)" > "$OUT/versions.txt" 2>&1
nproc > "$OUT/nproc.txt"; lscpu > "$OUT/lscpu.txt" 2>&1; nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
( timeout 250 taskset -c 0,1 python bench/bench_subgame.py --threads 2 --no-small --no-openspiel \
    --flop-seconds 170 --out "$OUT/subgame_2threads.md" > "$OUT/bench_2threads.log" 2>&1 ) &
( OMP_NUM_THREADS=2 timeout 250 taskset -c 2,3 python bench/bench_sweep_torch.py --device cuda \
    --iterations 10 --numba-iterations 2 --out "$OUT" > "$OUT/sweep_torch.log" 2>&1 ) &
( VCFR_DEADLINE_MINUTES=3.5 OUT="$OUT/vcfr" timeout 300 taskset -c 4-15 bash bench/vcfr_device.sh \
    > "$OUT/vcfr_device.log" 2>&1 ) &
wait
tar -czf "$FINAL/device_results.tar.gz" -C "$OUT" .
tar -czf "$FINAL/vcfr_tree.tar.gz" bench/results/vcfr
for f in versions.txt subgame_2threads.md sweep_torch.md; do [ -f "$OUT/$f" ] && cp "$OUT/$f" "$FINAL/"; done
ls -laR "$OUT" | head -60
tail -5 "$OUT"/*.log
