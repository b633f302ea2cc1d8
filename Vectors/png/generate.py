#!/usr/bin/env python3
"""PNG test vectors for PurePNG: writes Vectors/png/valid/*.png, Vectors/png/invalid/*.png and
Vectors/png/manifest.tsv.

How to run (from anywhere):

    python3 Vectors/png/generate.py            # regenerate files + manifest, cross-check
    python3 Vectors/png/generate.py --no-check # regenerate only (no Pillow / pngcheck runs)

Needs python3 with pypng (`png`) and Pillow; the cross-check also runs `pngcheck` (Debian
package pngcheck) and `pngfix` (libpng-tools) when they are on PATH. Output is deterministic
for a given zlib version: pixels come from a fixed xorshift generator, never from the clock,
and the pixel checksums in the manifest do not depend on how zlib compresses at all.

Every PNG here is assembled by this script's own small writer (chunks, the five filters,
Adam7, zlib via Python's zlib module), so that filters, IDAT splits and broken structures can
be forced. The expected pixels are NOT taken from that writer: each valid file is decoded
again by pypng's low-level `Reader.read()` (raw samples, no sBIT rescaling) and expanded to
RGBA16 by the rules PurePNG documents:

  * a sample of depth d becomes v * 65535 / (2^d - 1) (exact: 1, 2, 4, 8-bit all divide);
  * gray becomes R = G = B; a missing alpha is 65535;
  * tRNS (gray, RGB) makes alpha 0 where the native-depth samples match, else 65535;
  * a palette index gives its PLTE colour and tRNS alpha (255 past the end of tRNS); an index
    past the end of PLTE is opaque black.

The checksum column is zlib.crc32 of those RGBA16 samples written big-endian, rows top to
bottom: the same value as ImageCore's `Image.rgba16Checksum`. Pillow decodes every valid
file as a second reference (compared at 8-bit precision, or 16-bit where Pillow keeps 16
bits); pngcheck and pngfix must accept every valid file and are reported for invalid ones.

manifest.tsv columns: path (relative to Vectors/png), width, height, format (PixelFormat
rawValue), checksum (8 hex digits), error (PNGError.code; empty for valid files), note.
For an invalid file, width/height/format are filled only for truncated files whose first
IDAT data was reached (the decoder must then return a partial image of that size and format).
"""

import io
import os
import shutil
import struct
import subprocess
import sys
import zlib

import png  # pypng
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SIG = b"\x89PNG\r\n\x1a\n"

# ---------------------------------------------------------------------------------------------
# Deterministic pixels


class Rng:
    """xorshift32: stable across Python versions, unlike relying on `random` internals."""

    def __init__(self, seed):
        self.s = (seed * 2654435761 + 1) & 0xFFFFFFFF or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def below(self, n):
        return self.next() % n


CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
CT_NAME = {0: "gray", 2: "rgb", 3: "pal", 4: "graya", 6: "rgba"}
ALLOWED = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}


def random_pixels(w, h, ct, depth, seed, maxindex=None):
    """Rows of pixel tuples; favours the extremes so 0 and max always occur."""
    rng = Rng(seed)
    top = (1 << depth) - 1 if maxindex is None else maxindex
    rows = []
    for _ in range(h):
        row = []
        for _ in range(w):
            px = []
            for _ in range(CHANNELS[ct]):
                r = rng.below(8)
                px.append(0 if r == 0 else top if r == 1 else rng.below(top + 1))
            row.append(tuple(px))
        rows.append(row)
    return rows


def photo_pixels(w, h, ct, depth, seed):
    """Smooth gradients plus a little noise: the kind of data real encoders see."""
    rng = Rng(seed)
    top = (1 << depth) - 1
    rows = []
    for y in range(h):
        row = []
        for x in range(w):
            base = [
                (x * top) // max(1, w - 1),
                (y * top) // max(1, h - 1),
                ((x + y) * top) // max(1, w + h - 2),
                top - (abs(x - w // 2) * top) // max(1, w),
            ]
            noise = top // 64
            px = []
            for c in range(CHANNELS[ct]):
                v = base[c] + rng.below(2 * noise + 1) - noise
                px.append(min(top, max(0, v)))
            row.append(tuple(px))
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------
# A small PNG writer that can be told exactly what to do


def chunk(ctype, data, crc=None):
    if crc is None:
        crc = zlib.crc32(ctype + data)
    return struct.pack(">I", len(data)) + ctype + data + struct.pack(">I", crc & 0xFFFFFFFF)


def ihdr_data(w, h, depth, ct, interlace=0, comp=0, filt=0):
    return struct.pack(">IIBBBBB", w, h, depth, ct, comp, filt, interlace)


def pack_row(row, depth):
    samples = [s for px in row for s in px]
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    out = bytearray()
    per = 8 // depth
    for i in range(0, len(samples), per):
        b = 0
        group = samples[i:i + per]
        for j, s in enumerate(group):
            b |= s << (8 - depth * (j + 1))
        out.append(b)
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(ftype, cur, prev, bpp):
    """PNG 9.2: returns the filter byte followed by the filtered bytes."""
    out = bytearray([ftype])
    for i, x in enumerate(cur):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i] if prev is not None else 0
        c = prev[i - bpp] if prev is not None and i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][ftype]
        out.append((x - pred) & 0xFF)
    return bytes(out)


def choose_filter(strategy, index, cur, prev, bpp):
    if isinstance(strategy, int):
        return filter_row(strategy, cur, prev, bpp)
    if strategy == "cycle":
        return filter_row(index % 5, cur, prev, bpp)
    if strategy == "adaptive":  # minimum sum of absolute differences (PNG 12.8 heuristic)
        best = None
        for f in range(5):
            cand = filter_row(f, cur, prev, bpp)
            score = sum(v if v < 128 else 256 - v for v in cand[1:])
            if best is None or score < best[0]:
                best = (score, cand)
        return best[1]
    raise ValueError(strategy)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def scanlines(pixels, w, h, depth, ct, interlace, filters):
    """The filtered, uncompressed image data (PNG 7.3, 8.2)."""
    bpp = max(1, CHANNELS[ct] * depth // 8)
    out = bytearray()
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    index = 0
    for (x0, y0, dx, dy) in passes:
        sub = [[pixels[y][x] for x in range(x0, w, dx)] for y in range(y0, h, dy)]
        if not sub or not sub[0]:
            continue  # an empty pass has no scanlines at all (PNG 8.2)
        prev = None
        for row in sub:
            cur = pack_row(row, depth)
            out += choose_filter(filters, index, cur, prev, bpp)
            prev = cur
            index += 1
    return bytes(out)


def compress(raw, level=6, wbits=15, strategy=zlib.Z_DEFAULT_STRATEGY, flush_every=None):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, 9, strategy)
    if flush_every:
        out = b""
        for i in range(0, len(raw), flush_every):
            out += c.compress(raw[i:i + flush_every]) + c.flush(zlib.Z_FULL_FLUSH)
        return out + c.flush()
    return c.compress(raw) + c.flush()


def split(data, sizes):
    """IDAT payloads: `sizes` is None (one IDAT), an int (that many bytes each) or a list."""
    if sizes is None:
        return [data]
    if isinstance(sizes, int):
        return [data[i:i + sizes] for i in range(0, len(data), sizes)] or [b""]
    parts, pos = [], 0
    for s in sizes:
        parts.append(data[pos:pos + s])
        pos += s
    if pos < len(data):
        parts.append(data[pos:])
    return parts


