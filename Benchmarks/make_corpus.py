#!/usr/bin/env python3
"""Builds the benchmark corpus from photographs (see corpus.sh for where they come from).

Usage: make_corpus.py SOURCE_DIR OUT_DIR

SOURCE_DIR is searched recursively for .jpg files (the lomiri wallpapers and matplotlib's
sample_data). Every output that already exists is skipped, so the script is idempotent.
The choices are deterministic (fixed photographs, fixed seeds) so two machines get the same
corpus from the same package versions.
"""

import math
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

# Preferred photographs, by file name; any other large photograph fills in if one is missing.
PREFERRED = [
    "Dragonfly_by_Bolly.jpg",
    "sunset_by_Aitzol_Berasategi.jpg",
    "picosdeeuropa_by_Aitzol_Berasategi.jpg",
    "seeding_by_Clements_Engelhardt.jpg",
    "Bridge_by_Sander_Klootwijk.jpg",
    "greentock_by_Peter_Nerlich.jpg",
    "umang_by_Abhishek_Mudgal.jpg",
    "Wine_by_Jakkub_Mede.jpg",
    "life_by_Aitzol_Berasategi.jpg",
]


def log(msg):
    print(f"make_corpus: {msg}", flush=True)


def find_photos(src):
    found = {}
    for root, _, files in os.walk(src):
        for name in files:
            if name.lower().endswith((".jpg", ".jpeg")):
                found[name] = os.path.join(root, name)
    ordered = [found[n] for n in PREFERRED if n in found]
    rest = sorted(p for n, p in found.items() if n not in PREFERRED)
    big = []
    for path in ordered + rest:
        with Image.open(path) as im:
            if im.width * im.height >= 2_000_000:
                big.append(path)
    if len(big) < 5:
        sys.exit(f"make_corpus: need at least 5 photographs of 2 MP or more under {src}")
    small = [found[n] for n in ("grace_hopper.jpg",) if n in found]
    return big, small


def load_fit(path, width, height):
    """The photograph scaled and centre-cropped to exactly width x height (RGB)."""
    with Image.open(path) as im:
        im = im.convert("RGB")
        scale = max(width / im.width, height / im.height)
        w, h = max(width, round(im.width * scale)), max(height, round(im.height * scale))
        im = im.resize((w, h), Image.LANCZOS)
        x, y = (w - width) // 2, (h - height) // 2
        return im.crop((x, y, x + width, y + height))


