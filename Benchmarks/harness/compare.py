#!/usr/bin/env python3
"""Runs the reference harness (cbench) and `jpng bench` side by side and writes the results file.

Called by Benchmarks/run.sh, which builds the binaries first; see Benchmarks/README.md. The
results go to Benchmarks/results/inprocess.tsv (one row per operation), from which
Benchmarks/chart.py draws the chart and prints BENCHMARKS.md's tables.
Each measurement runs ROUNDS times; in every round each participant runs once (N timed
iterations in process, the median of them printed), the order alternating between rounds so
neither side always runs on a warmer or a busier machine. The figure reported is the median
of the per-round medians.
"""

import argparse
import csv
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"^(decode|encode) (PNG|JPEG|GIF) (\d+x\d+(?:x\d+)?) ([0-9.]+) MP/s(?: (\d+) bytes)?$")
RUN_TIMEOUT = 1800  # seconds per invocation: a hang must not stall the whole run


class Target:
    """A goal from the issues: a minimum speed ratio (PureImage / reference), and for PNG
    encodes a maximum output size relative to the reference."""

    def __init__(self, min_ratio=None, max_size=None, text="—"):
        self.min_ratio, self.max_size, self.text = min_ratio, max_size, text


NONE = Target()
FASTER = Target(1.0, None, "ratio ≥ 1.0")
PNG_ENCODE = Target(1 / 1.3, 1.02, "time ≤ 1.3× libpng (ratio ≥ 0.77), output ≤ +2%")
PNG_ENCODE_THREADS = Target(1.8, 1.02, "ratio ≥ 1.8, output ≤ +2%")
PNG_DECODE_THREADS = Target(1.6, None, "ratio ≥ 1.6")
JPEG_BASELINE = Target(0.95, None, "ratio ≥ 0.95")
JPEG_PROGRESSIVE = Target(0.9, None, "ratio ≥ 0.9")
JPEG_1MP = Target(1 / 1.25, None, "time ≤ 1.25× (ratio ≥ 0.80)")
JPEG_ENCODE = Target(1 / 1.3, None, "time ≤ 1.3× (ratio ≥ 0.77)")
JPEG_ENCODE_THREADS = Target(1.6, None, "ratio ≥ 1.6")
JPEG_DECODE_THREADS = Target(1.6, None, "ratio ≥ 1.6")
JPEG_PROGRESSIVE_THREADS = Target(1.3, None, "ratio ≥ 1.3")
GIF_DECODE = Target(2.2, None, "ratio ≥ 2.2")


class Measurement:
    """One row: `threads` is jpng's --threads (the reference always runs on one thread)."""

    def __init__(self, codec, file, op, label, iterations, target, level=None, quality=None, threads=1, hugepages=False):
        self.codec, self.file, self.op = codec, file, op
        self.label = f"{label}, {threads} thread{'s' if threads > 1 else ''}"
        if hugepages:
            self.label += ", reference with huge pages"
        self.iterations, self.target = iterations, target
        self.level, self.quality, self.threads = level, quality, threads
        # The reference's image buffer offered to transparent huge pages as jpng's is
        # (cbench's CBENCH_HUGEPAGES=1): the same page-fault cost on both sides.
        self.hugepages = hugepages

    def cbench_env(self):
        return dict(os.environ, CBENCH_HUGEPAGES="1" if self.hugepages else "0")

    def cbench_args(self, path, n):
        codec = self.codec if self.op == "decode" else self.encode_to()
        args = [self.op, codec, path, "-n", str(n)]
        if self.level is not None:
            args += ["--level", str(self.level)]
        if self.quality is not None:
            args += ["--quality", str(self.quality)]
        return args

    def jpng_args(self, path, n):
        args = ["bench", path, "-n", str(n), "--threads", str(self.threads)]
        if self.op == "encode":
            args += ["--encode", "--to", self.encode_to()]
            if self.quality is not None:
                args += ["--quality", str(self.quality)]
            if self.level is not None:
                args += ["--level", str(self.level)]
        return args

    def encode_to(self):
        return self.codec  # the codec row an encode sits in is the format it writes


