#!/usr/bin/env python3
"""Scaled decodes of the 12-bit vectors, with libjpeg-turbo 3's pixels (outputs committed).

Made by djpeg12.c, a small djpeg built here against libjpeg-turbo 3.1.3 as PyPI imagecodecs
2026.3.6 bundles it (imagecodecs.libs/libjpeg-*.so.8.3.2; imagecodecs' own jpeg8_decode cannot
scale), with Debian's jpeglib.h (libjpeg62-turbo-dev) read at JPEG_LIB_VERSION 80, that
library's ABI. Every file of manifest.tsv at 1/2, 1/4 and 1/8 with fancy upsampling, and at
1/1 and 1/2 without it (djpeg's -nosmooth); one lossless file asked for 1/2, which
libjpeg-turbo 3 decodes at full size.

Block smoothing: the progressive files (jpng_*prog*, and jpng_rgb12_420_prog.jpg, written
here by PureImage's jpng from source_rgb12.ppm: $JPNG, default .build/release/jpng) cut at 20%,
50% and 80% of their bytes (scaled/cut*.jpg), decoded at 1/1, 1/2 and 1/8: libjpeg-turbo 3
ends them as at EOI and smooths the blocks whose first AC coefficients are not all known.

scaled/manifest.tsv: file (in this folder or ../jpeg-lossless), scale in eighths, fancy (1/0),
expected (in scaled/: PGM/PPM, MAXVAL 4095, two bytes a sample).
"""
import glob
import os
import subprocess
import tempfile

import imagecodecs

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "scaled")


def build():
    libs = os.path.join(os.path.dirname(os.path.dirname(imagecodecs.__file__)), "imagecodecs.libs")
    lib = glob.glob(os.path.join(libs, "libjpeg-*.so.8*"))[0]
    work = tempfile.mkdtemp()
    config = open("/usr/include/x86_64-linux-gnu/jconfig.h").read()
    open(os.path.join(work, "jconfig.h"), "w").write(config.replace("JPEG_LIB_VERSION  62", "JPEG_LIB_VERSION  80"))
    exe = os.path.join(work, "djpeg12")
    subprocess.run(["cc", "-O2", "-I", work, "-o", exe, os.path.join(HERE, "djpeg12.c"), lib,
                    "-Wl,-rpath," + libs], check=True)
    return exe


def main():
    exe = build()
    os.makedirs(OUT, exist_ok=True)
    rows = []
    files = [line.split("\t")[0] for line in open(os.path.join(HERE, "manifest.tsv")).read().splitlines()[1:]]
    cases = [(f, s, 1) for f in files for s in (4, 2, 1)] + [(f, s, 0) for f in files for s in (8, 4)]
    cases.append(("../jpeg-lossless/lj3_rgb12_p6.jpg", 4, 1))
    jpng = os.environ.get("JPNG", os.path.join(os.path.dirname(os.path.dirname(HERE)), ".build", "release", "jpng"))
    progressive = os.path.join(OUT, "jpng_rgb12_420_prog.jpg")
    subprocess.run([jpng, "decode", os.path.join(HERE, "source_rgb12.ppm"), "-o", progressive, "--force", "--quality", "85",
                    "--precision", "12", "--progressive", "--subsampling", "420"], check=True)
    sources = [progressive] + [os.path.join(HERE, f) for f in files if "prog" in f]
    for source in sources:
        data = open(source, "rb").read()
        for percent in (20, 50, 80):
            name = "cut%d_%s" % (percent, os.path.basename(source))
            open(os.path.join(OUT, name), "wb").write(data[: len(data) * percent // 100])
            cases += [("scaled/" + name, s, 1) for s in (8, 4, 1)]
    for name, scale, fancy in cases:
        stem = os.path.basename(name)[:-4]
        channels = "P5" if "gray" in stem else "P6"
        expected = "%s_s%d%s.%s" % (stem, scale, "" if fancy else "_box", "pgm" if channels == "P5" else "ppm")
        args = [exe, "-scale", "%d/8" % scale] + ([] if fancy else ["-nosmooth"])
        subprocess.run(args + [os.path.join(HERE, name), os.path.join(OUT, expected)], check=True,
                       stderr=subprocess.DEVNULL if name.startswith("scaled/cut") else None)
        rows.append("\t".join([name, str(scale), str(fancy), expected]))
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write("file\tscale\tfancy\texpected\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