class Spec:
    """Everything about one PNG to write; invalid vectors edit the chunk list it produces."""

    def __init__(self, w, h, ct, depth, pixels=None, interlace=0, plte=None, trns=None,
                 filters="cycle", level=6, wbits=15, strategy=zlib.Z_DEFAULT_STRATEGY,
                 flush_every=None, idat=None, pre=(), mid=(), post=(), seed=1, raw=None):
        self.w, self.h, self.ct, self.depth, self.interlace = w, h, ct, depth, interlace
        if pixels is None:
            maxindex = len(plte) // 3 - 1 if ct == 3 and plte else None
            pixels = random_pixels(w, h, ct, depth, seed, maxindex)
        self.pixels, self.plte, self.trns = pixels, plte, trns
        self.filters, self.level, self.wbits, self.strategy = filters, level, wbits, strategy
        self.flush_every, self.idat = flush_every, idat
        self.pre, self.mid, self.post = list(pre), list(mid), list(post)
        self.raw = raw

    def image_data(self):
        raw = self.raw
        if raw is None:
            raw = scanlines(self.pixels, self.w, self.h, self.depth, self.ct, self.interlace, self.filters)
        return compress(raw, self.level, self.wbits, self.strategy, self.flush_every)

    def chunks(self):
        cs = [(b"IHDR", ihdr_data(self.w, self.h, self.depth, self.ct, self.interlace))]
        cs += self.pre
        if self.plte is not None:
            cs.append((b"PLTE", bytes(self.plte)))
        if self.trns is not None:
            cs.append((b"tRNS", bytes(self.trns)))
        cs += self.mid
        if self.idat == "zero-length":
            parts = split(self.image_data(), [5, 0, 7])
            cs += [(b"IDAT", b"")] + [(b"IDAT", p) for p in parts] + [(b"IDAT", b"")]
        else:
            cs += [(b"IDAT", p) for p in split(self.image_data(), self.idat)]
        cs += self.post
        cs.append((b"IEND", b""))
        return cs

    def bytes(self):
        return assemble(self.chunks())


def assemble(chunks):
    return SIG + b"".join(chunk(t, d) for (t, d) in chunks)


def palette(n, seed):
    rng = Rng(seed)
    return bytes(rng.below(256) for _ in range(3 * n))


# ---------------------------------------------------------------------------------------------
# Reference decoding (pypng) and the expected format


def expected_format(ct, depth, has_trns):
    sixteen = depth == 16
    if ct == 3:
        return "rgba8" if has_trns else "rgb8"
    color = ct in (2, 6)
    alpha = ct in (4, 6) or has_trns
    base = ("rgb" if color else "gray") + ("a" if alpha and color else "Alpha" if alpha else "")
    return base + ("16" if sixteen else "8")


