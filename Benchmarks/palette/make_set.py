"""Cuts 30 512x512 test images (PNG) from the photographs under argv[1] into argv[2]."""
import glob, os, sys
from PIL import Image, ImageDraw, ImageFilter

src, out = sys.argv[1], sys.argv[2]
files = sorted(f for f in glob.glob(os.path.join(src, "**", "*"), recursive=True)
               if f.lower().endswith((".jpg", ".jpeg", ".png")) and os.path.getsize(f) > 50_000)
made = 0
for f in files:
    im = Image.open(f).convert("RGB")
    w, h = im.size
    if w < 512 or h < 512:
        continue
    # Two crops a photograph: one whole view scaled down, one 1:1 detail.
    scale = Image.open(f).convert("RGB")
    scale.thumbnail((512, 512 * h // w + 1))
    views = [scale.crop((0, 0, min(512, scale.width), min(512, scale.height))),
             im.crop((w // 3, h // 3, w // 3 + 512, h // 3 + 512))]
    for v in views:
        if v.size != (512, 512):
            v = v.resize((512, 512))
        img = v.convert("RGBA")
        if made % 5 == 4:   # every fifth image: a soft ellipse of alpha, transparent outside
            mask = Image.new("L", (512, 512), 0)
            ImageDraw.Draw(mask).ellipse((40, 60, 470, 450), fill=255)
            img.putalpha(mask.filter(ImageFilter.GaussianBlur(12)))
        img.save(os.path.join(out, f"img{made:02d}.png"))
        made += 1
        if made == 30:
            sys.exit(0)
print("only", made, "images", file=sys.stderr)
