#!/usr/bin/env bash
# The JPEG processes of issue 19 side by side with their references, in process, one thread:
# arithmetic-coded files (jpegtran -arithmetic of the 12 MP photo) against libjpeg-turbo 2.1.5
# (the C harness, cbench), and a 12 MP 16-bit lossless file against libjpeg-turbo 3.1.3 as PyPI's
# imagecodecs carries it (its jpeg8_decode timed in Python: the decode alone, into a new array).
# Prints the Markdown table BENCHMARKS.md shows.
#
#   Benchmarks/processes.sh [--rounds R] [-n N]
#
# Environment: JPNG=/path/to/jpng uses that binary instead of building one. Needs jpegtran
# (libjpeg-turbo-progs) and python3 with imagecodecs and numpy.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds=5 n=7
while (( $# )); do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        -n) n="$2"; shift 2 ;;
        *) echo "usage: $0 [--rounds R] [-n N]" >&2; exit 2 ;;
    esac
done
"$here/corpus.sh" >/dev/null
corpus="$here/corpus"
mkdir -p "$here/bin"
cc -O2 -o "$here/bin/cbench" "$here/harness/bench.c" -lpng -ljpeg -lgif
jpng="${JPNG:-}"
if [[ -z "$jpng" ]]; then
    (cd "$root" && swift build -c release --product jpng --static-swift-stdlib >/dev/null)
    jpng="$root/.build/release/jpng"
fi
[[ -f "$corpus/photo12_arith.jpg" ]] || jpegtran -arithmetic "$corpus/photo12_420.jpg" > "$corpus/photo12_arith.jpg"
[[ -f "$corpus/photo12_arith_prog.jpg" ]] || jpegtran -arithmetic -progressive "$corpus/photo12_420.jpg" > "$corpus/photo12_arith_prog.jpg"
if [[ ! -f "$corpus/photo12_lossless16.jpg" ]]; then
    # The photo's luma widened to 16 bits (x257) with 6 low bits of seeded noise, predictor 1.
    python3 - "$corpus" <<'PY'
import sys, imagecodecs, numpy as np
d = sys.argv[1]
img = imagecodecs.imread(d + '/photo12.png')
g = (img[..., :3].astype(np.uint32) @ np.array([299, 587, 114]) // 1000).astype(np.uint16)
g16 = (g * 257) ^ np.random.default_rng(5).integers(0, 64, g.shape, dtype=np.uint16)
open(d + '/photo12_lossless16.jpg', 'wb').write(imagecodecs.jpeg8_encode(g16, lossless=True, predictor=1, bitspersample=16))
PY
fi
imagecodecs_mps() {
    python3 - "$1" "$n" <<'PY'
import sys, time, imagecodecs
data = open(sys.argv[1], 'rb').read(); n = int(sys.argv[2])
times = []
for _ in range(n):
    t = time.perf_counter(); a = imagecodecs.jpeg8_decode(data); times.append(time.perf_counter() - t)
times.sort()
print('%.1f' % (a.shape[0] * a.shape[1] / times[len(times) // 2] / 1e6))
PY
}
mps() { sed -n 's/.* \([0-9.]*\) MP\/s.*/\1/p' | tail -1; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
echo "| operation | reference | MP/s ours | MP/s reference | ratio (paired) |"
echo "| --- | --- | ---: | ---: | ---: |"
row() {
    local label=$1 file=$2 reference=$3 threads=$4
    local ours=() refs=() ratios=()
    for ((r = 0; r < rounds; r++)); do
        local a b
        if (( r % 2 )); then
            b=$(if [[ $reference == imagecodecs ]]; then imagecodecs_mps "$file"; else "$here/bin/cbench" decode jpeg "$file" -n "$n" | mps; fi)
            a=$("$jpng" bench "$file" -n "$n" --threads "$threads" | mps)
        else
            a=$("$jpng" bench "$file" -n "$n" --threads "$threads" | mps)
            b=$(if [[ $reference == imagecodecs ]]; then imagecodecs_mps "$file"; else "$here/bin/cbench" decode jpeg "$file" -n "$n" | mps; fi)
        fi
        ours+=("$a"); refs+=("$b"); ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}')")
    done
    local mo mr mp
    mo=$(printf '%s\n' "${ours[@]}" | median); mr=$(printf '%s\n' "${refs[@]}" | median); mp=$(printf '%s\n' "${ratios[@]}" | median)
    printf '| %s | %s | %.1f | %.1f | %.2f (%.2f) |\n' "$label" \
        "$([[ $reference == imagecodecs ]] && echo 'libjpeg-turbo 3.1.3 (imagecodecs)' || echo 'libjpeg-turbo 2.1.5')" \
        "$mo" "$mr" "$(awk -v a="$mo" -v b="$mr" 'BEGIN {print a / b}')" "$mp"
}
row "decode arithmetic 4:2:0, 1 thread, \`photo12_arith.jpg\` 4000×3000" "$corpus/photo12_arith.jpg" cbench 1
row "decode arithmetic 4:2:0, 2 threads, \`photo12_arith.jpg\` 4000×3000" "$corpus/photo12_arith.jpg" cbench 2
row "decode arithmetic progressive 4:2:0, 1 thread, \`photo12_arith_prog.jpg\` 4000×3000" "$corpus/photo12_arith_prog.jpg" cbench 1
row "decode lossless 16-bit gray, predictor 1, 1 thread, \`photo12_lossless16.jpg\` 4000×3000" "$corpus/photo12_lossless16.jpg" imagecodecs 1
