#!/usr/bin/env python3
"""Whole-process timings: `jpng` commands against the command-line tools of the C libraries.

Called by Benchmarks/cli.sh (which builds jpng and makes the corpus first); see
Benchmarks/README.md. Each comparison runs the jpng command (A) and the reference command (B)
once each untimed, then RUNS times in turn, A B A B ..., with the output going to /dev/null.
For every run: wall time (a monotonic clock around start and reaping) and peak resident memory
(`ru_maxrss` from wait4: the largest single process the command waited for, so for a pipeline
the larger of its two processes). Reported: each side's median wall time and peak memory, and
the median of the per-pair ratios A/B (pairing keeps the ratio meaningful when the machine's
speed drifts), with its minimum and maximum. Writes Benchmarks/results/cli.tsv for chart.py.
"""

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import time

# (operation, reference tool, jpng arguments, reference command). Every pair writes the same
# bytes: the PPMs are identical, the JPEGs are byte-identical to cjpeg's, and the PNGs decode to
# the same pixels (zlib level 6 both, sizes differ by 0.1%).
COMPARISONS = [
    ("JPEG 12 MP baseline 4:2:0 → PPM", "djpeg",
     "decode photo12_420.jpg -o - --format ppm", "djpeg photo12_420.jpg"),
    ("JPEG 12 MP progressive → PPM", "djpeg",
     "decode photo12_prog.jpg -o - --format ppm", "djpeg photo12_prog.jpg"),
    ("JPEG 1 MP baseline 4:2:0 → PPM", "djpeg",
     "decode photo1.jpg -o - --format ppm", "djpeg photo1.jpg"),
    ("PNG 12 MP → PPM", "pngtopnm",
     "decode photo12.png -o - --format ppm", "pngtopnm photo12.png"),
    ("PNG 12 MP → JPEG q85 4:2:0", "pngtopnm | cjpeg",
     "decode photo12.png -o - --format jpeg --quality 85", "pngtopnm photo12.png | cjpeg -quality 85"),
    ("PNG 12 MP → PNG level 6", "pngtopnm | pnmtopng",
     "decode photo12.png -o - --format png", "pngtopnm photo12.png | pnmtopng"),
    # photo12.ppm is pngtopnm's output for photo12.png (cli.sh makes it): raw pixels in a pipe.
    ("PPM 12 MP → JPEG q85 4:2:0", "cjpeg",
     "decode photo12.ppm -o - --format jpeg --quality 85", "cjpeg -quality 85 photo12.ppm"),
    # APNG: anim100_apng.png is ffmpeg's conversion of anim100.gif (cli.sh makes it). Decoding
    # composites every frame on both sides (ffmpeg on one thread; Pillow seeks and loads each).
    ("APNG decode + composite, 100 frames 500x500, 1 thread", "ffmpeg -threads 1",
     "bench anim100_apng.png -n 1 --threads 1", "ffmpeg -v error -threads 1 -i anim100_apng.png -f null -"),
    ("APNG decode + composite, 100 frames 500x500, 1 thread", "Pillow",
     "bench anim100_apng.png -n 1 --threads 1", "python3 HARNESS/apng_walk.py anim100_apng.png"),
    ("APNG decode + composite, 100 frames 500x500, 2 threads", "ffmpeg -threads 1",
     "bench anim100_apng.png -n 1 --threads 2", "ffmpeg -v error -threads 1 -i anim100_apng.png -f null -"),
    ("GIF → APNG, 100 frames 500x500, 1 thread", "ffmpeg",
     "convert anim100.gif --to apng --out-dir OUT --force --threads 1",
     "ffmpeg -v error -y -i anim100.gif -plays 0 -f apng OUT/ffmpeg.png"),
    ("GIF → APNG, 100 frames 500x500, 2 threads", "ffmpeg",
     "convert anim100.gif --to apng --out-dir OUT --force --threads 2",
     "ffmpeg -v error -y -i anim100.gif -plays 0 -f apng OUT/ffmpeg.png"),
]

