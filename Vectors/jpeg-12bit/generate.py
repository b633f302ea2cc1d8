#!/usr/bin/env python3
"""12-bit DCT JPEG vectors (SOF1) with libjpeg-turbo 3's pixels (outputs committed).

Made by PyPI imagecodecs 2026.3.6, which carries libjpeg-turbo 3.1.3: `jpeg8_encode(data,
level=Q, bitspersample=12, subsampling=S, optimize=O)` of the committed photo crop
Vectors/jpeg-extra/base_420_s8.ppm (71x53) widened to 12 bits with a seeded dither (numpy,
seed 3), and of its Rec. 601 luma; the expected output is `jpeg8_decode` of each file, a PGM or
PPM of the raw samples (maxval 65535, two bytes big-endian; the values run 0...4095).

manifest.tsv: file, channels, expected, note.
"""
import os

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
    rows = []

    def emit(name, data, channels, note):
        open(os.path.join(HERE, name + ".jpg"), "wb").write(data)
        expected = name + (".ppm" if channels == 3 else ".pgm")
        write_pnm(os.path.join(HERE, expected), imagecodecs.jpeg8_decode(data))
        rows.append("\t".join([name + ".jpg", str(channels), expected, note]))

    for sub in ["444", "422", "420", "440", "411"]:
        emit("rgb12_q85_" + sub, imagecodecs.jpeg8_encode(rgb12, level=85, bitspersample=12, subsampling=sub), 3,
             "4:" + sub[1] + ":" + sub[2] + " q85")
    emit("rgb12_q85_420_opt", imagecodecs.jpeg8_encode(rgb12, level=85, bitspersample=12, subsampling="420", optimize=True), 3,
         "4:2:0 q85, optimized tables")
    emit("rgb12_q100_444", imagecodecs.jpeg8_encode(rgb12, level=100, bitspersample=12, subsampling="444"), 3, "q100")
    emit("rgb12_q20_420", imagecodecs.jpeg8_encode(rgb12, level=20, bitspersample=12, subsampling="420"), 3, "q20")
    emit("gray12_q85", imagecodecs.jpeg8_encode(gray12, level=85, bitspersample=12), 1, "gray q85")
    emit("gray12_q95_opt", imagecodecs.jpeg8_encode(gray12, level=95, bitspersample=12, optimize=True), 1,
         "gray q95, optimized tables")
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\tchannels\texpected\tnote\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
