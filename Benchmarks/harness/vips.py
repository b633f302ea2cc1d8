#!/usr/bin/env python3
"""jpng against libvips: thumbnails (`vipsthumbnail`) and Deep Zoom pyramids (`vips dzsave`).

Called by Benchmarks/vips.sh (which builds jpng and makes the corpus first). Timing is cli.py's:
each pair runs once untimed, then RUNS times in turn; medians of wall time and peak RSS, and
the median of the per-pair wall ratios jpng / vips. Then the quality of the 1024-px thumbnails:
PSNR of jpng's and vipsthumbnail's (both written as PNG) against a float Lanczos-3 reduction of
the full decode (Pillow, one float32 plane per channel), so the two reductions are judged
against the same ideal. Writes Benchmarks/results/vips.tsv.
"""

import argparse
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import run, summarize  # noqa: E402

# (operation, jpng arguments, vips command); OUT is a scratch folder, names relative to the corpus.
COMPARISONS = [
    ("Thumbnail 1024 px, 12 MP baseline JPEG", "thumbnail photo12_420.jpg -o OUT/j.jpg --size 1024 --force",
     "vipsthumbnail photo12_420.jpg --size 1024 -o OUT/v.jpg"),
    ("Thumbnail 1024 px, 12 MP progressive JPEG", "thumbnail photo12_prog.jpg -o OUT/j.jpg --size 1024 --force",
     "vipsthumbnail photo12_prog.jpg --size 1024 -o OUT/v.jpg"),
    ("Thumbnail 1024 px, 12 MP PNG", "thumbnail photo12.png -o OUT/j.jpg --size 1024 --force",
     "vipsthumbnail photo12.png --size 1024 -o OUT/v.jpg"),
    ("Thumbnail 1024 px, 192 MP baseline JPEG", "thumbnail huge.jpg -o OUT/j.jpg --size 1024 --force",
     "vipsthumbnail huge.jpg --size 1024 -o OUT/v.jpg"),
    ("Thumbnail 1024 px, 192 MP progressive JPEG", "thumbnail huge_prog.jpg -o OUT/j.jpg --size 1024 --force",
     "vipsthumbnail huge_prog.jpg --size 1024 -o OUT/v.jpg"),
    # Deep Zoom, 254-px tiles with 1 px overlap, JPEG q75 on both sides (vips' defaults); the
    # pyramids go to tmpfs (TILES), so the disk does not set the pace.
    ("Deep Zoom, 192 MP baseline JPEG", "tile huge.jpg --out TILES/j --tile-size 254 --overlap 1 --quality 0.75",
     "vips dzsave huge.jpg TILES/v --tile-size 254 --overlap 1"),
    ("Deep Zoom, 192 MP progressive JPEG", "tile huge_prog.jpg --out TILES/j --tile-size 254 --overlap 1 --quality 0.75",
     "vips dzsave huge_prog.jpg TILES/v --tile-size 254 --overlap 1"),
]

QUALITY = ["photo12_420.jpg", "photo12_prog.jpg", "photo12.png", "huge.jpg"]

COLUMNS = ["operation", "ours_cmd", "ref_cmd", "runs", "ours_wall_s", "ref_wall_s", "wall_ratio",
           "wall_ratio_min", "wall_ratio_max", "ours_rss_mb", "ref_rss_mb", "measured"]


