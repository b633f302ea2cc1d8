#!/usr/bin/env python3
"""Makes the VP8 (lossy WebP) test vectors in Vectors/webp/lossy (run from anywhere; outputs are committed).

Needs: python3 with Pillow and numpy, Debian's `webp` 1.2.4 (cwebp, dwebp), gcc with libwebp-dev 1.2.4
(for the token-partition encoder, which cwebp has no flag for).

Layout of lossy/:
  NAME.webp         made by `cwebp` 1.2.4 with the options listed in manifest.tsv, or (names starting
                    with `parts`) by lossy/../partitions.c against libwebp 1.2.4's encode API with
                    WebPConfig.partitions set (log2 of the token partition count).
  NAME.pam          `dwebp -pam NAME.webp` (RGBA, default fancy upsampling).
  NAME.nofancy.pam  `dwebp -nofancy -pam NAME.webp` (point-sampled chroma).
  manifest.tsv      name, width, height, source, encoder options.
  regression_*.webp fuzzer findings copied from Vectors/regressions (libFuzzer mutations of the
                    vectors here, not encoder output), with dwebp's references as above.

Sources: synthetic gradients and noise made here with numpy, and crops of the committed photos
Vectors/jpeg/valid/*.ppm (decoded there by djpeg).
"""
import os
import shutil
import subprocess
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "lossy")
JPEG = os.path.join(HERE, "..", "jpeg", "valid")

