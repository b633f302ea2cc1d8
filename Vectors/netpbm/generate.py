#!/usr/bin/env python3
"""Netpbm test vectors: writes Vectors/netpbm/*.{pbm,pgm,ppm,pam}, the pixels each must decode
to (*.raw) and, for the PGM/PPM files cjpeg reads, cjpeg's JPEG of each (*.jpg); manifest.tsv.

    python3 Vectors/netpbm/generate.py

Who made what (this script is the record):
  * every .pbm/.pgm/.ppm/.pam is written by this script from pseudo-random samples (plain
    Python, no library), with the header spellings listed in `cases()` (comments, odd
    whitespace, a comment right after maxval, several TUPLTYPE lines, ...).
  * every .raw holds the pixels PureImage must give: 8-bit samples when maxval <= 255, else
    16-bit big-endian; a maxval other than 255 or 65535 scaled as libjpeg-turbo's rdppm.c
    scales to 8 bits, (v * 255 + maxval // 2) // maxval, and the same to 65535 for 16 bits;
    PBM 1 (black) -> 0, 0 -> 255.
  * every .jpg is `cjpeg -quality 85 -dct int -sample 2x2` (grayscale: `-sample 1x1`) of the
    file (Debian's libjpeg-turbo-progs 2.1.5), for P2/P3/P5/P6: PureImage's JPEG of the decoded
    pixels must be the same bytes, which checks the scaling cjpeg does on read.
  * manifest.tsv: file, width, height, PixelFormat, raw file, cjpeg file or -, note.
"""

import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


class Rng:
    def __init__(self, seed):
        self.s = seed * 2654435761 % 2**32 or 1

    def below(self, n):
        self.s = (self.s * 1103515245 + 12345) % 2**31
        return (self.s >> 8) % n


def samples(n, maxval, seed):
    r = Rng(seed)
    out = [r.below(maxval + 1) for _ in range(n)]
    out[0], out[-1] = 0, maxval
    return out


