#!/usr/bin/env python3
"""Arithmetic-coded JPEG vectors (SOF9, SOF10) with djpeg references (outputs committed).

Made by Debian's libjpeg-turbo-progs 2.1.5: `cjpeg -arithmetic` from committed PPM sources
(Vectors/jpeg-extra/base_420_s8.ppm, 71x53, and Vectors/jpeg/valid/s444_q75.ppm, 64x64), and
`jpegtran -arithmetic` transcodes of committed Huffman vectors (CMYK, YCCK, progressive scan
scripts); the expected pixels are `djpeg -dct int` of each arithmetic file (PPM, PGM for gray).

manifest.tsv: file, scale (8 = full, 4, 2, 1), fancy (1 default upsampling, 0 -nosmooth),
expected, note.
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.dirname(HERE)
ODD = os.path.join(VECTORS, "jpeg-extra", "base_420_s8.ppm")
SQUARE = os.path.join(VECTORS, "jpeg", "valid", "s444_q75.ppm")


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout


def main():
    encoded = [
        ("a_444", ODD, ["-sample", "1x1"], "sequential 4:4:4"),
        ("a_422", ODD, ["-sample", "2x1"], "sequential 4:2:2"),
        ("a_420", ODD, ["-sample", "2x2"], "sequential 4:2:0"),
        ("a_440", ODD, ["-sample", "1x2"], "sequential 4:4:0"),
        ("a_411", ODD, ["-sample", "4x1"], "sequential 4:1:1"),
        ("a_420_square", SQUARE, ["-sample", "2x2"], "sequential 4:2:0, 64x64"),
        ("a_420_rst1", ODD, ["-sample", "2x2", "-restart", "1"], "restart every MCU row"),
        ("a_444_rst3b", ODD, ["-sample", "1x1", "-restart", "3B"], "restart every 3 MCUs"),
        ("a_420_rst1b", SQUARE, ["-sample", "2x2", "-restart", "1B"], "restart every MCU"),
        ("a_gray", ODD, ["-grayscale"], "greyscale"),
        ("a_gray_rst2b", ODD, ["-grayscale", "-restart", "2B"], "greyscale, restart every 2 MCUs"),
        ("a_q100", ODD, ["-quality", "100", "-sample", "1x1"], "quality 100 (large magnitudes)"),
        ("a_q5", ODD, ["-quality", "5"], "quality 5 (mostly end-of-block)"),
        ("a_prog_420", ODD, ["-progressive", "-sample", "2x2"], "progressive 4:2:0"),
        ("a_prog_444", ODD, ["-progressive", "-sample", "1x1"], "progressive 4:4:4"),
        ("a_prog_422_square", SQUARE, ["-progressive", "-sample", "2x1"], "progressive 4:2:2, 64x64"),
        ("a_prog_gray", ODD, ["-progressive", "-grayscale"], "progressive greyscale"),
        ("a_prog_420_rst1", ODD, ["-progressive", "-sample", "2x2", "-restart", "1"], "progressive, restart every MCU row"),
        ("a_prog_444_rst2b", SQUARE, ["-progressive", "-sample", "1x1", "-restart", "2B"], "progressive, restart every 2 MCUs"),
        ("a_prog_q100", ODD, ["-progressive", "-quality", "100"], "progressive quality 100"),
    ]
    transcoded = [
        ("t_cmyk", "valid/cmyk_adobe.jpg", [], "CMYK (Adobe, inverted), transcoded"),
        ("t_cmyk_prog", "valid/cmyk_adobe.jpg", ["-progressive"], "CMYK progressive, transcoded"),
        ("t_ycck", "valid/ycck_libjpeg.jpg", [], "YCCK 2x2,1x1,1x1,2x2, transcoded"),
        ("t_ycck_prog_rst", "valid/ycck_libjpeg.jpg", ["-progressive", "-restart", "1B"], "YCCK progressive, restart every MCU"),
    ]
    rows = []

    def references(name, note, gray, scales):
        jpg = name + ".jpg"
        for scale, fancy in scales:
            out = "%s_s%d%s.%s" % (name, scale, "" if fancy else "_box", "pgm" if gray else "ppm")
            cmd = ["djpeg", "-dct", "int", "-scale", "%d/8" % scale] + ([] if fancy else ["-nosmooth"])
            with open(os.path.join(HERE, out), "wb") as f:
                f.write(run(cmd + [os.path.join(HERE, jpg)]))
            rows.append("\t".join([jpg, str(scale), str(fancy), out, note]))

    for name, source, args, note in encoded:
        with open(os.path.join(HERE, name + ".jpg"), "wb") as f:
            f.write(run(["cjpeg", "-arithmetic", "-dct", "int", "-quality", "85"] + args + [source]))
        scales = [(8, 1)]
        if name in ("a_420", "a_prog_420", "a_411"):
            scales += [(4, 1), (2, 1), (1, 1), (8, 0)]
        references(name, note, "-grayscale" in args, scales)
    for name, source, args, note in transcoded:
        with open(os.path.join(HERE, name + ".jpg"), "wb") as f:
            f.write(run(["jpegtran", "-arithmetic"] + args + [os.path.join(VECTORS, "jpeg", source)]))
        references(name, note, False, [(8, 1)])
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\tscale\tfancy\texpected\tnote\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
