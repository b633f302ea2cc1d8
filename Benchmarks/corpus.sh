#!/usr/bin/env bash
# Makes the benchmark corpus in Benchmarks/corpus/ (git-ignored, never committed).
#
# Sources: the Debian package lomiri-wallpapers-16.04 (large photographic wallpapers) and the
# matplotlib wheel (mpl-data/sample_data/grace_hopper.jpg). make_corpus.py turns them into
# the PNG, JPEG and GIF files the benchmarks read. Files that already exist are kept, so
# running this again is cheap. Works on a fresh Debian machine: installs the tools it needs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/corpus"
want=(photo12.png alpha4.png photo12_420.jpg photo12_prog.jpg photo12_444.jpg
      photo12_gray.jpg photo1.jpg photo1_prog.jpg anim100.gif alpha_1.png alpha_2.png alpha_3.png
      alpha_4.png alpha_5.png)

missing=0
for f in "${want[@]}"; do [[ -s "$out/$f" ]] || missing=1; done
if [[ $missing == 0 ]]; then
    echo "corpus: complete in $out"
    exit 0
fi

sudo_if_needed() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

# System tools: cjpeg (libjpeg-turbo-progs); the -dev packages are for the C harness.
pkgs=(libpng-dev libjpeg62-turbo-dev libgif-dev libjpeg-turbo-progs pkg-config)
absent=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || absent+=("$p")
done
if (( ${#absent[@]} )); then
    echo "corpus: installing ${absent[*]}"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${absent[@]}" >/dev/null
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "corpus: installing python3-pip"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null
fi
if ! python3 -c 'import PIL, numpy' 2>/dev/null; then
    echo "corpus: installing pillow numpy"
    # Debian's own python3 refuses plain pip installs (PEP 668): then override that, or
    # fall back to Debian's packages.
    python3 -m pip install -q pillow numpy 2>/dev/null \
        || python3 -m pip install -q --break-system-packages pillow numpy 2>/dev/null \
        || sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pil python3-numpy >/dev/null
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/wheel"
(
    cd "$tmp"
    echo "corpus: downloading lomiri-wallpapers-16.04"
    apt-get download -qq lomiri-wallpapers-16.04 2>/dev/null \
        || { sudo_if_needed apt-get update -qq && apt-get download -qq lomiri-wallpapers-16.04; }
    dpkg-deb -x lomiri-wallpapers-16.04_*.deb "$tmp/src/lomiri"
    echo "corpus: downloading the matplotlib wheel"
    python3 -m pip download -q matplotlib --no-deps --only-binary=:all: -d "$tmp/wheel"
    python3 - "$tmp/wheel" "$tmp/src/matplotlib" <<'EOF'
import glob, os, sys, zipfile
wheel = sorted(glob.glob(os.path.join(sys.argv[1], "matplotlib-*.whl")))[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if "/mpl-data/sample_data/" in name and name.lower().endswith((".jpg", ".png")):
            z.extract(name, sys.argv[2])
EOF
)
mkdir -p "$out"
python3 "$here/make_corpus.py" "$tmp/src" "$out"
ls -l "$out"
