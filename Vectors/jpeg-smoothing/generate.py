#!/usr/bin/env python3
"""Progressive JPEGs whose scans stop before the first AC coefficients are exact, with djpeg
references: the files libjpeg-turbo decodes with interblock smoothing (jdcoefct.c
decompress_smooth_data, on by default).

Tools: cjpeg, djpeg and jpegtran from libjpeg-turbo 2.1.5 (Debian's libjpeg-turbo-progs) and
python3 (standard library only). Source pixels: crops of Vectors/jpeg/valid/photo256_420_q90.ppm.

- `*.jpg` made by `cjpeg -quality Q -sample S -scans SCRIPT` (a scan script that stops early) or,
  for `cut_*`, by `cjpeg -progressive` (the standard script) cut after its k-th scan with FF D9
  appended (what a download cut at a scan boundary gives once libjpeg supplies EOI).
- `*_sN.ppm` / `*_sN.pgm`: `djpeg -dct int -scale N/8 -pnm FILE` (N = 8, 4, 2, 1).

manifest.tsv: file, scale, expected, note.
Run from anywhere: `python3 Vectors/jpeg-smoothing/generate.py`.
"""
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "jpeg", "valid", "photo256_420_q90.ppm")
TMP = tempfile.mkdtemp(prefix="jpegsmooth")


def run(args, data=None):
    return subprocess.run(args, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout


def read_ppm(path):
    data = open(path, "rb").read()
    fields, i = [], 0
    while len(fields) < 4:
        while data[i] in b" \t\r\n":
            i += 1
        j = i
        while data[j] not in b" \t\r\n":
            j += 1
        fields.append(data[i:j])
        i = j
    assert fields[0] == b"P6" and fields[3] == b"255"
    return int(fields[1]), int(fields[2]), data[i + 1:]


def crop(x0, y0, w, h):
    """A PPM file of the source's w x h pixels at (x0, y0)."""
    width, _, pixels = read_ppm(SOURCE)
    rows = [pixels[((y0 + y) * width + x0) * 3:((y0 + y) * width + x0 + w) * 3] for y in range(h)]
    path = os.path.join(TMP, "crop_%d_%d_%dx%d.ppm" % (x0, y0, w, h))
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + b"".join(rows))
    return path


def script(name, text):
    path = os.path.join(TMP, name + ".scans")
    with open(path, "w") as f:
        f.write(text)
    return path


def cut_after(jpeg, k):
    """The bytes of `jpeg` up to the end of its k-th scan (before the next marker that is not RSTn
    or a stuffed 0xFF), then EOI."""
    i, scans = 2, 0
    while True:
        assert jpeg[i] == 0xFF
        marker = jpeg[i + 1]
        length = jpeg[i + 2] << 8 | jpeg[i + 3]
        i += 2 + length
        if marker == 0xDA:
            while not (jpeg[i] == 0xFF and jpeg[i + 1] != 0 and not 0xD0 <= jpeg[i + 1] <= 0xD7):
                i += 1
            scans += 1
            if scans == k:
                return jpeg[:i] + b"\xff\xd9"


# The standard YCbCr script (jcparam.c jpeg_simple_progression) and parts of it.
STANDARD = [
    "0,1,2: 0-0, 0, 1;",
    "0: 1-5, 0, 2;",
    "2: 1-63, 0, 1;",
    "1: 1-63, 0, 1;",
    "0: 6-63, 0, 2;",
    "0: 1-63, 2, 1;",
    "0,1,2: 0-0, 1, 0;",
    "2: 1-63, 1, 0;",
    "1: 1-63, 1, 0;",
    "0: 1-63, 1, 0;",
]
SCRIPTS = {
    # Every scan but the last three AC refinements: AC exact to Al = 1, DC exact.
    "no_ac_refine": "\n".join(STANDARD[:7]),
    # DC only, one bit short: DC interpolation (change_dc) with a partial DC.
    "dc_only_al1": "0,1,2: 0-0, 0, 1;",
    # DC only, exact.
    "dc_only": "0,1,2: 0-0, 0, 0;",
    # DC exact, then its first 2 AC coefficients only (3...9 never sent: estimates without a cap).
    "ac1_2": "0,1,2: 0-0, 0, 0;\n0: 1-2, 0, 0;\n1: 1-2, 0, 0;\n2: 1-2, 0, 0;",
    # Luma complete, chroma DC only: smoothing per component, DC interpolation in chroma only.
    "luma_full": "0,1,2: 0-0, 0, 0;\n0: 1-63, 0, 0;",
    # Large Al (estimates capped at 2^Al - 1), DC refined partially (Al 2 then 1).
    "high_al": "0,1,2: 0-0, 0, 2;\n0: 1-9, 0, 3;\n1: 1-9, 0, 2;\n2: 1-63, 0, 4;\n0,1,2: 0-0, 2, 1;\n0: 10-63, 0, 1;",
    # Separate DC scans, the spectral bands split at 5 and 9; chroma AC not refined.
    "split": "0: 0-0, 0, 0;\n1: 0-0, 0, 0;\n2: 0-0, 0, 1;\n0: 1-5, 0, 1;\n0: 6-63, 0, 0;\n"
             "1: 1-9, 0, 1;\n2: 1-63, 0, 0;\n0: 1-5, 1, 0;",
    # Gray.
    "gray_partial": "0: 0-0, 0, 1;\n0: 1-5, 0, 2;\n0: 6-63, 0, 2;\n0: 1-63, 2, 1;\n0: 0-0, 1, 0;",
    "gray_dc": "0: 0-0, 0, 0;",
}

