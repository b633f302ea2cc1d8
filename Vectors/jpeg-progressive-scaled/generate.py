#!/usr/bin/env python3
"""djpeg's scaled decodes of every progressive JPEG among the other vectors: the references for
the compact coefficient stores (a component decoded with the 2x2 IDCT keeps 25 values and a
history map a block, with the 1x1 IDCT its DC term, its AC scans skipped unread).

Tools: djpeg from libjpeg-turbo 2.1.5 (Debian's libjpeg-turbo-progs) and python3 (standard
library only). Inputs: the progressive files (SOF2, gray or three components) in Vectors/jpeg/valid, Vectors/jpeg-extra,
Vectors/jpeg-damaged and Vectors/regressions that djpeg decodes (warnings allowed).

- `NAME_sN.ppm` / `NAME_sN.pgm`: `djpeg -dct int -scale N/8 -pnm DIR/NAME.jpg` (N = 4, 2, 1).

manifest.tsv: file (relative to Vectors/), scale (N), expected.
Run from anywhere: `python3 Vectors/jpeg-progressive-scaled/generate.py`.
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.dirname(HERE)
FOLDERS = ["jpeg/valid", "jpeg-extra", "jpeg-damaged", "regressions"]


def is_progressive(data):
    """True when the first frame header met is SOF2 with 1 or 3 components (markers walked from
    SOI). Four-component files are left out: djpeg writes no RGB for them."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return False
        marker = data[i + 1]
        if marker == 0xFF or marker == 0x01 or 0xD0 <= marker <= 0xD7:
            i += 1 if marker == 0xFF else 2
            continue
        if marker == 0xC2:
            return i + 9 < len(data) and data[i + 9] in (1, 3)
        if marker in (0xC0, 0xC1, 0xC3, 0xC9, 0xCA, 0xCB, 0xDA, 0xD9):
            return False
        i += 2 + (data[i + 2] << 8 | data[i + 3])
    return False


def main():
    for name in os.listdir(HERE):
        if name.endswith((".ppm", ".pgm")):
            os.remove(os.path.join(HERE, name))
    rows = []
    for folder in FOLDERS:
        directory = os.path.join(VECTORS, folder)
        for name in sorted(os.listdir(directory)):
            if not name.endswith(".jpg"):
                continue
            path = os.path.join(directory, name)
            if not is_progressive(open(path, "rb").read()):
                continue
            for n in (4, 2, 1):
                result = subprocess.run(["djpeg", "-dct", "int", "-scale", f"{n}/8", "-pnm", path],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                # Exit 2 is a decode with warnings (damaged files): its output is still the reference.
                if result.returncode not in (0, 2) or not result.stdout.startswith((b"P5", b"P6")):
                    continue
                stem = folder.replace("/", "_") + "_" + name[:-4]
                expected = f"{stem}_s{n}." + ("pgm" if result.stdout.startswith(b"P5") else "ppm")
                with open(os.path.join(HERE, expected), "wb") as f:
                    f.write(result.stdout)
                rows.append((f"{folder}/{name}", n, expected))
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\tscale\texpected\n")
        for row in rows:
            f.write("\t".join(map(str, row)) + "\n")
    print(f"{len(rows)} references")


if __name__ == "__main__":
    main()
