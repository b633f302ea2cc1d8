#!/usr/bin/env bash
# Makes the 30-image palette benchmark set in Benchmarks/palette/set/ (git-ignored).
# Sources: Debian's lomiri-wallpapers-16.04 (photographs) and the matplotlib wheel's sample
# data (grace_hopper.jpg and the other sample images), cut into 512x512 crops by make_set.py
# with Pillow; six of them get an alpha mask (a soft-edged ellipse with a fully transparent
# outside) so transparency is measured too.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/set"
if [[ -d "$out" && $(ls "$out" | wc -l) -ge 30 ]]; then echo "set: complete"; exit 0; fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
( cd "$tmp"
  apt-get download -qq lomiri-wallpapers-16.04 2>/dev/null || { apt-get update -qq && apt-get download -qq lomiri-wallpapers-16.04; }
  dpkg-deb -x lomiri-wallpapers-16.04_*.deb src
  python3 -m pip download -q matplotlib --no-deps --only-binary=:all: -d wheel
  python3 - <<'PY'
import glob, zipfile
w = sorted(glob.glob("wheel/matplotlib-*.whl"))[0]
with zipfile.ZipFile(w) as z:
    for n in z.namelist():
        if "/mpl-data/sample_data/" in n and n.lower().endswith((".jpg", ".png")):
            z.extract(n, "src/mpl")
PY
)
mkdir -p "$out"
python3 "$here/make_set.py" "$tmp/src" "$out"
ls "$out" | wc -l
