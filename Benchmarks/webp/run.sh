#!/usr/bin/env bash
# PureWebP against libwebp 1.2.4 (Debian's libwebp-dev, SSE2 paths), side by side, one thread
# unless said. Both sides decode into one kept buffer (WebPDecodeRGBInto against
# `WebPDecoder.decode(_:into:bytesPerRow:format:)`); the "allocating" line is PureWebP's one-shot
# `WebPDecoder.decode`, which allocates (and page-faults) a new image every decode. Makes the 12 MP WebP files from Benchmarks/corpus/photo12.png (cwebp -q 80 and
# cwebp -lossless), builds cbench (gcc -O2) and webpbench (release), then runs ROUNDS rounds,
# alternating the sides; each run prints the median of N decodes, the round's worst is reported.
# With --callgrind, also counts one decode's instructions on each side (a steady measure on a
# shared machine).
#
#   Benchmarks/webp/run.sh [-n N] [--rounds R] [--callgrind]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
corpus="$here/../corpus"
n=5 rounds=5 cg=0
while (( $# )); do
    case "$1" in
        -n) n="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --callgrind) cg=1; shift ;;
        *) echo "usage: $0 [-n N] [--rounds R] [--callgrind]" >&2; exit 2 ;;
    esac
done
[[ -s "$corpus/photo12.png" ]] || "$here/../corpus.sh"
[[ -s "$corpus/photo12_q80.webp" ]] || cwebp -quiet -q 80 "$corpus/photo12.png" -o "$corpus/photo12_q80.webp"
[[ -s "$corpus/photo12_lossless.webp" ]] || cwebp -quiet -lossless "$corpus/photo12.png" -o "$corpus/photo12_lossless.webp"
mkdir -p "$here/bin"
gcc -O2 -o "$here/bin/cbench" "$here/cbench.c" -lwebp
(cd "$here" && swift build -c release >/dev/null)
swift="$here/.build/release/webpbench"

worst() { sort -n | tail -1; }
for file in photo12_q80.webp photo12_lossless.webp; do
    c=() s=() t=() al=()
    for ((r = 0; r < rounds; r++)); do
        c+=("$("$here/bin/cbench" "$corpus/$file" "$n" | cut -d' ' -f1)")
        s+=("$("$swift" "$corpus/$file" "$n" | cut -d' ' -f1)")
        al+=("$("$swift" "$corpus/$file" "$n" alloc | cut -d' ' -f1)")
        [[ $file == *q80* ]] && t+=("$("$swift" "$corpus/$file" "$n" threads | cut -d' ' -f1)")
    done
    # Speed ratio of a round: libwebp's time over PureWebP's (above 1 PureWebP is faster).
    ratios() { local -n a=$1; for ((r = 0; r < rounds; r++)); do awk -v c="${c[r]}" -v x="${a[r]}" 'BEGIN { printf "%.2f\n", c / x }'; done; }
    echo "$file libwebp: ${c[*]} (worst $(printf '%s\n' "${c[@]}" | worst) s)"
    echo "$file PureWebP: ${s[*]} (worst $(printf '%s\n' "${s[@]}" | worst) s)"
    echo "$file ratio by round: $(ratios s | tr '\n' ' ')(worst $(ratios s | sort -n | head -1))"
    echo "$file PureWebP allocating: ${al[*]} (worst $(printf '%s\n' "${al[@]}" | worst) s)"
    echo "$file allocating ratio by round: $(ratios al | tr '\n' ' ')(worst $(ratios al | sort -n | head -1))"
    if (( ${#t[@]} )); then
        echo "$file PureWebP threads: ${t[*]} (worst $(printf '%s\n' "${t[@]}" | worst) s)"
        echo "$file threads ratio by round: $(ratios t | tr '\n' ' ')(worst $(ratios t | sort -n | head -1))"
    fi
    if (( cg )); then
        for side in "$here/bin/cbench" "$swift"; do
            ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$side" "$corpus/$file" 1 2>&1 \
                 | sed -n 's/.*I *refs: *//p')
            echo "$file $(basename "$side") instructions: $ir"
        done
    fi
done
