#!/usr/bin/env python3
"""Draws Benchmarks/chart.svg from the committed results, and prints BENCHMARKS.md's tables.

    python3 Benchmarks/chart.py                 # writes Benchmarks/chart.svg
    python3 Benchmarks/chart.py --tables        # also prints the Markdown tables of BENCHMARKS.md
    python3 Benchmarks/chart.py --out FILE.svg  # elsewhere

Reads Benchmarks/results/inprocess.tsv (written by run.sh through harness/compare.py: in-process
MP/s of PureImage and of the C library, per operation) and Benchmarks/results/cli.tsv (written
by cli.sh: whole-process wall time and peak memory of a `jpng` command and of the reference
command-line tool). One bar per operation: PureImage's speed over the reference's, so 1.0 is
the reference and a longer bar is faster. The SVG depends on the two files only (no date, no
machine name), so running this again on the committed files reproduces the committed chart.
Python 3 standard library only.
"""

import argparse
import csv
import os
import sys
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
INPROCESS = os.path.join(HERE, "results", "inprocess.tsv")
CLI = os.path.join(HERE, "results", "cli.tsv")
CODECS = [("png", "PNG", "libpng"), ("jpeg", "JPEG", "libjpeg-turbo"), ("gif", "GIF", "giflib")]


def read_tsv(path):
    """Rows of a results file as dicts; lines starting with # are comments."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def megapixels(size):
    """'4000x3000' -> '12 MP'; '500x500x100' -> '500x500, 100 frames'."""
    parts = size.split("x")
    if len(parts) == 3:
        return f"{parts[2]} frames of {parts[0]}x{parts[1]}"
    mp = int(parts[0]) * int(parts[1]) / 1e6
    return f"{mp:.0f} MP" if mp >= 1.5 else f"{mp:.1f} MP"


def bars(inprocess, cli):
    """(section title, [(label, ratio, target or None)]) for the chart."""
    sections = []
    rows = []
    for codec, name, _ in CODECS:
        for r in inprocess:
            if r["codec"] != codec or num(r["ratio"]) is None:
                continue
            label = f"{name} {r['operation']}, {megapixels(r['size'])}"
            rows.append((label, num(r["ratio"]), num(r["target_ratio"])))
    if rows:
        sections.append(("In process: MP/s, PureImage / C library (median of paired rounds)", rows))
    rows = []
    for r in cli:
        wall = num(r["wall_ratio"])
        if wall:
            # The file holds jpng's wall time over the reference's; the chart shows speed.
            rows.append((f"{r['operation']} vs {r['reference']}", 1 / wall, None))
    if rows:
        sections.append(("Whole process (jpng CLI): wall time, reference tool / jpng; start-up and file I/O included", rows))
    return sections


def svg(sections):
    width, label_w, right_pad = 1040, 480, 50
    bar_h, gap, head_h, top = 18, 8, 30, 80
    values = [v for _, rows in sections for _, v, _ in rows] + [t for _, rows in sections for _, _, t in rows if t]
    scale_max = max(1.6, max(values, default=1) * 1.08)
    # Grid and labels every 0.25 up to 3, coarser beyond, so the labels never overlap.
    step = 0.25 if scale_max <= 3 else 0.5 if scale_max <= 6 else 1.0
    scale_max = (int(scale_max / step) + 1) * step  # a multiple of the step above the longest bar
    plot_w = width - label_w - right_pad
    x = lambda v: label_w + v / scale_max * plot_w  # noqa: E731
    # Layout first: the grid and the 1.0 line go under the bars and the section titles.
    titles, bar_rows, y = [], [], top
    for i, (title, rows) in enumerate(sections):
        titles.append((y, title))
        y += head_h
        for label, value, target in rows:
            bar_rows.append((y, i, label, value, target))
            y += bar_h + gap
    plot_top, plot_bottom = top, y
    height = plot_bottom + 56
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           '<text x="16" y="26" font-size="16" font-weight="bold">PureImage against the C libraries and tools</text>',
           '<text x="16" y="46" fill="#444">Speed ratio: PureImage / reference. Above 1.0 PureImage is faster.'
           ' Black ticks: the target, where there is one.</text>']
    tick = step
    while tick <= scale_max + 1e-9:
        if abs(tick - 1.0) > 1e-9:
            out.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{plot_top}" y2="{plot_bottom}" stroke="#ddd"/>')
        tick += step
    one = x(1.0)
    out.append(f'<line x1="{one:.1f}" x2="{one:.1f}" y1="{plot_top - 4}" y2="{plot_bottom + 4}" '
               'stroke="#c0392b" stroke-width="2" stroke-dasharray="6 3"/>')
    out.append(f'<text x="{one:.1f}" y="{plot_top - 8}" text-anchor="middle" fill="#c0392b" '
               'font-weight="bold">1.0 = reference</text>')
    colours = ["#3b6fb6", "#d9822b"]
    for ty, title in titles:
        out.append(f'<rect x="0" y="{ty + 4}" width="{width}" height="{head_h - 6}" fill="#ffffff"/>')
        out.append(f'<text x="16" y="{ty + 20}" font-weight="bold">{escape(title)}</text>')
    for by, i, label, value, target in bar_rows:
        out.append(f'<text x="{label_w - 8}" y="{by + bar_h - 5}" text-anchor="end">{escape(label)}</text>')
        out.append(f'<rect x="{label_w}" y="{by}" width="{x(value) - label_w:.1f}" height="{bar_h}" '
                   f'fill="{colours[i % len(colours)]}"/>')
        out.append(f'<text x="{x(value) + 4:.1f}" y="{by + bar_h - 5}">{value:.2f}</text>')
        if target:
            out.append(f'<line x1="{x(target):.1f}" x2="{x(target):.1f}" y1="{by - 3}" y2="{by + bar_h + 3}" '
                       'stroke="#000" stroke-width="2"/>')
    out.append(f'<line x1="{label_w}" x2="{label_w}" y1="{plot_top}" y2="{plot_bottom}" stroke="#000"/>')
    tick = 0.0
    while tick <= scale_max + 1e-9:
        out.append(f'<text x="{x(tick):.1f}" y="{plot_bottom + 16}" text-anchor="middle" fill="#444">{tick:.2f}</text>')
        tick += step
    out.append(f'<text x="{label_w + plot_w / 2:.1f}" y="{plot_bottom + 36}" text-anchor="middle" fill="#444">'
               'speed ratio (PureImage / reference)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def fmt_mps(text):
    v = num(text)
    if v is None:
        return "—"
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def fmt_bytes(text):
    v = num(text)
    return f"{int(v):,}".replace(",", " ") if v is not None else "—"


def tables(inprocess, cli):
    """The Markdown tables of BENCHMARKS.md, from the same files."""
    out = []
    for codec, name, reference in CODECS:
        rows = [r for r in inprocess if r["codec"] == codec]
        if not rows:
            continue
        out.append(f"### {name}\n")
        out.append(f"| operation | reference | MP/s ours | MP/s reference | ratio (paired) | worst round | target |")
        out.append("| --- | --- | ---: | ---: | ---: | ---: | --- |")
        notes = []
        for r in rows:
            ratio, paired, worst = num(r["ratio"]), num(r["paired_ratio"]), num(r.get("worst_ratio", ""))
            ratio_text = "—" if ratio is None else f"{ratio:.2f}" + (f" ({paired:.2f})" if paired is not None else "")
            worst_text = "—" if worst is None else f"{worst:.2f}"
            target = r["target"] or "—"
            t = num(r["target_ratio"])
            if t is not None and ratio is not None:
                # Judged on the worst round when the file has it (a target that holds only in a
                # good round does not hold), else on the ratio of the medians.
                met = (worst if worst is not None else ratio) >= t
                size_ok = True
                if r.get("max_size_ratio") and num(r["ref_bytes"]) and num(r["ours_bytes"]):
                    size_ok = num(r["ours_bytes"]) / num(r["ref_bytes"]) <= num(r["max_size_ratio"])
                target += ": met" if met and size_ok else ": **not met**"
            op = f"{r['operation']}, `{r['file']}` {r['size'].replace('x', '×', 1) if r['size'].count('x') == 1 else megapixels(r['size'])}"
            out.append(f"| {op} | {reference} | {fmt_mps(r['ours_mps'])} | {fmt_mps(r['ref_mps'])} | {ratio_text} | {worst_text} | {target} |")
            if num(r["ref_bytes"]) and num(r["ours_bytes"]):
                change = (num(r["ours_bytes"]) / num(r["ref_bytes"]) - 1) * 100
                notes.append(f"{r['operation']} of `{r['file']}`: {fmt_bytes(r['ours_bytes'])} bytes against "
                             f"{fmt_bytes(r['ref_bytes'])} ({change:+.1f}%)")
        v3 = [r for r in rows if num(r.get("v3_ratio"))]
        out.append("")
        if notes:
            out.append("Output sizes: " + "; ".join(notes) + ".\n")
        if v3:
            out.append("Built for x86-64-v3 (`-Xswiftc -target-cpu -Xswiftc haswell`), in the same rounds: "
                       + "; ".join(f"{r['operation']} (`{r['file']}`) {fmt_mps(r['v3_mps'])} MP/s, ratio {num(r['v3_ratio']):.2f}"
                                   for r in v3) + ".\n")
    if cli:
        out.append("### Whole process\n")
        out.append("| operation | `jpng` command | reference command | wall s, jpng | wall s, reference "
                   "| wall ratio, jpng / reference (min-max) | peak RSS, jpng | peak RSS, reference |")
        out.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for r in cli:
            spread = ""
            if num(r.get("wall_ratio_min")) and num(r.get("wall_ratio_max")):
                spread = f" ({num(r['wall_ratio_min']):.2f}-{num(r['wall_ratio_max']):.2f})"
            cell = lambda c: "`" + c.replace("|", "\\|") + "`"  # noqa: E731 (GitHub needs \| even in code)
            out.append(f"| {r['operation']} | {cell(r['ours_cmd'])} | {cell(r['ref_cmd'])} | {num(r['ours_wall_s']):.3f} "
                       f"| {num(r['ref_wall_s']):.3f} | {num(r['wall_ratio']):.2f}{spread} "
                       f"| {num(r['ours_rss_mb']):.0f} MiB | {num(r['ref_rss_mb']):.0f} MiB |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inprocess", default=INPROCESS)
    ap.add_argument("--cli", default=CLI)
    ap.add_argument("--out", default=os.path.join(HERE, "chart.svg"))
    ap.add_argument("--tables", action="store_true", help="print BENCHMARKS.md's Markdown tables")
    args = ap.parse_args()
    inprocess, cli = read_tsv(args.inprocess), read_tsv(args.cli)
    if not inprocess and not cli:
        sys.exit(f"chart.py: no results in {args.inprocess} or {args.cli}")
    with open(args.out, "w") as f:
        f.write(svg(bars(inprocess, cli)))
    print(f"wrote {args.out}", file=sys.stderr)
    if args.tables:
        print(tables(inprocess, cli))


if __name__ == "__main__":
    main()