def psnr(a, b):
    import numpy as np
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def quality(jpng, corpus, scratch):
    import numpy as np
    from PIL import Image
    Image.MAX_IMAGE_PIXELS = None
    rows = []
    for name in QUALITY:
        src = os.path.join(corpus, name)
        ours, theirs = os.path.join(scratch, "q_j.png"), os.path.join(scratch, "q_v.png")
        for argv in ([jpng, "thumbnail", src, "-o", ours, "--size", "1024", "--force"],
                     ["vipsthumbnail", src, "--size", "1024", "-o", theirs]):
            if run(argv, corpus)[2] != 0:
                sys.exit(f"vips.py: {' '.join(argv)} failed")
        a = np.asarray(Image.open(ours).convert("RGB"))
        b = np.asarray(Image.open(theirs).convert("RGB"))
        full = Image.open(src).convert("RGB")
        size = (a.shape[1], a.shape[0])
        planes = [np.asarray(p.convert("F").resize(size, Image.LANCZOS)) for p in full.split()]
        ideal = np.clip(np.rint(np.stack(planes, axis=2)), 0, 255)
        line = {"file": name, "size": f"{size[0]}x{size[1]}", "jpng_psnr": f"{psnr(a, ideal):.2f}",
                "vips_psnr": f"{psnr(b, ideal):.2f}" if b.shape == a.shape else f"- ({b.shape[1]}x{b.shape[0]})"}
        print(f"quality {name}: jpng {line['jpng_psnr']} dB, vipsthumbnail {line['vips_psnr']} dB "
              f"against float Lanczos-3 of the full decode", flush=True)
        rows.append(line)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jpng", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("-n", "--runs", type=int, default=5)
    ap.add_argument("--only", help="run only the operations whose name contains this (and no quality check)")
    args = ap.parse_args()
    args.corpus = os.path.abspath(args.corpus)
    scratch = os.path.join(args.corpus, "cli-out")
    os.makedirs(scratch, exist_ok=True)
    rows = []
    tiles = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    for operation, jpng_args, vips_cmd in COMPARISONS:
        if args.only and args.only not in operation:
            continue
        ours = [args.jpng] + jpng_args.replace("OUT", scratch).replace("TILES", tiles).split()
        ref = vips_cmd.replace("OUT", scratch).replace("TILES", tiles).split()

        def clean():
            for name in os.listdir(tiles):
                path = os.path.join(tiles, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)

        a, b = [], []
        for i in range(args.runs + 1):
            clean()
            x = run(ours, args.corpus)
            clean()
            y = run(ref, args.corpus)
            if i > 0:
                a.append(x)
                b.append(y)
        clean()
        failed = [r for r in a + b if r[2] != 0]
        if failed:
            sys.exit(f"vips.py: {operation}: a command exited {failed[0][2]}")
        row = {"operation": operation, "ours_cmd": "jpng " + jpng_args.replace("OUT", "out").replace("TILES", "tiles"),
               "ref_cmd": vips_cmd.replace("OUT", "out").replace("TILES", "tiles"), **summarize(a, b)}
        print(f"{operation}: jpng {row['ours_wall_s']} s {row['ours_rss_mb']} MiB, vips {row['ref_wall_s']} s "
              f"{row['ref_rss_mb']} MiB, wall ratio {row['wall_ratio']} ({row['wall_ratio_min']}-{row['wall_ratio_max']})",
              flush=True)
        rows.append(row)
    shutil.rmtree(tiles, ignore_errors=True)
    # With --only, the file's other rows and its quality lines are kept.
    kept, kept_quality = [], []
    if args.only and os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if line.startswith("#quality"):
                    kept_quality.append({"file": fields[1], "size": fields[2], "jpng_psnr": fields[3], "vips_psnr": fields[4]})
                elif not line.startswith("#") and fields[0] != "operation" and args.only not in fields[0]:
                    kept.append(dict(zip(COLUMNS, fields)))
    quality_rows = kept_quality if args.only else quality(args.jpng, args.corpus, scratch)
    order = [c[0] for c in COMPARISONS]
    rows = sorted(kept + rows, key=lambda r: order.index(r["operation"]) if r["operation"] in order else 99)
    with open(args.out, "w") as f:
        f.write("# jpng against libvips, whole process: written by Benchmarks/vips.sh. Medians; wall_ratio = median of per-pair ratios jpng / vips; RSS in MiB.\n")
        f.write("\t".join(COLUMNS) + "\n")
        for row in rows:
            f.write("\t".join(row[c] for c in COLUMNS) + "\n")
        f.write("# Thumbnail quality: PSNR (dB, RGB) against a float Lanczos-3 reduction of the full decode.\n")
        for q in quality_rows:
            f.write(f"#quality\t{q['file']}\t{q['size']}\t{q['jpng_psnr']}\t{q['vips_psnr']}\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
