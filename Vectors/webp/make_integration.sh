#!/usr/bin/env bash
# Vectors for the PureImage integration tests of WebP (Tests/PureImageTests/WebPIntegrationTests.swift):
# tall stills for the streamed thumbnail path. The source is a generated PPM (python3, a seeded
# gradient with texture, not committed); the .webp files are made by cwebp from Debian's `webp`
# package (libwebp 1.2.4):
#   int_tall_lossy.webp      cwebp -q 60                (VP8, 48x3000)
#   int_tall_lossless.webp   cwebp -lossless -exact     (VP8L with alpha, 40x1200, from a PAM)
# Usage: ./make_integration.sh (in Vectors/webp)
set -euo pipefail
cd "$(dirname "$0")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys, random
out = sys.argv[1]
random.seed(7)
w, h = 48, 3000
rows = bytearray()
for y in range(h):
    for x in range(w):
        n = random.randrange(24)
        rows += bytes(((x * 5 + n) & 255, (y // 4 + n) & 255, ((x + y) * 3) & 255))
open(f"{out}/tall.ppm", "wb").write(b"P6\n%d %d\n255\n" % (w, h) + rows)
w, h = 40, 1200
rows = bytearray()
for y in range(h):
    for x in range(w):
        rows += bytes(((x * 6) & 255, (y // 3) & 255, 128, (x * 6 + y) & 255))
open(f"{out}/tall.pam", "wb").write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (w, h) + rows)
PY
cwebp -quiet -q 60 "$tmp/tall.ppm" -o int_tall_lossy.webp
# cwebp reads PAM through its PNM reader (RGB_ALPHA kept).
cwebp -quiet -lossless -exact "$tmp/tall.pam" -o int_tall_lossless.webp
ls -l int_tall_lossy.webp int_tall_lossless.webp
