"""PureGIF's encoder (through `jpng convert X --to gif`, defaults) against ffmpeg's GIF on
short clips, side by side in one run. Prints a TSV and a summary; figures go to
BENCHMARKS.md by hand.

Clips (each an APNG made here, the source for every encoder):
- ffmpeg lavfi sources at 320x240, 10 fps, 3 s (30 frames): `testsrc2`, `mandelbrot`, `life`
  (coloured, with mould);
- two 16-frame pieces of Benchmarks/corpus/anim100_apng.png (500x500; made by
  Benchmarks/corpus.sh and cli.sh from photographs, through a GIF): the pan (frames 0-15,
  every pixel moves) and the cross-fade in a central box (frames 84-99). Left out when the
  file is absent (or pass its path as the third argument).
Encoders:
- ours: `jpng convert clip.png --to gif` (256 colours, Floyd-Steinberg 1);
- ffmpeg two-pass with its defaults: `palettegen` (one palette from every frame) then
  `paletteuse` (sierra2_4a), in one process (`split`);
- ffmpeg's variant: `palettegen=stats_mode=diff` and `paletteuse=diff_mode=rectangle`.
Metrics:
- bytes; `gifsicle -O3` output bytes and the shrink it makes;
- quality: each source frame against the GIF frame shown at its middle instant (GIFs
  decoded and composited by Pillow, RGBA; delays from the file, so merged frames count for
  every source frame they stand for): PSNR and SSIM (7x7 window, four channels) on
  premultiplied RGBA as bench.py takes them, averaged over the source frames;
- speed: frames per second of the whole process (decoding the APNG, encoding, writing),
  best of 5, both tools confined to 2 cores (`taskset -c 0,1`).
The rule for "at equal quality": a clip counts as ours no larger than ffmpeg's when our
bytes are at most its bytes and our mean PSNR and mean SSIM are both at least its (rounded
to 0.01 dB and 0.0001); as larger when its bytes are more and its PSNR and SSIM are no
better than ffmpeg's (equal quality included); any other clip (smaller but worse in either,
or larger but better in both) is counted as neither and shown as "mixed". Against the
diff/rectangle variant, ours fails on a clip when it is larger and worse in PSNR or in SSIM.
Usage: python3 gif_bench.py path/to/jpng [workdir] [anim100_apng.png]
"""
import os, subprocess, sys, tempfile, time
import numpy as np
from PIL import Image

jpng = os.path.abspath(sys.argv[1])
work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
anim = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "..", "corpus", "anim100_apng.png")
cores = ["taskset", "-c", "0,1"]
sys.path.insert(0, here)
from metrics import premul, psnr, ssim  # the measures bench.py uses

def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def timed(cmd, repeats=5):
    best = 1e9
    for _ in range(repeats):
        t = time.perf_counter()
        run(cores + cmd)
        best = min(best, time.perf_counter() - t)
    return best

def frames_with_times(path):
    """Composited RGBA frames (premultiplied arrays) and their start times in ms."""
    im = Image.open(path)
    frames, starts, t = [], [], 0
    for k in range(getattr(im, "n_frames", 1)):
        im.seek(k)
        frames.append(premul(im))
        starts.append(t)
        t += im.info.get("duration", 0) or 0
    return frames, starts

def quality(src_path, gif_path):
    src, src_t = frames_with_times(src_path)
    gif, gif_t = frames_with_times(gif_path)
    ends = src_t[1:] + [src_t[-1] + (src_t[-1] - src_t[-2] if len(src_t) > 1 else 100)]
    ps, ss = [], []
    for f, a, b in zip(src, src_t, ends):
        mid = (a + b) / 2
        k = max(i for i, s in enumerate(gif_t) if s <= mid)
        ps.append(psnr(f, gif[k]))
        ss.append(ssim(f, gif[k]))
    return float(np.mean(ps)), float(np.mean(ss)), len(src)

