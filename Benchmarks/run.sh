#!/usr/bin/env bash
# PureImage vs libpng / libjpeg-turbo / giflib, side by side, in process; writes
# Benchmarks/results/inprocess.tsv, redraws Benchmarks/chart.svg (chart.py) and prints the
# Markdown tables that BENCHMARKS.md shows. See Benchmarks/README.md.
#
#   Benchmarks/run.sh [--only png|jpeg|gif] [-n N] [--rounds R] [--v3] [--out FILE]
#
# Environment: JPNG=/path/to/jpng (and JPNG_V3=...) use that binary instead of building one.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
only="" n="" rounds=3 v3=0 out="$here/results/inprocess.tsv"

usage() { echo "usage: $0 [--only png|jpeg|gif] [-n N] [--rounds R] [--v3] [--out FILE]" >&2; exit 2; }
while (( $# )); do
    case "$1" in
        --only) [[ $# -ge 2 ]] || usage; only="$2"; shift 2 ;;
        -n) [[ $# -ge 2 ]] || usage; n="$2"; shift 2 ;;
        --rounds) [[ $# -ge 2 ]] || usage; rounds="$2"; shift 2 ;;
        --v3) v3=1; shift ;;
        --out) [[ $# -ge 2 ]] || usage; out="$2"; shift 2 ;;
        -h|--help) usage ;;
        *) usage ;;
    esac
done
case "$only" in ""|png|jpeg|gif) ;; *) usage ;; esac

# 1. The corpus (downloads and generates once; kept in Benchmarks/corpus/).
"$here/corpus.sh"

# 2. The C reference harness.
mkdir -p "$here/bin"
echo "run: building cbench"
cc -O2 -o "$here/bin/cbench" "$here/harness/bench.c" -lpng -ljpeg -lgif

# 3. jpng, release. A failed build is reported in the table, it does not stop the run.
v3_flags="-Xswiftc -target-cpu -Xswiftc x86-64-v3"
jpng_note="" jpng_v3_note=""
if [[ -n "${JPNG:-}" ]]; then
    jpng="$JPNG"
else
    jpng="$root/.build/release/jpng"
    echo "run: swift build -c release --product jpng --static-swift-stdlib"
    if ! (cd "$root" && swift build -c release --product jpng --static-swift-stdlib); then
        echo "run: jpng did not build; its column will say so" >&2
        jpng_note="jpng build failed"
    fi
fi
jpng_v3=""
if (( v3 )); then
    if [[ -n "${JPNG_V3:-}" ]]; then
        jpng_v3="$JPNG_V3"
    else
        jpng_v3="$root/.build-v3/release/jpng"
        flags="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
        for f in avx2 bmi2 fma movbe f16c; do
            [[ " $flags " == *" $f "* ]] || jpng_v3_note="this CPU lacks $f (not x86-64-v3)"
        done
        if [[ -z "$jpng_v3_note" ]]; then
            # Swift 6.3's clang importer rejects -target-cpu x86-64-v3 ("clang importer
            # creation failed"); haswell is the same ISA level (AVX2, BMI1/2, FMA, F16C,
            # LZCNT, MOVBE), so use it when the probe fails, and say so in the report.
            probe="$(mktemp -d)"
            echo 'print(0)' > "$probe/probe.swift"
            if ! swiftc -target-cpu x86-64-v3 -typecheck "$probe/probe.swift" >/dev/null 2>&1; then
                echo "run: this swiftc does not accept -target-cpu x86-64-v3; using haswell (same ISA level)"
                v3_flags="-Xswiftc -target-cpu -Xswiftc haswell"
            fi
            rm -rf "$probe"
            echo "run: swift build -c release --product jpng --static-swift-stdlib --scratch-path .build-v3 $v3_flags"
            # shellcheck disable=SC2086
            if ! (cd "$root" && swift build -c release --product jpng --static-swift-stdlib --scratch-path .build-v3 $v3_flags); then
                echo "run: the x86-64-v3 jpng did not build" >&2
                jpng_v3_note="v3 build failed"
            fi
        fi
    fi
fi

# 4. Measure, write the results file, draw the chart and print the tables.
args=(--cbench "$here/bin/cbench" --jpng "$jpng" --jpng-note "$jpng_note"
      --corpus "$here/corpus" --out "$out" --rounds "$rounds" --swift-flags "$v3_flags"
      --commit "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || true)")
[[ -n "$only" ]] && args+=(--only "$only")
[[ -n "$n" ]] && args+=(-n "$n")
(( v3 )) && args+=(--jpng-v3 "$jpng_v3" --jpng-v3-note "$jpng_v3_note")
python3 "$here/harness/compare.py" "${args[@]}"
chart="$here/chart.svg"
[[ "$out" == "$here/results/inprocess.tsv" ]] || chart="${out%.tsv}.svg"
python3 "$here/chart.py" --inprocess "$out" --out "$chart" --tables