def scaled(values, maxval):
    top = 255 if maxval <= 255 else 65535
    return [(v * top + maxval // 2) // maxval for v in values]


def raw_of(values, wide):
    if wide:
        return b"".join(v.to_bytes(2, "big") for v in values)
    return bytes(values)


def plain_rows(values, per_line):
    lines = []
    for i in range(0, len(values), per_line):
        lines.append(" ".join(str(v) for v in values[i:i + per_line]))
    return ("\n".join(lines) + "\n").encode()


def cases():
    """(file, width, height, channels, maxval, bytes, expected pixel values, note)."""
    out = []

    def pnm(name, magic, w, h, ch, maxval, seed, header=None, plain_per_line=17, note=""):
        vals = samples(w * h * ch, maxval, seed)
        head = header if header is not None else "P%d\n%d %d\n%d\n" % (magic, w, h, maxval)
        if magic in (2, 3):
            body = plain_rows(vals, plain_per_line)
        else:
            body = raw_of(vals, maxval > 255)
        out.append((name, w, h, ch, maxval, head.encode() + body, scaled(vals, maxval), note))

    pnm("gray_p5.pgm", 5, 13, 7, 1, 255, 1, note="raw PGM, maxval 255")
    pnm("rgb_p6.ppm", 6, 13, 7, 3, 255, 2, note="raw PPM, maxval 255")
    pnm("gray_p5_maxval15.pgm", 5, 9, 5, 1, 15, 3, note="raw PGM, maxval 15 (scaled to 255)")
    pnm("rgb_p6_maxval100.ppm", 6, 11, 6, 3, 100, 4, note="raw PPM, maxval 100 (scaled)")
    pnm("rgb_p6_maxval1000.ppm", 6, 10, 4, 3, 1000, 5, note="raw PPM, 16-bit samples, maxval 1000 (scaled to 65535)")
    pnm("rgb_p6_16bit.ppm", 6, 10, 4, 3, 65535, 6, note="raw PPM, maxval 65535")
    pnm("gray_p5_4095.pgm", 5, 7, 6, 1, 4095, 7, note="raw PGM, 12-bit values, maxval 4095")
    pnm("gray_p2.pgm", 2, 13, 7, 1, 255, 8,
        header="P2\n# a comment line\n13 7 # after the height\n255\n", plain_per_line=5,
        note="plain PGM with comments in the header")
    pnm("rgb_p3.ppm", 3, 9, 5, 3, 255, 9, header="P3 9\t5\r\n255 ", plain_per_line=1,
        note="plain PPM, one sample per line, tabs and CR LF in the header")
    pnm("rgb_p3_maxval7.ppm", 3, 8, 3, 3, 7, 10, note="plain PPM, maxval 7")
    pnm("gray_p2_16bit.pgm", 2, 6, 4, 1, 65535, 11, note="plain PGM, maxval 65535")
    pnm("gray_p5_comment_after_maxval.pgm", 5, 8, 4, 1, 255, 12,
        header="P5 8 4 255#the raster starts after this comment's line end\n",
        note="raw PGM whose maxval is ended by a comment (cjpeg skips it)")
    pnm("rgb_p6_1x1.ppm", 6, 1, 1, 3, 255, 13, note="1x1 raw PPM")

    # PBM: 1 is black.
    def pbm(name, magic, w, h, seed, note):
        bits = samples(w * h, 1, seed)
        if magic == 1:
            body = ("\n".join("".join(str(b) for b in bits[y * w:(y + 1) * w]) for y in range(h)) + "\n").encode()
        else:
            body = b""
            for y in range(h):
                row = bits[y * w:(y + 1) * w] + [0] * (-w % 8)
                body += bytes(int("".join(map(str, row[i:i + 8])), 2) for i in range(0, len(row), 8))
        head = ("P%d\n%d %d\n" % (magic, w, h)).encode()
        out.append((name, w, h, 1, 1, head + body, [0 if b else 255 for b in bits], note))

    pbm("bits_p1.pbm", 1, 13, 7, 20, "plain PBM, digits without spaces")
    pbm("bits_p4.pbm", 4, 13, 7, 21, "raw PBM, 13 pixels a row: 3 padding bits")

    # PAM.
    def pam(name, w, h, depth, maxval, tupl, seed, extra="", note=""):
        vals = samples(w * h * depth, maxval, seed)
        head = "P7\n%sWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\n%sENDHDR\n" % (extra, w, h, depth, maxval, tupl)
        out.append((name, w, h, depth, maxval, head.encode() + raw_of(vals, maxval > 255), scaled(vals, maxval), note))

    pam("gray.pam", 7, 5, 1, 255, "TUPLTYPE GRAYSCALE\n", 30, note="PAM GRAYSCALE")
    pam("gray_alpha.pam", 7, 5, 2, 255, "TUPLTYPE GRAYSCALE_ALPHA\n", 31, note="PAM GRAYSCALE_ALPHA")
    pam("rgb.pam", 7, 5, 3, 255, "TUPLTYPE RGB\n", 32, extra="# written by generate.py\n", note="PAM RGB with a comment")
    pam("rgba_16bit.pam", 7, 5, 4, 65535, "TUPLTYPE RGB_ALPHA\n", 33, note="PAM RGB_ALPHA, 16-bit")
    pam("rgba_maxval1000.pam", 5, 3, 4, 1000, "", 34, note="PAM of depth 4 without TUPLTYPE, maxval 1000")
    pam("blackandwhite.pam", 9, 4, 1, 1, "TUPLTYPE BLACKANDWHITE\n", 35, note="PAM BLACKANDWHITE (0 black, 1 white)")
    pam("two_tupltypes.pam", 3, 2, 3, 255, "TUPLTYPE RGB\nTUPLTYPE EXTRA\n", 36, note="two TUPLTYPE lines (joined)")
    return out


FORMATS = {(1, False): "gray8", (2, False): "grayAlpha8", (3, False): "rgb8", (4, False): "rgba8",
           (1, True): "gray16", (2, True): "grayAlpha16", (3, True): "rgb16", (4, True): "rgba16"}


def main():
    for f in os.listdir(HERE):
        if f.split(".")[-1] in ("pbm", "pgm", "ppm", "pam", "raw", "jpg"):
            os.remove(os.path.join(HERE, f))
    rows = []
    for (name, w, h, ch, maxval, data, pixels, note) in cases():
        assert len(pixels) == w * h * ch
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        stem = name.rsplit(".", 1)[0]
        wide = maxval > 255
        with open(os.path.join(HERE, stem + ".raw"), "wb") as f:
            f.write(raw_of(pixels, wide))
        ref = "-"
        if name.endswith(".pgm") or name.endswith(".ppm"):
            sample = "1x1" if ch == 1 else "2x2"
            jpg = subprocess.run(["cjpeg", "-quality", "85", "-dct", "int", "-sample", sample, os.path.join(HERE, name)],
                                 capture_output=True, check=True).stdout
            ref = stem + ".jpg"
            with open(os.path.join(HERE, ref), "wb") as f:
                f.write(jpg)
        rows.append((name, str(w), str(h), FORMATS[(ch, wide)], stem + ".raw", ref, note))
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\twidth\theight\tformat\tpixels\tcjpeg\tnote\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print("%d Netpbm vectors, %d with cjpeg references" % (len(rows), sum(r[5] != "-" for r in rows)))


if __name__ == "__main__":
    main()
