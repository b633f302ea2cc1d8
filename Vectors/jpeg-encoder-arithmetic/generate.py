#!/usr/bin/env python3
"""Golden files for the arithmetic-coding encoder: `cjpeg -arithmetic` (Debian's
libjpeg-turbo-progs 2.1.5) of the committed inputs in Vectors/jpeg-encoder. The Swift tests
encode each input with the same settings and compare bytes.

manifest.tsv: output, input, quality, subsampling, progressive, restart (MCUs), grayscale.
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(os.path.dirname(HERE), "jpeg-encoder")
SAMPLE = {"444": "1x1", "422": "2x1", "420": "2x2"}


def main():
    rows = []

    def case(inp, q, sub="420", prog=0, restart=0, gray=0):
        stem = inp.split(".")[0]
        name = f"{stem}_q{q}_{sub}" + ("_prog" if prog else "") + (f"_rst{restart}" if restart else "") \
            + ("_gray" if gray else "") + ".jpg"
        one = gray or inp.endswith(".pgm")
        args = ["cjpeg", "-arithmetic", "-quality", str(q), "-dct", "int", "-sample", "1x1" if one else SAMPLE[sub]]
        if q < 25:
            args.append("-baseline")  # 8-bit DQT, as the encoder always writes
        if prog:
            args.append("-progressive")
        if restart:
            args += ["-restart", f"{restart}B"]
        if gray:
            args.append("-grayscale")
        with open(os.path.join(INPUTS, inp), "rb") as f:
            data = subprocess.run(args, stdin=f, capture_output=True, check=True).stdout
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        rows.append("\t".join(map(str, [name, inp, q, sub, prog, restart, gray])))

    for inp in ["photo_64x48.ppm", "photo_37x29.ppm", "photo_17x9.ppm", "noise_24x16.ppm", "tiny_1x1.ppm",
                "bars_40x20.ppm", "photo_130x97.ppm"]:
        for sub in ["420", "422", "444"]:
            case(inp, 75, sub)
        case(inp, 85, "420", prog=1)
    case("photo_130x97.ppm", 100, "444")
    case("photo_130x97.ppm", 10, "420")
    case("noise_24x16.ppm", 100, "444", prog=1)
    case("photo_130x97.ppm", 75, "420", restart=3)
    case("photo_130x97.ppm", 75, "444", prog=1, restart=5)
    case("photo_130x97.ppm", 75, "420", gray=1)
    case("photo_130x97.ppm", 90, "420", prog=1, gray=1)
    case("photo_gray_45x31.pgm", 75, "420")
    case("photo_gray_45x31.pgm", 75, "420", prog=1, restart=2)
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
