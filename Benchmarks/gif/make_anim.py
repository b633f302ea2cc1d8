#!/usr/bin/env python3
"""Makes the GIF decoding benchmark input: about 100 frames of 500x500 cut from photographs
(panning, cropping and zooming over matplotlib's sample photos), each frame with its own
adaptive 256-colour palette, as a camera-like animated GIF.

    pip download matplotlib --no-deps -d /tmp/mpl && cd /tmp/mpl && unzip -o matplotlib-*.whl
    python3 make_anim.py /tmp/mpl/matplotlib/mpl-data/sample_data /tmp/anim.gif

The GIF itself is not committed (a few MB); this script makes the same file every time.
"""
import os
import sys

from PIL import Image

SIZE = 500
FRAMES = 100


def photos(folder):
    names = ["grace_hopper.jpg", "Minduka_Present_Blue_Pack.png", "logo2.png"]
    out = []
    for name in names:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            out.append(Image.open(path).convert("RGB"))
    if not out:
        sys.exit("no sample photos in " + folder)
    return out


def frame(photo, t):
    """Frame at time t in [0, 1): a crop that pans across the photo while zooming in and out."""
    w, h = photo.size
    scale = 1.6 + 0.6 * ((t * 2) % 1.0 if t < 0.5 else 1 - (t * 2) % 1.0)   # zoom factor
    side = min(w, h) / scale
    x = (w - side) * t
    y = (h - side) * (0.5 + 0.4 * (t - 0.5))
    box = (int(x), int(y), int(x + side), int(y + side))
    return photo.crop(box).resize((SIZE, SIZE), Image.Resampling.BICUBIC)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "/tmp/mpl/matplotlib/mpl-data/sample_data"
    out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/anim.gif"
    sources = photos(folder)
    frames = []
    for i in range(FRAMES):
        # Mostly the photograph; every 25 frames the scene cuts to the next source image.
        photo = sources[0] if (i // 25) % 2 == 0 or len(sources) == 1 else sources[(i // 25) % len(sources)]
        rgb = frame(photo, (i % 25) / 25 if (i // 25) % 2 else i / FRAMES)
        frames.append(rgb.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG))
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=40, loop=0, optimize=False)
    print(out, os.path.getsize(out), "bytes,", FRAMES, "frames")


if __name__ == "__main__":
    main()
