#!/usr/bin/env python3
"""Generates the GIF test vectors in this folder and `expected.json`.

Sources: hand-built byte sequences (an LZW encoder below that can write every minimum code
size, deferred clears, odd code streams), Pillow, and giflib's `giftool`. The expected values
come from the reference decoder below (plain Python, browser semantics: canvas starts
transparent, disposal 2 clears to transparent, 3 and 4 restore the previous canvas, delays of
0-1 cs play as 100 ms), cross-checked against Pillow's decoding of each first frame and
ImageMagick's `-coalesce` of whole animations where they agree with browsers on semantics
(the script prints how many agree: 41 and 47 when written).

Expected per file: canvas size, loop count, and per frame the delay, disposal and the CRC-32
of the composited RGBA8 canvas after the frame (zlib.crc32 of the raw bytes). Error files list
the error code for default and strict options. Run: python3 make_vectors.py (needs Pillow).
"""
import io, json, os, random, subprocess, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
random.seed(1234)

# ---------------------------------------------------------------- LZW encoding (GIF89a appendix F)

def lzw_codes(indices, min_size, mode="clear", initial_clear=True):
    """The code stream for `indices` as (code, width) pairs. mode: "clear" resets the table when it
    fills; "deferred" keeps emitting 12-bit codes with a full table; "literal" emits only
    literals (with a clear before the table would fill)."""
    clear, eoi = 1 << min_size, (1 << min_size) + 1
    out = []
    table = {}
    nxt = eoi + 1

    def width():
        return max(min_size + 1, min(12, (nxt - 1).bit_length()))

    def reset():
        nonlocal table, nxt
        table = {}
        nxt = eoi + 1

    if initial_clear:
        out.append((clear, width()))
    prefix = None
    for px in indices:
        if prefix is None:
            prefix = px
            continue
        key = (prefix, px)
        if mode != "literal" and key in table:
            prefix = table[key]
            continue
        out.append((prefix, width()))
        if nxt < 4096:
            table[key] = nxt
            nxt += 1
        if nxt == 4096 and mode in ("clear", "literal"):
            out.append((clear, width()))
            reset()
        elif mode == "literal" and nxt >= (1 << 12) - 1:
            out.append((clear, width()))
            reset()
        prefix = px
    if prefix is not None:
        out.append((prefix, width()))
        if nxt < 4096:
            nxt += 1
    out.append((eoi, width()))
    return out


def pack_codes(codes):
    acc, n, out = 0, 0, bytearray()
    for code, w in codes:
        acc |= code << n
        n += w
        while n >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            n -= 8
    if n:
        out.append(acc & 0xFF)
    return bytes(out)


def sub_blocks(data, size=255, terminator=True):
    out = bytearray()
    for i in range(0, len(data), size):
        chunk = data[i:i + size]
        out.append(len(chunk))
        out += chunk
    if terminator:
        out.append(0)
    return bytes(out)

# ---------------------------------------------------------------- GIF writing

def table_bits(n):
    bits = 1
    while (1 << bits) < n:
        bits += 1
    return bits


def color_table(colors):
    """colors: list of (r,g,b); padded to a power of two >= 2. Returns (bytes, size field)."""
    bits = table_bits(max(2, len(colors)))
    padded = list(colors) + [(0, 0, 0)] * ((1 << bits) - len(colors))
    return b"".join(bytes(c) for c in padded), bits - 1


def gce(disposal=0, delay=0, transparent=None, user_input=False, size=4):
    packed = (disposal & 7) << 2 | (2 if user_input else 0) | (1 if transparent is not None else 0)
    body = bytes([packed, delay & 0xFF, delay >> 8, transparent or 0]) + bytes(max(0, size - 4))
    return b"\x21\xF9" + bytes([size]) + body[:size] + b"\x00"


def loop_ext(count, ident=b"NETSCAPE2.0"):
    return b"\x21\xFF\x0B" + ident + b"\x03\x01" + bytes([count & 0xFF, count >> 8]) + b"\x00"


def comment_ext(text):
    return b"\x21\xFE" + sub_blocks(text.encode("latin-1"), 255)


def interlace_order(h):
    rows = []
    for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)):
        rows += list(range(start, h, step))
    return rows


