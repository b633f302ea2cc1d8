"""The PNG writer and the reference decoding behind generate.py (see its docstring).

The writer assembles chunks, applies the five filters (PNG 9.2), interlaces with Adam7 (PNG
8.2) and compresses with Python's zlib, so that every structure can be forced or broken.
The reference side expands pypng's raw samples to RGBA16 and computes the manifest's
checksum; Pillow is the second opinion.
"""

import io
import struct
import zlib

import png  # pypng
from PIL import Image

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
