#!/usr/bin/env python3
"""APNG chunk order that libpng's APNG reader accepts and the specification does not: the
static image's fcTL before acTL (both before IDAT). libpng's fcTL handler asks only for IHDR
before it and no IDAT yet, so Firefox and ImageIO play such files; Pillow 13 does too.

Source: ../apng/default_image_is_frame0_rgba8.png (written by ../apng/make_vectors.py), with
its acTL moved after its first fcTL; nothing else changes (chunk CRCs stay valid).

- fctl_before_actl_rgba8.png: the rewritten file.
- fctl_before_actl_rgba8.rgba: the reference, Pillow 13's composited frames (`seek(n)`,
  `convert("RGBA")`), each width * height * 4 bytes, one after another; the frame count is the
  file size over that.

Run: python3 Vectors/apng-chunk-order/make.py
"""
import os
import struct

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "apng", "default_image_is_frame0_rgba8.png")


def chunks(data):
    i = 8
    while i < len(data):
        length = struct.unpack(">I", data[i:i + 4])[0]
        yield data[i + 4:i + 8], data[i:i + 12 + length]
        i += 12 + length


def main():
    data = open(SOURCE, "rb").read()
    parts = list(chunks(data))
    kinds = [k for k, _ in parts]
    actl = kinds.index(b"acTL")
    fctl = kinds.index(b"fcTL")
    assert actl < fctl < kinds.index(b"IDAT")
    moved = parts[:actl] + parts[actl + 1:fctl + 1] + [parts[actl]] + parts[fctl + 1:]
    out = data[:8] + b"".join(c for _, c in moved)
    name = os.path.join(HERE, "fctl_before_actl_rgba8.png")
    open(name, "wb").write(out)

    image = Image.open(name)
    frames = []
    for n in range(image.n_frames):
        image.seek(n)
        frames.append(image.convert("RGBA").tobytes())
    assert len(frames) > 1, "Pillow shows one frame"
    open(os.path.join(HERE, "fctl_before_actl_rgba8.rgba"), "wb").write(b"".join(frames))
    print(f"{len(frames)} frames of {image.size}")


if __name__ == "__main__":
    main()
