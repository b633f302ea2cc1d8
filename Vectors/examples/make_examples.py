#!/usr/bin/env python3
"""Makes the README's example images from matplotlib's sample photograph grace_hopper.jpg
(a U.S. Navy photograph, public domain), found in matplotlib's wheel under
mpl-data/sample_data. Run: python3 make_examples.py PATH/TO/grace_hopper.jpg
Needs Pillow and numpy. Outputs: portrait.png (RGBA, soft elliptical alpha) and portrait.jpg."""
import sys
import numpy as np
from PIL import Image

src = Image.open(sys.argv[1]).convert("RGB")
w, h = src.size
side = min(w, h)
crop = src.crop(((w - side) // 2, 0, (w - side) // 2 + side, side)).resize((320, 320), Image.LANCZOS)
rgb = np.asarray(crop, dtype=np.uint8)
yy, xx = np.mgrid[0:320, 0:320]
d = np.sqrt(((xx - 160) / 130.0) ** 2 + ((yy - 150) / 150.0) ** 2)
alpha = np.clip((1.08 - d) * 255 / 0.16, 0, 255).astype(np.uint8)
rgba = np.dstack([rgb, alpha])
Image.fromarray(rgba, "RGBA").save("portrait.png", optimize=True)
Image.fromarray(rgb, "RGB").save("portrait.jpg", quality=85)
