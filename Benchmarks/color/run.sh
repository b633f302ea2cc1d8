#!/bin/sh
# Builds ColorBench (release) and times PureColor against lcms2, one core each, on 4000 x 3000
# buffers of random pixels. Every time is the running thread's CPU time (a shared machine's
# other processes take the core away from either side at random; wall time counted that):
#   1. side by side in one process against Debian's liblcms2 (liblcms2-dev): for every
#      transform, ROUNDS pairs, a run of each in turn, each pair's ratio and the worst pair
#      (what a target is judged on);
#   2. ColorBench alone (worst of 5 runs, SIMD and scalar kernels, link build times);
#   3. Pillow's bundled lcms2 (lcms2_bench.py, worst of 5 runs), as a second reference.
#   Benchmarks/color/run.sh [ROUNDS]     (default 5)
set -e
cd "$(dirname "$0")"
rounds=${1:-5}
swift build -c release --product ColorBench
PROFILES=../../Vectors/icc/profiles
.build/release/ColorBench "$PROFILES" --pair "$rounds"
.build/release/ColorBench "$PROFILES"
python3 lcms2_bench.py "$PROFILES"
