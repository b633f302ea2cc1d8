#!/usr/bin/env bash
# Whole-process timings: `jpng` commands against djpeg, pngtopnm, cjpeg and pnmtopng on the
# benchmark photographs (wall time and peak memory, start-up and file I/O included); writes
# Benchmarks/results/cli.tsv and redraws Benchmarks/chart.svg. See Benchmarks/README.md.
#
#   Benchmarks/cli.sh [-n RUNS] [--only PREFIX]   # RUNS pairs after one warm-up pair (default 7);
#                                                 # --only: those operations, the file's other rows kept
#
# Environment: JPNG=/path/to/jpng uses that binary instead of building one.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs=7
only=()
while (( $# )); do
    case "$1" in
        -n) [[ $# -ge 2 ]] || { echo "usage: $0 [-n RUNS] [--only PREFIX]" >&2; exit 2; }; runs="$2"; shift 2 ;;
        --only) [[ $# -ge 2 ]] || { echo "usage: $0 [-n RUNS] [--only PREFIX]" >&2; exit 2; }; only=(--only "$2"); shift 2 ;;
        *) echo "usage: $0 [-n RUNS] [--only PREFIX]" >&2; exit 2 ;;
    esac
done

"$here/corpus.sh"

# The reference tools: libjpeg-turbo's djpeg/cjpeg and netpbm's pngtopnm/pnmtopng (libpng).
need=()
command -v djpeg >/dev/null && command -v cjpeg >/dev/null || need+=(libjpeg-turbo-progs)
command -v pngtopnm >/dev/null && command -v pnmtopng >/dev/null || need+=(netpbm)
command -v ffmpeg >/dev/null || need+=(ffmpeg)
if (( ${#need[@]} )); then
    echo "cli: installing ${need[*]}"
    sudo_if_needed() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [[ -n "${JPNG:-}" ]]; then
    jpng="$JPNG"
else
    echo "cli: swift build -c release --product jpng --static-swift-stdlib"
    (cd "$root" && swift build -c release --product jpng --static-swift-stdlib)
    jpng="$root/.build/release/jpng"
fi

# The APNG comparisons read ffmpeg's conversion of the GIF benchmark animation; Pillow walks it.
python3 -c "import PIL" 2>/dev/null || python3 -m pip install -q pillow
[[ -f "$here/corpus/anim100_apng.png" ]] || ffmpeg -v error -y -i "$here/corpus/anim100.gif" -plays 0 -f apng "$here/corpus/anim100_apng.png"

# Raw pixels for the PPM -> JPEG row: pngtopnm's output for the 12 MP photograph.
[[ -f "$here/corpus/photo12.ppm" ]] || pngtopnm "$here/corpus/photo12.png" > "$here/corpus/photo12.ppm"

mkdir -p "$here/results"
python3 "$here/harness/cli.py" --jpng "$jpng" --corpus "$here/corpus" --out "$here/results/cli.tsv" -n "$runs" "${only[@]}"
python3 "$here/chart.py"