COLUMNS = ["operation", "reference", "ours_cmd", "ref_cmd", "runs", "ours_wall_s", "ref_wall_s",
           "wall_ratio", "wall_ratio_min", "wall_ratio_max", "ours_rss_mb", "ref_rss_mb", "measured"]


def run(argv, cwd):
    """One run to /dev/null: (wall seconds, peak RSS in MiB, exit status)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def summarize(a, b):
    """The table's figures for paired runs `a` (jpng) and `b` (the reference): median wall times
    and peak memory, the median per-pair wall ratio with its range, the time of measurement."""
    ratios = [x[0] / y[0] for x, y in zip(a, b)]
    return {
        "runs": str(len(a)),
        "ours_wall_s": f"{statistics.median(x[0] for x in a):.3f}",
        "ref_wall_s": f"{statistics.median(y[0] for y in b):.3f}",
        "wall_ratio": f"{statistics.median(ratios):.2f}",
        "wall_ratio_min": f"{min(ratios):.2f}", "wall_ratio_max": f"{max(ratios):.2f}",
        "ours_rss_mb": f"{statistics.median(x[1] for x in a):.1f}",
        "ref_rss_mb": f"{statistics.median(y[1] for y in b):.1f}",
        "measured": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
    }


def argv_of(command):
    """A pipeline goes through sh; a plain command runs directly."""
    return ["sh", "-c", command] if "|" in command else command.split()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jpng", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("-n", "--runs", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--only", help="run only the operations whose name contains this; keep the file's other rows")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    scratch = os.path.join(args.corpus, "cli-out")
    os.makedirs(scratch, exist_ok=True)
    kept = []
    if args.only and os.path.exists(args.out):
        with open(args.out) as f:
            lines = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")][1:]
        kept = [dict(zip(COLUMNS, l)) for l in lines if args.only not in l[0]]
    rows = []
    for operation, reference, jpng_args, ref_cmd in COMPARISONS:
        if args.only and args.only not in operation:
            continue
        # Shown with short paths; run with the real ones.
        shown_ours = "jpng " + jpng_args.replace("OUT", "out")
        shown_ref = ref_cmd.replace("OUT", "out").replace("HARNESS", "Benchmarks/harness")
        ours = [args.jpng] + jpng_args.replace("OUT", scratch).split()
        ref = argv_of(ref_cmd.replace("OUT", scratch).replace("HARNESS", here))
        for _ in range(args.warmup):
            run(ours, args.corpus)
            run(ref, args.corpus)
        a, b = [], []
        for _ in range(args.runs):
            a.append(run(ours, args.corpus))
            b.append(run(ref, args.corpus))
        failed = [r for r in a + b if r[2] != 0]
        if failed:
            sys.exit(f"cli.py: {operation}: a command exited {failed[0][2]}")
        row = {"operation": operation, "reference": reference, "ours_cmd": shown_ours, "ref_cmd": shown_ref,
               **summarize(a, b)}
        print(f"{operation}: jpng {row['ours_wall_s']} s {row['ours_rss_mb']} MiB, {reference} "
              f"{row['ref_wall_s']} s {row['ref_rss_mb']} MiB, wall ratio {row['wall_ratio']} "
              f"({row['wall_ratio_min']}-{row['wall_ratio_max']})", flush=True)
        rows.append(row)
    with open(args.out, "w") as f:
        f.write("# Whole-process wall time and peak memory, jpng against the C tools: written by Benchmarks/cli.sh; read by chart.py.\n")
        f.write(f"# {args.runs} runs of each after {args.warmup} warm-up, in turn; medians; wall_ratio = median of the per-pair ratios jpng / reference (min, max beside it); RSS in MiB.\n")
        f.write("\t".join(COLUMNS) + "\n")
        for row in sorted(kept + rows, key=lambda r: [c[0] for c in COMPARISONS].index(r["operation"])
                          if r["operation"] in [c[0] for c in COMPARISONS] else 99):
            f.write("\t".join(row[c] for c in COLUMNS) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
