#!/usr/bin/env bash
# jpng against libvips (Debian's libvips-tools): `jpng thumbnail` beside `vipsthumbnail` (wall
# time, peak memory, and PSNR of both against a float Lanczos-3 reduction of the full decode)
# and `jpng tile` beside `vips dzsave` on the 192 MP photo, baseline and progressive.
# Writes Benchmarks/results/vips.tsv. See Benchmarks/README.md.
#
#   Benchmarks/vips.sh [-n RUNS] [--only TEXT]   # RUNS pairs after one warm-up pair (default 5)
#
# Environment: JPNG=/path/to/jpng uses that binary instead of building one.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs=5
only=()
while (( $# )); do
    case "$1" in
        -n) runs="$2"; shift 2 ;;
        --only) only=(--only "$2"); shift 2 ;;
        *) echo "usage: $0 [-n RUNS] [--only TEXT]" >&2; exit 2 ;;
    esac
done

"$here/corpus.sh"
[[ -f "$here/corpus/huge.jpg" ]] || python3 "$here/make_huge.py"
# The progressive twin of the 192 MP photo: the same coefficients, libjpeg-turbo's scan script.
[[ -f "$here/corpus/huge_prog.jpg" ]] || jpegtran -progressive -copy all "$here/corpus/huge.jpg" > "$here/corpus/huge_prog.jpg"
if ! command -v vipsthumbnail >/dev/null; then
    echo "vips: installing libvips-tools"
    sudo_if_needed() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libvips-tools >/dev/null
fi
python3 -c "import PIL, numpy" 2>/dev/null || python3 -m pip install -q pillow numpy

if [[ -n "${JPNG:-}" ]]; then
    jpng="$JPNG"
else
    # The Swift runtime linked statically: about 7 ms less start-up on Linux.
    echo "vips: swift build -c release --product jpng --static-swift-stdlib"
    (cd "$root" && swift build -c release --product jpng --static-swift-stdlib)
    jpng="$root/.build/release/jpng"
fi
mkdir -p "$here/results"
python3 "$here/harness/vips.py" --jpng "$jpng" --corpus "$here/corpus" --out "$here/results/vips.tsv" -n "$runs" "${only[@]}"
