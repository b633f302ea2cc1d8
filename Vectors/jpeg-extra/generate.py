#!/usr/bin/env python3
"""Extra JPEG decoder vectors (outputs committed): layouts and options Vectors/jpeg does not cover.

Needs python3 with Pillow, libjpeg-turbo's cjpeg/djpeg, and grace_hopper.jpg from the matplotlib
wheel (`pip download matplotlib --no-deps -d /tmp/mpl`, unzip), via $MPL_SAMPLE_DATA or
/tmp/mpl/matplotlib/mpl-data/sample_data.

manifest.tsv: file, scale (8 = full, 4, 2, 1), fancy (1 default upsampling, 0 -nosmooth), expected
(djpeg -dct int output), note.
"""
import os
import subprocess
import tempfile

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.environ.get("MPL_SAMPLE_DATA", "/tmp/mpl/matplotlib/mpl-data/sample_data")
TMP = tempfile.mkdtemp(prefix="jpegextra")


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout


def main():
    photo = Image.open(os.path.join(SAMPLE, "grace_hopper.jpg")).convert("RGB").crop((150, 120, 221, 173))  # 71x53
    src = os.path.join(TMP, "src.ppm")
    photo.save(src)
    scripts = {
        "seq3": "0: 0 63 0 0;\n1: 0 63 0 0;\n2: 0 63 0 0;\n",
        "seq2": "0,1: 0 63 0 0;\n2: 0 63 0 0;\n",
    }
    for name, text in scripts.items():
        with open(os.path.join(TMP, name + ".scans"), "w") as f:
            f.write(text)
    files = [
        ("seq_3scans_420", ["-sample", "2x2,1x1,1x1", "-scans", os.path.join(TMP, "seq3.scans")], "sequential, one scan per component"),
        ("seq_2scans_422", ["-sample", "2x1,1x1,1x1", "-scans", os.path.join(TMP, "seq2.scans")], "sequential, Y+Cb interleaved then Cr"),
        ("chroma_wider_1x1_2x2", ["-sample", "1x1,2x2,1x1"], "Cb sampled more densely than Y"),
        ("samp_4x1_2x1_1x2", ["-sample", "4x1,2x1,1x2"], "mixed factors"),
        ("samp_3x1", ["-sample", "3x1,1x1,1x1"], "3x1 luma"),
        ("samp_1x4_restart", ["-sample", "1x4,1x1,1x1", "-restart", "1B"], "1x4 with a restart every MCU"),
        ("prog_420", ["-sample", "2x2,1x1,1x1", "-progressive"], "progressive 4:2:0"),
        ("base_420", ["-sample", "2x2,1x1,1x1"], "baseline 4:2:0"),
        ("dqt16_sof1", ["-quality", "2"], "16-bit quantization tables, so SOF1 (extended)"),
    ]
    rows = []
    for name, args, note in files:
        jpg = os.path.join(HERE, name + ".jpg")
        with open(jpg, "wb") as f:
            f.write(run(["cjpeg", "-quality", "85"] + args + [src]))  # a later -quality wins
        combos = [(8, 1)]
        if name in ("prog_420", "base_420", "samp_4x1_2x1_1x2", "chroma_wider_1x1_2x2"):
            combos += [(4, 1), (2, 1), (1, 1), (8, 0), (4, 0)]
        for scale, fancy in combos:
            out = "%s_s%d%s.ppm" % (name, scale, "" if fancy else "_box")
            cmd = ["djpeg", "-dct", "int", "-scale", "%d/8" % scale] + ([] if fancy else ["-nosmooth"]) + [jpg]
            with open(os.path.join(HERE, out), "wb") as f:
                f.write(run(cmd))
            rows.append("\t".join([name + ".jpg", str(scale), str(fancy), out, note]))
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\tscale\tfancy\texpected\tnote\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
