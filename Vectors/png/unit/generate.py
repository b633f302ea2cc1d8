#!/usr/bin/env python3
"""Small PNGs for PurePNG's decoder unit tests, written by hand (not by Pillow) so that every
colour type, bit depth, filter type, Adam7 and each ancillary chunk is exercised exactly.

Writes the .png files beside this script and expected.txt, one line per valid file:
    name width height format rgba16crc
where format is the decoder's native output format and rgba16crc is the CRC-32 of the
expected pixels converted to RGBA16 with big-endian samples (Image.rgba16Checksum).
Run: python3 Vectors/png/unit/generate.py
"""
import os
import random
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SIGNATURE = b"\x89PNG\r\n\x1a\n"
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunk(kind, data, bad_crc=False):
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    if bad_crc:
        crc ^= 1
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def ihdr(w, h, depth, ctype, interlace=0):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, interlace))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(ftype, row, prev, bpp):
    out = bytearray()
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][ftype]
        out.append((x - pred) & 0xFF)
    return bytes([ftype]) + bytes(out)


def pack_row(samples, depth):
    """samples: flat list of sample values for one row."""
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if depth == 8:
        return bytes(samples)
    out, acc, nbits = bytearray(), 0, 0
    for s in samples:
        acc = (acc << depth) | s
        nbits += depth
        if nbits == 8:
            out.append(acc)
            acc, nbits = 0, 0
    if nbits:
        out.append(acc << (8 - nbits))
    return bytes(out)