def reference_rgba16(data):
    """(width, height, format, rgba16 rows as lists of 4-tuples) from pypng's raw samples."""
    r = png.Reader(bytes=data)
    w, h, rows, info = r.read()
    rows = [list(row) for row in rows]
    depth, planes = info["bitdepth"], info["planes"]
    ct = r.color_type
    top = (1 << depth) - 1
    scale = 65535 // top

    def widen(v):
        return v * scale

    out = []
    if ct == 3:
        plte = r.plte
        trns = r.trns or b""
        n = len(plte) // 3
        fmt = expected_format(3, depth, r.trns is not None)
        for row in rows:
            line = []
            for i in row:
                if i < n:
                    a = trns[i] if i < len(trns) else 255
                    line.append((plte[3 * i] * 257, plte[3 * i + 1] * 257, plte[3 * i + 2] * 257, a * 257))
                else:
                    line.append((0, 0, 0, 65535))
            out.append(line)
        return w, h, fmt, out
    key = None
    if r.trns is not None:
        key = tuple(struct.unpack(">%dH" % (len(r.trns) // 2), r.trns))
    fmt = expected_format(ct, depth, key is not None)
    for row in rows:
        line = []
        for x in range(w):
            px = tuple(row[x * planes:(x + 1) * planes])
            if ct == 0:
                g = widen(px[0])
                a = 0 if key is not None and px == key else 65535
                line.append((g, g, g, a))
            elif ct == 2:
                a = 0 if key is not None and px == key else 65535
                line.append((widen(px[0]), widen(px[1]), widen(px[2]), a))
            elif ct == 4:
                g = widen(px[0])
                line.append((g, g, g, widen(px[1])))
            else:
                line.append(tuple(widen(v) for v in px))
        out.append(line)
    return w, h, fmt, out


def source_rgba16(spec):
    """The same expansion applied to the pixels the writer was given: a third opinion."""
    top = (1 << spec.depth) - 1
    scale = 65535 // top
    key = None
    if spec.trns is not None and spec.ct in (0, 2):
        key = struct.unpack(">%dH" % (len(spec.trns) // 2), bytes(spec.trns))
    out = []
    for row in spec.pixels:
        line = []
        for px in row:
            if spec.ct == 3:
                i, n = px[0], len(spec.plte) // 3
                trns = bytes(spec.trns or b"")
                if i >= n:
                    line.append((0, 0, 0, 65535))
                else:
                    a = trns[i] if i < len(trns) else 255
                    line.append(tuple(v * 257 for v in spec.plte[3 * i:3 * i + 3]) + (a * 257,))
            elif spec.ct in (0, 4):
                g = px[0] * scale
                a = px[1] * scale if spec.ct == 4 else (0 if key is not None and tuple(px) == key else 65535)
                line.append((g, g, g, a))
            else:
                a = px[3] * scale if spec.ct == 6 else (0 if key is not None and tuple(px) == key else 65535)
                line.append((px[0] * scale, px[1] * scale, px[2] * scale, a))
        out.append(line)
    return out


def checksum(rows):
    crc = 0
    for row in rows:
        crc = zlib.crc32(b"".join(struct.pack(">4H", *px) for px in row), crc)
    return "%08x" % crc


def pillow_mismatch(data, ref_rows):
    """Decodes with Pillow and compares with the reference; returns None or a message."""
    im = Image.open(io.BytesIO(data))
    im.load()
    w, h = im.size
    if im.mode.startswith("I"):
        # 16-bit gray stays 16-bit in Pillow: compare gray exactly, alpha via info["transparency"].
        key = im.info.get("transparency")
        for y in range(h):
            for x in range(w):
                g = im.getpixel((x, y))
                a = 0 if key is not None and g == key else 65535
                if (g, g, g, a) != ref_rows[y][x]:
                    return "pixel (%d,%d): Pillow %r, reference %r" % (x, y, (g, g, g, a), ref_rows[y][x])
        return None
    rgba = im.convert("RGBA")
    depth, ct = data[24], data[25]
    # Pillow compares a 2- or 4-bit gray key with samples it has already scaled to 8 bits, and
    # a 16-bit RGB key with samples cut to 8 bits, so it never finds those keys: there only
    # the colour is compared (the reference's alpha is checked by hand-placed key pixels).
    colour_only = "transparency" in im.info and ((ct == 0 and depth in (2, 4)) or (ct == 2 and depth == 16))
    for y in range(h):
        for x in range(w):
            got = rgba.getpixel((x, y))
            want = tuple(v >> 8 for v in ref_rows[y][x])
            if colour_only:
                got, want = got[:3], want[:3]
            if got != want:
                return "pixel (%d,%d): Pillow %r, reference>>8 %r" % (x, y, got, want)
    return None


# ---------------------------------------------------------------------------------------------
# The valid set


def itxt(keyword, text, compressed, lang=b"", translated=b""):
    body = text.encode("utf-8")
    if compressed:
        body = zlib.compress(body)
    return keyword + b"\0" + bytes([1 if compressed else 0, 0]) + lang + b"\0" + translated + b"\0" + body


def icc_profile():
    """A minimal well-formed ICC v2 RGB display profile: header plus a white-point tag."""
    tags = [(b"wtpt", b"XYZ \0\0\0\0" + struct.pack(">iii", 63190, 65536, 54061))]
    table = struct.pack(">I", len(tags))
    offset = 128 + 4 + 12 * len(tags)
    body = b""
    for sig, data in tags:
        table += sig + struct.pack(">II", offset + len(body), len(data))
        body += data
    size = 128 + len(table) + len(body)
    header = struct.pack(">I4sI4s4s4s", size, b"none", 0x02100000, b"mntr", b"RGB ", b"XYZ ")
    header += struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + b"acsp" + b"APPL" + struct.pack(">I", 0)
    header += b"none" + b"none" + b"\0" * 8 + struct.pack(">I", 0)
    header += struct.pack(">iii", 63190, 65536, 54061) + b"none" + b"\0" * 16 + b"\0" * 28
    assert len(header) == 128, len(header)
    return header + table + body


def exif_orientation(value):
    """Big-endian TIFF with one IFD entry: Orientation (0x0112) = value."""
    ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, value, 0) + struct.pack(">I", 0)
    return b"MM\0*" + struct.pack(">I", 8) + ifd


def valid_specs():
    """(name, Spec, note) for every valid vector."""
    out = []
    sizes = [(1, 1), (1, 11), (13, 1), (7, 5), (33, 9)]
    seed = 100
    # Every colour type x bit depth x interlace at several odd sizes; rows cycle the filters.
    for ct in (0, 2, 3, 4, 6):
        for depth in ALLOWED[ct]:
            for interlace in (0, 1):
                for (w, h) in sizes:
                    seed += 1
                    plte = palette(min(1 << depth, 200 if depth == 8 else 256), seed) if ct == 3 else None
                    name = "%s%d_%s_%dx%d" % (CT_NAME[ct], depth, "adam7" if interlace else "seq", w, h)
                    out.append((name, Spec(w, h, ct, depth, interlace=interlace, plte=plte, seed=seed),
                                "grid: colour type %d, depth %d, %s, filters cycle per row"
                                % (ct, depth, "Adam7" if interlace else "sequential")))
    # Each filter forced on every row, for byte-, sub-byte- and 16-bit-sample layouts.
    for (ct, depth) in ((2, 8), (0, 2), (6, 16), (3, 4), (4, 8), (0, 1)):
        for f in range(5):
            for interlace in (0, 1):
                seed += 1
                plte = palette(16, seed) if ct == 3 else None
                name = "filter%d_%s%d_%s_17x9" % (f, CT_NAME[ct], depth, "adam7" if interlace else "seq")
                out.append((name, Spec(17, 9, ct, depth, interlace=interlace, plte=plte, filters=f, seed=seed),
                            "filter type %d forced on every scanline" % f))
    out.append(("filter_adaptive_rgb8_21x13", Spec(21, 13, 2, 8, filters="adaptive", seed=7),
                "adaptive filter choice per row"))
    # Palettes and palette transparency.
    out.append(("pal8_256_trns256_16x16", Spec(16, 16, 3, 8, plte=palette(256, 11), trns=bytes(range(256)),
                                                pixels=[[(y * 16 + x,) for x in range(16)] for y in range(16)]),
                "all 256 palette entries, tRNS for all of them"))
    out.append(("pal8_short_trns_19x7", Spec(19, 7, 3, 8, plte=palette(200, 12), trns=bytes([0, 64, 128, 200, 255]),
                                             seed=12),
                "tRNS shorter than PLTE: entries past it are opaque"))
    for depth in (1, 2, 4):
        n = 1 << depth
        out.append(("pal%d_trns_11x6" % depth, Spec(11, 6, 3, depth, plte=palette(n, 20 + depth),
                                                   trns=bytes((37 * i) & 0xFF for i in range(n)), seed=20 + depth),
                    "sub-byte palette with tRNS"))
        out.append(("pal%d_trns_adam7_11x6" % depth, Spec(11, 6, 3, depth, interlace=1, plte=palette(n, 30 + depth),
                                                         trns=bytes([0]), seed=30 + depth),
                    "sub-byte palette, one-entry tRNS, Adam7"))
    out.append(("pal4_6entries_9x9", Spec(9, 9, 3, 4, plte=palette(6, 40), seed=40),
               "palette smaller than the bit depth allows"))
    out.append(("pal1_1entry_5x3", Spec(5, 3, 3, 1, plte=palette(1, 41), pixels=[[(0,)] * 5] * 3),
                "one-entry palette"))
    beyond = [[((x * 7 + y * 3) % 16,) for x in range(8)] for y in range(4)]
    out.append(("pal4_index_beyond_plte_8x4", Spec(8, 4, 3, 4, plte=palette(5, 42), pixels=beyond),
                "indices 5-15 past a 5-entry PLTE: opaque black"))
    out.append(("pal4_index_beyond_plte_trns_8x4", Spec(8, 4, 3, 4, plte=palette(5, 43), trns=bytes([0, 100, 200]),
                                                       pixels=beyond),
                "indices past PLTE with tRNS present: opaque black, rgba8"))
    # Gray and RGB transparency keys at every depth, including near misses for 16 bits.
    for depth in (1, 2, 4, 8, 16):
        top = (1 << depth) - 1
        key = top // 3 if depth > 1 else 1
        for interlace in (0, 1):
            pixels = random_pixels(13, 7, 0, depth, 50 + depth)
            pixels[0][0] = (key,)
            if depth == 16:
                pixels[0][1] = (key ^ 1,)        # same high byte, different low byte: opaque
                pixels[0][2] = (key ^ 0x100,)    # same low byte: opaque
            out.append(("gray%d_trns_%s_13x7" % (depth, "adam7" if interlace else "seq"),
                        Spec(13, 7, 0, depth, interlace=interlace, pixels=pixels, trns=struct.pack(">H", key)),
                        "gray tRNS key %d at native depth" % key))
    for depth in (8, 16):
        top = (1 << depth) - 1
        key = (top // 5, top // 2, top)
        pixels = random_pixels(10, 6, 2, depth, 60 + depth)
        pixels[1][3] = key
        pixels[2][2] = key
        if depth == 16:
            pixels[0][0] = (key[0], key[1], key[2] ^ 1)
            pixels[0][1] = (key[0] ^ 0x100, key[1], key[2])
        for interlace in (0, 1):
            out.append(("rgb%d_trns_%s_10x6" % (depth, "adam7" if interlace else "seq"),
                        Spec(10, 6, 2, depth, interlace=interlace, pixels=pixels, trns=struct.pack(">3H", *key)),
                        "RGB tRNS key %r" % (key,)))
    # Ancillary chunks, each alone on a small image, then all together.
    anc = [
        ("gAMA", b"gAMA", struct.pack(">I", 45455), 0),
        ("cHRM", b"cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000), 0),
        ("sRGB", b"sRGB", b"\x00", 0),
        ("iCCP", b"iCCP", b"test profile\0\0" + zlib.compress(icc_profile()), 0),
        ("tEXt", b"tEXt", b"Comment\0Plain Latin-1 text \xe9", 2),
        ("zTXt", b"zTXt", b"Description\0\0" + zlib.compress(b"Compressed Latin-1 text " * 4), 2),
        ("iTXt", b"iTXt", itxt(b"Title", "Unicode \u00e9\u4e16\u754c", False, b"fr", "Titre".encode()), 2),
        ("iTXt_compressed", b"iTXt", itxt(b"Author", "Compressed UTF-8 \u2603 " * 4, True, b"en-GB", b""), 2),
        ("pHYs", b"pHYs", struct.pack(">IIB", 3780, 3780, 1), 0),
        ("tIME", b"tIME", struct.pack(">HBBBBB", 2026, 11, 22, 3, 4, 5), 2),
        ("eXIf", b"eXIf", exif_orientation(6), 0),
        ("unknown_ancillary", b"prVt", b"private data the decoder must skip", 0),
        ("hIST", b"hIST", b"", 1),
        ("sPLT", b"sPLT", b"suggested\0\x08" + bytes([10, 20, 30, 255, 0, 5, 40, 50, 60, 128, 0, 1]), 0),
    ]
    for (label, ctype, data, where) in anc:
        seed += 1
        if label == "hIST":
            plte = palette(4, seed)
            spec = Spec(9, 5, 3, 2, plte=plte, mid=[(b"hIST", struct.pack(">4H", 1, 2, 3, 4))], seed=seed)
        else:
            pre = [(ctype, data)] if where == 0 else []
            mid = [(ctype, data)] if where == 1 else []
            post = [(ctype, data)] if where == 2 else []
            spec = Spec(9, 5, 2, 8, pre=pre, mid=mid, post=post, seed=seed)
        out.append(("chunk_%s_9x5" % label, spec, "ancillary %s chunk%s" % (ctype.decode(), " after IDAT" if where == 2 else "")))
    # bKGD and sBIT for each colour type (and 16-bit).
    bkgd = {0: (8, struct.pack(">H", 200)), 2: (8, struct.pack(">3H", 10, 20, 30)), 3: (4, b"\x02"),
            4: (8, struct.pack(">H", 77)), 6: (16, struct.pack(">3H", 1000, 40000, 65535))}
    for ct, (depth, data) in sorted(bkgd.items()):
        seed += 1
        plte = palette(16, seed) if ct == 3 else None
        out.append(("chunk_bKGD_%s%d_9x5" % (CT_NAME[ct], depth),
                    Spec(9, 5, ct, depth, plte=plte, mid=[(b"bKGD", data)], seed=seed), "bKGD for colour type %d" % ct))
    out.append(("chunk_bKGD_gray16_9x5", Spec(9, 5, 0, 16, mid=[(b"bKGD", struct.pack(">H", 51234))], seed=seed + 1),
                "bKGD 16-bit gray"))
    sbit = {0: (8, b"\x05"), 2: (16, b"\x0a\x0b\x0c"), 3: (8, b"\x05\x06\x05"), 4: (16, b"\x09\x03"),
            6: (8, b"\x04\x05\x06\x07")}
    for ct, (depth, data) in sorted(sbit.items()):
        seed += 1
        plte = palette(64, seed) if ct == 3 else None
        out.append(("chunk_sBIT_%s%d_9x5" % (CT_NAME[ct], depth),
                    Spec(9, 5, ct, depth, plte=plte, pre=[(b"sBIT", data)], seed=seed),
                    "sBIT %r: samples are NOT rescaled" % list(data)))
    out.append(("chunk_all_ancillary_12x8", Spec(12, 8, 3, 8, plte=palette(100, 77), trns=bytes([0, 128]), seed=77,
                                                 pre=[(t, d) for (l, t, d, w) in anc if w == 0 and t != b"iCCP"],
                                                 mid=[(b"bKGD", b"\x05"), (b"hIST", b"\0\1" * 100)],
                                                 post=[(t, d) for (l, t, d, w) in anc if w == 2]),
                "every ancillary chunk on one palette image (no iCCP: it excludes sRGB)"))
    # IDAT layout and zlib stream shapes.
    out.append(("idat_split3_rgb8_15x10", Spec(15, 10, 2, 8, idat=[20, 100], seed=80), "three IDAT chunks"))
    out.append(("idat_per_byte_rgba8_7x5", Spec(7, 5, 6, 8, idat=1, seed=81), "one IDAT per compressed byte"))
    out.append(("idat_per_byte_gray2_adam7_9x9", Spec(9, 9, 0, 2, interlace=1, idat=1, seed=82),
                "one IDAT per byte, Adam7"))
    out.append(("idat_zero_length_rgb8_11x7", Spec(11, 7, 2, 8, idat="zero-length", seed=83),
                "zero-length IDATs first, in the middle and last"))
    out.append(("zlib_level0_rgb8_20x10", Spec(20, 10, 2, 8, level=0, seed=84), "stored (level 0) deflate blocks"))
    out.append(("zlib_level0_big_gray8_256x260", Spec(256, 260, 0, 8, level=0, seed=85,
                                                      pixels=[[((x * y) & 0xFF,) for x in range(256)] for y in range(260)],
                                                      filters=0),
                "level 0: several 64 KiB stored blocks"))
    out.append(("zlib_level9_rgb8_20x10", Spec(20, 10, 2, 8, level=9, seed=86), "level 9"))
    out.append(("zlib_level1_rgba8_20x10", Spec(20, 10, 6, 8, level=1, seed=87), "level 1"))
    out.append(("zlib_window512_rgb8_40x20", Spec(40, 20, 2, 8, wbits=9, seed=88), "512-byte zlib window"))
    out.append(("zlib_fixed_huffman_gray8_30x10", Spec(30, 10, 0, 8, strategy=zlib.Z_FIXED, seed=89),
                "fixed Huffman blocks"))
    out.append(("zlib_huffman_only_rgb8_20x10", Spec(20, 10, 2, 8, strategy=zlib.Z_HUFFMAN_ONLY, seed=90),
                "Huffman only"))
    out.append(("zlib_rle_gray8_30x10", Spec(30, 10, 0, 8, strategy=zlib.Z_RLE, seed=91,
                                             pixels=[[((x // 5) * 40,) for x in range(30)] for _ in range(10)]),
                "RLE strategy"))
    out.append(("zlib_full_flush_rgb8_20x10", Spec(20, 10, 2, 8, flush_every=37, seed=92),
                "full flushes: many blocks and empty stored blocks"))
    # Photo-like content.
    for (w, h, ct, depth, interlace) in ((64, 48, 2, 8, 0), (48, 40, 6, 8, 0), (40, 30, 2, 16, 0),
                                         (32, 32, 6, 16, 1), (48, 40, 0, 16, 0), (40, 32, 4, 16, 0),
                                         (64, 48, 2, 8, 1)):
        seed += 1
        name = "photo_%s%d_%s_%dx%d" % (CT_NAME[ct], depth, "adam7" if interlace else "seq", w, h)
        out.append((name, Spec(w, h, ct, depth, interlace=interlace, pixels=photo_pixels(w, h, ct, depth, seed),
                               filters="adaptive"), "gradients plus noise"))
    # Adam7 at every small size, where passes are empty in every combination (PNG 8.2).
    for h in range(1, 6):
        for w in range(1, 6):
            seed += 1
            out.append(("adam7_gray4_%dx%d" % (w, h), Spec(w, h, 0, 4, interlace=1, seed=seed),
                        "small Adam7: some passes empty"))
    out.append(("chunk_unknown_ancillary_everywhere_9x5",
                Spec(9, 5, 3, 8, plte=palette(30, 96), seed=96, pre=[(b"prVa", b"1")], mid=[(b"prVb", b"")],
                     post=[(b"prVc", b"3" * 300)]),
                "unknown ancillary chunks before PLTE, before IDAT and after IDAT"))
    # The uncut files of the truncated_* vectors, so tests can compare partial images.
    for (label, spec) in zip(("pal8_20x12", "rgba8_adam7_19x17", "gray16_9x9"), truncation_sources()):
        out.append(("truncation_source_" + label, spec, "the file invalid/truncated_* vectors are cut from"))
    # Odd shapes.
    out.append(("gray1_seq_1001x3", Spec(1001, 3, 0, 1, seed=93), "wide 1-bit rows"))
    out.append(("pal2_adam7_3x300", Spec(3, 300, 3, 2, interlace=1, plte=palette(4, 94), seed=94), "tall Adam7"))
    out.append(("wide_rgba16_9000x2", Spec(9000, 2, 6, 16, filters="adaptive",
                                           pixels=[[((x * 7) & 0xFFFF, (x * 13 + y) & 0xFFFF, 65535 - x, 30000 + y)
                                                    for x in range(9000)] for y in range(2)]),
                "rows of 72,000 bytes: more than 64 KiB per row"))
    out.append(("tall_gray1_1x3000", Spec(1, 3000, 0, 1, seed=97), "3000 one-pixel rows"))
    out.append(("tall_rgb8_adam7_2x600", Spec(2, 600, 2, 8, interlace=1, seed=98), "tall narrow Adam7"))
    out.append(("rgba16_adam7_2x2", Spec(2, 2, 6, 16, interlace=1, seed=95), "Adam7 with only passes 1, 6, 7"))
    return out


def benign_specs():
    """Valid images with one malformed or misplaced ancillary chunk. PNG 3 13.1 makes
    ancillary errors recoverable: the decoder must give the same pixels as without the chunk."""
    cases = [
        ("gama_length_3", 2, [(b"gAMA", b"\0\0\1")], "pre"),
        ("gama_zero", 2, [(b"gAMA", bytes(4))], "pre"),
        ("gama_duplicate", 2, [(b"gAMA", struct.pack(">I", 45455)), (b"gAMA", struct.pack(">I", 100000))], "pre"),
        ("chrm_length_8", 2, [(b"cHRM", bytes(8))], "pre"),
        ("srgb_intent_9", 2, [(b"sRGB", b"\x09")], "pre"),
        ("srgb_after_plte", 3, [(b"sRGB", b"\x00")], "mid"),
        ("text_no_separator", 2, [(b"tEXt", b"no separator here")], "post"),
        ("text_empty_keyword", 2, [(b"tEXt", b"\0value")], "pre"),
        ("ztxt_bad_zlib", 2, [(b"zTXt", b"Key\0\0" + b"\x78\x9c garbage")], "post"),
        ("ztxt_method_1", 2, [(b"zTXt", b"Key\0\1" + zlib.compress(b"text"))], "pre"),
        ("itxt_bad_zlib", 2, [(b"iTXt", b"Key\0\1\0\0\0" + b"\x78\x9c\xff\xff")], "post"),
        ("itxt_bad_utf8", 2, [(b"iTXt", b"Key\0\0\0\0\0" + b"\xff\xfe bad utf-8")], "pre"),
        ("iccp_bad_zlib", 2, [(b"iCCP", b"name\0\0" + b"\x78\x9c" + bytes(20))], "pre"),
        ("iccp_no_separator", 2, [(b"iCCP", b"x" * 90)], "pre"),
        ("phys_length_5", 2, [(b"pHYs", bytes(5))], "pre"),
        ("phys_after_idat", 2, [(b"pHYs", struct.pack(">IIB", 1, 1, 0))], "post"),
        ("time_length_6", 2, [(b"tIME", bytes(6))], "post"),
        ("exif_not_tiff", 2, [(b"eXIf", b"JFIF not a tiff")], "pre"),
        ("exif_truncated_ifd", 2, [(b"eXIf", b"MM\0*\0\0\0\x08\0\x05\x01\x12")], "pre"),
        ("bkgd_wrong_length", 2, [(b"bKGD", bytes(2))], "mid"),
        ("bkgd_index_past_palette", 3, [(b"bKGD", b"\xf0")], "mid"),
        ("bkgd_before_plte", 3, [(b"bKGD", b"\x01")], "pre"),
        ("sbit_zero", 2, [(b"sBIT", b"\0\0\0")], "pre"),
        ("sbit_too_deep", 2, [(b"sBIT", b"\x09\x08\x08")], "pre"),
        ("trns_after_idat", 2, [(b"tRNS", struct.pack(">3H", 1, 2, 3))], "post"),
        ("hist_wrong_length", 3, [(b"hIST", bytes(3))], "mid"),
        ("splt_no_separator", 2, [(b"sPLT", b"abc")], "pre"),
    ]
    out = []
    for i, (label, ct, extra, where) in enumerate(cases):
        kw = dict(plte=palette(10, 600 + i)) if ct == 3 else {}
        clean = Spec(10, 6, ct, 8, seed=600 + i, **kw)
        spec = Spec(10, 6, ct, 8, seed=600 + i, **{where: extra}, **kw)
        spec.clean = clean
        out.append(("benign_%s_10x6" % label, spec, "malformed ancillary chunk, ignored (PNG 3 13.1)"))
    return out


# ---------------------------------------------------------------------------------------------
# The invalid set


def replace_chunk(chunks, ctype, data):
    return [(t, data if t == ctype else d) for (t, d) in chunks]


def raw_file(chunks_bytes):
    return SIG + b"".join(chunks_bytes)


def truncation_sources():
    """The files the truncated_* vectors are cut from (also valid vectors themselves)."""
    return (Spec(20, 12, 3, 8, plte=palette(40, 503), seed=503, pre=[(b"gAMA", struct.pack(">I", 45455))], idat=[40, 40]),
            Spec(19, 17, 6, 8, interlace=1, seed=504),
            Spec(9, 9, 0, 16, seed=505))


def invalid_files():
    """(name, bytes, error code, note, (w, h, fmt) or None)."""
    out = []
    base = Spec(12, 8, 2, 8, seed=500)
    base_chunks = base.chunks()
    good = assemble(base_chunks)
    pal = Spec(12, 8, 3, 4, plte=palette(16, 501), seed=501)
    gray = Spec(12, 8, 0, 8, seed=502)

    # Signature.
    out.append(("signature_bad", b"\x89PNG\r\n\x1a\x0b" + good[8:], "invalidSignature", "last signature byte wrong", None))
    out.append(("signature_gif", b"GIF89a" + good[6:], "invalidSignature", "GIF signature", None))
    out.append(("signature_crlf_mangled", b"\x89PNG\n\x1a\n" + good[8:], "invalidSignature",
                "CR LF turned into LF by a text-mode transfer", None))

    # CRCs: IHDR at byte 29, then every chunk's stored CRC flipped.
    def with_bad_crc(chunks, which, occurrence=0):
        parts, seen = [], 0
        for (t, d) in chunks:
            crc = zlib.crc32(t + d)
            if t == which:
                if seen == occurrence:
                    crc ^= 0x00010000
                seen += 1
            parts.append(chunk(t, d, crc))
        return raw_file(parts)

    out.append(("crc_ihdr", with_bad_crc(base_chunks, b"IHDR"), "badCRC", "IHDR CRC wrong", None))
    out.append(("crc_idat", with_bad_crc(base_chunks, b"IDAT"), "badCRC", "IDAT CRC wrong", None))
    multi = Spec(12, 8, 2, 8, seed=500, idat=[30, 30]).chunks()
    out.append(("crc_idat_second", with_bad_crc(multi, b"IDAT", 1), "badCRC", "second of three IDATs has a bad CRC", None))
    anc = Spec(12, 8, 2, 8, seed=500, pre=[(b"gAMA", struct.pack(">I", 45455))], post=[(b"tEXt", b"k\0v")]).chunks()
    out.append(("crc_ancillary_gama", with_bad_crc(anc, b"gAMA"), "badCRC", "ancillary gAMA CRC wrong (libpng only warns)", None))
    out.append(("crc_ancillary_text_after_idat", with_bad_crc(anc, b"tEXt"), "badCRC", "tEXt after IDAT with bad CRC", None))
    out.append(("crc_plte", with_bad_crc(pal.chunks(), b"PLTE"), "badCRC", "PLTE CRC wrong", None))
    out.append(("crc_iend", with_bad_crc(base_chunks, b"IEND"), "badCRC", "IEND CRC wrong", None))

    # Truncation at many points of a file with PLTE, an ancillary chunk and three IDATs.
    tspec, ispec, s16 = truncation_sources()
    tchunks = tspec.chunks()
    tfile = assemble(tchunks)
    offsets, pos = {}, 8
    for (t, d) in tchunks:
        offsets.setdefault(t, []).append(pos)
        pos += 12 + len(d)
    first_idat = offsets[b"IDAT"][0]
    iend = offsets[b"IEND"][0]
    size = (20, 12, "rgb8")
    cuts = [
        ("empty", 0, None), ("mid_signature", 5, None), ("after_signature", 8, None),
        ("mid_ihdr_length", 10, None), ("mid_ihdr_data", 20, None), ("mid_ihdr_crc", 31, None),
        ("after_ihdr", 33, None), ("mid_plte", offsets[b"PLTE"][0] + 30, None),
        ("before_idat", first_idat, None), ("idat_header_only", first_idat + 8, None),
        ("mid_first_idat", first_idat + 8 + 20, size), ("mid_second_idat", offsets[b"IDAT"][1] + 8 + 17, size),
        ("between_idats", offsets[b"IDAT"][2], size), ("mid_last_idat", offsets[b"IDAT"][2] + 8 + 5, size),
        ("before_iend", iend, size), ("mid_iend", iend + 6, size), ("iend_missing_crc", iend + 8, size),
    ]
    for (label, cut, known) in cuts:
        note = "cut at byte %d of %d" % (cut, len(tfile))
        out.append(("truncated_%s" % label, tfile[:cut], "truncated", note, known))
    ifile = ispec.bytes()
    cut = 8 + 25 + 8 + 700
    out.append(("truncated_adam7_mid_idat", ifile[:cut], "truncated", "Adam7 cut inside the passes", (19, 17, "rgba8")))
    f16 = s16.bytes()
    out.append(("truncated_gray16_mid_idat", f16[:8 + 25 + 8 + 60], "truncated", "16-bit gray cut mid-IDAT",
                (9, 9, "gray16")))

    # IHDR values.
    def ihdr_variant(w=12, h=8, depth=8, ct=2, comp=0, filt=0, il=0):
        cs = replace_chunk(base_chunks, b"IHDR", ihdr_data(w, h, depth, ct, il, comp, filt))
        return assemble(cs)

    out.append(("ihdr_width_zero", ihdr_variant(w=0), "invalidDimensions", "width 0", None))
    out.append(("ihdr_height_zero", ihdr_variant(h=0), "invalidDimensions", "height 0", None))
    out.append(("ihdr_width_2p31", ihdr_variant(w=0x80000000), "invalidDimensions", "width 2^31", None))
    out.append(("ihdr_height_max", ihdr_variant(h=0xFFFFFFFF), "invalidDimensions", "height 2^32-1", None))
    for ct in (1, 5, 7, 8):
        out.append(("ihdr_color_type_%d" % ct, ihdr_variant(ct=ct), "invalidColorTypeAndDepth", "colour type %d" % ct, None))
    for (ct, depth) in ((0, 3), (0, 0), (2, 4), (2, 1), (3, 16), (4, 4), (6, 2), (6, 32), (0, 12)):
        out.append(("ihdr_depth_%s%d" % (CT_NAME[ct], depth), ihdr_variant(ct=ct, depth=depth),
                    "invalidColorTypeAndDepth", "bit depth %d with colour type %d" % (depth, ct), None))
    out.append(("ihdr_compression_method_1", ihdr_variant(comp=1), "invalidCompressionMethod", "compression method 1", None))
    out.append(("ihdr_filter_method_1", ihdr_variant(filt=1), "invalidFilterMethod", "filter method 1 (MNG only)", None))
    out.append(("ihdr_interlace_method_2", ihdr_variant(il=2), "invalidInterlaceMethod", "interlace method 2", None))
    out.append(("ihdr_length_12", assemble([(b"IHDR", ihdr_data(12, 8, 8, 2)[:12])] + base_chunks[1:]),
                "invalidHeaderLength", "IHDR of 12 bytes (CRC right)", None))
    huge_ihdr = SIG + struct.pack(">I", 1 << 20) + b"IHDR" + ihdr_data(12, 8, 8, 2) + b"\0" * 20
    out.append(("ihdr_length_1mib", huge_ihdr, "invalidHeaderLength",
                "IHDR declaring 1 MiB in a 53-byte file: the length alone is the error (PNG 11.2.2)", None))
    out.append(("ihdr_length_14", assemble([(b"IHDR", ihdr_data(12, 8, 8, 2) + b"\0")] + base_chunks[1:]),
                "invalidHeaderLength", "IHDR of 14 bytes (CRC right)", None))

    # Chunk structure and order.
    idat_chunks = [c for c in base_chunks if c[0] == b"IDAT"]
    out.append(("idat_missing", assemble([base_chunks[0], (b"IEND", b"")]), "missingImageData", "IHDR then IEND", None))
    out.append(("idat_missing_with_text", assemble([base_chunks[0], (b"tEXt", b"a\0b"), (b"IEND", b"")]),
                "missingImageData", "IHDR, tEXt, IEND", None))
    out.append(("chunk_after_iend", assemble(base_chunks + [(b"tEXt", b"late\0text")]), "chunkAfterEnd",
                "a tEXt chunk after IEND", None))
    out.append(("chunk_after_iend_second_iend", assemble(base_chunks + [(b"IEND", b"")]), "chunkAfterEnd",
                "two IEND chunks", None))
    out.append(("ihdr_not_first", assemble([(b"gAMA", struct.pack(">I", 45455))] + base_chunks), "missingHeader",
                "gAMA before IHDR", None))
    out.append(("ihdr_missing", assemble(base_chunks[1:]), "missingHeader", "starts with IDAT", None))
    out.append(("ihdr_duplicate", assemble(base_chunks[:1] + base_chunks), "duplicateChunk", "IHDR twice", None))
    pchunks = pal.chunks()
    plte_at = [i for i, c in enumerate(pchunks) if c[0] == b"PLTE"][0]
    out.append(("plte_duplicate", assemble(pchunks[:plte_at + 1] + [pchunks[plte_at]] + pchunks[plte_at + 1:]),
                "duplicateChunk", "PLTE twice", None))
    out.append(("plte_only_after_idat", assemble([c for c in pchunks if c[0] != b"PLTE"][:-1] + [pchunks[plte_at], (b"IEND", b"")]),
                "missingPalette", "palette image whose only PLTE comes after IDAT", None))
    out.append(("plte_after_idat", assemble(base_chunks[:-1] + [(b"PLTE", palette(8, 2)), (b"IEND", b"")]),
                "chunkOutOfOrder", "suggested palette after IDAT in an RGB image (PNG 5.6)", None))
    out.append(("plte_odd_length_rgb", assemble(base_chunks[:1] + [(b"PLTE", palette(8, 2)[:-1])] + base_chunks[1:]),
                "invalidPalette", "suggested palette of 23 bytes in an RGB image", None))
    nc = Spec(12, 8, 2, 8, seed=500, idat=[30, 30]).chunks()
    nc.insert(3, (b"tEXt", b"between\0IDATs"))
    out.append(("idat_not_consecutive", assemble(nc), "nonContiguousImageData", "tEXt between two IDATs", None))
    out.append(("critical_unknown", assemble(base_chunks[:1] + [(b"CRIt", b"must understand")] + base_chunks[1:]),
                "unknownCriticalChunk", "unknown critical chunk CRIt before IDAT", None))
    out.append(("critical_unknown_after_idat", assemble(base_chunks[:-1] + [(b"ZZZZ", b"")] + base_chunks[-1:]),
                "unknownCriticalChunk", "unknown critical chunk ZZZZ after IDAT", None))
    for label, ctype in (("digit", b"ab1d"), ("space", b"ab d"), ("high_bit", b"ab\xe9d")):
        out.append(("chunk_type_%s" % label, assemble(base_chunks[:1] + [(ctype, b"x")] + base_chunks[1:]),
                    "invalidChunkType", "chunk type %r" % ctype, None))
    big = raw_file([chunk(t, d) for (t, d) in base_chunks[:1]]) + struct.pack(">I", 0x80000000) + b"tEXt" + b"abc"
    out.append(("chunk_length_2p31", big, "invalidChunkLength", "tEXt declaring 2^31 bytes", None))
    big = raw_file([chunk(t, d) for (t, d) in base_chunks[:1]]) + struct.pack(">I", 0xFFFFFFFF) + b"IDAT" + b"abc"
    out.append(("chunk_length_max_idat", big, "invalidChunkLength", "IDAT declaring 2^32-1 bytes", None))

    # Palette and transparency.
    out.append(("plte_in_gray", assemble(gray.chunks()[:1] + [(b"PLTE", palette(4, 1))] + gray.chunks()[1:]),
                "unexpectedPalette", "PLTE in a gray image", None))
    ga = Spec(12, 8, 4, 8, seed=506)
    out.append(("plte_in_gray_alpha", assemble(ga.chunks()[:1] + [(b"PLTE", palette(4, 1))] + ga.chunks()[1:]),
                "unexpectedPalette", "PLTE in a gray+alpha image", None))
    out.append(("plte_missing", assemble([c for c in pchunks if c[0] != b"PLTE"]), "missingPalette",
                "palette image without PLTE", None))
    out.append(("plte_257_entries", assemble(replace_chunk(Spec(12, 8, 3, 8, plte=palette(16, 507), seed=507).chunks(),
                                                           b"PLTE", palette(257, 507))),
                "invalidPalette", "PLTE of 257 entries", None))
    out.append(("plte_odd_length", assemble(replace_chunk(pchunks, b"PLTE", palette(16, 501) + b"\x01")),
                "invalidPalette", "PLTE of 49 bytes", None))
    out.append(("plte_empty", assemble(replace_chunk(pchunks, b"PLTE", b"")), "invalidPalette", "PLTE of 0 bytes", None))
    out.append(("plte_too_many_for_depth", assemble(replace_chunk(Spec(12, 8, 3, 1, plte=palette(2, 508), seed=508).chunks(),
                                                                  b"PLTE", palette(3, 508))),
                "invalidPalette", "3 entries for a 1-bit palette image (PNG 11.2.3)", None))
    tp = Spec(12, 8, 3, 4, plte=palette(6, 509), trns=bytes(7), seed=509)
    out.append(("trns_longer_than_plte", tp.bytes(), "invalidTransparency", "7 tRNS entries for a 6-entry PLTE", None))
    rgba = Spec(12, 8, 6, 8, seed=510)
    out.append(("trns_in_rgba", assemble(rgba.chunks()[:1] + [(b"tRNS", bytes(6))] + rgba.chunks()[1:]),
                "invalidTransparency", "tRNS in an RGBA image", None))
    out.append(("trns_in_gray_alpha", assemble(ga.chunks()[:1] + [(b"tRNS", bytes(2))] + ga.chunks()[1:]),
                "invalidTransparency", "tRNS in a gray+alpha image", None))
    out.append(("trns_gray_wrong_length", assemble(gray.chunks()[:1] + [(b"tRNS", bytes(4))] + gray.chunks()[1:]),
                "invalidTransparency", "4-byte tRNS in a gray image", None))
    out.append(("trns_rgb_wrong_length", assemble(base_chunks[:1] + [(b"tRNS", bytes(2))] + base_chunks[1:]),
                "invalidTransparency", "2-byte tRNS in an RGB image", None))

    # Image data.
    def with_raw(spec_kwargs, raw, level=6):
        s = Spec(**spec_kwargs)
        s.raw = raw
        s.level = level
        return s.bytes()

    kw = dict(w=12, h=8, ct=2, depth=8, seed=500)
    raw = scanlines(base.pixels, 12, 8, 8, 2, 0, "cycle")
    stride = 1 + 12 * 3
    bad_filter = bytearray(raw)
    bad_filter[3 * stride] = 5
    out.append(("filter_type_5", with_raw(kw, bytes(bad_filter)), "invalidFilterType", "row 3 has filter type 5", None))
    bad_filter = bytearray(raw)
    bad_filter[0] = 255
    out.append(("filter_type_255_first_row", with_raw(kw, bytes(bad_filter)), "invalidFilterType",
                "row 0 has filter type 255", None))
    iraw = scanlines(ispec.pixels, 19, 17, 8, 6, 1, "cycle")
    bad = bytearray(iraw)
    bad[0] = 9
    out.append(("filter_type_9_adam7", with_raw(dict(w=19, h=17, ct=6, depth=8, interlace=1, seed=504), bytes(bad)),
                "invalidFilterType", "Adam7 pass 1 row 0 has filter type 9", None))
    # Two problems in one stream: a bad filter byte on row 1, then broken zlib data after it.
    # A streaming decoder meets the filter byte first, so that is the answer in any chunking.
    bad_filter = bytearray(raw)
    bad_filter[1 * stride] = 6
    out.append(("filter_type_bad_then_adler_bad", assemble(replace_chunk(
        base_chunks, b"IDAT", (lambda z0: z0[:-4] + bytes(b ^ 0x55 for b in z0[-4:]))(compress(bytes(bad_filter), level=0)))),
        "invalidFilterType", "row 1 filter type 6, and a wrong Adler-32: the filter byte comes first", None))
    c = zlib.compressobj(6, zlib.DEFLATED, 15)
    head = c.compress(bytes(bad_filter[:3 * stride])) + c.flush(zlib.Z_FULL_FLUSH)
    out.append(("filter_type_bad_then_deflate_bad", assemble(replace_chunk(base_chunks, b"IDAT", head + b"\x07" + bytes(40))),
                "invalidFilterType", "row 1 filter type 6, then a reserved deflate block type after row 2", None))
    out.append(("image_data_too_short", with_raw(kw, raw[:-stride]), "notEnoughImageData",
                "zlib stream ends cleanly one row early", None))
    out.append(("image_data_too_short_partial_row", with_raw(kw, raw[:-10]), "notEnoughImageData",
                "zlib stream ends cleanly inside the last row", None))
    out.append(("image_data_too_long", with_raw(kw, raw + raw[:stride]), "tooMuchImageData",
                "one extra row inside the zlib stream", None))
    out.append(("image_data_too_long_byte", with_raw(kw, raw + b"\0"), "tooMuchImageData",
                "one extra byte inside the zlib stream", None))
    z = compress(raw)
    out.append(("zlib_bad_header", assemble(replace_chunk(base_chunks, b"IDAT", b"\x79\x9c" + z[2:])), "corruptImageData",
                "zlib CMF byte with a bad header check", None))
    out.append(("zlib_not_deflate", assemble(replace_chunk(base_chunks, b"IDAT", bytes([0x77, 0x01]) + z[2:])),
                "corruptImageData", "zlib compression method 7", None))
    fd = 0x78 << 8 | 0x20
    fd += 31 - fd % 31
    out.append(("zlib_preset_dictionary", assemble(replace_chunk(base_chunks, b"IDAT",
                                                                 struct.pack(">H", fd) + b"\0\0\0\1" + z[2:])),
                "corruptImageData", "FDICT set (PNG 10.1 forbids preset dictionaries)", None))
    out.append(("zlib_bad_block_type", assemble(replace_chunk(base_chunks, b"IDAT", z[:2] + b"\x07" + z[3:])),
                "corruptImageData", "deflate block type 3 (reserved)", None))
    bad_adler = z[:-4] + bytes(b ^ 0xFF for b in z[-4:])
    out.append(("zlib_bad_adler", assemble(replace_chunk(base_chunks, b"IDAT", bad_adler)), "corruptImageData",
                "Adler-32 of the zlib stream wrong", None))
    stored = compress(raw, level=0)
    broken = bytearray(stored)
    broken[5] ^= 0xFF  # the stored block's NLEN no longer complements LEN
    out.append(("zlib_stored_len_mismatch", assemble(replace_chunk(base_chunks, b"IDAT", bytes(broken))),
                "corruptImageData", "stored block LEN/NLEN mismatch", None))

    # Limits: 100000 x 100000 RGBA in 60 bytes.
    huge = assemble([(b"IHDR", ihdr_data(100000, 100000, 8, 6)), (b"IDAT", b"\x78\x9c\x03"), (b"IEND", b"")])
    assert len(huge) == 60, len(huge)
    out.append(("limit_100000x100000", huge, "limitExceeded", "60-byte file declaring 10^10 pixels", None))
    return out


# ---------------------------------------------------------------------------------------------
# Main


def tool_verdict(cmd, path):
    exe = shutil.which(cmd[0])
    if exe is None:
        return None
    try:
        r = subprocess.run(cmd + [path], capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        # pngfix 1.6 loops forever on a zero-length IDAT; a hang is no verdict.
        return None
    return r.returncode, (r.stdout + r.stderr).decode("latin-1").strip().replace("\n", " | ")[:160]


def main():
    check = "--no-check" not in sys.argv
    for sub in ("valid", "invalid"):
        d = os.path.join(HERE, sub)
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".png"):
                    os.remove(os.path.join(d, f))
        os.makedirs(d, exist_ok=True)
    rows = []
    failures = []
    names = set()
    notes = []
    for (name, spec, note) in valid_specs() + benign_specs():
        assert name not in names, name
        names.add(name)
        data = spec.bytes()
        rel = "valid/%s.png" % name
        with open(os.path.join(HERE, rel), "wb") as f:
            f.write(data)
        # A benign_* file carries a malformed ancillary chunk: the reference is the file
        # without it, since that chunk must not change the pixels.
        clean = getattr(spec, "clean", None)
        w, h, fmt, ref = reference_rgba16(clean.bytes() if clean else data)
        assert (w, h) == (spec.w, spec.h)
        rows.append((rel, str(w), str(h), fmt, checksum(ref), "", note))
        if ref != source_rgba16(spec):
            failures.append("%s: pypng disagrees with the pixels written" % rel)
        if check:
            try:
                m = pillow_mismatch(data, ref)
            except Exception as e:  # noqa: BLE001 - any Pillow failure is a finding
                m = "Pillow failed: %s" % e
            if m:
                (notes if clean else failures).append("%s: %s" % (rel, m))
            for cmd in (["pngcheck", "-q"], ["pngfix", "--quiet"]):
                v = tool_verdict(cmd, os.path.join(HERE, rel))
                if v is None and shutil.which(cmd[0]):
                    notes.append("%s: %s timed out" % (rel, cmd[0]))
                elif v is not None and v[0] != 0:
                    (notes if clean else failures).append("%s: %s rejects: %s" % (rel, cmd[0], v[1]))
    lenient = []
    for (name, data, code, note, known) in invalid_files():
        assert name not in names, name
        names.add(name)
        rel = "invalid/%s.png" % name
        with open(os.path.join(HERE, rel), "wb") as f:
            f.write(data)
        w, h, fmt = known if known else ("", "", "")
        rows.append((rel, str(w), str(h), fmt, "", code, note))
        if check:
            verdicts = []
            try:
                im = Image.open(io.BytesIO(data))
                im.load()
                verdicts.append("Pillow accepts")
            except Exception:  # noqa: BLE001
                pass
            for cmd in (["pngcheck", "-q"],):
                v = tool_verdict(cmd, os.path.join(HERE, rel))
                if v is not None and v[0] == 0:
                    verdicts.append("%s accepts" % cmd[0])
            if verdicts:
                lenient.append("%s (%s): %s" % (rel, code, ", ".join(verdicts)))
    rows.sort()
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("path\twidth\theight\tformat\tchecksum\terror\tnote\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    invalid_count = sum(1 for r in rows if r[5])
    print("%d valid, %d invalid vectors written" % (len(rows) - invalid_count, invalid_count))
    if check:
        for line in lenient:
            print("lenient reference (expected for some cases): " + line)
        for line in notes:
            print("note (benign_* files may be refused by strict tools): " + line)
        for line in failures:
            print("MISMATCH: " + line)
        if failures:
            sys.exit(1)


if __name__ == "__main__":
    main()
