#!/usr/bin/env bash
# Issue 3's preview target: a progressive JPEG decoded incrementally (ImageSource, 4096-byte
# appends) with preview() rendered after each of its 10 scans, against the one-shot decode.
# `jpng bench --previews` alternates the two decodes N times and divides the medians; this
# repeats that ROUNDS times per file and prints a Markdown table with every round and the median.
# Beside it, each round also runs libjpeg-turbo's own per-scan display (`cbench --previews`:
# buffered-image mode, one output pass per scan, alternated with its one-shot decode), and the
# table gives its ratio and how the two preview decodes compare in time.
#   Benchmarks/previews.sh [--rounds R] [--n N] [FILE...]
# Default files: Benchmarks/corpus/photo1_prog.jpg and photo12_prog.jpg (Benchmarks/corpus.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
rounds=5
n=0
files=()
while (( $# )); do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --n) n="$2"; shift 2 ;;
        *) files+=("$1"); shift ;;
    esac
done
(( ${#files[@]} )) || files=("$here/corpus/photo1_prog.jpg" "$here/corpus/photo12_prog.jpg")
(cd "$root" && swift build -c release --product jpng --static-swift-stdlib >/dev/null)
jpng="$root/.build/release/jpng"
mkdir -p "$here/bin"
cc -O2 -o "$here/bin/cbench" "$here/harness/bench.c" -lpng -ljpeg -lgif
cbench="$here/bin/cbench"
echo "| file | scans | one-shot MP/s | previews / one-shot, each round | median | libjpeg-turbo one-shot MP/s | libjpeg-turbo previews / its one-shot (median) | preview decode speed, PureImage / libjpeg-turbo (median) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for f in "${files[@]}"; do
    [[ -s "$f" ]] || { echo "missing $f (run Benchmarks/corpus.sh)" >&2; exit 1; }
    scans=$("$jpng" info "$f" | awk '/scans:/ {print $2}')
    pixels=$("$jpng" info "$f" | head -1 | sed -E 's/.* ([0-9]+)x([0-9]+),.*/\1 \2/' | awk '{print $1 * $2}')
    # About 2 s of decoding per round whatever the size, at least 5 of each.
    count=$n
    (( count > 0 )) || count=$(( pixels > 4000000 ? 5 : 21 ))
    ratios=() speeds=() cratios=() cspeeds=() versus=()
    for (( r = 0; r < rounds; r++ )); do
        out=$("$jpng" bench "$f" -n "$count" --previews)
        speed=$(echo "$out" | awk '/^decode/ {print $(NF-1)}')
        ratio=$(echo "$out" | awk '/^previews/ {sub("x", "", $(NF-3)); print $(NF-3)}')
        cout=$("$cbench" decode jpeg "$f" -n "$count" --previews)
        cspeed=$(echo "$cout" | awk '/^decode/ {print $(NF-1)}')
        cratio=$(echo "$cout" | awk '/^previews/ {sub("x", "", $(NF-3)); print $(NF-3)}')
        speeds+=("$speed") ratios+=("$ratio") cspeeds+=("$cspeed") cratios+=("$cratio")
        # Preview decode time is one-shot time times the ratio: speed / ratio, per side.
        versus+=("$(awk -v s="$speed" -v r="$ratio" -v cs="$cspeed" -v cr="$cratio" 'BEGIN {printf "%.2f", (s / r) / (cs / cr)}')")
    done
    med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
    echo "| $(basename "$f") | $scans | $(med "${speeds[@]}") | ${ratios[*]} | **$(med "${ratios[@]}")x** | $(med "${cspeeds[@]}") | $(med "${cratios[@]}")x | $(med "${versus[@]}") |"
done
