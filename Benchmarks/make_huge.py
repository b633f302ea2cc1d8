#!/usr/bin/env python3
"""Makes the huge test image of the tile-pyramid benchmark: a 16000x12000 baseline JPEG at
quality 85 (cjpeg, 4:2:0), built from one photograph tiled 4x4 with every copy varied (mirrored
and/or flipped, brightness and colour balance shifted, its own noise), so the content never
repeats exactly.

Usage: make_huge.py [OUT]        (default Benchmarks/corpus/huge.jpg, git-ignored)

The source is Benchmarks/corpus/photo12.png (made by corpus.sh), else another photograph of the
corpus, else matplotlib's sample photograph; it is scaled to 4000x3000. The image is streamed to
cjpeg one row of copies at a time (about 200 MB), never held whole. Deterministic (fixed seed).
"""

import glob
import os
import subprocess
import sys

import numpy as np
from PIL import Image

WIDTH, HEIGHT = 16000, 12000
COLUMNS, ROWS = 4, 4
CELL_W, CELL_H = WIDTH // COLUMNS, HEIGHT // ROWS
HERE = os.path.dirname(os.path.abspath(__file__))


def source_photo():
    candidates = [os.path.join(HERE, "corpus", "photo12.png")]
    candidates += sorted(glob.glob(os.path.join(HERE, "corpus", "photo*.jpg")))
    try:
        import matplotlib.cbook as cbook
        candidates.append(str(cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)))
    except Exception:
        pass
    for path in candidates:
        if os.path.exists(path):
            return path
    sys.exit("make_huge.py: no source photograph (run Benchmarks/corpus.sh first)")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus", "huge.jpg")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    src_path = source_photo()
    photo = Image.open(src_path).convert("RGB").resize((CELL_W, CELL_H), Image.LANCZOS)
    base = np.asarray(photo, dtype=np.int16)
    rng = np.random.default_rng(20261122)
    tmp = out + ".partial"
    with open(tmp, "wb") as f:
        cjpeg = subprocess.Popen(["cjpeg", "-quality", "85", "-baseline"], stdin=subprocess.PIPE, stdout=f)
        cjpeg.stdin.write(b"P6\n%d %d\n255\n" % (WIDTH, HEIGHT))
        for row in range(ROWS):
            band = np.empty((CELL_H, WIDTH, 3), dtype=np.uint8)
            for col in range(COLUMNS):
                cell = base
                variant = int(rng.integers(0, 4))
                if variant & 1:
                    cell = cell[:, ::-1]
                if variant & 2:
                    cell = cell[::-1, :]
                gain = rng.uniform(0.8, 1.15, size=3)
                shift = rng.integers(-20, 21)
                noise = rng.integers(-3, 4, size=cell.shape, dtype=np.int16)
                varied = np.clip(cell * gain + shift + noise, 0, 255).astype(np.uint8)
                band[:, col * CELL_W:(col + 1) * CELL_W] = varied
            cjpeg.stdin.write(band.tobytes())
        cjpeg.stdin.close()
        if cjpeg.wait() != 0:
            sys.exit("make_huge.py: cjpeg failed")
    os.replace(tmp, out)
    print(f"{out}: {WIDTH}x{HEIGHT} baseline JPEG q85 from {os.path.basename(src_path)}, "
          f"{os.path.getsize(out) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