PARTITIONS_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <webp/encode.h>
/* usage: partitions in.ppm out.webp log2parts quality method */
static int writer(const uint8_t* data, size_t size, const WebPPicture* pic) {
  return fwrite(data, 1, size, (FILE*)pic->custom_ptr) == size;
}
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb");
  int w, h, maxv;
  if (!f || fscanf(f, "P6 %d %d %d", &w, &h, &maxv) != 3) return 1;
  fgetc(f);
  uint8_t* rgb = malloc((size_t)w * h * 3);
  if (fread(rgb, 1, (size_t)w * h * 3, f) != (size_t)w * h * 3) return 1;
  fclose(f);
  WebPConfig config;
  WebPPicture pic;
  if (!WebPConfigInit(&config) || !WebPPictureInit(&pic)) return 1;
  config.partitions = atoi(argv[3]);
  config.quality = (float)atof(argv[4]);
  config.method = atoi(argv[5]);
  if (!WebPValidateConfig(&config)) return 2;
  pic.width = w; pic.height = h;
  if (!WebPPictureImportRGB(&pic, rgb, w * 3)) return 3;
  FILE* out = fopen(argv[2], "wb");
  pic.writer = writer; pic.custom_ptr = out;
  if (!WebPEncode(&config, &pic)) return 4;
  fclose(out);
  WebPPictureFree(&pic);
  free(rgb);
  return 0;
}
"""


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def gradient(w, h):
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    r = (x * 255 / max(w - 1, 1))
    g = (y * 255 / max(h - 1, 1))
    b = 128 + 100 * np.sin((x + y) / 7.0)
    return np.stack([r, g, b], axis=-1).clip(0, 255).astype(np.uint8)


def noise(w, h, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)


def blocks(w, h):
    # Flat areas with hard edges: exercises the loop filter's edge decisions and skip.
    y, x = np.mgrid[0:h, 0:w]
    a = ((x // 9 + y // 7) % 3) * 100 + 20
    return np.stack([a, 255 - a, (x * 3) % 256], axis=-1).astype(np.uint8)


def photo(name, w, h, x0=0, y0=0):
    img = Image.open(os.path.join(JPEG, name + ".ppm")).convert("RGB")
    if img.width < x0 + w or img.height < y0 + h:
        img = img.resize((max(img.width, x0 + w), max(img.height, y0 + h)), Image.BICUBIC)
    return np.asarray(img.crop((x0, y0, x0 + w, y0 + h)))


def sources():
    return {
        "grad1x1": gradient(1, 1),
        "grad3x5": gradient(3, 5),
        "grad17x31": gradient(17, 31),
        "noise33x18": noise(33, 18, 1),
        "noise16x16": noise(16, 16, 2),
        "blocks40x24": blocks(40, 24),
        "photo64": photo("photo256_444_q75", 64, 64, 80, 60),
        "photo250x187": photo("photo256_420_q90", 250, 187),
        "photo97x75": photo("photo256_progressive", 97, 75, 30, 40),
        "grad129x65": gradient(129, 65),
    }


# (name, source, cwebp options). Every option that changes the VP8 bitstream appears somewhere.
CASES = [
    ("grad1x1_q80", "grad1x1", ["-q", "80"]),
    ("grad3x5_q50", "grad3x5", ["-q", "50"]),
    ("grad3x5_q100", "grad3x5", ["-q", "100"]),
    ("grad17x31_q0", "grad17x31", ["-q", "0"]),
    ("grad17x31_q5", "grad17x31", ["-q", "5"]),
    ("grad17x31_q80", "grad17x31", ["-q", "80"]),
    ("noise33x18_q50", "noise33x18", ["-q", "50"]),
    ("noise33x18_q100", "noise33x18", ["-q", "100"]),
    ("noise33x18_q5_f100", "noise33x18", ["-q", "5", "-f", "100"]),
    ("noise16x16_q80_m6", "noise16x16", ["-q", "80", "-m", "6"]),
    ("blocks40x24_q50_strong", "blocks40x24", ["-q", "50", "-strong", "-f", "60"]),
    ("blocks40x24_q50_nostrong", "blocks40x24", ["-q", "50", "-nostrong", "-f", "60"]),
    ("blocks40x24_q20_sharp7", "blocks40x24", ["-q", "20", "-sharpness", "7", "-f", "80"]),
    ("photo64_q0", "photo64", ["-q", "0"]),
    ("photo64_q5", "photo64", ["-q", "5"]),
    ("photo64_q50", "photo64", ["-q", "50"]),
    ("photo64_q80", "photo64", ["-q", "80"]),
    ("photo64_q100", "photo64", ["-q", "100"]),
    ("photo64_sns0", "photo64", ["-q", "60", "-sns", "0"]),
    ("photo64_sns100", "photo64", ["-q", "60", "-sns", "100"]),
    ("photo64_f0", "photo64", ["-q", "40", "-f", "0"]),
    ("photo64_f50", "photo64", ["-q", "40", "-f", "50"]),
    ("photo64_f100", "photo64", ["-q", "40", "-f", "100"]),
    ("photo64_f100_sharp7", "photo64", ["-q", "40", "-f", "100", "-sharpness", "7"]),
    ("photo64_f70_sharp3", "photo64", ["-q", "30", "-f", "70", "-sharpness", "3"]),
    ("photo64_simple", "photo64", ["-q", "30", "-f", "60", "-nostrong"]),
    ("photo64_seg1", "photo64", ["-q", "50", "-segments", "1"]),
    ("photo64_seg2", "photo64", ["-q", "50", "-segments", "2"]),
    ("photo64_seg4", "photo64", ["-q", "50", "-segments", "4"]),
    ("photo64_plimit0", "photo64", ["-q", "50", "-partition_limit", "0"]),
    ("photo64_plimit100", "photo64", ["-q", "50", "-partition_limit", "100"]),
    ("photo64_sharpyuv", "photo64", ["-q", "70", "-sharp_yuv"]),
    ("photo64_m0", "photo64", ["-q", "70", "-m", "0"]),
    ("photo64_m2", "photo64", ["-q", "70", "-m", "2"]),
    ("photo64_m6", "photo64", ["-q", "70", "-m", "6"]),
    ("photo64_af", "photo64", ["-q", "70", "-af"]),
    ("photo97x75_q30", "photo97x75", ["-q", "30"]),
    ("photo97x75_q90_m4", "photo97x75", ["-q", "90", "-m", "4"]),
    ("photo250x187_q80", "photo250x187", ["-q", "80"]),
    ("photo250x187_q20_seg4", "photo250x187", ["-q", "20", "-segments", "4", "-f", "80", "-sharpness", "2"]),
    ("grad129x65_q70", "grad129x65", ["-q", "70"]),
    ("grad129x65_q10_simple", "grad129x65", ["-q", "10", "-nostrong", "-f", "90"]),
]

# (name, source, log2 of the partition count, quality, method): made with partitions.c. libwebp's
# encoder writes one partition whatever the setting at -m 3 and above (its token buffer), so -m 0..2.
PARTS = [
    ("parts2_photo97x75", "photo97x75", 1, 60, 2),
    ("parts4_photo97x75", "photo97x75", 2, 75, 1),
    ("parts8_photo250x187", "photo250x187", 3, 50, 2),
    ("parts8_grad17x31", "grad17x31", 3, 80, 0),
]


# Fuzzer findings (diff-webp) whose pixels are checked against dwebp like the encoded vectors.
REGRESSIONS = [
    # One partition, segments with absolute quantizers 50 23 50 50 and filter levels 15 3 15 15,
    # normal filter level 15, UV DC delta -2: an earlier PureWebP decoded it white, libwebp black.
    ("regression_segments64", "webp-lossy-segments-64x64.webp"),
]


def pam_size(path):
    head = open(path, "rb").read(64).split(b"\n")
    fields = dict(line.split(b" ", 1) for line in head if b" " in line)
    return int(fields[b"WIDTH"]), int(fields[b"HEIGHT"])


def dwebp(webp, stem):
    run(["dwebp", webp, "-pam", "-o", stem + ".pam"])
    run(["dwebp", webp, "-nofancy", "-pam", "-o", stem + ".nofancy.pam"])


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    tmp = tempfile.mkdtemp()
    srcs = sources()
    paths = {}
    for name, arr in srcs.items():
        p = os.path.join(tmp, name + ".ppm")
        Image.fromarray(arr, "RGB").save(p)
        paths[name] = p
    exe = os.path.join(tmp, "partitions")
    c = os.path.join(tmp, "partitions.c")
    open(c, "w").write(PARTITIONS_C)
    run(["gcc", "-O2", "-o", exe, c, "-lwebp"])
    manifest = []
    for name, src, opts in CASES:
        out = os.path.join(OUT, name + ".webp")
        run(["cwebp", *opts, paths[src], "-o", out])
        dwebp(out, os.path.join(OUT, name))
        h, w = srcs[src].shape[:2]
        manifest.append((name, w, h, src, "cwebp " + " ".join(opts)))
    for name, src, parts, q, m in PARTS:
        out = os.path.join(OUT, name + ".webp")
        run([exe, paths[src], out, str(parts), str(q), str(m)])
        dwebp(out, os.path.join(OUT, name))
        h, w = srcs[src].shape[:2]
        manifest.append((name, w, h, src, f"partitions.c partitions={parts} q={q} m={m}"))
    for name, finding in REGRESSIONS:
        out = os.path.join(OUT, name + ".webp")
        shutil.copyfile(os.path.join(HERE, "..", "regressions", finding), out)
        dwebp(out, os.path.join(OUT, name))
        w, h = pam_size(os.path.join(OUT, name + ".pam"))
        manifest.append((name, w, h, "Vectors/regressions/" + finding, "libFuzzer mutation"))
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write("name\twidth\theight\tsource\tencoder\n")
        for row in manifest:
            f.write("\t".join(str(v) for v in row) + "\n")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
