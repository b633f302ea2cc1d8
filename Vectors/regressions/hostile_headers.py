#!/usr/bin/env python3
"""Small files whose headers declare images their bytes cannot hold (issue: limits on every
streaming path). Each is a valid small file written by Pillow 13 (JPEG: libjpeg-turbo inside
Pillow; PNG: written here with zlib) whose header is then rewritten:

- limits-jpeg-gray-40000.jpg: a 16x16 grayscale baseline JPEG (Pillow, quality 75) whose SOF
  says 40000x40000 (about 570 bytes: 25 M blocks, at least 3 MB of Huffman data).
- limits-jpeg-rgb-40000.jpg: a 4:4:4 RGB baseline JPEG of 250x250 noise (Pillow, quality 95,
  subsampling 0, about 150 KB) whose SOF says 40000x40000 (75 M blocks).
- limits-png-interlaced-65535.png: an interlaced 8-bit RGB PNG whose IHDR says 65535x65535,
  with one IDAT of twelve zero rows deflated and IEND (a few hundred bytes; 12.9 GB of
  pixels).

Run from anywhere: python3 Vectors/regressions/hostile_headers.py
"""
import io
import os
import random
import struct
import zlib

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def patch_sof(data, width, height):
    i = 2
    while i < len(data):
        assert data[i] == 0xFF
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            body = bytearray(data)
            body[i + 5:i + 9] = struct.pack(">HH", height, width)
            return bytes(body)
        i += 2 + length
    raise ValueError("no SOF")


def jpeg(image, **options):
    out = io.BytesIO()
    image.save(out, "JPEG", **options)
    return out.getvalue()


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def main():
    gray = Image.new("L", (16, 16), 128)
    data = patch_sof(jpeg(gray, quality=75), 40000, 40000)
    open(os.path.join(HERE, "limits-jpeg-gray-40000.jpg"), "wb").write(data)

    rng = random.Random(33)
    noise = Image.frombytes("RGB", (250, 250), bytes(rng.randrange(256) for _ in range(250 * 250 * 3)))
    data = patch_sof(jpeg(noise, quality=95, subsampling=0), 40000, 40000)
    open(os.path.join(HERE, "limits-jpeg-rgb-40000.jpg"), "wb").write(data)

    ihdr = struct.pack(">IIBBBBB", 65535, 65535, 8, 2, 0, 0, 1)
    # The first Adam7 pass is 8193 pixels wide: 12 of its rows, filter type 0, all zero.
    rows = b"".join(b"\x00" + bytes(8193 * 3) for _ in range(12))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    open(os.path.join(HERE, "limits-png-interlaced-65535.png"), "wb").write(png)


if __name__ == "__main__":
    main()