MEASUREMENTS = [
    Measurement("png", "photo12.png", "decode", "decode RGB8", 5, FASTER),
    Measurement("png", "photo12.png", "decode", "decode RGB8", 5, PNG_DECODE_THREADS, threads=2),
    Measurement("png", "alpha4.png", "decode", "decode RGBA8", 5, FASTER),
    Measurement("png", "alpha4.png", "decode", "decode RGBA8", 5, PNG_DECODE_THREADS, threads=2),
    Measurement("png", "photo12.png", "encode", "encode level 6", 3, PNG_ENCODE, level=6),
    Measurement("png", "photo12.png", "encode", "encode level 6", 3, PNG_ENCODE_THREADS, level=6, threads=2),
    Measurement("png", "alpha4.png", "encode", "encode level 6", 3, PNG_ENCODE, level=6),
    Measurement("png", "alpha4.png", "encode", "encode level 6", 3, PNG_ENCODE_THREADS, level=6, threads=2),
    Measurement("png", "photo12.png", "encode", "encode level 9", 1, NONE, level=9, threads=2),
    Measurement("jpeg", "photo12_420.jpg", "decode", "decode baseline 4:2:0", 9, JPEG_BASELINE),
    Measurement("jpeg", "photo12_420.jpg", "decode", "decode baseline 4:2:0", 9, JPEG_DECODE_THREADS, threads=2),
    Measurement("jpeg", "photo12_prog.jpg", "decode", "decode progressive 4:2:0", 5, JPEG_PROGRESSIVE),
    Measurement("jpeg", "photo12_prog.jpg", "decode", "decode progressive 4:2:0", 5, JPEG_PROGRESSIVE_THREADS, threads=2),
    Measurement("jpeg", "photo12_420.jpg", "decode", "decode baseline 4:2:0", 9, NONE, hugepages=True),
    Measurement("jpeg", "photo12_420.jpg", "decode", "decode baseline 4:2:0", 9, NONE, threads=2, hugepages=True),
    Measurement("jpeg", "photo12_prog.jpg", "decode", "decode progressive 4:2:0", 5, NONE, hugepages=True),
    Measurement("jpeg", "photo12_444.jpg", "decode", "decode baseline 4:4:4", 9, NONE),
    Measurement("jpeg", "photo12_gray.jpg", "decode", "decode baseline gray", 9, NONE),
    Measurement("jpeg", "photo1.jpg", "decode", "decode baseline 4:2:0 (1 MP)", 25, JPEG_1MP),
    Measurement("jpeg", "photo1.jpg", "decode", "decode baseline 4:2:0 (1 MP)", 25, FASTER, threads=2),
    Measurement("jpeg", "photo12_444.jpg", "decode", "decode baseline 4:4:4", 9, NONE, threads=2),
    Measurement("jpeg", "photo12.png", "encode", "encode q85 4:2:0", 5, JPEG_ENCODE, quality=85),
    Measurement("jpeg", "photo12.png", "encode", "encode q85 4:2:0", 5, JPEG_ENCODE_THREADS, quality=85, threads=2),
    Measurement("gif", "anim100.gif", "decode", "decode + composite all frames", 9, GIF_DECODE),
]

class Result:
    """What one participant produced for one measurement over all rounds."""

    def __init__(self):
        self.speeds, self.sizes, self.dims, self.failure = [], [], None, None

    def speed(self):
        return statistics.median(self.speeds) if self.speeds and not self.failure else None

    def size(self):
        return self.sizes[-1] if self.sizes and not self.failure else None