def raw_image(pixels, w, h, depth, ctype, interlace, filters):
    """pixels[y][x] is a tuple of samples. Returns the filtered, uncompressed stream."""
    ch = CHANNELS[ctype]
    bpp = max(1, depth * ch // 8)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    stream = bytearray()
    k = 0
    for (x0, y0, dx, dy) in passes:
        xs = list(range(x0, w, dx))
        ys = list(range(y0, h, dy))
        if not xs or not ys:
            continue
        prev = bytes(len(pack_row([0] * (len(xs) * ch), depth)))
        for y in ys:
            row = pack_row([s for x in xs for s in pixels[y][x]], depth)
            stream += filter_row(filters[k % len(filters)], row, prev, bpp)
            prev = row
            k += 1
    return bytes(stream)


def expected_rgba16(pixels, w, h, depth, ctype, palette=None, trns=None):
    """The decoder's output converted to RGBA16, as Image.rgba16Checksum computes it."""
    out = bytearray()
    maxv = (1 << depth) - 1
    for y in range(h):
        for x in range(w):
            s = pixels[y][x]
            if ctype == 3:
                r, g, b = palette[s[0]] if s[0] < len(palette) else (0, 0, 0)
                a = trns[s[0]] if trns is not None and s[0] < len(trns) else 255
                rgba = [v * 257 for v in (r, g, b, a)]
            else:
                def wide(v):
                    if depth == 16:
                        return v
                    v8 = v * (255 // maxv)
                    return v8 * 257
                if ctype in (0, 4):
                    g = wide(s[0])
                    rgba = [g, g, g, wide(s[1]) if ctype == 4 else 65535]
                else:
                    rgba = [wide(s[0]), wide(s[1]), wide(s[2]), wide(s[3]) if ctype == 6 else 65535]
                if trns is not None and ctype in (0, 2):
                    key = trns if isinstance(trns, tuple) else (trns,)
                    if tuple(s) == tuple(k & maxv for k in key):
                        rgba[3] = 0
            out += struct.pack(">4H", *rgba)
    return zlib.crc32(bytes(out)) & 0xFFFFFFFF


def output_format(depth, ctype, has_trns):
    sixteen = "16" if depth == 16 else "8"
    if ctype == 3:
        return "rgba8" if has_trns else "rgb8"
    base = {0: "gray", 2: "rgb", 4: "grayAlpha", 6: "rgba"}[ctype]
    if has_trns and ctype == 0:
        base = "grayAlpha"
    if has_trns and ctype == 2:
        base = "rgba"
    return base + sixteen


expected_lines = []


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def make(name, w, h, depth, ctype, interlace=0, filters=(0, 1, 2, 3, 4), palette=None, trns=None,
         extra_before=b"", extra_after=b"", seed=1, idat_split=None, level=9):
    rnd = random.Random(seed)
    ch = CHANNELS[ctype]
    maxv = (1 << depth) - 1
    pixels = []
    for y in range(h):
        row = []
        for x in range(w):
            if ctype == 3:
                row.append((rnd.randrange(len(palette)),))
            else:
                # Smooth ramps plus noise, so that every filter has work to do.
                row.append(tuple(min(maxv, ((x * 7 + y * 13 + c * 50) * maxv // 120 + rnd.randrange(3)) % (maxv + 1))
                                 for c in range(ch)))
        pixels.append(row)
    if trns is not None and ctype in (0, 2):
        # Make sure the key colour occurs.
        key = trns if isinstance(trns, tuple) else (trns,)
        pixels[0][0] = tuple(k & maxv for k in key)
    data = SIGNATURE + ihdr(w, h, depth, ctype, interlace) + extra_before
    if palette is not None:
        data += chunk(b"PLTE", b"".join(bytes(p) for p in palette))
    if trns is not None:
        if ctype == 3:
            data += chunk(b"tRNS", bytes(trns))
        elif ctype == 0:
            data += chunk(b"tRNS", struct.pack(">H", trns))
        else:
            data += chunk(b"tRNS", struct.pack(">3H", *trns))
    z = zlib.compress(raw_image(pixels, w, h, depth, ctype, interlace, filters), level)
    if idat_split:
        for i in range(0, len(z), idat_split):
            data += chunk(b"IDAT", z[i:i + idat_split])
    else:
        data += chunk(b"IDAT", z)
    data += extra_after + chunk(b"IEND", b"")
    write(name, data)
    fmt = output_format(depth, ctype, trns is not None)
    expected_lines.append(f"{name} {w} {h} {fmt} {expected_rgba16(pixels, w, h, depth, ctype, palette, trns):08x}")
    return pixels


def main():
    pal = [(i * 37 % 256, i * 91 % 256, i * 53 % 256) for i in range(16)]
    pal256 = [(i, 255 - i, i * 7 % 256) for i in range(256)]
    for depth in (1, 2, 4, 8, 16):
        make(f"gray{depth}.png", 13, 9, depth, 0, seed=depth)
        make(f"gray{depth}-adam7.png", 19, 11, depth, 0, interlace=1, seed=depth + 10)
    for depth in (8, 16):
        for ctype, label in ((2, "rgb"), (4, "ga"), (6, "rgba")):
            make(f"{label}{depth}.png", 17, 10, depth, ctype, seed=depth * ctype)
            make(f"{label}{depth}-adam7.png", 21, 13, depth, ctype, interlace=1, seed=depth * ctype + 1)
    for depth in (1, 2, 4, 8):
        n = min(1 << depth, 16)
        make(f"palette{depth}.png", 15, 7, depth, 3, palette=pal[:n], seed=depth + 30)
    make("palette8-trns.png", 16, 8, 8, 3, palette=pal256, trns=[0, 64, 128, 200], seed=40)
    make("palette4-trns-adam7.png", 23, 9, 4, 3, interlace=1, palette=pal, trns=[10, 0, 255], seed=41)
    make("gray8-trns.png", 12, 6, 8, 0, trns=37, seed=42)
    make("gray2-trns.png", 12, 6, 2, 0, trns=2, seed=43)
    make("gray16-trns.png", 9, 5, 16, 0, trns=1234, seed=44)
    make("rgb8-trns.png", 10, 6, 8, 2, trns=(10, 20, 30), seed=45)
    make("rgb16-trns-adam7.png", 11, 9, 16, 2, interlace=1, trns=(1000, 2000, 3000), seed=46)
    make("tiny1x1-adam7.png", 1, 1, 8, 6, interlace=1, seed=47)
    make("tiny3x2-adam7.png", 3, 2, 8, 2, interlace=1, seed=48)
    make("wide-adam7.png", 67, 3, 8, 2, interlace=1, seed=49)
    # A larger image in many small IDAT chunks, every filter, for streaming tests.
    make("rgb8-split.png", 96, 64, 8, 2, idat_split=97, seed=50)
    make("rgba8-adam7-split.png", 80, 48, 8, 6, interlace=1, idat_split=61, seed=51)

    # Metadata: every ancillary chunk the decoder reads.
    exif = b"MM\x00\x2a\x00\x00\x00\x08\x00\x01" + struct.pack(">HHII", 0x0112, 3, 1, 6 << 16) + b"\x00\x00\x00\x00"
    icc = bytes(range(256)) * 2
    meta = (chunk(b"gAMA", struct.pack(">I", 45455))
            + chunk(b"cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000))
            + chunk(b"iCCP", b"test profile\x00\x00" + zlib.compress(icc))
            + chunk(b"sBIT", bytes([5, 6, 5]))
            + chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1))
            + chunk(b"bKGD", struct.pack(">3H", 255, 128, 0))
            + chunk(b"eXIf", exif)
            + chunk(b"tEXt", b"Title\x00Caf\xe9")
            + chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(b"compressed comment"))
            + chunk(b"iTXt", b"Author\x00\x00\x00en\x00Auteur\x00J\xc3\xa9r\xc3\xb4me")
            + chunk(b"iTXt", b"Description\x00\x01\x00fr\x00\x00" + zlib.compress("été".encode()))
            + chunk(b"prVt", b"private ancillary chunk"))
    after = chunk(b"tIME", struct.pack(">HBBBBB", 2024, 2, 29, 12, 30, 45))
    make("metadata.png", 8, 8, 8, 2, extra_before=meta, extra_after=after, seed=60)
    # Malformed ancillary chunks (gAMA of 3 bytes, sRGB intent 9): warnings, not errors.
    make("bad-ancillary.png", 8, 4, 8, 0, extra_before=chunk(b"gAMA", b"\x00\x01\x02")
         + chunk(b"sRGB", b"\x09"), seed=61)

    # Invalid files (not in expected.txt; the tests name their errors).
    write("huge-dimensions.png", SIGNATURE + ihdr(100000, 100000, 8, 6) + chunk(b"IDAT", zlib.compress(b""))
          + chunk(b"IEND", b""))

    def image_file(raw, w=4, h=2, depth=8, ctype=0, before=b"", after=b"", compressed=None):
        z = compressed if compressed is not None else zlib.compress(raw)
        return SIGNATURE + ihdr(w, h, depth, ctype) + before + chunk(b"IDAT", z) + after + chunk(b"IEND", b"")

    good_rows = bytes([0, 1, 2, 3, 4, 0, 5, 6, 7, 8])
    write("err-bad-filter.png", image_file(bytes([0, 1, 2, 3, 4, 9, 5, 6, 7, 8])))
    write("err-too-much-data.png", image_file(good_rows + bytes(5)))
    write("err-not-enough-data.png", image_file(good_rows[:7]))
    write("err-no-idat.png", SIGNATURE + ihdr(4, 2, 8, 0) + chunk(b"IEND", b""))
    write("err-bad-crc.png", SIGNATURE + ihdr(4, 2, 8, 0) + chunk(b"IDAT", zlib.compress(good_rows), bad_crc=True)
          + chunk(b"IEND", b""))
    write("err-bad-crc-text.png", image_file(good_rows, before=chunk(b"tEXt", b"Key\x00value", bad_crc=True)))
    write("err-after-end.png", image_file(good_rows) + chunk(b"tEXt", b"late\x00text"))
    write("err-unknown-critical.png", image_file(good_rows, before=chunk(b"CRIT", b"x")))
    write("err-missing-palette.png", image_file(good_rows, ctype=3))
    write("err-gray-palette.png", image_file(good_rows, before=chunk(b"PLTE", bytes(6))))
    write("err-corrupt-zlib.png", image_file(b"", compressed=b"\x78\x9c\xff\xff\xff\xff"))
    write("err-split-idat.png", SIGNATURE + ihdr(4, 2, 8, 0) + chunk(b"IDAT", zlib.compress(good_rows)[:5])
          + chunk(b"tEXt", b"a\x00b") + chunk(b"IDAT", zlib.compress(good_rows)[5:]) + chunk(b"IEND", b""))
    write("err-trns-alpha.png", image_file(bytes(18), ctype=4, before=chunk(b"tRNS", bytes(2))))
    write("err-bad-depth.png", SIGNATURE + ihdr(4, 2, 3, 0) + chunk(b"IEND", b""))

    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("\n".join(expected_lines) + "\n")


if __name__ == "__main__":
    main()