def image(x, y, w, h, pixels, local=None, interlaced=False, min_size=None, mode="clear",
          initial_clear=True, data=None, block=255, terminator=True, codes=None):
    """An image descriptor with its data. pixels: row-major list of w*h indices."""
    packed = 0
    lct = b""
    if local is not None:
        lct, bits = color_table(local)
        packed |= 0x80 | bits
    if interlaced:
        packed |= 0x40
    out = b"\x2C" + bytes([x & 255, x >> 8, y & 255, y >> 8, w & 255, w >> 8, h & 255, h >> 8, packed]) + lct
    if min_size is None:
        top = max(pixels) if pixels else 1
        min_size = max(2, table_bits(top + 1))
    if data is None:
        stored = pixels
        if interlaced:
            stored = []
            for r in interlace_order(h):
                stored += pixels[r * w:(r + 1) * w]
        data = pack_codes(codes if codes is not None else lzw_codes(stored, min_size, mode, initial_clear))
    return out + bytes([min_size]) + sub_blocks(data, block, terminator)


def gif(w, h, blocks, global_colors=None, version=b"89a", trailer=True, background=0):
    packed = 0
    gct = b""
    if global_colors is not None:
        gct, bits = color_table(global_colors)
        packed = 0x80 | 0x70 | bits
    out = b"GIF" + version + bytes([w & 255, w >> 8, h & 255, h >> 8, packed, background, 0]) + gct
    out += b"".join(blocks)
    if trailer:
        out += b"\x3B"
    return out

# ---------------------------------------------------------------- reference decoder

class RefError(Exception):
    def __init__(self, code):
        self.code = code


def lzw_decode(data, min_size, capacity, strict):
    """Returns (indices, saw_end). Lenient: stops at the output's end (excess ignored)."""
    clear, eoi = 1 << min_size, (1 << min_size) + 1
    table = [bytes([i]) for i in range(clear)] + [b"", b""]
    size = min_size + 1
    prev = None
    out = bytearray()
    acc, n, i = 0, 0, 0
    full = capacity == 0
    while True:
        while n < size and i < len(data):
            acc |= data[i] << n
            n += 8
            i += 1
        if n < size:
            return bytes(out), False
        code = acc & ((1 << size) - 1)
        acc >>= size
        n -= size
        if full:
            if code == eoi:
                return bytes(out), True
            if code == clear:
                table = table[:eoi + 1]
                size = min_size + 1
                prev = None
                continue
            raise RefError("tooMuchPixelData")
        if code == clear:
            table = table[:eoi + 1]
            size = min_size + 1
            prev = None
            continue
        if code == eoi:
            return bytes(out), True
        if code < len(table) and code > eoi or code < clear:
            s = table[code]
            if prev is not None and len(table) < 4096:
                table.append(table[prev] + s[:1])
        elif code == len(table) and prev is not None:
            s = table[prev] + table[prev][:1]
            if len(table) < 4096:
                table.append(s)
        else:
            raise RefError("invalidCode")
        if len(table) == (1 << size) and size < 12:
            size += 1
        prev = code
        out += s
        if len(out) >= capacity:
            out = out[:capacity]
            if not strict:
                return bytes(out), False
            full = True


