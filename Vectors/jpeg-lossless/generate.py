#!/usr/bin/env python3
"""Lossless JPEG (SOF3) vectors with libjpeg-turbo 3's pixels (outputs committed).

Sources: the committed photo crop Vectors/jpeg-extra/base_420_s8.ppm (71x53), widened to 12
and 16 bits with a deterministic dither (numpy, seed 3) and narrowed to 2 bits.

Made by two tools:
- `lj3_*.jpg`: PyPI imagecodecs 2026.3.6 `jpeg8_encode(lossless=True, predictor=N,
  bitspersample=P)`, which carries libjpeg-turbo 3.1.3 (JFIF for gray, Adobe RGB for colour,
  optimal Huffman tables). Its encoder does not take a point transform or restart interval.
- `pt_*.jpg`: written by this script (SOF3, Adobe RGB for colour, a fixed table covering
  categories 0-16, point transforms 1-4, restart intervals on whole rows), T.81 Annex H as written.
Every expected output is imagecodecs `jpeg8_decode` (libjpeg-turbo 3.1.3) of the file: a PGM or
PPM of the raw samples, maxval 255 with one byte a sample up to 8 bits, else maxval 65535 with
two bytes big-endian (the values themselves run 0...2^P - 1).

manifest.tsv: file, precision, predictor, point transform, restart rows, channels, expected, maker.
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
    channels = 1 if a.ndim == 2 else 3
    h, w = a.shape[:2]
    wide = a.dtype != np.uint8
    header = b"%s\n%d %d\n%d\n" % (b"P6" if channels == 3 else b"P5", w, h, 65535 if wide else 255)
    body = a.astype(">u2").tobytes() if wide else a.tobytes()
    open(path, "wb").write(header + body)


class Bits:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value, count):
        for i in range(count - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)
                self.acc = 0
                self.n = 0

    def flush(self):
        if self.n:
            self.put((1 << (8 - self.n)) - 1, 8 - self.n)


# 17 categories: 14 codes of 4 bits, 3 of 5 bits (11111 unused).
COUNTS = [0, 0, 0, 14, 3] + [0] * 11
SYMBOLS = list(range(17))
CODES = {}
code = 0
k = 0
for length, count in enumerate(COUNTS, start=1):
    for _ in range(count):
        CODES[SYMBOLS[k]] = (code, length)
        code += 1
        k += 1
    code <<= 1


def predict(psv, ra, rb, rc):
    return [None, ra, rb, rc, ra + rb - rc, ra + ((rb - rc) >> 1), rb + ((ra - rc) >> 1), (ra + rb) >> 1][psv]


def encode_lossless(samples, precision, psv, pt, restart_rows):
    """samples: h x w x c array of values < 2^precision."""
    h, w, c = samples.shape
    x = (samples.astype(np.int64) >> pt)
    bits = Bits()
    out = bytearray(b"\xff\xd8")
    if c == 3:
        out += b"\xff\xee\x00\x0eAdobe\x00\x64\x00\x00\x00\x00\x00"  # transform 0: RGB, as libjpeg-turbo writes
    ids = [0x52, 0x47, 0x42] if c == 3 else [1]
    sof = bytes([precision]) + h.to_bytes(2, "big") + w.to_bytes(2, "big") + bytes([c])
    for i in range(c):
        sof += bytes([ids[i], 0x11, 0])
    out += b"\xff\xc3" + (len(sof) + 2).to_bytes(2, "big") + sof
    dht = bytes([0]) + bytes(COUNTS) + bytes(SYMBOLS)
    out += b"\xff\xc4" + (len(dht) + 2).to_bytes(2, "big") + dht
    if restart_rows:
        out += b"\xff\xdd\x00\x04" + (restart_rows * w).to_bytes(2, "big")
    sos = bytes([c]) + b"".join(bytes([ids[i], 0]) for i in range(c)) + bytes([psv, 0, pt])
    out += b"\xff\xda" + (len(sos) + 2).to_bytes(2, "big") + sos
    marker = 0
    first = True
    for y in range(h):
        if restart_rows and y > 0 and y % restart_rows == 0:
            bits.flush()
            out += bits.out + bytes([0xFF, 0xD0 + marker])
            bits.out = bytearray()
            marker = (marker + 1) & 7
            first = True
        for xx in range(w):
            for ch in range(c):
                if first:
                    p = (1 << (precision - pt - 1)) if xx == 0 else x[y, xx - 1, ch]
                elif xx == 0:
                    p = x[y - 1, xx, ch]
                else:
                    p = predict(psv, x[y, xx - 1, ch], x[y - 1, xx, ch], x[y - 1, xx - 1, ch])
                d = (int(x[y, xx, ch]) - int(p)) % 65536
                if d > 32768:
                    d -= 65536
                if d == 32768:
                    bits.put(*CODES[16])
                    continue
                n = abs(d).bit_length()
                bits.put(*CODES[n])
                if n:
                    bits.put(d if d >= 0 else d + (1 << n) - 1, n)
        first = False
    bits.flush()
    out += bits.out + b"\xff\xd9"
    return bytes(out)


def main():
    rgb = read_ppm(SOURCE)
    gray = (rgb.astype(np.uint32) @ np.array([299, 587, 114]) // 1000).astype(np.uint8)
    rng = np.random.default_rng(3)
    gray12 = (gray.astype(np.uint16) << 4) | rng.integers(0, 16, gray.shape, dtype=np.uint16)
    gray16 = (gray.astype(np.uint16) * 257) ^ rng.integers(0, 256, gray.shape, dtype=np.uint16)
    rgb12 = (rgb.astype(np.uint16) << 4) | rng.integers(0, 16, rgb.shape, dtype=np.uint16)
    rgb16 = (rgb.astype(np.uint16) * 257) ^ rng.integers(0, 256, rgb.shape, dtype=np.uint16)
    gray2 = gray >> 6
    rows = []

    def emit(name, data, precision, psv, pt, restart, channels, maker):
        open(os.path.join(HERE, name + ".jpg"), "wb").write(data)
        decoded = imagecodecs.jpeg8_decode(data)
        expected = name + (".ppm" if channels == 3 else ".pgm")
        write_pnm(os.path.join(HERE, expected), decoded)
        rows.append("\t".join(map(str, [name + ".jpg", precision, psv, pt, restart, channels, expected, maker])))

    for psv in range(1, 8):
        emit("lj3_gray8_p%d" % psv, imagecodecs.jpeg8_encode(gray, lossless=True, predictor=psv), 8, psv, 0, 0, 1, "libjpeg-turbo 3")
        emit("lj3_gray12_p%d" % psv, imagecodecs.jpeg8_encode(gray12, lossless=True, predictor=psv, bitspersample=12),
             12, psv, 0, 0, 1, "libjpeg-turbo 3")
        emit("lj3_gray16_p%d" % psv, imagecodecs.jpeg8_encode(gray16, lossless=True, predictor=psv, bitspersample=16),
             16, psv, 0, 0, 1, "libjpeg-turbo 3")
    for psv in (1, 4, 7):
        emit("lj3_rgb8_p%d" % psv, imagecodecs.jpeg8_encode(rgb, lossless=True, predictor=psv), 8, psv, 0, 0, 3, "libjpeg-turbo 3")
        emit("lj3_rgb16_p%d" % psv, imagecodecs.jpeg8_encode(rgb16, lossless=True, predictor=psv, bitspersample=16),
             16, psv, 0, 0, 3, "libjpeg-turbo 3")
    emit("lj3_rgb12_p6", imagecodecs.jpeg8_encode(rgb12, lossless=True, predictor=6, bitspersample=12), 12, 6, 0, 0, 3,
         "libjpeg-turbo 3")
    emit("lj3_gray2_p1", imagecodecs.jpeg8_encode(gray2, lossless=True, predictor=1, bitspersample=2), 2, 1, 0, 0, 1,
         "libjpeg-turbo 3")
    emit("pt_gray2_p5", encode_lossless(gray2[..., None], 2, 5, 0, 0), 2, 5, 0, 0, 1, "script")
    emit("pt_gray8_p4_pt2", encode_lossless(gray[..., None], 8, 4, 2, 0), 8, 4, 2, 0, 1, "script")
    emit("pt_gray12_p7_pt3_rst2", encode_lossless(gray12[..., None], 12, 7, 3, 2), 12, 7, 3, 2, 1, "script")
    emit("pt_gray16_p6_pt1", encode_lossless(gray16[..., None], 16, 6, 1, 0), 16, 6, 1, 0, 1, "script")
    emit("pt_gray16_p2_rst1", encode_lossless(gray16[..., None], 16, 2, 0, 1), 16, 2, 0, 1, 1, "script")
    emit("pt_rgb8_p5_pt1_rst3", encode_lossless(rgb, 8, 5, 1, 3), 8, 5, 1, 3, 3, "script")
    emit("pt_rgb12_p3_pt4", encode_lossless(rgb12, 12, 3, 4, 0), 12, 3, 4, 0, 3, "script")
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\tprecision\tpredictor\tpt\trestart\tchannels\texpected\tmaker\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