def make_clips():
    clips = []
    lavfi = {
        "testsrc2": "testsrc2=size=320x240:rate=10",
        "mandelbrot": "mandelbrot=size=320x240:rate=10",
        "life": "life=size=320x240:rate=10:mold=10:ratio=0.1:death_color=#C83232:life_color=#00ff00:mold_color=#0000ff",
    }
    for name, graph in lavfi.items():
        out = os.path.join(work, name + ".png")
        if not os.path.exists(out):
            run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", graph, "-t", "3", "-pix_fmt", "rgba",
                 "-plays", "0", "-f", "apng", out])
        clips.append((name, out))
    if os.path.exists(anim):
        src = Image.open(anim)
        for name, first in (("anim100_pan", 0), ("anim100_fade", 84)):
            out = os.path.join(work, name + ".png")
            if not os.path.exists(out):
                frames = []
                for k in range(first, first + 16):
                    src.seek(k)
                    frames.append(src.convert("RGBA"))
                frames[0].save(out, save_all=True, append_images=frames[1:], duration=40, loop=0)
            clips.append((name, out))
    return clips

def gifsicle(path):
    out = path[:-4] + ".O3.gif"
    run(["gifsicle", "-O3", path, "-o", out])
    return os.path.getsize(out)

encoders = {
    "ours": lambda src, out: [jpng, "convert", src, "--to", "gif", "--out-dir", os.path.dirname(out), "--force"],
    "ff2pass": lambda src, out: ["ffmpeg", "-v", "error", "-y", "-i", src, "-filter_complex",
                                 "[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse", out],
    "ffdiff": lambda src, out: ["ffmpeg", "-v", "error", "-y", "-i", src, "-filter_complex",
                                "[0:v]split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=diff_mode=rectangle", out],
}

rows = []
cols = ["clip", "frames"]
for e in encoders:
    cols += [f"{e}_bytes", f"{e}_psnr", f"{e}_ssim", f"{e}_O3_shrink%", f"{e}_fps"]
print("\t".join(cols))
for name, src in make_clips():
    row = {"clip": name}
    for e, cmd in encoders.items():
        os.makedirs(os.path.join(work, e), exist_ok=True)
        out = os.path.join(work, e, name + ".gif")
        t = timed(cmd(src, out))
        p, s, n = quality(src, out)
        size = os.path.getsize(out)
        row["frames"] = n
        row[e] = dict(bytes=size, psnr=p, ssim=s, shrink=100 * (size - gifsicle(out)) / size, fps=n / t)
    rows.append(row)
    cells = [name, str(row["frames"])]
    for e in encoders:
        r = row[e]
        cells += [str(r["bytes"]), f"{r['psnr']:.2f}", f"{r['ssim']:.4f}", f"{r['shrink']:.1f}", f"{r['fps']:.1f}"]
    print("\t".join(cells), flush=True)

def better_or_equal(a, b):
    return round(a["psnr"], 2) >= round(b["psnr"], 2) and round(a["ssim"], 4) >= round(b["ssim"], 4)

n = len(rows)
wins = [r["clip"] for r in rows if r["ours"]["bytes"] <= r["ff2pass"]["bytes"] and better_or_equal(r["ours"], r["ff2pass"])]
losses = [r["clip"] for r in rows if r["ours"]["bytes"] > r["ff2pass"]["bytes"] and better_or_equal(r["ff2pass"], r["ours"])]
mixed = [r["clip"] for r in rows if r["clip"] not in wins and r["clip"] not in losses]
bad = [r["clip"] for r in rows if r["ours"]["bytes"] > r["ffdiff"]["bytes"] and not better_or_equal(r["ours"], r["ffdiff"])]
print(f"# size at equal quality vs ffmpeg two-pass: ours no larger and no worse on {len(wins)} of {n} "
      f"({', '.join(wins) or '-'}); mixed on {', '.join(mixed) or 'none'}; larger and no better on {', '.join(losses) or 'none'}")
print(f"# vs diff/rectangle: larger and worse on {', '.join(bad) or 'no clip'}")
for e in encoders:
    print(f"# {e}: bytes {sum(r[e]['bytes'] for r in rows)}, mean PSNR {np.mean([r[e]['psnr'] for r in rows]):.2f} dB, "
          f"mean SSIM {np.mean([r[e]['ssim'] for r in rows]):.4f}, gifsicle -O3 shrink "
          f"{np.mean([r[e]['shrink'] for r in rows]):.1f}% (mean), fps {np.mean([r[e]['fps'] for r in rows]):.1f} (mean)")
faster = sum(1 for r in rows if r["ours"]["fps"] >= r["ff2pass"]["fps"])
print(f"# encode fps >= ffmpeg two-pass on {faster} of {n} clips")
