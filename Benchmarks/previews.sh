#!/usr/bin/env bash
# Issue 3's preview target: a progressive JPEG decoded incrementally (ImageSource, 4096-byte
# appends) with preview() rendered after each of its 10 scans, against the one-shot decode.
# `jpng bench --previews` alternates the two decodes N times and divides the medians; this
# repeats that ROUNDS times per file and prints a Markdown table with every round and the median.
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
(cd "$root" && swift build -c release --product jpng >/dev/null)
jpng="$root/.build/release/jpng"
echo "| file | scans | one-shot MP/s | previews / one-shot, each round | median |"
echo "| --- | --- | --- | --- | --- |"
for f in "${files[@]}"; do
    [[ -s "$f" ]] || { echo "missing $f (run Benchmarks/corpus.sh)" >&2; exit 1; }
    scans=$("$jpng" info "$f" | awk '/scans:/ {print $2}')
    pixels=$("$jpng" info "$f" | head -1 | sed -E 's/.* ([0-9]+)x([0-9]+),.*/\1 \2/' | awk '{print $1 * $2}')
    # About 2 s of decoding per round whatever the size, at least 5 of each.
    count=$n
    (( count > 0 )) || count=$(( pixels > 4000000 ? 5 : 21 ))
    ratios=()
    speeds=()
    for (( r = 0; r < rounds; r++ )); do
        out=$("$jpng" bench "$f" -n "$count" --previews)
        speeds+=("$(echo "$out" | awk '/^decode/ {print $(NF-1)}')")
        ratios+=("$(echo "$out" | awk '/^previews/ {sub("x", "", $(NF-3)); print $(NF-3)}')")
    done
    median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
    speed=$(printf '%s\n' "${speeds[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
    echo "| $(basename "$f") | $scans | $speed | ${ratios[*]} | **${median}x** |"
done
