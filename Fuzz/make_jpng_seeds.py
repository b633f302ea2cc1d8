#!/usr/bin/env python3
"""Builds a few small JPNG seed files (JPEG + grey PNG mask + 16-byte footer) for the jpng and
imagesource fuzz targets. Outputs are committed in Fuzz/seeds/jpng/."""
import io, os, struct, sys
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
vectors = os.path.join(here, "..", "Vectors")
out = os.path.join(here, "seeds", "jpng")
os.makedirs(out, exist_ok=True)

def footer(image_size, mask_size):
    return struct.pack("<IIHBBI", image_size, mask_size, 16, 1, 0, 0x4A504E47)

sources = ["jpeg-encoder/tiny_1x1_q75_420.jpg", "jpeg-encoder/photo_17x9_q75_420.jpg",
           "jpeg-encoder/photo_17x9_q75_420_prog.jpg", "jpeg-encoder/photo_gray_45x31_q75_420.jpg",
           "jpeg-encoder/noise_24x16_q75_444.jpg"]
for i, rel in enumerate(sources):
    jpeg = open(os.path.join(vectors, rel), "rb").read()
    w, h = Image.open(io.BytesIO(jpeg)).size
    mask = Image.new("L", (w, h))
    mask.putdata([(x * 37 + y * 11) % 256 for y in range(h) for x in range(w)])
    buf = io.BytesIO()
    mask.save(buf, "PNG", optimize=True)
    png = buf.getvalue()
    name = os.path.splitext(os.path.basename(rel))[0] + ".jpng"
    with open(os.path.join(out, name), "wb") as f:
        f.write(jpeg + png + footer(len(jpeg), len(png)))
print("wrote", len(sources), "seeds to", out, file=sys.stderr)