def run_once(cmd, label, result, not_implemented, env=None):
    """Runs one invocation, appending its figures to result or recording why it failed."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        result.failure = f"n/a (timed out after {RUN_TIMEOUT} s)"
        return
    except OSError as err:
        result.failure = f"n/a ({err.strerror})"
        return
    if proc.returncode != 0:
        result.failure = not_implemented
        detail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[0]
        print(f"    {label}: exit {proc.returncode}: {detail}", flush=True)
        return
    lines = [l.strip() for l in proc.stdout.splitlines() if LINE.match(l.strip())]
    if len(lines) != 1:
        result.failure = "n/a (unexpected output)"
        print(f"    {label}: cannot parse: {proc.stdout.strip()[:200]!r}", flush=True)
        return
    m = LINE.match(lines[0])
    result.dims = m.group(3)
    result.speeds.append(float(m.group(4)))
    if m.group(5):
        result.sizes.append(int(m.group(5)))
    print(f"    {label:8} {lines[0]}", flush=True)


def fmt_speed(result):
    s = result.speed()
    if s is None:
        return result.failure or "n/a"
    return f"{s:.1f}" if s >= 10 else f"{s:.2f}" if s >= 1 else f"{s:.3f}"


def ratio_of(ours, ref):
    a, b = ours.speed(), ref.speed()
    return a / b if a is not None and b else None


def paired_ratio(ours, ref):
    """The median over rounds of each round's ratio (the two invocations of a round run back to
    back, so a slow spell of a shared machine tends to hit both): steadier than the ratio of
    the two medians when the machine switches speed between invocations."""
    if ours.failure or ref.failure or not ours.speeds or len(ours.speeds) != len(ref.speeds):
        return None
    return statistics.median(a / b for a, b in zip(ours.speeds, ref.speeds) if b)


def worst_ratio(ours, ref):
    """The lowest of the per-round ratios: a target holds only when this round meets it too."""
    if ours.failure or ref.failure or not ours.speeds or len(ours.speeds) != len(ref.speeds):
        return None
    ratios = [a / b for a, b in zip(ours.speeds, ref.speeds) if b]
    return min(ratios) if ratios else None


def command_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def machine_lines():
    model, physical = "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            cpuinfo = f.read()
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
        if found:
            model = found.group(1).strip()
        for block in cpuinfo.split("\n\n"):
            pid = re.search(r"^physical id\s*:\s*(\d+)", block, re.M)
            cid = re.search(r"^core id\s*:\s*(\d+)", block, re.M)
            if pid and cid:
                physical.add((pid.group(1), cid.group(1)))
    except OSError:
        pass
    logical = os.cpu_count() or 0
    cores = f"{logical} logical CPUs" + (f" ({len(physical)} cores)" if physical else "")
    swift = command_output(["swift", "--version"]).splitlines()
    cc = command_output(["cc", "--version"]).splitlines()
    libs = []
    for pkg, name in (("libpng16-16", "libpng"), ("libjpeg62-turbo", "libjpeg-turbo"), ("libgif7", "giflib")):
        version = command_output(["dpkg-query", "-W", "-f=${Version}", pkg]) or "unknown"
        libs.append(f"{name} {version} (`{pkg}`)")
    return model, cores, (swift[0] if swift else "unknown"), (cc[0] if cc else "unknown"), libs


COLUMNS = ["codec", "operation", "file", "size", "reference", "ref_mps", "ours_mps", "ratio", "paired_ratio",
           "worst_ratio", "v3_mps", "v3_ratio", "target_ratio", "max_size_ratio", "target", "ref_bytes", "ours_bytes", "n",
           "rounds", "commit", "measured"]
REFERENCES = {"png": "libpng", "jpeg": "libjpeg-turbo", "gif": "giflib"}


def earlier_rows(path, keep_codecs):
    """The rows of an earlier results file for the codecs this run does not measure (`--only`)."""
    try:
        with open(path, newline="") as f:
            lines = [line for line in f if line.strip() and not line.startswith("#")]
    except OSError:
        return []
    return [r for r in csv.DictReader(lines, delimiter="\t") if r.get("codec") in keep_codecs]


def cpu_times():
    """(steal, total) processor ticks from /proc/stat's "cpu" line, or None: on a virtual machine
    steal is the time the host ran something else while this machine's processors had work,
    which slows whichever side runs then (a round's ratio moves with it)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def steal_share(before, after):
    if before is None or after is None or after[1] <= before[1]:
        return None
    return 100.0 * (after[0] - before[0]) / (after[1] - before[1])


def load_average():
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cbench", required=True)
    ap.add_argument("--jpng", required=True, help="the jpng binary (may not exist)")
    ap.add_argument("--jpng-v3", help="the jpng binary built for x86-64-v3")
    ap.add_argument("--jpng-note", default="", help="why jpng is missing, for the table")
    ap.add_argument("--jpng-v3-note", default="")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True, help="the results file (TSV)")
    ap.add_argument("--only", choices=["png", "jpeg", "gif"])
    ap.add_argument("-n", type=int, help="timed iterations per invocation (default: per measurement)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--swift-flags", default="")
    ap.add_argument("--commit", default="")
    args = ap.parse_args()
    if args.rounds < 1 or (args.n is not None and args.n < 1):
        sys.exit("compare.py: -n and --rounds must be at least 1")

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = load_average()
    times_before = cpu_times()
    measurements = [m for m in MEASUREMENTS if not args.only or m.codec == args.only]
    participants = [("ref", args.cbench, None), ("ours", args.jpng, args.jpng_note)]
    if args.jpng_v3:
        participants.append(("v3", args.jpng_v3, args.jpng_v3_note))

    results = []
    for m in measurements:
        path = os.path.join(args.corpus, m.file)
        n = args.n or m.iterations
        print(f"{m.codec} {m.file} {m.label} (-n {n}, {args.rounds} rounds)", flush=True)
        res = {key: Result() for key, _, _ in participants}
        times_start = cpu_times()
        for key, binary, note in participants:
            if key != "ref" and (note or not os.access(binary, os.X_OK)):
                res[key].failure = f"n/a ({note or 'jpng not built'})"
        for r in range(args.rounds):
            order = participants if r % 2 == 0 else list(reversed(participants))
            for key, binary, _ in order:
                if res[key].failure:
                    continue
                cmd = [binary] + (m.cbench_args(path, n) if key == "ref" else m.jpng_args(path, n))
                label = {"ref": "cbench", "ours": "jpng", "v3": "jpng-v3"}[key]
                run_once(cmd, label, res[key], "n/a (not implemented yet)" if key != "ref" else "n/a (reference failed)",
                         env=m.cbench_env() if key == "ref" else None)
        share = steal_share(times_start, cpu_times())
        if share is not None:
            print(f"  host steal during these rounds: {share:.1f}% of processor time", flush=True)
        for key in ("ours", "v3"):
            if key in res and not res[key].failure and res[key].dims != res["ref"].dims and res["ref"].dims:
                res[key].failure = f"n/a (size mismatch: {res[key].dims} vs {res['ref'].dims})"
        results.append((m, res))

    model, cores, swift, cc, libs = machine_lines()
    finished = datetime.datetime.now(datetime.timezone.utc)
    measured = f"{started:%Y-%m-%d %H:%M} UTC"
    rows = []
    for m, res in results:
        ref, ours = res["ref"], res["ours"]
        ratio = ratio_of(ours, ref)
        paired = paired_ratio(ours, ref)
        worst = worst_ratio(ours, ref)
        speed = lambda r: fmt_speed(r) if r.speed() is not None else ""  # noqa: E731
        row = {
            "codec": m.codec, "operation": m.label, "file": m.file,
            "size": ref.dims or ours.dims or "", "reference": REFERENCES[m.codec],
            "ref_mps": speed(ref), "ours_mps": speed(ours),
            "ratio": f"{ratio:.2f}" if ratio is not None else "",
            "paired_ratio": f"{paired:.2f}" if paired is not None else "",
            "worst_ratio": f"{worst:.2f}" if worst is not None else "",
            "v3_mps": "", "v3_ratio": "",
            "target_ratio": f"{m.target.min_ratio:.4g}" if m.target.min_ratio is not None else "",
            "max_size_ratio": f"{m.target.max_size:.4g}" if m.target.max_size is not None else "",
            "target": m.target.text if m.target.text != "—" else "",
            "ref_bytes": str(ref.size() or "") if m.op == "encode" else "",
            "ours_bytes": str(ours.size() or "") if m.op == "encode" else "",
            "n": str(args.n or m.iterations), "rounds": str(args.rounds), "commit": args.commit,
            "measured": measured,
        }
        if "v3" in res:
            v3_ratio = ratio_of(res["v3"], ref)
            row["v3_mps"] = speed(res["v3"])
            row["v3_ratio"] = f"{v3_ratio:.2f}" if v3_ratio is not None else ""
        for key, r in (("ours", ours), ("v3", res.get("v3"))):
            if r is not None and r.failure:
                print(f"  {m.codec} {m.file} {m.label}: {key} {r.failure}", flush=True)
        rows.append(row)

    measured_codecs = {m.codec for m, _ in results}
    kept = earlier_rows(args.out, {"png", "jpeg", "gif"} - measured_codecs) if args.only else []
    order = {"png": 0, "jpeg": 1, "gif": 2}
    all_rows = sorted(kept + rows, key=lambda r: order.get(r["codec"], 9))  # stable: keeps each codec's order
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("# In-process speed, PureImage against the C libraries: written by Benchmarks/run.sh "
                "(harness/compare.py); read by chart.py.\n")
        f.write("# MP/s are the median over rounds of each invocation's median; ratio = ours / reference of those "
                "medians; paired_ratio = median of the per-round ratios; worst_ratio = the lowest per-round ratio "
                "(a target holds when it is met).\n")
        f.write(f"# Machine: {model}, {cores}, {platform.system()} {platform.release()}; {swift} "
                f"(`swift build -c release`" + (f", v3: `{args.swift_flags}`" if args.jpng_v3 else "")
                + f"); {cc} (`-O2`); {', '.join(libs)}\n")
        f.write(f"# Last run: {measured}, {int((finished - started).total_seconds())} s, load average before / after "
                f"{load_before} / {load_average()}"
                + (f", host steal {steal:.1f}% of processor time" if (steal := steal_share(times_before, cpu_times())) is not None else "")
                + (f", --only {args.only}" if args.only else "") + "\n")
        f.write("\t".join(COLUMNS) + "\n")
        for row in all_rows:
            f.write("\t".join(row.get(c, "") or "" for c in COLUMNS) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
