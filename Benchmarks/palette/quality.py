"""Quality of PureQuant (QuantBench write: in process, 256 colours, full Floyd-Steinberg, one
thread) against libimagequant (PyPI imagequant, speed 4, dithering 1.0) on the set: the
quantizer part of bench.py without the CLI, for quick checks while working on the quantizer.
Usage: python3 quality.py [set-dir]    (build first: swift build -c release)
"""
import glob, os, subprocess, sys, tempfile
import numpy as np
from PIL import Image
import imagequant
here = os.path.dirname(os.path.abspath(__file__))
files = sorted(glob.glob(os.path.join(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "set"), "*.png")))
sys.path.insert(0, here)
from metrics import premul, psnr, ssim

tmp = tempfile.mkdtemp()
subprocess.run([os.path.join(here, ".build/release/QuantBench"), "write", tmp] + files, check=True)
rows = []
for f in files:
    src = Image.open(f).convert("RGBA")
    ref = premul(src)
    liq = premul(imagequant.quantize_pil_image(src, dithering_level=1.0, max_colors=256))
    ours = premul(Image.open(os.path.join(tmp, os.path.basename(f))))
    rows.append((os.path.basename(f), psnr(ref, liq), psnr(ref, ours), ssim(ref, liq), ssim(ref, ours)))
    print("\t".join(str(round(v, 4)) if isinstance(v, float) else v for v in rows[-1]), flush=True)
better = sum(1 for r in rows if r[2] >= r[1] and r[4] >= r[3])
within = sum(1 for r in rows if not (r[2] >= r[1] and r[4] >= r[3]) and r[1] - r[2] <= 0.2)
print(f"# {len(rows)} images: PSNR and SSIM >= libimagequant on {better}, within 0.2 dB on {within} more")
print(f"# mean PSNR: libimagequant {np.mean([r[1] for r in rows]):.2f} dB, ours {np.mean([r[2] for r in rows]):.2f} dB")
print(f"# mean SSIM: libimagequant {np.mean([r[3] for r in rows]):.4f}, ours {np.mean([r[4] for r in rows]):.4f}")
