"""Small APNG toolkit for the vector generator (make_vectors.py).

* a writer: chunks with CRCs, scanline filters, Adam7, sub-byte packing, fcTL/fdAT
  sequence numbers and fdAT/IDAT splitting;
* a reference reader: chunk walk with the strict APNG checks (the error classes of
  expected.json), zlib, unfiltering, Adam7, unpacking, expansion to RGBA of the canvas depth;
* the reference compositor (APNG spec + the integer OVER of apngdis/apngasm), plus a model of
  ffmpeg 5.1's OVER rounding used only to explain ffmpeg's disagreements.

Pure Python + numpy; no other decoder is used here.
"""
import struct
import zlib

import numpy as np

SIG = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# (x0, y0, dx, dy) of the seven Adam7 passes
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

DISPOSE_NONE, DISPOSE_BACKGROUND, DISPOSE_PREVIOUS = 0, 1, 2
BLEND_SOURCE, BLEND_OVER = 0, 1


# ----------------------------------------------------------------------------- writer

def chunk_bytes(ctype, data):
    if isinstance(ctype, str):
        ctype = ctype.encode("ascii")
    return struct.pack(">I", len(data)) + ctype + data + struct.pack(">I", zlib.crc32(ctype + data))


def serialize(chunks):
    """chunks: list of (type, data); returns the whole file."""
    return SIG + b"".join(chunk_bytes(t, d) for t, d in chunks)


def ihdr(w, h, bd, ct, interlace=0):
    return struct.pack(">IIBBBBB", w, h, bd, ct, 0, 0, interlace)


def actl(num_frames, num_plays):
    return struct.pack(">II", num_frames, num_plays)


def fctl(seq, w, h, x, y, dn, dd, dop, bop):
    return struct.pack(">IIIIIHHBB", seq, w, h, x, y, dn, dd, dop, bop)


def pack_rows(samples, bd):
    """samples: (h, w, c) integer array -> list of raw scanline bytes (no filter byte)."""
    h, w, c = samples.shape
    rows = []
    for y in range(h):
        r = samples[y].reshape(-1)
        if bd == 16:
            rows.append(r.astype(">u2").tobytes())
        elif bd == 8:
            rows.append(r.astype(np.uint8).tobytes())
        else:
            bits = np.zeros((r.size, bd), dtype=np.uint8)
            for b in range(bd):
                bits[:, b] = (r >> (bd - 1 - b)) & 1
            rows.append(np.packbits(bits.reshape(-1)).tobytes())
    return rows


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def filter_rows(rows, bpp, mode, start=0):
    """Filters scanlines; mode 'cycle' uses filter (start+i) % 5 on row i, or an int for one type."""
    out = bytearray()
    prev = np.zeros(len(rows[0]) if rows else 0, dtype=np.int32)
    for i, row in enumerate(rows):
        r = np.frombuffer(row, dtype=np.uint8).astype(np.int32)
        ft = (start + i) % 5 if mode == "cycle" else int(mode)
        a = np.concatenate([np.zeros(bpp, np.int32), r[:-bpp]]) if len(r) > bpp else np.zeros_like(r)
        b = prev
        c = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]]) if len(r) > bpp else np.zeros_like(r)
        if ft == 0:
            f = r
        elif ft == 1:
            f = r - a
        elif ft == 2:
            f = r - b
        elif ft == 3:
            f = r - (a + b) // 2
        else:
            f = r - _paeth(a, b, c)
        out.append(ft)
        out += (f & 0xFF).astype(np.uint8).tobytes()
        prev = r
    return bytes(out)


