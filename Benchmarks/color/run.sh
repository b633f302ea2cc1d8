#!/bin/sh
# Builds ColorBench (release) and runs it and the lcms2 side, one after the other, one core each.
set -e
cd "$(dirname "$0")"
swift build -c release --product ColorBench
PROFILES=../../Vectors/icc/profiles
.build/release/ColorBench "$PROFILES"
python3 lcms2_bench.py "$PROFILES"
