#!/usr/bin/env python3
"""12-bit DCT JPEG vectors (SOF1) with libjpeg-turbo 3's pixels (outputs committed).

Made by PyPI imagecodecs 2026.3.6, which carries libjpeg-turbo 3.1.3 (`jpng_*` files: written
by PureImage's jpng, for the restart intervals, progressive scans and arithmetic coding that
imagecodecs cannot request; their pixels are libjpeg-turbo 3's all the same): `jpeg8_encode(data,
level=Q, bitspersample=12, subsampling=S, optimize=O)` of the committed photo crop
Vectors/jpeg-extra/base_420_s8.ppm (71x53) widened to 12 bits with a seeded dither (numpy,
seed 3), and of its Rec. 601 luma; the expected output is `jpeg8_decode` of each file, a PGM or
PPM of the raw samples (maxval 65535, two bytes big-endian; the values run 0...4095).

source_rgb12.ppm and source_gray12.pgm are those inputs (maxval 4095), which the encoder tests
re-encode byte for byte.

manifest.tsv: file, channels, expected, note, quality, subsampling (- for gray).
"""
import os
import subprocess

import imagecodecs
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), "jpeg-extra", "base_420_s8.ppm")


def read_ppm(path):
    data = open(path, "rb").read()
    parts = data.split(maxsplit=4)
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(parts[4][: w * h * 3], dtype=np.uint8).reshape(h, w, 3)


def write_pnm(path, a):
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[..., 0]
    channels = 1 if a.ndim == 2 else 3
    h, w = a.shape[:2]
    header = b"%s\n%d %d\n65535\n" % (b"P6" if channels == 3 else b"P5", w, h)
    open(path, "wb").write(header + a.astype(">u2").tobytes())


def main():
    rgb = read_ppm(SOURCE)
    rng = np.random.default_rng(3)
    rgb12 = (rgb.astype(np.uint16) << 4) | rng.integers(0, 16, rgb.shape, dtype=np.uint16)
    gray12 = ((rgb.astype(np.uint32) @ np.array([299, 587, 114]) // 1000).astype(np.uint16) << 4)[..., None]
    gray12 |= rng.integers(0, 16, gray12.shape, dtype=np.uint16)
    gray12 = np.ascontiguousarray(gray12[..., 0])
    # The inputs, committed too: the encoder tests re-encode them (maxval 4095, two bytes a sample).
    for name, a in [("source_rgb12.ppm", rgb12), ("source_gray12.pgm", gray12)]:
        channels = 1 if a.ndim == 2 else 3
        h, w = a.shape[:2]
        header = b"%s\n%d %d\n4095\n" % (b"P6" if channels == 3 else b"P5", w, h)
        open(os.path.join(HERE, name), "wb").write(header + a.astype(">u2").tobytes())
    rows = []

    def emit(name, data, channels, note, settings=""):
        open(os.path.join(HERE, name + ".jpg"), "wb").write(data)
        expected = name + (".ppm" if channels == 3 else ".pgm")
        write_pnm(os.path.join(HERE, expected), imagecodecs.jpeg8_decode(data))
        rows.append("\t".join([name + ".jpg", str(channels), expected, note, settings]))

    cases = [("rgb12_q85_" + sub, rgb12, 85, sub, False, "4:" + sub[1] + ":" + sub[2] + " q85")
             for sub in ["444", "422", "420", "440", "411"]]
    cases += [("rgb12_q85_420_opt", rgb12, 85, "420", True, "4:2:0 q85, optimize=True"),
              ("rgb12_q100_444", rgb12, 100, "444", False, "q100"),
              ("rgb12_q20_420", rgb12, 20, "420", False, "q20"),
              ("gray12_q85", gray12, 85, None, False, "gray q85"),
              ("gray12_q95_opt", gray12, 95, None, True, "gray q95, optimize=True")]
    for name, a, q, sub, opt, note in cases:
        args = {"level": q, "bitspersample": 12}
        if sub:
            args["subsampling"] = sub
        if opt:
            args["optimize"] = True
        emit(name, imagecodecs.jpeg8_encode(a, **args), 3 if a.ndim == 3 else 1, note, "%d\t%s" % (q, sub or "-"))
    # 12-bit files with restart intervals, progressive scans and arithmetic coding, which
    # imagecodecs cannot ask libjpeg-turbo 3 to write: written by PureImage's jpng from the
    # committed sources ($JPNG, default .build/release/jpng), the pixels still libjpeg-turbo 3's.
    jpng = os.environ.get("JPNG", os.path.join(os.path.dirname(os.path.dirname(HERE)), ".build", "release", "jpng"))
    made = [("jpng_rgb12_420_rst3", "source_rgb12.ppm", ["--subsampling", "420", "--restart", "3"], "4:2:0 q85, restart every 3 MCUs"),
            ("jpng_rgb12_444_prog", "source_rgb12.ppm", ["--subsampling", "444", "--progressive"], "4:4:4 q85, progressive"),
            ("jpng_rgb12_420_arith", "source_rgb12.ppm", ["--subsampling", "420", "--arithmetic"], "4:2:0 q85, arithmetic"),
            ("jpng_rgb12_422_prog_arith_rst2", "source_rgb12.ppm",
             ["--subsampling", "422", "--progressive", "--arithmetic", "--restart", "2"], "4:2:2, progressive, arithmetic, restarts"),
            ("jpng_gray12_prog_rst5", "source_gray12.pgm", ["--progressive", "--restart", "5"], "gray, progressive, restarts")]
    for name, source, args, note in made:
        out = os.path.join(HERE, name + ".jpg")
        subprocess.run([jpng, "decode", os.path.join(HERE, source), "-o", out, "--force", "--quality", "85",
                        "--precision", "12"] + args, check=True)
        emit(name, open(out, "rb").read(), 1 if source.endswith(".pgm") else 3, note + " (jpng)", "-\t-")
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\tchannels\texpected\tnote\tquality\tsubsampling\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
