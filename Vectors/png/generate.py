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

Every PNG here is assembled by a small writer of our own (pngkit.py: chunks, the five
filters, Adam7, zlib via Python's zlib module), so that filters, IDAT splits and broken
structures can be forced; vectors_invalid.py lists the invalid files. The expected pixels are NOT taken from that writer: each valid file is decoded
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

from PIL import Image

from pngkit import (ALLOWED, CT_NAME, Spec, checksum, palette, photo_pixels, pillow_mismatch, random_pixels,
                    reference_rgba16, source_rgba16)
from vectors_invalid import invalid_files, truncation_sources

HERE = os.path.dirname(os.path.abspath(__file__))

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
    # Committed PngSuite files (see pngsuite/import_pngsuite.py): same table treatment, with
    # PngSuite's convention that x*.png files are invalid (none are in the current subset).
    suite = os.path.join(HERE, "pngsuite")
    for name in sorted(os.listdir(suite)) if os.path.isdir(suite) else []:
        if not name.endswith(".png"):
            continue
        rel = "pngsuite/" + name
        with open(os.path.join(suite, name), "rb") as f:
            data = f.read()
        if name.startswith("x"):
            rows.append((rel, "", "", "", "", "", "PngSuite invalid file: set its error code by hand"))
            failures.append("%s: PngSuite invalid file needs an expected error code" % rel)
            continue
        w, h, fmt, ref = reference_rgba16(data)
        rows.append((rel, str(w), str(h), fmt, checksum(ref), "", "PngSuite " + name[:-4]))
        if check:
            m = pillow_mismatch(data, ref)
            if m:
                failures.append("%s: %s" % (rel, m))
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
