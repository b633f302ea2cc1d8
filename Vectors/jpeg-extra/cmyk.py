#!/usr/bin/env python3
"""CMYK JPEGs with and without the Adobe APP14 marker (outputs committed), made from the
committed crop base_420_s8.ppm (71x53):

- cmyk_adobe_pillow.jpg: Pillow 13's CMYK JPEG (its libjpeg-turbo; Adobe marker, transform 0,
  one Huffman table pair), quality 90.
- cmyk_no_adobe.jpg: the same bytes with the APP14 segment removed, as an encoder that writes
  none (or a damaged segment) leaves the file. libjpeg then guesses CMYK from the component
  count alone (jdapimin.c default_decompress_parms).

Each `*_s8.ppm` is Debian's djpeg 2.1.5 `-dct int -ppm` output, which turns CMYK into RGB by
cmyk_to_rgb (R = C * K / 255) whether or not the marker is there: browsers, Pillow and
PureJPEG take every 4-component file as Adobe-inverted. Adds its rows to manifest.tsv if missing.

Run: python3 Vectors/jpeg-extra/cmyk.py (needs Pillow and libjpeg-turbo-progs).
"""
import io
import os
import struct
import subprocess

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def without_app14(data):
    out = bytearray(data[:2])
    i = 2
    while True:
        marker = data[i + 1]
        if marker == 0xDA:
            return bytes(out + data[i:])
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker != 0xEE:
            out += data[i:i + 2 + length]
        i += 2 + length


def main():
    source = Image.open(os.path.join(HERE, "base_420_s8.ppm")).convert("CMYK")
    buffer = io.BytesIO()
    source.save(buffer, "JPEG", quality=90)
    adobe = buffer.getvalue()
    assert b"Adobe" in adobe
    files = {"cmyk_adobe_pillow.jpg": adobe, "cmyk_no_adobe.jpg": without_app14(adobe)}
    manifest = os.path.join(HERE, "manifest.tsv")
    rows = open(manifest).read()
    for name, data in files.items():
        open(os.path.join(HERE, name), "wb").write(data)
        expected = name.replace(".jpg", "_s8.ppm")
        ppm = subprocess.run(["djpeg", "-dct", "int", "-ppm", os.path.join(HERE, name)],
                             stdout=subprocess.PIPE, check=True).stdout
        open(os.path.join(HERE, expected), "wb").write(ppm)
        if name + "\t" not in rows:
            note = "CMYK, Adobe marker (Pillow)" if name == "cmyk_adobe_pillow.jpg" else "CMYK without an Adobe marker"
            rows += f"{name}\t8\t1\t{expected}\t{note}\n"
    open(manifest, "w").write(rows)


if __name__ == "__main__":
    main()
