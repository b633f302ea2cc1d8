#!/usr/bin/env bash
# JPNG size table: each photograph with a soft alpha (Benchmarks/corpus/alpha_*.png, made by
# corpus.sh) as JPNG at quality 0.8 against the same image as PNG at zlib level 9 (ours and
# libpng's, through the C harness), and each JPNG's colour part opened by djpeg.
# Usage: Benchmarks/jpng_sizes.sh [JPNG_BINARY]   (prints a Markdown table)
set -euo pipefail
cd "$(dirname "$0")/.."
jpng=${1:-.build/release/jpng}
[ -x "$jpng" ] || swift build -c release --product jpng --static-swift-stdlib >/dev/null
[ -f Benchmarks/corpus/alpha_5.png ] || bash Benchmarks/corpus.sh >/dev/null
[ -x Benchmarks/bin/cbench ] || { mkdir -p Benchmarks/bin; cc -O2 -o Benchmarks/bin/cbench Benchmarks/harness/bench.c -lpng -ljpeg -lgif; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| image | size | PNG level 9 (PureImage) | PNG level 9 (libpng) | JPNG q0.8 | JPNG / PNG | djpeg opens the JPEG part |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for f in Benchmarks/corpus/alpha_*.png; do
    name=$(basename "$f" .png)
    "$jpng" decode "$f" -o "$tmp/$name.png" --level 9 --force
    "$jpng" encode "$f" "$tmp/$name.jpng" 0.8 --force
    png=$(stat -c %s "$tmp/$name.png")
    jpngsize=$(stat -c %s "$tmp/$name.jpng")
    libpng=$(Benchmarks/bin/cbench encode png "$f" -n 1 --level 9 | awk '{print $(NF-1)}')
    dims=$("$jpng" info "$f" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%dx%d" % (d["width"], d["height"]))')
    djpeg_ok=$(djpeg "$tmp/$name.jpng" > /dev/null 2>&1 && echo yes || echo NO)
    ratio=$(python3 -c "print(f'{100*$jpngsize/min($png,$libpng):.1f}%')")
    echo "| $name | $dims | $png | $libpng | $jpngsize | $ratio | $djpeg_ok |"
done