def raw_image_data(samples, bd, interlace=0, mode="cycle"):
    """The uncompressed (filtered) datastream of one image."""
    h, w, c = samples.shape
    bpp = max(1, c * bd // 8)
    if not interlace:
        return filter_rows(pack_rows(samples, bd), bpp, mode)
    out = b""
    for p, (x0, y0, dx, dy) in enumerate(ADAM7):
        sub = samples[y0::dy, x0::dx]
        if sub.shape[0] == 0 or sub.shape[1] == 0:
            continue
        out += filter_rows(pack_rows(sub, bd), bpp, mode, start=p)
    return out


def compress(samples, bd, interlace=0, mode="cycle", level=9):
    return zlib.compress(raw_image_data(samples, bd, interlace, mode), level)


def split_data(data, sizes):
    """Splits data into pieces of the given sizes (0 = an empty chunk); the rest goes in a last piece."""
    pieces, pos = [], 0
    for s in sizes:
        pieces.append(data[pos:pos + s])
        pos += s
    if pos < len(data):
        pieces.append(data[pos:])
    return pieces


class Frame:
    def __init__(self, samples, x=0, y=0, dn=1, dd=10, dop=0, bop=0):
        self.samples = samples
        self.x, self.y, self.dn, self.dd, self.dop, self.bop = x, y, dn, dd, dop, bop

    @property
    def w(self):
        return self.samples.shape[1]

    @property
    def h(self):
        return self.samples.shape[0]


def build_apng(W, H, ct, bd, frames, default=None, num_plays=0, interlace=0, plte=None, trns=None,
               num_frames=None, filt="cycle", idat_split=None, fdat_split=None, actl_first=True):
    """Returns a list of [type, data] chunks (mutable for the broken vectors).

    default None: the first fcTL precedes IDAT (the default image is frame 0).
    default array: IDAT holds that image, every frame goes in fdAT.
    idat_split / fdat_split: lists of piece sizes (fdat_split: dict frame index -> sizes).
    """
    chunks = [["IHDR", ihdr(W, H, bd, ct, interlace)]]
    ac = ["acTL", actl(len(frames) if num_frames is None else num_frames, num_plays)]
    if actl_first:
        chunks.append(ac)
    if plte is not None:
        chunks.append(["PLTE", plte if isinstance(plte, bytes) else bytes(np.asarray(plte, np.uint8).reshape(-1))])
    if trns is not None:
        chunks.append(["tRNS", trns])
    if not actl_first:
        chunks.append(ac)
    seq = 0

    def fc(f):
        nonlocal seq
        chunks.append(["fcTL", fctl(seq, f.w, f.h, f.x, f.y, f.dn, f.dd, f.dop, f.bop)])
        seq += 1

    if default is None:
        fc(frames[0])
        z = compress(frames[0].samples, bd, interlace, filt)
        rest = frames[1:]
        first_index = 1
    else:
        z = compress(default, bd, interlace, filt)
        rest = frames
        first_index = 0
    for piece in split_data(z, idat_split or []):
        chunks.append(["IDAT", piece])
    for k, f in enumerate(rest):
        fi = k + first_index
        fc(f)
        z = compress(f.samples, bd, interlace, filt)
        sizes = (fdat_split or {}).get(fi, [])
        for piece in split_data(z, sizes):
            chunks.append(["fdAT", struct.pack(">I", seq) + piece])
            seq += 1
    chunks.append(["IEND", b""])
    return chunks


# ----------------------------------------------------------------------------- reader

class APNGError(Exception):
    def __init__(self, code, msg):
        super().__init__(f"{code}: {msg}")
        self.code, self.msg = code, msg


def read_chunks(data):
    if data[:8] != SIG:
        raise ValueError("not a PNG")
    pos, out = 8, []
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        t = data[pos + 4:pos + 8]
        d = data[pos + 8:pos + 8 + n]
        crc = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        if crc != zlib.crc32(t + d):
            raise ValueError(f"bad CRC in {t!r}")
        out.append((t.decode("latin-1"), d, pos))
        pos += 12 + n
        if t == b"IEND":
            break
    return out


def _unfilter(buf, pos, rowbytes, nrows, bpp):
    rows = []
    prev = bytearray(rowbytes)
    for _ in range(nrows):
        ft = buf[pos]
        if ft > 4:
            raise APNGError("filter", f"bad filter type {ft}")
        cur = bytearray(buf[pos + 1:pos + 1 + rowbytes])
        pos += 1 + rowbytes
        if ft == 1:
            for i in range(bpp, rowbytes):
                cur[i] = (cur[i] + cur[i - bpp]) & 0xFF
        elif ft == 2:
            for i in range(rowbytes):
                cur[i] = (cur[i] + prev[i]) & 0xFF
        elif ft == 3:
            for i in range(rowbytes):
                a = cur[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + ((a + prev[i]) >> 1)) & 0xFF
        elif ft == 4:
            for i in range(rowbytes):
                a = cur[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
                cur[i] = (cur[i] + pr) & 0xFF
        rows.append(bytes(cur))
        prev = cur
    return rows, pos


def _unpack(rows, w, c, bd):
    if bd == 16:
        a = np.frombuffer(b"".join(rows), dtype=">u2").astype(np.int64)
    elif bd == 8:
        a = np.frombuffer(b"".join(rows), dtype=np.uint8).astype(np.int64)
    else:
        out = []
        for r in rows:
            bits = np.unpackbits(np.frombuffer(r, dtype=np.uint8))[: w * c * bd].reshape(-1, bd)
            v = np.zeros(bits.shape[0], dtype=np.int64)
            for b in range(bd):
                v = (v << 1) | bits[:, b]
            out.append(v)
        a = np.concatenate(out)
    return a.reshape(len(rows), w, c)


def rowbytes_of(w, c, bd):
    return (w * c * bd + 7) // 8


def expected_raw_size(w, h, ct, bd, interlace):
    c = CHANNELS[ct]
    if not interlace:
        return h * (1 + rowbytes_of(w, c, bd))
    n = 0
    for x0, y0, dx, dy in ADAM7:
        pw = (w - x0 + dx - 1) // dx if w > x0 else 0
        ph = (h - y0 + dy - 1) // dy if h > y0 else 0
        if pw and ph:
            n += ph * (1 + rowbytes_of(pw, c, bd))
    return n


def decode_samples(zdata, w, h, ct, bd, interlace):
    """zlib data -> (h, w, c) samples; raises APNGError('data', ...) when it does not fit."""
    d = zlib.decompressobj()
    try:
        raw = d.decompress(zdata)
        raw += d.flush()
    except zlib.error as e:
        raise APNGError("data", f"zlib error: {e}")
    if not d.eof:
        raise APNGError("data", "zlib stream is incomplete")
    need = expected_raw_size(w, h, ct, bd, interlace)
    if len(raw) != need:
        raise APNGError("data", f"{len(raw)} bytes of image data, {need} expected")
    c = CHANNELS[ct]
    bpp = max(1, c * bd // 8)
    if not interlace:
        rows, _ = _unfilter(raw, 0, rowbytes_of(w, c, bd), h, bpp)
        return _unpack(rows, w, c, bd)
    out = np.zeros((h, w, c), dtype=np.int64)
    pos = 0
    for x0, y0, dx, dy in ADAM7:
        pw = (w - x0 + dx - 1) // dx if w > x0 else 0
        ph = (h - y0 + dy - 1) // dy if h > y0 else 0
        if not (pw and ph):
            continue
        rows, pos = _unfilter(raw, pos, rowbytes_of(pw, c, bd), ph, bpp)
        out[y0::dy, x0::dx] = _unpack(rows, pw, c, bd)
    return out


def to_rgba(samples, ct, bd, plte, trns):
    """Samples -> (h, w, 4) int64 RGBA in the canvas depth (16 for 16-bit images, else 8)."""
    h, w, _ = samples.shape
    maxv = 65535 if bd == 16 else 255
    out = np.zeros((h, w, 4), dtype=np.int64)
    mask = (1 << bd) - 1
    scale = {1: 255, 2: 85, 4: 17, 8: 1, 16: 1}[bd]
    if ct == 0:
        g = samples[..., 0]
        out[..., 0] = out[..., 1] = out[..., 2] = g * scale
        out[..., 3] = maxv
        if trns is not None:
            key = struct.unpack(">H", trns[:2])[0] & mask
            out[..., 3] = np.where(g == key, 0, maxv)
    elif ct == 2:
        out[..., :3] = samples
        out[..., 3] = maxv
        if trns is not None:
            key = [v & mask for v in struct.unpack(">HHH", trns[:6])]
            m = (samples[..., 0] == key[0]) & (samples[..., 1] == key[1]) & (samples[..., 2] == key[2])
            out[..., 3] = np.where(m, 0, maxv)
    elif ct == 3:
        pal = np.frombuffer(plte, dtype=np.uint8).reshape(-1, 3).astype(np.int64)
        alpha = np.full(len(pal), 255, dtype=np.int64)
        if trns is not None:
            alpha[: len(trns)] = np.frombuffer(trns, dtype=np.uint8)
        idx = samples[..., 0]
        if idx.max(initial=0) >= len(pal):
            raise APNGError("data", "palette index out of range")
        out[..., :3] = pal[idx]
        out[..., 3] = alpha[idx]
    elif ct == 4:
        out[..., 0] = out[..., 1] = out[..., 2] = samples[..., 0]
        out[..., 3] = samples[..., 1]
    elif ct == 6:
        out[...] = samples
    return out


def crc_rgba16(rgba, depth):
    a = rgba * 257 if depth == 8 else rgba
    return zlib.crc32(np.ascontiguousarray(a).astype(">u2").tobytes())


def hexcrc(v):
    return f"{v:08x}"


def analyze(data):
    """Parses a file the strict way.

    Returns dict with: W, H, ct, bd, interlace, plte, trns, default (samples of IDAT image),
    animated, errors (list of (code, message)), num_plays, num_frames, default_is_frame0,
    frames: list of dicts (fctl fields + 'samples').
    Error codes: apngSequence, apngFrameOutsideCanvas, apngInvalidChunk, apngFrameCount, apngFrameData.
    """
    chunks = read_chunks(data)
    assert chunks[0][0] == "IHDR"
    W, H, bd, ct, _, _, il = struct.unpack(">IIBBBBB", chunks[0][1])
    r = dict(W=W, H=H, ct=ct, bd=bd, interlace=il, plte=None, trns=None, errors=[], has_actl=False,
             num_plays=None, num_frames=None, default_is_frame0=False, frames=[])
    errors = r["errors"]
    idat = b""
    seen_idat = False
    idat_done = False
    actl_ok = None  # None: no acTL; True/False
    next_seq = 0
    cur = None  # current frame dict
    fctl_count = 0
    for t, d, off in chunks:
        if t == "PLTE":
            r["plte"] = d
        elif t == "tRNS":
            r["trns"] = d
        elif t == "acTL":
            r["has_actl"] = True
            if seen_idat:
                errors.append(("apngInvalidChunk", "acTL after IDAT"))
                actl_ok = False
            elif actl_ok is not None:
                errors.append(("apngInvalidChunk", "second acTL"))
                actl_ok = False
            elif len(d) != 8:
                errors.append(("apngInvalidChunk", "acTL length"))
                actl_ok = False
            else:
                nf, npl = struct.unpack(">II", d)
                r["num_frames"], r["num_plays"] = nf, npl
                if nf == 0:
                    errors.append(("apngInvalidChunk", "num_frames 0"))
                    actl_ok = False
                else:
                    actl_ok = True
        elif t == "IDAT":
            if idat_done:
                errors.append(("apngInvalidChunk", "IDAT after the IDAT run"))
            seen_idat = True
            idat += d
            if cur is not None:
                cur["is_default"] = True
                cur["data"] += d
        elif t in ("fcTL", "fdAT"):
            if seen_idat:
                idat_done = True
            if len(d) < 4:
                errors.append(("apngInvalidChunk", f"{t} too short"))
                continue
            seq = struct.unpack(">I", d[:4])[0]
            if seq != next_seq:
                errors.append(("apngSequence", f"{t} sequence {seq}, {next_seq} expected"))
            next_seq = seq + 1
            if t == "fcTL":
                fctl_count += 1
                if cur is not None and not cur["is_default"] and not cur["had_fdat"]:
                    errors.append(("apngFrameData", f"frame {len(r['frames']) - 1} has no fdAT"))
                if len(d) != 26:
                    errors.append(("apngInvalidChunk", "fcTL length"))
                    cur = None
                    continue
                _, w, h, x, y, dn, dd, dop, bop = struct.unpack(">IIIIIHHBB", d)
                f = dict(x=x, y=y, width=w, height=h, delayNum=dn, delayDen=dd, dispose=dop, blend=bop,
                         data=b"", is_default=False, had_fdat=False, before_idat=not seen_idat)
                if w == 0 or h == 0 or x + w > W or y + h > H:
                    errors.append(("apngFrameOutsideCanvas", f"frame {w}x{h} at {x},{y}"))
                if dop > 2 or bop > 1:
                    errors.append(("apngInvalidChunk", f"dispose_op {dop} blend_op {bop}"))
                if not seen_idat:
                    r["default_is_frame0"] = True
                    if (x, y, w, h) != (0, 0, W, H):
                        errors.append(("apngInvalidChunk", "default-image fcTL differs from IHDR"))
                r["frames"].append(f)
                cur = f
            else:
                if cur is None:
                    errors.append(("apngInvalidChunk", "fdAT before any fcTL"))
                    continue
                if cur["is_default"]:
                    errors.append(("apngInvalidChunk", "fdAT for the IDAT frame"))
                    continue
                cur["had_fdat"] = True
                cur["data"] += d[4:]
        elif t == "IEND":
            if cur is not None and not cur["is_default"] and not cur["had_fdat"]:
                errors.append(("apngFrameData", f"frame {len(r['frames']) - 1} has no fdAT"))
    r["default"] = decode_samples(idat, W, H, ct, bd, il)  # the static image must be sound
    if actl_ok is None:
        if r["frames"]:
            errors.append(("apngInvalidChunk", "fcTL without acTL"))
        r["animated"] = False
        return r
    if actl_ok and fctl_count != r["num_frames"]:
        errors.append(("apngFrameCount", f"acTL says {r['num_frames']}, {fctl_count} fcTL"))
    for i, f in enumerate(r["frames"]):
        if f["width"] == 0 or f["height"] == 0:
            continue
        try:
            f["samples"] = decode_samples(f["data"], f["width"], f["height"], ct, bd, il)
        except APNGError as e:
            errors.append(("apngFrameData", f"frame {i}: {e.msg}"))
    r["animated"] = actl_ok and not errors
    return r


# ----------------------------------------------------------------------------- compositor

def over(dst, src, maxv):
    """The integer OVER of apngdis/apngasm compose_frame (Variation 2 of PNG 1.2 with truncation)."""
    sa = src[..., 3:4]
    da = dst[..., 3:4]
    u = sa * maxv
    v = (maxv - sa) * da
    al = u + v
    safe = np.where(al == 0, 1, al)
    mixed = np.concatenate([(src[..., :3] * u + dst[..., :3] * v) // safe, al // maxv], axis=-1)
    copy = (sa == maxv) | ((sa != 0) & (da == 0))
    blend = (sa != 0) & (sa != maxv) & (da != 0)
    return np.where(copy, src, np.where(blend, mixed, dst))


def div255_round(x):
    return ((x + 128) * 257) >> 16


def over_ffmpeg(dst, src):
    """ffmpeg 5.1 libavcodec/pngdec.c handle_p_frame_apng, 8-bit RGBA: a model used only to explain
    ffmpeg's disagreements (alpha rounded to nearest; colours rounded when the destination is
    opaque, else truncated against the rounded alpha)."""
    sa = src[..., 3:4]
    da = dst[..., 3:4]
    oa = sa + div255_round((255 - sa) * da)
    opaque_bg = div255_round(sa * src[..., :3] + (255 - sa) * dst[..., :3])
    safe = np.where(oa == 0, 1, oa)
    gen = (255 * sa * src[..., :3] + (255 - sa) * da * dst[..., :3]) // (255 * safe)
    col = np.where(oa == 0, 0, np.where(da == 255, opaque_bg, gen))
    mixed = np.concatenate([col, oa], axis=-1)
    return np.where(sa == 255, src, np.where(sa == 0, dst, mixed))


def composite(frames, fctls, W, H, maxv, over_fn=None, first_over_as_source=False, clear=None):
    """frames: list of (h, w, k) arrays (k = 4 for RGBA; tool models may use other band layouts);
    fctls: dicts with x, y, width, height, dispose, blend. The canvas starts as `clear` (default
    all zero = transparent black), BACKGROUND disposal writes `clear` too. Returns (canvases after
    each frame, masks of the pixels whose value a partial OVER produced; only for k = 4)."""
    over_fn = over_fn or (lambda d, s: over(d, s, maxv))
    k = frames[0].shape[-1]
    canvas = np.zeros((H, W, k), dtype=np.int64)
    if clear is not None:
        canvas[...] = clear
    touched = np.zeros((H, W), dtype=bool)
    out, masks = [], []
    prev = None
    for i, (img, f) in enumerate(zip(frames, fctls)):
        if prev is not None:
            pf, pi, saved, saved_t = prev
            ys, xs = slice(pf["y"], pf["y"] + pf["height"]), slice(pf["x"], pf["x"] + pf["width"])
            dop = pf["dispose"]
            if dop == DISPOSE_PREVIOUS and pi == 0:
                dop = DISPOSE_BACKGROUND
            if dop == DISPOSE_BACKGROUND:
                canvas[ys, xs] = 0 if clear is None else clear
                touched[ys, xs] = False
            elif dop == DISPOSE_PREVIOUS:
                canvas[ys, xs] = saved
                touched[ys, xs] = saved_t
        ys, xs = slice(f["y"], f["y"] + f["height"]), slice(f["x"], f["x"] + f["width"])
        saved = canvas[ys, xs].copy()
        saved_t = touched[ys, xs].copy()
        blend = f["blend"]
        if i == 0 and first_over_as_source:
            blend = BLEND_SOURCE
        if blend == BLEND_SOURCE:
            canvas[ys, xs] = img
            touched[ys, xs] = False
        else:
            d = canvas[ys, xs]
            if k == 4:
                sa, da = img[..., 3], d[..., 3]
                part = (sa != 0) & (sa != maxv) & (da != 0)
                touched[ys, xs] = np.where(sa == maxv, False, touched[ys, xs] | part)
            canvas[ys, xs] = over_fn(d, img)
        prev = (f, i, saved, saved_t)
        out.append(canvas.copy())
        masks.append(touched.copy())
    return out, masks