# name, crop (x, y, w, h), cjpeg options, scan script or ("cut", k), note
FILES = [
    ("noref_420_100x75", (70, 90, 100, 75), ["-sample", "2x2,1x1,1x1"], "no_ac_refine", "4:2:0, AC refinements missing"),
    ("noref_444_33x31", (120, 40, 33, 31), ["-sample", "1x1,1x1,1x1"], "no_ac_refine", "4:4:4 odd size"),
    ("noref_422_71x41", (30, 150, 71, 41), ["-sample", "2x1,1x1,1x1"], "no_ac_refine", "4:2:2"),
    ("dcal1_420_100x75", (70, 90, 100, 75), ["-sample", "2x2,1x1,1x1"], "dc_only_al1", "4:2:0 DC only, Al 1"),
    ("dc_420_64x39", (10, 10, 64, 39), ["-sample", "2x2,1x1,1x1"], "dc_only", "4:2:0 DC only, last MCU row one block row"),
    ("dc_444_33x31", (120, 40, 33, 31), ["-sample", "1x1,1x1,1x1"], "dc_only", "4:4:4 DC only"),
    ("dc_420_24x20", (150, 150, 24, 20), ["-sample", "2x2,1x1,1x1"], "dc_only", "4:2:0, chroma two blocks wide"),
    ("ac12_420_100x75", (70, 90, 100, 75), ["-sample", "2x2,1x1,1x1"], "ac1_2", "AC 1-2 only"),
    ("lumafull_420_64x39", (10, 10, 64, 39), ["-sample", "2x2,1x1,1x1"], "luma_full", "luma complete, chroma DC"),
    ("highal_420_100x75", (70, 90, 100, 75), ["-sample", "2x2,1x1,1x1", "-quality", "95"], "high_al", "Al up to 4, q95"),
    ("split_420_33x31", (120, 40, 33, 31), ["-sample", "2x2,1x1,1x1"], "split", "separate DC scans, bands split"),
    ("gray_33x31", (120, 40, 33, 31), ["-grayscale"], "gray_partial", "gray, AC refinement missing"),
    ("graydc_16x40", (200, 20, 16, 40), ["-grayscale"], "gray_dc", "gray DC only, two blocks wide"),
    ("graydc_100x75", (70, 90, 100, 75), ["-grayscale"], "gray_dc", "gray DC only"),
] + [
    ("cut%d_420_100x75" % k, (70, 90, 100, 75), ["-sample", "2x2,1x1,1x1"], ("cut", k),
     "standard script cut after scan %d, EOI appended" % k)
    for k in (1, 2, 4, 5, 6, 9)
] + [
    ("cut%d_gray_33x31" % k, (120, 40, 33, 31), ["-grayscale"], ("cut", k),
     "gray standard script cut after scan %d, EOI appended" % k)
    for k in (1, 3)
] + [
    ("cutsplit1_420_33x31", (120, 40, 33, 31), ["-sample", "2x2,1x1,1x1"], ("cut", 1, "split"),
     "cut after luma's DC scan: chroma has no DC, so no smoothing"),
]


def main():
    rows = []
    for name, box, options, how, note in FILES:
        src = crop(*box)
        if isinstance(how, tuple):
            progression = ["-scans", script(how[2], SCRIPTS[how[2]])] if len(how) > 2 else ["-progressive"]
            whole = run(["cjpeg", "-quality", "85"] + options + progression + [src])
            data = cut_after(whole, how[1])
        else:
            data = run(["cjpeg", "-quality", "85"] + options + ["-scans", script(how, SCRIPTS[how]), src])
        jpg = os.path.join(HERE, name + ".jpg")
        with open(jpg, "wb") as f:
            f.write(data)
        gray = "-grayscale" in options
        for scale in (8, 4, 2, 1):
            out = "%s_s%d.%s" % (name, scale, "pgm" if gray else "ppm")
            with open(os.path.join(HERE, out), "wb") as f:
                f.write(run(["djpeg", "-dct", "int", "-scale", "%d/8" % scale, "-pnm", jpg]))
            rows.append("\t".join([name + ".jpg", str(scale), out, note]))
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\tscale\texpected\tnote\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