def reference(data, strict=False, default_table=None):
    """Decodes like the Swift decoder. Returns dict with frames [(info, crc)], loop, size, or raises RefError."""
    if len(data) < 6 and (b"GIF89a".startswith(data) or b"GIF87a".startswith(data)):
        raise RefError("truncated")
    if len(data) < 6 or data[:6] not in (b"GIF87a", b"GIF89a"):
        raise RefError("invalidSignature")
    if len(data) < 13:
        raise RefError("truncated")
    W = data[6] | data[7] << 8
    H = data[8] | data[9] << 8
    p = 13
    gct = None
    if data[10] & 0x80:
        n = 2 << (data[10] & 7)
        if len(data) < p + 3 * n:
            raise RefError("truncated")
        gct = [tuple(data[p + 3 * k:p + 3 * k + 3]) for k in range(n)]
        p += 3 * n
    canvas = bytearray(W * H * 4)
    frames = []
    loop = None
    control = None
    pending = None
    texts = []
    truncated = False

    def need(k):
        if p + k > len(data):
            raise EOFError

    try:
        while True:
            need(1)
            label = data[p]
            p += 1
            if label == 0x21:
                need(1)
                ext = data[p]
                p += 1
                idx = 0
                is_loop = False
                comment = bytearray()
                while True:
                    need(1)
                    ln = data[p]
                    need(1 + ln)
                    body = data[p + 1:p + 1 + ln]
                    p += 1 + ln
                    if ln == 0:
                        break
                    if ext == 0xF9 and idx == 0 and ln >= 4:
                        control = (body[0] >> 2 & 7, body[0] & 2 != 0, body[3] if body[0] & 1 else None, body[1] | body[2] << 8)
                    elif ext == 0xFF:
                        if idx == 0:
                            is_loop = bytes(body) in (b"NETSCAPE2.0", b"ANIMEXTS1.0")
                        elif is_loop and ln >= 3 and body[0] & 7 == 1:
                            loop = body[1] | body[2] << 8
                    elif ext == 0xFE:
                        comment += body
                    idx += 1
                if ext == 0xFE:
                    texts.append(comment.decode("latin-1"))
            elif label == 0x2C:
                need(9)
                d = data[p:p + 9]
                p += 9
                x, y = d[0] | d[1] << 8, d[2] | d[3] << 8
                w, h = d[4] | d[5] << 8, d[6] | d[7] << 8
                interlaced = d[8] & 0x40 != 0
                lct = None
                if d[8] & 0x80:
                    n = 2 << (d[8] & 7)
                    need(3 * n)
                    lct = [tuple(data[p + 3 * k:p + 3 * k + 3]) for k in range(n)]
                    p += 3 * n
                disp, user, transp, delay = control or (0, False, None, 0)
                control = None
                if disp == 4:
                    disp = 3
                info = dict(x=x, y=y, w=w, h=h, delay=delay, disposal=disp, transparent=transp,
                            interlaced=interlaced, local=lct is not None, user=user)
                frames.append([info, None])
                table = lct or gct or default_table
                need(1)
                min_size = data[p]
                p += 1
                if min_size < 1 or min_size > 8:
                    raise RefError("invalidLZWCodeSize")
                if table is None:
                    raise RefError("missingColorTable")
                # dispose the previous frame
                if pending:
                    kind, (px0, py0, px1, py1), saved = pending
                    for yy in range(py0, py1):
                        a, b = (yy * W + px0) * 4, (yy * W + px1) * 4
                        if kind == 2:
                            canvas[a:b] = bytes(b - a)
                        elif kind == 3:
                            canvas[a:b] = saved[yy - py0]
                x0, x1 = min(max(x, 0), W), min(max(x + w, 0), W)
                y0, y1 = min(max(y, 0), H), min(max(y + h, 0), H)
                saved = [bytes(canvas[(yy * W + x0) * 4:(yy * W + x1) * 4]) for yy in range(y0, y1)] if disp == 3 else None
                # collect the data sub-blocks
                stream = bytearray()
                blocks_after_end = False
                complete = False
                ended_at = None
                nblocks = 0
                while True:
                    if p >= len(data):
                        break
                    ln = data[p]
                    if ln == 0:
                        p += 1
                        complete = True
                        break
                    if p + 1 + ln > len(data):
                        stream += data[p + 1:]
                        p = len(data)
                        break
                    stream += data[p + 1:p + 1 + ln]
                    nblocks += 1
                    p += 1 + ln
                    if ended_at is None:
                        try:
                            _, saw = lzw_decode(bytes(stream), min_size, w * h, strict)
                        except RefError:
                            saw = False
                        if saw:
                            ended_at = nblocks
                    elif not blocks_after_end:
                        blocks_after_end = True
                if strict and blocks_after_end:
                    raise RefError("dataAfterEndCode")
                indices, saw_end = lzw_decode(bytes(stream), min_size, w * h, strict)
                if complete and strict and not saw_end:
                    raise RefError("missingEndCode")
                if complete and strict and len(indices) < w * h:
                    raise RefError("notEnoughPixelData")
                order = interlace_order(h) if interlaced else list(range(h))
                rows = len(indices) // w if w else 0
                count_rows = rows + (1 if complete and w and len(indices) % w else 0)
                pal = [table[i] + (255,) if i < len(table) else (0, 0, 0, 255) for i in range(256)]
                for o in range(min(count_rows, h)):
                    fy = order[o]
                    cy = y + fy
                    if cy < y0 or cy >= y1:
                        continue
                    rowpix = indices[o * w:o * w + w]
                    for fx, v in enumerate(rowpix):
                        cx = x + fx
                        if cx < x0 or cx >= x1 or v == transp:
                            continue
                        canvas[(cy * W + cx) * 4:(cy * W + cx) * 4 + 4] = bytes(pal[v])
                if not complete:
                    frames[-1][1] = ("partial", zlib.crc32(canvas) if not interlaced else None)
                    raise EOFError
                frames[-1][1] = zlib.crc32(canvas)
                pending = (disp, (x0, y0, x1, y1), saved)
            else:
                break   # trailer or any other byte ends the stream
    except EOFError:
        truncated = True
    if not frames and not truncated:
        raise RefError("noFrames")
    return dict(width=W, height=H, frames=frames, loop=loop, truncated=truncated, texts=texts)

