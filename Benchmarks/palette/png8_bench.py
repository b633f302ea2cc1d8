"""PNG8 at pngquant's `--quality 65-80` only, sizes and SSIM (no timing; bench.py times both):
`jpng convert --to png --colors 256 --quality 65-80 --level 9` against Debian's pngquant 2.17
with `--quality 65-80` on the set from make_set.sh. Per image: bytes, SSIM (metrics.py) and
palette size of each side, and whether ours is no larger at equal or better SSIM. An image
pngquant refuses (exit 99, quality below 65) counts at the source's size and SSIM 1, as in
bench.py. pngquant's results are deterministic and kept in `<workdir>/pq/` between runs.
Usage: python3 png8_bench.py path/to/jpng [set-dir] [workdir]
(JPNG_ARGS in the environment: more jpng options, e.g. "--dither 0.5", for experiments.)
"""
import glob, os, subprocess, sys
import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from metrics import premul, ssim

jpng = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
files = sorted(glob.glob(os.path.join(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "set"), "*.png")))
work = sys.argv[3] if len(sys.argv) > 3 else "/tmp/png8_bench"
os.makedirs(os.path.join(work, "pq"), exist_ok=True)
os.makedirs(os.path.join(work, "ours"), exist_ok=True)

def colours(path):
    im = Image.open(path)
    return len(im.getpalette() or []) // 3 if im.mode == "P" else -1

rows = []
print("image\tpq_bytes\tpq_ssim\tpq_colours\tours_bytes\tours_ssim\tours_colours\twin")
for f in files:
    name = os.path.basename(f)
    ref = premul(Image.open(f))
    pq = os.path.join(work, "pq", name)
    refused = os.path.join(work, "pq", name + ".refused")
    if not os.path.exists(pq) and not os.path.exists(refused):
        r = subprocess.run(["pngquant", "--quality", "65-80", "--force", "--output", pq, f])
        if r.returncode != 0: open(refused, "w").close()
    if os.path.exists(refused):
        pb, ps, pc = os.path.getsize(f), 1.0, 0
    else:
        pb, ps, pc = os.path.getsize(pq), ssim(ref, premul(Image.open(pq))), colours(pq)
    d = os.path.join(work, "ours")
    subprocess.run([jpng, "convert", f, "--to", "png", "--colors", "256", "--quality", "65-80", "--level", "9",
                    "--out-dir", d, "--force"] + os.environ.get("JPNG_ARGS", "").split(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    o = os.path.join(d, name)
    ob, os_, oc = os.path.getsize(o), ssim(ref, premul(Image.open(o))), colours(o)
    win = ob <= pb and os_ >= ps
    rows.append((pb, ps, ob, os_, win))
    print(f"{name}\t{pb}\t{ps:.4f}\t{pc}\t{ob}\t{os_:.4f}\t{oc}\t{'yes' if win else 'no'}", flush=True)

n = len(rows)
print(f"# {sum(r[4] for r in rows)} of {n} no larger at equal or better SSIM; "
      f"bytes pngquant {sum(r[0] for r in rows)}, ours {sum(r[2] for r in rows)}; "
      f"mean SSIM pngquant {np.mean([r[1] for r in rows]):.4f}, ours {np.mean([r[3] for r in rows]):.4f}")