def soft_alpha(width, height, kind, seed):
    """A synthetic soft alpha mask (uint8): smooth ramps, a fully opaque and a fully
    transparent region, as a cut-out or vignetted photograph would have."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    u, v = xx / (width - 1), yy / (height - 1)
    if kind == "radial":
        d = np.hypot((u - 0.5) / 0.5, (v - 0.5) / 0.5)
        a = np.clip((1.0 - d) / 0.35, 0.0, 1.0)
    elif kind == "roundrect":
        dx = np.maximum(np.abs(u - 0.5) - 0.3, 0.0)
        dy = np.maximum(np.abs(v - 0.5) - 0.3, 0.0)
        a = np.clip(1.0 - np.hypot(dx, dy) / 0.12, 0.0, 1.0)
    elif kind == "linear":
        a = np.clip((u * 0.7 + v * 0.3 - 0.15) / 0.6, 0.0, 1.0)
    elif kind == "blobs":
        rng = np.random.default_rng(seed)
        a = np.zeros_like(u)
        for _ in range(7):
            cx, cy, r = rng.uniform(0.15, 0.85), rng.uniform(0.15, 0.85), rng.uniform(0.1, 0.3)
            a = np.maximum(a, np.clip((r - np.hypot(u - cx, (v - cy) * height / width)) / 0.08, 0, 1))
    else:  # vignette: mostly opaque, feathered towards the edges
        d = np.maximum(np.abs(u - 0.5), np.abs(v - 0.5)) * 2.0
        a = np.clip((1.0 - d) / 0.25, 0.0, 1.0) ** 0.5
    a = a * a * (3.0 - 2.0 * a)  # smoothstep: no visible band at the ramp ends
    return (a * 255.0 + 0.5).astype(np.uint8)


def with_alpha(rgb, alpha):
    arr = np.dstack([np.asarray(rgb), alpha])
    return Image.fromarray(arr, "RGBA")


def cjpeg(img, out, args):
    with tempfile.NamedTemporaryFile(suffix=".ppm", delete=False) as tmp:
        ppm = tmp.name
    try:
        img.save(ppm)
        subprocess.run(["cjpeg", *args, "-outfile", out, ppm], check=True)
    finally:
        os.unlink(ppm)


def gif_frames(photos, portrait, size=500, count=100):
    """~100 frames: a pan across one photograph (each frame with its own local palette, no
    disposal), then a zoom into another (frames mapped to one global palette, alternating
    'restore to background' and 'do not dispose'), then a cross-fade, inside a central box only, from a portrait (matplotlib's
    grace_hopper.jpg, 512 x 600) to a third photograph, with
    'restore to previous'. Pillow crops frames to the changed rectangle, so frames also vary
    in size and position."""
    frames, disposal, durations = [], [], []
    n1, n2 = count * 4 // 10, count * 4 // 10
    n3 = count - n1 - n2

    pan = load_fit(photos[0], size * 3, size * 2)
    for i in range(n1):
        t = i / max(1, n1 - 1)
        x = round(t * (pan.width - size))
        y = round((0.5 - 0.5 * math.cos(t * math.pi)) * (pan.height - size))
        frame = pan.crop((x, y, x + size, y + size))
        frames.append(frame.quantize(colors=256, method=Image.Quantize.MEDIANCUT))
        disposal.append(1)
        durations.append(40)

    zoom_src = load_fit(photos[1], size * 4, size * 4)
    global_pal = None
    for i in range(n2):
        t = i / max(1, n2 - 1)
        side = round(zoom_src.width * (1.0 - 0.8 * t))
        x0 = (zoom_src.width - side) // 2
        frame = zoom_src.crop((x0, x0, x0 + side, x0 + side)).resize((size, size), Image.BILINEAR)
        if global_pal is None:
            global_pal = frame.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
            frames.append(global_pal)
        else:
            frames.append(frame.quantize(palette=global_pal, dither=Image.Dither.FLOYDSTEINBERG))
        disposal.append(2 if i % 2 else 1)
        durations.append(50)

    a = load_fit(portrait or photos[2], size, size)
    b = load_fit(photos[3], size, size)
    box = (size // 5, size // 4, size * 4 // 5, size * 3 // 4)
    fade_pal = None
    for i in range(n3):
        t = i / max(1, n3 - 1)
        # Only the central box changes, so Pillow writes these frames as sub-rectangles.
        frame = a.copy()
        frame.paste(Image.blend(a.crop(box), b.crop(box), t), box[:2])
        if fade_pal is None:
            fade_pal = frame.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
            frames.append(fade_pal)
        else:
            frames.append(frame.quantize(palette=fade_pal, dither=Image.Dither.NONE))
        disposal.append(3 if i % 4 == 3 else 1)
        durations.append(60)
    return frames, disposal, durations


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_corpus.py SOURCE_DIR OUT_DIR")
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    big, small = find_photos(src)

    def path(name):
        return os.path.join(out, name)

    def need(name):
        if os.path.exists(path(name)):
            log(f"{name} exists, skipped")
            return False
        log(f"making {name}")
        return True

    def mosaic():
        # 4000 x 3000 = 12 MP: 2x2 tiles of 2000 x 1500 from four photographs.
        canvas = Image.new("RGB", (4000, 3000))
        for k in range(4):
            canvas.paste(load_fit(big[k], 2000, 1500), ((k % 2) * 2000, (k // 2) * 1500))
        return canvas

    cached = {}

    def photo12():
        if "m" not in cached:
            if os.path.exists(path("photo12.png")):
                with Image.open(path("photo12.png")) as im:
                    cached["m"] = im.convert("RGB")
            else:
                cached["m"] = mosaic()
        return cached["m"]

    if need("photo12.png"):
        photo12().save(path("photo12.png"))
    jpegs = [
        ("photo12_420.jpg", ["-quality", "85"]),
        ("photo12_prog.jpg", ["-quality", "85", "-progressive"]),
        ("photo12_444.jpg", ["-quality", "85", "-sample", "1x1"]),
        ("photo12_gray.jpg", ["-quality", "85", "-grayscale"]),
    ]
    for name, args in jpegs:
        if need(name):
            cjpeg(photo12(), path(name), args)
    if need("photo1.jpg"):
        # 1152 x 864 = 1.0 MP
        # The mosaic scaled down: as detailed as the 12 MP files, unlike a mostly-sky photograph.
        cjpeg(photo12().resize((1152, 864), Image.LANCZOS), path("photo1.jpg"), ["-quality", "85"])
    if need("photo1_prog.jpg"):
        # The same 1 MP picture progressive (10 scans), for `jpng bench --previews`.
        cjpeg(photo12().resize((1152, 864), Image.LANCZOS), path("photo1_prog.jpg"), ["-quality", "85", "-progressive"])

    if need("alpha4.png"):
        # 2304 x 1728 = 4.0 MP
        with_alpha(load_fit(big[5 % len(big)], 2304, 1728), soft_alpha(2304, 1728, "radial", 1)).save(path("alpha4.png"))

    # Five RGBA photographs of 1-4 MP for the JPNG size table.
    sizes = [(1152, 864), (1440, 1080), (1632, 1224), (2000, 1500), (2304, 1728)]
    kinds = ["radial", "roundrect", "linear", "blobs", "vignette"]
    for k in range(5):
        name = f"alpha_{k + 1}.png"
        if need(name):
            w, h = sizes[k]
            photo = big[(k + 3) % len(big)]
            with_alpha(load_fit(photo, w, h), soft_alpha(w, h, kinds[k], k)).save(path(name))

    if need("anim100.gif"):
        order = big[6:] + big[:6]
        frames, disposal, durations = gif_frames(order, small[0] if small else None)
        frames[0].save(path("anim100.gif"), save_all=True, append_images=frames[1:],
                       duration=durations, disposal=disposal, loop=0, optimize=False)
    log("done")


if __name__ == "__main__":
    main()
