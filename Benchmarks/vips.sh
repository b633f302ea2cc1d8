#!/usr/bin/env bash
# jpng against libvips (Debian's libvips-tools): `jpng thumbnail` beside `vipsthumbnail` (wall
# time, peak memory, and PSNR of both against a float Lanczos-3 reduction of the full decode).
# Writes Benchmarks/results/vips.tsv. See Benchmarks/README.md.
#
#   Benchmarks/vips.sh [-n RUNS]        # RUNS pairs after one warm-up pair (default 5)
#
# Environment: JPNG=/path/to/jpng uses that binary instead of building one.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs=5
if [[ "${1:-}" == "-n" ]]; then runs="$2"; fi

"$here/corpus.sh"
[[ -f "$here/corpus/huge.jpg" ]] || python3 "$here/make_huge.py"
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
    echo "vips: swift build -c release --product jpng"
    (cd "$root" && swift build -c release --product jpng)
    jpng="$root/.build/release/jpng"
fi
mkdir -p "$here/results"
python3 "$here/harness/vips.py" --jpng "$jpng" --corpus "$here/corpus" --out "$here/results/vips.tsv" -n "$runs"
