"""PureQuant (through `jpng convert`) against libimagequant (PyPI imagequant, default speed 4)
and pngquant on the set from make_set.sh. Prints a TSV and a summary; figures go to
BENCHMARKS.md by hand.

Quality: PSNR and SSIM on premultiplied RGBA (a fully transparent pixel is the same whatever
its RGB), SSIM with a 7x7 uniform window, averaged over the four channels.
Speed here: libimagequant through `quantize_pil_image` (PIL image in and out, with the
package's pure-Python pixel conversion); `jpng convert ... --threads 1` and `pngquant` as
processes, each including its PNG decode and encode. The quantizer-to-quantizer comparison
(both in process, paired image by image) is speed.py.
Usage: python3 bench.py path/to/jpng [set-dir]
"""
import glob, io, os, subprocess, sys, tempfile, time
import numpy as np
from PIL import Image
import imagequant

jpng = sys.argv[1]
files = sorted(glob.glob(os.path.join(sys.argv[2] if len(sys.argv) > 2 else "set", "*.png")))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from metrics import premul, psnr, ssim

def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t

rows = []
tmp = tempfile.mkdtemp()
print("image\tliq_psnr\tours_psnr\tliq_ssim\tours_ssim\tliq_ms\tpngquant_ms\tours_ms\tpngquant65_80_bytes\tours65_80_bytes\tpq_ssim\tours_q_ssim\tpq65_80_ms\tours65_80_ms")
for f in files:
    src = Image.open(f).convert("RGBA")
    ref = premul(src)
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        q = imagequant.quantize_pil_image(src, dithering_level=1.0, max_colors=256)
        best = min(best, time.perf_counter() - t)
    liq = premul(q)
    out = os.path.join(tmp, "ours.png")
    ours_t = min(run([jpng, "convert", f, "--to", "png", "--colors", "256", "--dither", "1", "--threads", "1",
                      "--out-dir", tmp, "--force"]) for _ in range(3))
    ours = premul(Image.open(os.path.join(tmp, os.path.basename(f))))
    pq = os.path.join(tmp, "pq.png")
    pq_t = min(run(["pngquant", "--speed", "4", "--force", "--output", pq, "256", f]) for _ in range(3))
    # PNG8 at pngquant --quality 65-80 (size and SSIM).
    # Both timed as processes, in turn, best of 3 (pngquant exits 99 when the quality is too low).
    pq8 = os.path.join(tmp, "pq8.png")
    if os.path.exists(pq8): os.remove(pq8)
    pq8_t = o8_t = 1e9
    d2 = os.path.join(tmp, "q"); os.makedirs(d2, exist_ok=True)
    for _ in range(3):
        t = time.perf_counter()
        r = subprocess.run(["pngquant", "--quality", "65-80", "--force", "--output", pq8, f])
        pq8_t = min(pq8_t, time.perf_counter() - t)
        o8_t = min(o8_t, run([jpng, "convert", f, "--to", "png", "--colors", "256", "--quality", "65-80", "--level", "9",
                              "--out-dir", d2, "--force"]))
    pq_bytes = os.path.getsize(pq8) if r.returncode == 0 else os.path.getsize(f)
    pq_ssim = ssim(ref, premul(Image.open(pq8))) if r.returncode == 0 else 1.0
    o8 = os.path.join(d2, os.path.basename(f))
    o_ssim = ssim(ref, premul(Image.open(o8)))
    row = (os.path.basename(f), psnr(ref, liq), psnr(ref, ours), ssim(ref, liq), ssim(ref, ours),
           best * 1000, pq_t * 1000, ours_t * 1000, pq_bytes, os.path.getsize(o8), pq_ssim, o_ssim,
           pq8_t * 1000, o8_t * 1000)
    rows.append(row)
    print("\t".join(str(round(v, 4)) if isinstance(v, float) else str(v) for v in row), flush=True)

n = len(rows)
better = sum(1 for r in rows if r[2] >= r[1] and r[4] >= r[3])
within = sum(1 for r in rows if not (r[2] >= r[1] and r[4] >= r[3]) and r[1] - r[2] <= 0.2)
print(f"# {n} images: PSNR and SSIM >= libimagequant on {better}, within 0.2 dB on {within} more")
print(f"# mean PSNR: libimagequant {np.mean([r[1] for r in rows]):.2f} dB, ours {np.mean([r[2] for r in rows]):.2f} dB")
print(f"# mean SSIM: libimagequant {np.mean([r[3] for r in rows]):.4f}, ours {np.mean([r[4] for r in rows]):.4f}")
print(f"# time per image: libimagequant in process {np.mean([r[5] for r in rows]):.1f} ms, pngquant CLI {np.mean([r[6] for r in rows]):.1f} ms, jpng CLI {np.mean([r[7] for r in rows]):.1f} ms")
smaller = sum(1 for r in rows if r[9] <= r[8] and r[11] >= r[10])
print(f"# PNG8 --quality 65-80: ours no larger at equal or better SSIM on {smaller} of {n}; bytes pngquant {sum(r[8] for r in rows)}, ours {sum(r[9] for r in rows)}")
print(f"# PNG8 --quality 65-80 time per image (process): pngquant {np.mean([r[12] for r in rows]):.1f} ms, jpng {np.mean([r[13] for r in rows]):.1f} ms; jpng no slower on {sum(1 for r in rows if r[13] <= r[12])} of {n}")
