"""PureQuant (through `jpng convert`) against libimagequant (PyPI imagequant, default speed 4)
and pngquant on the set from make_set.sh. Prints a TSV and a summary; figures go to
BENCHMARKS.md by hand.

Quality: PSNR and SSIM on premultiplied RGBA (a fully transparent pixel is the same whatever
its RGB), SSIM with a 7x7 uniform window, averaged over the four channels.
Speed: libimagequant in process (PIL image in, PIL image out, one thread: libimagequant is
single-threaded here); `jpng convert ... --threads 1` and `pngquant` as processes, each
including its PNG decode and encode.
Usage: python3 bench.py path/to/jpng [set-dir]
"""
import glob, io, os, subprocess, sys, tempfile, time
import numpy as np
from PIL import Image
import imagequant

jpng = sys.argv[1]
files = sorted(glob.glob(os.path.join(sys.argv[2] if len(sys.argv) > 2 else "set", "*.png")))

def premul(img):
    a = np.asarray(img.convert("RGBA"), dtype=np.float64)
    a[..., :3] *= a[..., 3:4] / 255
    return a

def psnr(x, y):
    mse = np.mean((x - y) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse)

def box(a, k=7):
    c = np.cumsum(np.cumsum(np.pad(a, ((1, 0), (1, 0))), 0), 1)
    return (c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]) / (k * k)

def ssim(x, y):
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    out = []
    for ch in range(4):
        a, b = x[..., ch], y[..., ch]
        ma, mb = box(a), box(b)
        va, vb, cov = box(a * a) - ma * ma, box(b * b) - mb * mb, box(a * b) - ma * mb
        out.append(np.mean(((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))))
    return float(np.mean(out))

def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t

rows = []
tmp = tempfile.mkdtemp()
print("image\tliq_psnr\tours_psnr\tliq_ssim\tours_ssim\tliq_ms\tpngquant_ms\tours_ms\tpngquant65_80_bytes\tours65_80_bytes\tpq_ssim\tours_q_ssim")
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
    pq8 = os.path.join(tmp, "pq8.png")
    r = subprocess.run(["pngquant", "--quality", "65-80", "--force", "--output", pq8, f])
    pq_bytes = os.path.getsize(pq8) if r.returncode == 0 else os.path.getsize(f)
    pq_ssim = ssim(ref, premul(Image.open(pq8))) if r.returncode == 0 else 1.0
    d2 = os.path.join(tmp, "q"); os.makedirs(d2, exist_ok=True)
    subprocess.run([jpng, "convert", f, "--to", "png", "--colors", "256", "--quality", "65-80", "--level", "9",
                    "--out-dir", d2, "--force"], check=True, stdout=subprocess.DEVNULL)
    o8 = os.path.join(d2, os.path.basename(f))
    o_ssim = ssim(ref, premul(Image.open(o8)))
    row = (os.path.basename(f), psnr(ref, liq), psnr(ref, ours), ssim(ref, liq), ssim(ref, ours),
           best * 1000, pq_t * 1000, ours_t * 1000, pq_bytes, os.path.getsize(o8), pq_ssim, o_ssim)
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