# ---------------------------------------------------------------- the vectors

VECTORS = {}   # name -> (bytes, notes)


def add(name, data, note=""):
    VECTORS[name] = (data, note)


def rand_pixels(n, colors):
    return [random.randrange(colors) for _ in range(n)]


def ramp_colors(n):
    return [((i * 255) // max(1, n - 1), (i * 97) % 256, 255 - (i * 255) // max(1, n - 1)) for i in range(n)]


def smooth_pixels(w, h, colors):
    return [((x + y) * colors // max(1, w + h)) % colors for y in range(h) for x in range(w)]


def build_vectors():
    pal16 = ramp_colors(16)
    # Static images, both versions, global and local tables.
    add("static_87a_global", gif(16, 16, [image(0, 0, 16, 16, smooth_pixels(16, 16, 16))], pal16, b"87a"))
    add("static_89a_local", gif(20, 10, [image(0, 0, 20, 10, rand_pixels(200, 16), local=pal16)]))
    add("static_local_overrides_global", gif(8, 8, [image(0, 0, 8, 8, rand_pixels(64, 4), local=ramp_colors(4))], pal16))
    for w, h in ((1, 1), (3, 7), (37, 1), (1, 29), (255, 3), (97, 61)):
        add(f"odd_{w}x{h}", gif(w, h, [image(0, 0, w, h, rand_pixels(w * h, 16))], pal16))
    # Every minimum code size, and the 1-bit size of two-colour encoders.
    for k in range(1, 9):
        colors = 1 << k
        add(f"codesize_{k}", gif(40, 30, [image(0, 0, 40, 30, rand_pixels(1200, colors), min_size=k)], ramp_colors(max(colors, 2))))
    # Code size larger than the table needs (indices beyond the table draw opaque black).
    add("codesize_8_small_table", gif(16, 16, [image(0, 0, 16, 16, rand_pixels(256, 256), min_size=8)], ramp_colors(16)))
    # Full tables: standard clears, deferred clear (12-bit codes with a full table), no initial clear, literals only.
    big = rand_pixels(160 * 160, 256)
    pal256 = ramp_colors(256)
    add("lzw_full_table_clear", gif(160, 160, [image(0, 0, 160, 160, big, mode="clear")], pal256))
    add("lzw_deferred_clear", gif(160, 160, [image(0, 0, 160, 160, big, mode="deferred")], pal256))
    smooth = smooth_pixels(200, 120, 7)
    add("lzw_deferred_clear_smooth", gif(200, 120, [image(0, 0, 200, 120, smooth, min_size=3, mode="deferred")], ramp_colors(8)))
    add("lzw_no_initial_clear", gif(30, 30, [image(0, 0, 30, 30, rand_pixels(900, 8), initial_clear=False)], ramp_colors(8)))
    add("lzw_literals_only", gif(64, 64, [image(0, 0, 64, 64, rand_pixels(4096, 16), mode="literal")], pal16))
    add("lzw_small_subblocks", gif(33, 33, [image(0, 0, 33, 33, rand_pixels(1089, 16), block=1)], pal16))
    # Interlace, every height class.
    for h in (1, 2, 3, 4, 5, 8, 9, 13, 17, 64):
        add(f"interlace_h{h}", gif(11, h, [image(0, 0, 11, h, rand_pixels(11 * h, 16), interlaced=True)], pal16))
    # Comments, plain text and unknown extensions are skipped; GCE with an odd size.
    plain = b"\x21\x01\x0C" + bytes(12) + b"\x03abc\x00"
    unknown_app = b"\x21\xFF\x0BXMP DataXMP" + b"\x05hello\x01\x00\x00"
    unknown_ext = b"\x21\x99\x02ab\x00"
    add("extensions_skipped", gif(8, 8, [comment_ext("made by make_vectors.py"), plain, unknown_app, unknown_ext,
                                          gce(transparent=3, size=4), image(0, 0, 8, 8, rand_pixels(64, 4))], ramp_colors(4)))
    add("gce_size_5", gif(8, 8, [gce(delay=7, transparent=1, size=5), image(0, 0, 8, 8, rand_pixels(64, 4))], ramp_colors(4)))
    add("gce_size_3_ignored", gif(8, 8, [gce(delay=7, transparent=1, size=3), image(0, 0, 8, 8, rand_pixels(64, 4))], ramp_colors(4)))
    # Unknown byte where a block is expected ends the stream (the second image is never read).
    one = image(0, 0, 8, 8, rand_pixels(64, 4))
    add("garbage_ends_stream", gif(8, 8, [one, b"\x00\x00", image(0, 0, 8, 8, [1] * 64)], ramp_colors(4), trailer=False))
    add("data_after_trailer", gif(8, 8, [one], ramp_colors(4)) + b"\x2C\x00garbage")

    # Animations.
    pal = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 0, 0), (255, 255, 255), (128, 128, 128), (0, 128, 255)]

    def anim(disposals, transparent=None, loop=None, delays=None, rects=None, W=24, H=20, extra=b""):
        blocks = [loop_ext(loop)] if loop is not None else []
        blocks.append(extra)
        for i, d in enumerate(disposals):
            x, y, w, h = rects[i] if rects else (2 * i, i, 12, 10)
            px = [(i + (xx // 3) + (yy // 2)) % 8 for yy in range(h) for xx in range(w)]
            delay = delays[i] if delays else 5 * (i + 1)
            blocks.append(gce(disposal=d, delay=delay, transparent=transparent))
            blocks.append(image(x, y, w, h, px))
        return gif(W, H, blocks, pal)

    for d, name in ((0, "unspecified"), (1, "keep"), (2, "background"), (3, "previous"), (4, "previous4"), (5, "reserved5")):
        add(f"disposal_{name}", anim([d] * 4))
        add(f"disposal_{name}_transparent", anim([d] * 4, transparent=2))
    add("disposal_chain_previous", anim([1, 3, 3, 3, 1, 3], transparent=2))
    add("disposal_chain_mixed", anim([2, 3, 1, 3, 2, 0, 3], transparent=0))
    add("disposal_first_previous", anim([3, 1, 2]))
    add("disposal_first_background", anim([2, 3, 1]))
    rects = [(0, 0, 24, 20), (-0, 14, 20, 10), (18, 2, 12, 6), (30, 30, 5, 5), (0, 0, 0, 0), (5, 5, 0, 3), (20, 16, 4, 4)]
    add("frames_outside_canvas", anim([1, 2, 3, 1, 1, 2, 1], transparent=1, rects=rects))
    add("frame_larger_than_canvas", anim([1, 1], rects=[(0, 0, 30, 25), (3, 3, 40, 2)], W=10, H=10))
    add("empty_frames", anim([1, 2, 1], rects=[(0, 0, 24, 20), (3, 3, 0, 0), (1, 1, 0, 5)]))
    for lc in (0, 1, 5, 65535):
        add(f"loop_{lc}", anim([1, 1], loop=lc))
    add("loop_none", anim([1, 1]))
    add("loop_animexts", gif(8, 8, [loop_ext(3, b"ANIMEXTS1.0"), image(0, 0, 8, 8, [1] * 64), image(0, 0, 4, 4, [2] * 16)], pal))
    add("delays", anim([1] * 6, delays=[0, 1, 2, 10, 100, 65535]))
    add("user_input_flag", gif(8, 8, [gce(delay=3, user_input=True), image(0, 0, 8, 8, [1] * 64)], pal))
    # Each frame with its own local table.
    blocks = [loop_ext(0)]
    for i in range(5):
        colors = ramp_colors(4 + i)
        blocks.append(gce(disposal=1, delay=4))
        blocks.append(image(i, i, 10, 8, rand_pixels(80, 4 + i), local=colors, interlaced=i % 2 == 1))
    add("anim_local_tables_interlaced", gif(16, 14, blocks, None))

    # Lenient cases: browsers decode these; strict options reject them.
    px = rand_pixels(64, 4)
    stream = lzw_codes(px, 2)
    add("lenient_missing_end_code", gif(8, 8, [image(0, 0, 8, 8, px, codes=stream[:-1])], ramp_colors(4)))
    add("lenient_excess_pixels", gif(8, 8, [image(0, 0, 8, 8, px, codes=lzw_codes(px + px[:20], 2))], ramp_colors(4)))
    add("lenient_incomplete_pixels", gif(8, 8, [image(0, 0, 8, 8, px, codes=lzw_codes(px[:37], 2))], ramp_colors(4)))
    add("lenient_data_after_end", gif(8, 8, [image(0, 0, 8, 8, px, data=pack_codes(stream) + b"\x00" * 3, block=len(pack_codes(stream)))], ramp_colors(4)))
    add("lenient_missing_trailer", gif(8, 8, [image(0, 0, 8, 8, px)], ramp_colors(4), trailer=False))
    add("lenient_default_table", gif(8, 8, [image(0, 0, 8, 8, px)], None))

    # Invalid files.
    good = gif(8, 8, [image(0, 0, 8, 8, px)], ramp_colors(4))
    add("invalid_signature", b"GIF88a" + good[6:])
    add("invalid_not_gif", b"\x89PNG\r\n\x1a\n" + bytes(20))
    add("invalid_code_size_0", gif(8, 8, [image(0, 0, 8, 8, px)[:-len(sub_blocks(pack_codes(stream))) - 1] + b"\x00" + sub_blocks(pack_codes(stream))], ramp_colors(4)))
    add("invalid_code_size_12", gif(8, 8, [image(0, 0, 8, 8, px)[:-len(sub_blocks(pack_codes(stream))) - 1] + b"\x0C" + sub_blocks(pack_codes(stream))], ramp_colors(4)))
    bad = [(4, 3), (0, 3), (30, 3)] + stream[2:]
    add("invalid_code", gif(8, 8, [image(0, 0, 8, 8, px, codes=bad)], ramp_colors(4)))
    add("invalid_kwkwk_after_clear", gif(8, 8, [image(0, 0, 8, 8, px, codes=[(4, 3), (6, 3)] + stream[1:])], ramp_colors(4)))
    add("invalid_no_frames", gif(8, 8, [comment_ext("nothing here")], ramp_colors(4)))
    for cut in (3, 10, 20, 40, len(good) - 12, len(good) - 2):
        add(f"truncated_{cut}", good[:cut])
    anim7 = anim([1, 2, 3, 1])
    add("truncated_anim_mid_frame2", anim7[:len(anim7) * 3 // 4])
    add("truncated_anim_between_frames", anim7[:anim7.index(b"\x21\xF9", len(anim7) // 2)])

    # Pillow-made files.
    from PIL import Image, ImageDraw
    frames = []
    for i in range(6):
        im = Image.new("RGB", (48, 36), (20 * i, 40, 200 - 20 * i))
        d = ImageDraw.Draw(im)
        d.ellipse((i * 5, 3, i * 5 + 14, 17), fill=(255, 220, 0))
        d.rectangle((2, 20 + i, 30, 30), fill=(0, 150, 60))
        frames.append(im.convert("P", palette=Image.Palette.ADAPTIVE, colors=32))
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=[70, 80, 90, 100, 110, 120], loop=2)
    add("pillow_anim", buf.getvalue())
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", interlace=True)
    add("pillow_static_interlaced", buf.getvalue())
    buf = io.BytesIO()
    Image.new("1", (19, 11), 1).save(buf, "GIF")
    add("pillow_bilevel", buf.getvalue())
    buf = io.BytesIO()
    frames[2].save(buf, "GIF", transparency=3, disposal=2)
    add("pillow_transparent", buf.getvalue())

    # giflib's giftool rewrites a Pillow animation: interlaced, disposal 3, delays 0.
    src = os.path.join("/tmp", "pureimage_gif_src.gif")
    with open(src, "wb") as f:
        f.write(VECTORS["pillow_anim"][0])
    for args, name in ((["-x", "2"], "giflib_background"), (["-x", "3"], "giflib_previous"), (["-d", "0"], "giflib_zero_delay")):
        with open(src, "rb") as f:
            data = subprocess.run(["giftool"] + args, stdin=f, capture_output=True, check=True).stdout
        add(name, data)


def strict_code(data):
    try:
        r = reference(data, strict=True)
        if r["truncated"]:
            return "truncated"
        return None
    except RefError as e:
        return e.code


def main():
    build_vectors()
    total = 0
    table = {}
    checked = []
    for name, (data, note) in sorted(VECTORS.items()):
        path = os.path.join(HERE, name + ".gif")
        with open(path, "wb") as f:
            f.write(data)
        total += len(data)
        entry = {"bytes": len(data)}
        try:
            r = reference(data)
        except RefError as e:
            entry["error"] = e.code
            entry["strictError"] = e.code
            if name == "lenient_default_table":
                d = reference(data, default_table=[(i, i, i) for i in range(256)])
                entry["defaultTableCRC"] = "%08x" % d["frames"][0][1]
            table[name] = entry
            continue
        gray = [(i, i, i) for i in range(256)]
        entry.update(width=r["width"], height=r["height"], loop=r["loop"], truncated=r["truncated"],
                     comments=r["texts"])
        entry["frames"] = []
        for info, crc in r["frames"]:
            e = dict(x=info["x"], y=info["y"], width=info["w"], height=info["h"], delay=info["delay"],
                     disposal=info["disposal"], transparent=info["transparent"], interlaced=info["interlaced"],
                     local=info["local"], userInput=info["user"])
            if isinstance(crc, tuple):
                e["partial"] = True
                e["crc"] = None if crc[1] is None else "%08x" % crc[1]
            else:
                e["crc"] = "%08x" % crc
            entry["frames"].append(e)
        entry["error"] = "truncated" if r["truncated"] and not entry["frames"] else None
        if r["truncated"] and not entry["frames"]:
            entry["error"] = "truncated"
        entry["strictError"] = strict_code(data)
        if name == "lenient_default_table":
            entry["error"] = "missingColorTable"
            entry["strictError"] = "missingColorTable"
            d = reference(data, default_table=gray)
            entry["defaultTableCRC"] = "%08x" % d["frames"][0][1]
        table[name] = entry
        # Cross-check the first frame with Pillow where both read the file the same way.
        try:
            from PIL import Image
            im = Image.open(io.BytesIO(data))
            im.load()
            if entry["frames"] and not entry["frames"][0].get("partial") and not name.startswith(("lenient", "codesize_8_small", "frames_outside", "frame_larger", "empty", "garbage")):
                f0 = entry["frames"][0]
                rgba = im.convert("RGBA")
                W, H = r["width"], r["height"]
                canvas = Image.new("RGBA", (W, H), (0, 0, 0, 0))
                if f0["transparent"] is None and (f0["x"], f0["y"], f0["width"], f0["height"]) == (0, 0, W, H):
                    got = "%08x" % zlib.crc32(rgba.tobytes())
                    checked.append(name)
                    if got != f0["crc"]:
                        print("pillow disagrees on", name)
        except Exception as exc:  # Pillow refuses some hand-built files; the reference decides
            pass
    # Cross-check whole animations with ImageMagick's -coalesce where it composites as browsers
    # do (it fills the first canvas and disposal-2 areas with the background colour instead of
    # transparency, so files whose first frame leaves part of the canvas uncovered differ).
    magick = []
    for name, entry in sorted(table.items()):
        frames = entry.get("frames") or []
        if entry.get("error") or not frames or any(f.get("partial") for f in frames):
            continue
        n = entry["width"] * entry["height"] * 4
        if n == 0:
            continue
        try:
            out = subprocess.run(["convert", os.path.join(HERE, name + ".gif"), "-coalesce", "-depth", "8", "rgba:-"],
                                 capture_output=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            break
        if ["%08x" % zlib.crc32(out[i:i + n]) for i in range(0, len(out), n)] == [f["crc"] for f in frames]:
            magick.append(name)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    print(len(VECTORS), "vectors,", total, "bytes;", len(checked), "first frames agree with Pillow;",
          len(magick), "files agree frame by frame with ImageMagick -coalesce")


if __name__ == "__main__":
    main()
