#!/usr/bin/env bash
# Runs every fuzz target, the differential ones (diff-*: PureJPEG, PurePNG, PureGIF, PureWebP against
# libjpeg-turbo, libpng, giflib, libwebp) included; fails on a crash, hang, OOM or divergence. The total
# time is 9 x SECONDS (default 60), shared evenly among the targets, so a new target takes its
# time from the others instead of lengthening CI.
#   Fuzz/smoke.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
# A fixed seed makes the smoke reproducible (a CI failure replays with the same seed); long runs
# (Fuzz/run.sh TARGET SECONDS) keep libFuzzer's random seed. FUZZ_SEED overrides.
seed=${FUZZ_SEED:-1}
Fuzz/run.sh build
status=0
targets=(png apng jpeg gif jpng webp imagesource icc quant gifenc diff-jpeg diff-png diff-gif diff-webp)
seconds=$(( seconds * 9 / ${#targets[@]} ))
for t in "${targets[@]}"; do
    echo "== fuzz $t for ${seconds}s" >&2
    # The kill bounds a stall (e.g. the symbolizer after a trap) so CI cannot hang.
    if ! timeout -s KILL $((seconds + 180)) Fuzz/run.sh "$t" "$seconds" -seed="$seed" > "Fuzz/out/smoke-$t.log" 2>&1; then
        echo "fuzz $t FAILED; see Fuzz/out/smoke-$t.log and Fuzz/out/artifacts-$t/" >&2
        tail -60 "Fuzz/out/smoke-$t.log" >&2
        status=1
    else
        grep -E "stat::number_of_executed_units|cov:" "Fuzz/out/smoke-$t.log" | tail -2 >&2
    fi
done
exit $status
