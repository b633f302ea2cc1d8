#!/usr/bin/env python3
"""Damaged PNG vectors and their libpng reference: writes Vectors/png/damaged/*.png, the
reference decodings *.pam and manifest.tsv.

    python3 Vectors/png/damaged/generate.py

Who made what (this script is the record):
  * every .png here is written by this script with the chunk writer of ../pngkit.py (Python's
    zlib for the compressed data), then damaged by the code below: bytes cut, added or
    overwritten, CRCs flipped, chunks inserted, removed or edited. Nothing comes from another
    encoder. (The files that used to be in ../invalid/ and that libpng decodes are made here
    now, by the same constructions, under new names: see MOVED below.)
  * every .pam is the output of libpng_ref.c (built here with `gcc -O2 libpng_ref.c -lpng`,
    Debian's libpng 1.6.39; see that file for the settings and for how an error after the
    image data is treated), written only when libpng gives the image.
  * manifest.tsv: file, libpng (ok: decoded without a warning, warn: decoded with warnings,
    error: png_error before the image was complete), reference (.pam or -), strict (the
    PNGError code PurePNG throws with PNGDecodingOptions(strict: true)), warnings (libpng's
    warning lines joined with " | "), note (the damage).

Every file here is damaged: with strict: true PurePNG throws the `strict` code for each; by
default it decodes exactly what libpng decodes (the .pam) and reports at least one warning
where libpng warned, or throws where libpng failed.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from pngkit import SIG, Spec, assemble, chunk, compress, ihdr_data, palette, scanlines  # noqa: E402

# The ../invalid/ files (of vectors_invalid.py) that libpng decodes, and their names here.
MOVED = {
    "chunk_after_iend": "after_iend_text_chunk",
    "chunk_after_iend_second_iend": "after_iend_second_iend",
    "crc_ancillary_gama": "crc_gama",
    "crc_ancillary_text_after_idat": "crc_text_after_idat",
    "crc_iend": "crc_iend",
    "critical_unknown_after_idat": "critical_unknown_after_idat",
    "image_data_too_long": "extra_row_in_stream",
    "image_data_too_long_byte": "extra_byte_in_stream",
    "plte_after_idat": "plte_after_idat_rgb",
    "plte_in_gray": "plte_in_gray",
    "plte_in_gray_alpha": "plte_in_gray_alpha",
    "plte_odd_length_rgb": "plte_odd_length_rgb",
    "plte_too_many_for_depth": "plte_too_many_for_depth",
    "trns_gray_wrong_length": "trns_gray_wrong_length",
    "trns_in_gray_alpha": "trns_in_gray_alpha",
    "trns_in_rgba": "trns_in_rgba",
    "trns_longer_than_plte": "trns_longer_than_plte",
    "trns_rgb_wrong_length": "trns_rgb_wrong_length",
    "truncated_before_iend": "missing_iend",
    "truncated_iend_missing_crc": "cut_in_iend_crc",
    "truncated_mid_iend": "cut_in_iend_header",
}


def crc_flipped(chunks, which, occurrence=0):
    """The file with the stored CRC of the `occurrence`-th `which` chunk wrong."""
    out, seen = SIG, 0
    for (t, d) in chunks:
        c = zlib.crc32(t + d)
        if t == which:
            if seen == occurrence:
                c ^= 0x00010000
            seen += 1
        out += chunk(t, d, c)
    return out


def offsets(chunks):
    """File offset of each chunk (its length field), in order."""
    pos, out = 8, []
    for (t, d) in chunks:
        out.append((t, pos, len(d)))
        pos += 12 + len(d)
    return out


def with_idat(chunks, payloads):
    """`chunks` with its IDAT run replaced by one IDAT per payload."""
    first = next(i for i, c in enumerate(chunks) if c[0] == b"IDAT")
    rest = [c for c in chunks[first:] if c[0] != b"IDAT"]
    return chunks[:first] + [(b"IDAT", p) for p in payloads] + rest


def insert_before(chunks, ctype, new):
    i = next(i for i, c in enumerate(chunks) if c[0] == ctype)
    return chunks[:i] + list(new) + chunks[i:]


def stored_stream(raw, block=65535):
    """A zlib stream of stored blocks: every byte position is known, so cuts can be exact."""
    out = b"\x78\x01"
    for i in range(0, len(raw), block):
        part = raw[i:i + block]
        final = 1 if i + block >= len(raw) else 0
        out += bytes([final]) + struct.pack("<HH", len(part), len(part) ^ 0xFFFF) + part
    return out + struct.pack(">I", zlib.adler32(raw))


def vectors():
    """(name, bytes, strict error code, note)."""
    out = []

    def add(name, data, strict, note):
        out.append((name, data, strict, note))

    rgb = Spec(12, 8, 2, 8, seed=600)
    rgb_chunks = rgb.chunks()
    rgb_raw = scanlines(rgb.pixels, 12, 8, 8, 2, 0, "cycle")
    stride = 1 + 12 * 3
    gray = Spec(12, 8, 0, 8, seed=601)
    ga = Spec(12, 8, 4, 8, seed=602)
    rgba = Spec(12, 8, 6, 8, seed=603)
    pal = Spec(12, 8, 3, 4, plte=palette(16, 604), seed=604)
    gray16 = Spec(9, 7, 0, 16, seed=605)
    adam7 = Spec(19, 17, 6, 8, interlace=1, seed=606)

    # --- Compressed data past the end of the image ----------------------------------------
    add("extra_row_in_stream", assemble(with_idat(rgb_chunks, [compress(rgb_raw + rgb_raw[:stride])])),
        "tooMuchImageData", "one extra row inside the zlib stream (was invalid/image_data_too_long)")
    add("extra_byte_in_stream", assemble(with_idat(rgb_chunks, [compress(rgb_raw + b"\0")])),
        "tooMuchImageData", "one extra byte inside the zlib stream (was invalid/image_data_too_long_byte)")
    z = compress(rgb_raw)
    add("extra_bytes_after_stream", assemble(with_idat(rgb_chunks, [z + b"garbage!"])),
        "tooMuchImageData", "8 bytes after the end of the zlib stream in the same IDAT")
    add("extra_idat_after_stream", assemble(with_idat(rgb_chunks, [z, b"\x01\x02\x03 more data"])),
        "tooMuchImageData", "a second IDAT of 13 bytes after the zlib stream ended")
    add("extra_idat_after_text", assemble(rgb_chunks[:-1] + [(b"tEXt", b"Comment\0late"), (b"IDAT", b"\x00\x01\x02"),
                                                             (b"IEND", b"")]),
        "nonContiguousImageData", "an IDAT after a tEXt that follows the image data")
    zx = compress(rgb_raw + bytes(3 * stride))
    add("extra_rows_in_second_idat", assemble(with_idat(rgb_chunks, [zx[:len(zx) // 2], zx[len(zx) // 2:]])),
        "tooMuchImageData", "three extra rows in the stream, which goes on into a second IDAT")
    st = stored_stream(rgb_raw + bytes(40))
    add("extra_data_never_ends", assemble(with_idat(rgb_chunks, [st[:len(st) - 4 - 20]])),
        "tooMuchImageData", "extra data after the last row, and the zlib stream is cut before its end (libpng: error)")
    st = stored_stream(rgb_raw)
    add("stream_cut_after_last_row", assemble(with_idat(rgb_chunks, [st[:-4]])),
        "unterminatedImageData", "stored zlib stream without its Adler-32: the IDAT ends right after the last row")
    add("adler_half_in_own_idat", assemble(with_idat(rgb_chunks, [st[:-4], st[-4:-2]])),
        "unterminatedImageData", "stored stream: the last row ends its IDAT, a second IDAT holds 2 of the 4 Adler-32 bytes")
    bad = st[:-4] + bytes(b ^ 0xFF for b in st[-4:])
    add("adler_bad_in_own_idat", assemble(with_idat(rgb_chunks, [bad[:-4], bad[-4:]])),
        "corruptImageData", "stored stream with a wrong Adler-32, alone in a second IDAT")
    add("adler_bad_same_idat", assemble(with_idat(rgb_chunks, [bad])),
        "corruptImageData", "stored stream with a wrong Adler-32 in the IDAT of the last row (libpng: error)")
    # 100 x 30 RGB, stored: 9030 bytes of rows in one IDAT, the Adler-32 past libpng's
    # 8192-byte read buffer: libpng meets it after the last row, in its check.
    big = Spec(100, 30, 2, 8, seed=607)
    big_raw = scanlines(big.pixels, 100, 30, 8, 2, 0, "cycle")
    bs = stored_stream(big_raw, block=8000)
    bs_bad = bs[:-4] + bytes(b ^ 0xFF for b in bs[-4:])
    add("adler_bad_past_8k", assemble(with_idat(big.chunks(), [bs_bad])),
        "corruptImageData", "9 KB IDAT, wrong Adler-32 right after the last row, past byte 8192 (libpng: error)")
    # 136 x 20 RGB, stored in two blocks: the rows end exactly at byte 8192 of the IDAT, the
    # end of libpng's first read buffer, and the (wrong) Adler-32 follows in the same IDAT:
    # libpng reads it after the last row, in its check of the stream's end, and only warns.
    edge = Spec(136, 20, 2, 8, seed=616)
    edge_raw = scanlines(edge.pixels, 136, 20, 8, 2, 0, "cycle")
    es = stored_stream(edge_raw, block=4090)
    assert len(es) - 4 == 8192, len(es)
    es_bad = es[:-4] + bytes(b ^ 0xFF for b in es[-4:])
    add("adler_bad_after_8k_piece", assemble(with_idat(edge.chunks(), [es_bad])),
        "corruptImageData", "wrong Adler-32 at bytes 8192-8195 of a 9 KB IDAT whose rows end at byte 8191")
    add("extra_bytes_after_8k_piece", assemble(with_idat(edge.chunks(), [es + b"trailing"])),
        "tooMuchImageData", "the rows end at byte 8191 of the IDAT, then the Adler-32 and 8 more bytes")
    add("adler_after_text_chunk", assemble(with_idat(rgb_chunks, [st[:-4]])[:-1] + [(b"tEXt", b"a\0b"), (b"IDAT", st[-4:]),
                                                                                (b"IEND", b"")]),
        "unterminatedImageData", "the Adler-32 in an IDAT after a tEXt (error)")
    s4 = stored_stream(rgb_raw)
    s4_bad = s4[:-4] + bytes(b ^ 0xFF for b in s4[-4:])
    add("adler_bad_then_padding", assemble(with_idat(rgb_chunks, [s4_bad + b"\0\0"])),
        "corruptImageData", "wrong Adler-32 in the IDAT of the last row, then 2 bytes (libpng: error)")
    # Deflate data after the last row that is corrupt (a reserved block type), in a second IDAT.
    c = zlib.compressobj(6, zlib.DEFLATED, 15)
    head = c.compress(rgb_raw) + c.flush(zlib.Z_FULL_FLUSH)
    add("corrupt_deflate_after_rows", assemble(with_idat(rgb_chunks, [head, b"\x07\x00\x00\x00"])),
        "corruptImageData", "the rows end with a full flush, then a second IDAT holds a reserved deflate block type")

    # --- CRC errors -------------------------------------------------------------------------
    anc = Spec(12, 8, 2, 8, seed=608, pre=[(b"gAMA", struct.pack(">I", 45455))], post=[(b"tEXt", b"k\0v")]).chunks()
    add("crc_gama", crc_flipped(anc, b"gAMA"), "badCRC", "gAMA with a wrong CRC (dropped)")
    add("crc_text_after_idat", crc_flipped(anc, b"tEXt"), "badCRC", "tEXt after IDAT with a wrong CRC")
    add("crc_phys", crc_flipped(insert_before(rgb_chunks, b"IDAT", [(b"pHYs", struct.pack(">IIB", 2835, 2835, 1))]), b"pHYs"),
        "badCRC", "pHYs with a wrong CRC")
    prof = bytes(range(256)) * 2
    add("crc_iccp", crc_flipped(insert_before(rgb_chunks, b"IDAT", [(b"iCCP", b"icc\0\0" + zlib.compress(prof))]), b"iCCP"),
        "badCRC", "iCCP with a wrong CRC")
    add("crc_ztxt", crc_flipped(insert_before(rgb_chunks, b"IDAT", [(b"zTXt", b"Title\0\0" + zlib.compress(b"hello"))]), b"zTXt"),
        "badCRC", "zTXt with a wrong CRC")
    add("crc_unknown_ancillary", crc_flipped(insert_before(rgb_chunks, b"IDAT", [(b"prIv", b"private data")]), b"prIv"),
        "badCRC", "unknown ancillary chunk prIv with a wrong CRC")
    tr = Spec(12, 8, 3, 4, plte=palette(16, 609), trns=bytes([0, 64, 128, 255, 7]), seed=609)
    add("crc_trns", crc_flipped(tr.chunks(), b"tRNS"), "badCRC", "palette tRNS with a wrong CRC: dropped, so no alpha")
    add("crc_iend", crc_flipped(rgb_chunks, b"IEND"), "badCRC", "IEND with a wrong CRC (after the image: libpng errors in png_read_end)")
    add("crc_plte_in_rgb", crc_flipped(insert_before(rgb_chunks, b"IDAT", [(b"PLTE", palette(4, 610))]), b"PLTE"),
        "badCRC", "suggested PLTE of an RGB image with a wrong CRC (critical: error)")
    multi = with_idat(rgb_chunks, [z[:30], z[30:]])
    add("crc_first_idat", crc_flipped(multi, b"IDAT", 0), "badCRC", "first of two IDATs with a wrong CRC (error)")
    add("crc_extra_idat_after_stream", crc_flipped(with_idat(rgb_chunks, [z, b""]), b"IDAT", 1), "badCRC",
        "an empty IDAT after the stream's end with a wrong CRC (libpng: error after the image)")

    # --- The end of the file ---------------------------------------------------------------
    full = assemble(rgb_chunks)
    offs = offsets(rgb_chunks)
    iend = [o for (t, o, n) in offs if t == b"IEND"][0]
    add("missing_iend", full[:iend], "truncated", "the file ends after the IDAT's CRC (was invalid/truncated_before_iend)")
    add("cut_in_iend_header", full[:iend + 6], "truncated", "cut inside IEND's header (was invalid/truncated_mid_iend)")
    add("cut_in_iend_crc", full[:iend + 8], "truncated", "IEND without its CRC (was invalid/truncated_iend_missing_crc)")
    textend = assemble(rgb_chunks[:-1] + [(b"tEXt", b"Comment\0after the image")])
    add("missing_iend_after_text", textend, "truncated", "a tEXt after IDAT, then the file ends")
    add("cut_in_text_after_idat", textend[:-10], "truncated", "cut inside a tEXt that follows IDAT")
    idat_at = [o for (t, o, n) in offs if t == b"IDAT"][0]
    idat_len = [n for (t, o, n) in offs if t == b"IDAT"][0]
    add("cut_in_idat_crc", full[:idat_at + 8 + idat_len + 2], "truncated", "cut inside the CRC of the last IDAT (error)")
    add("cut_after_idat_data", full[:idat_at + 8 + idat_len], "truncated", "cut after the last IDAT's data, before its CRC (error)")
    add("cut_in_adler", full[:idat_at + 8 + idat_len - 2], "truncated", "cut inside the Adler-32 of the zlib stream (error)")
    add("cut_mid_rows", full[:idat_at + 8 + idat_len // 2], "truncated", "cut in the middle of the rows (error)")
    a7 = adam7.bytes()
    a7_iend = len(a7) - 12
    add("missing_iend_adam7", a7[:a7_iend], "truncated", "Adam7 RGBA, the file ends before IEND")
    add("after_iend_text_chunk", full + chunk(b"tEXt", b"late\0text"), "chunkAfterEnd",
        "a tEXt chunk after IEND (was invalid/chunk_after_iend)")
    add("after_iend_second_iend", full + chunk(b"IEND", b""), "chunkAfterEnd", "two IEND chunks (was invalid/chunk_after_iend_second_iend)")
    add("after_iend_garbage", full + b"\r\n\0\0garbage" + bytes(50), "chunkAfterEnd", "62 bytes of garbage after IEND")
    add("iend_with_data", assemble(rgb_chunks[:-1] + [(b"IEND", b"\0\0\0\0")]), "malformedChunk", "IEND with 4 data bytes")

    # --- Errors after the image data (libpng's png_read_end) --------------------------------
    add("critical_unknown_after_idat", assemble(rgb_chunks[:-1] + [(b"ZZZZ", b""), (b"IEND", b"")]),
        "unknownCriticalChunk", "unknown critical chunk ZZZZ after IDAT")
    add("ihdr_after_idat", assemble(rgb_chunks[:-1] + [rgb_chunks[0], (b"IEND", b"")]), "duplicateChunk",
        "a second IHDR after IDAT")
    add("bad_chunk_type_after_idat", assemble(rgb_chunks[:-1] + [(b"a1b2", b"x"), (b"IEND", b"")]), "invalidChunkType",
        "chunk type a1b2 after IDAT")
    add("bad_chunk_length_after_idat", full[:iend] + struct.pack(">I", 0x80000000) + b"tEXt" + bytes(16),
        "invalidChunkLength", "a chunk length of 2^31 after IDAT")
    add("critical_unknown_before_idat", assemble(insert_before(rgb_chunks, b"IDAT", [(b"CRIt", b"data")])),
        "unknownCriticalChunk", "unknown critical chunk before IDAT (error)")
    add("unknown_before_ihdr", SIG + chunk(b"prIv", b"before the header") + full[8:], "missingHeader",
        "an unknown ancillary chunk before IHDR")

    # --- tRNS -----------------------------------------------------------------------------
    tp = Spec(12, 8, 3, 4, plte=palette(6, 611), trns=bytes(7), seed=611)
    add("trns_longer_than_plte", tp.bytes(), "invalidTransparency", "7 tRNS entries for a 6-entry PLTE (ignored)")
    add("trns_in_rgba", assemble(rgba.chunks()[:1] + [(b"tRNS", bytes(6))] + rgba.chunks()[1:]), "invalidTransparency",
        "tRNS in an RGBA image")
    add("trns_in_gray_alpha", assemble(ga.chunks()[:1] + [(b"tRNS", bytes(2))] + ga.chunks()[1:]), "invalidTransparency",
        "tRNS in a gray+alpha image")
    add("trns_gray_wrong_length", assemble(gray.chunks()[:1] + [(b"tRNS", bytes(4))] + gray.chunks()[1:]),
        "invalidTransparency", "4-byte tRNS in a gray image")
    add("trns_rgb_wrong_length", assemble(rgb_chunks[:1] + [(b"tRNS", bytes(2))] + rgb_chunks[1:]), "invalidTransparency",
        "2-byte tRNS in an RGB image")
    g = gray.chunks()
    v = gray.pixels[0][0][0]
    add("trns_gray_out_of_range", assemble(g[:1] + [(b"tRNS", struct.pack(">H", 0x0100 | v))] + g[1:]),
        "invalidTransparency", "8-bit gray tRNS 0x%04x: over 255, compared on its low 8 bits" % (0x0100 | v))
    p = rgb.pixels[1][2]
    add("trns_rgb_out_of_range", assemble(rgb_chunks[:1] + [(b"tRNS", struct.pack(">HHH", 0x0200 | p[0], p[1], 0x8000 | p[2]))]
                                          + rgb_chunks[1:]),
        "invalidTransparency", "8-bit RGB tRNS with high bits set, compared on the low 8 bits")
    pp = Spec(12, 8, 3, 4, plte=palette(16, 612), seed=612).chunks()
    add("trns_empty_palette", assemble(insert_before(pp, b"IDAT", [(b"tRNS", b"")])), "invalidTransparency",
        "palette tRNS of 0 bytes")
    add("trns_before_plte", assemble(insert_before(pp, b"PLTE", [(b"tRNS", bytes([0, 128]))])), "chunkOutOfOrder",
        "palette tRNS before PLTE (ignored)")
    add("trns_after_idat", assemble(pp[:-1] + [(b"tRNS", bytes([0, 128])), (b"IEND", b"")]), "chunkOutOfOrder",
        "palette tRNS after IDAT (ignored)")
    add("trns_duplicate", assemble(insert_before(pp, b"IDAT", [(b"tRNS", bytes([0, 128])), (b"tRNS", bytes([255, 0]))])),
        "duplicateChunk", "two tRNS chunks: the first counts")
    add("trns_then_plte_rgb", assemble(rgb_chunks[:1] + [(b"tRNS", struct.pack(">HHH", *rgb.pixels[0][0])),
                                                         (b"PLTE", palette(4, 613))] + rgb_chunks[1:]),
        "chunkOutOfOrder", "RGB tRNS before a suggested PLTE: libpng cancels the tRNS")

    # --- PLTE -----------------------------------------------------------------------------
    add("plte_in_gray", assemble(g[:1] + [(b"PLTE", palette(4, 1))] + g[1:]), "unexpectedPalette", "PLTE in a gray image")
    add("plte_in_gray_alpha", assemble(ga.chunks()[:1] + [(b"PLTE", palette(4, 1))] + ga.chunks()[1:]),
        "unexpectedPalette", "PLTE in a gray+alpha image")
    add("plte_odd_length_rgb", assemble(rgb_chunks[:1] + [(b"PLTE", palette(8, 2)[:-1])] + rgb_chunks[1:]), "invalidPalette",
        "suggested palette of 23 bytes in an RGB image")
    add("plte_too_long_rgb", assemble(rgb_chunks[:1] + [(b"PLTE", palette(300, 3))] + rgb_chunks[1:]), "invalidPalette",
        "suggested palette of 300 entries in an RGB image")
    add("plte_after_idat_rgb", assemble(rgb_chunks[:-1] + [(b"PLTE", palette(8, 2)), (b"IEND", b"")]), "chunkOutOfOrder",
        "suggested palette after IDAT in an RGB image")
    tm = Spec(12, 8, 3, 1, plte=palette(2, 614), seed=614).chunks()
    add("plte_too_many_for_depth", assemble([(t, palette(3, 614) if t == b"PLTE" else d) for (t, d) in tm]), "invalidPalette",
        "3 entries for a 1-bit palette image (libpng drops the third)")
    short = Spec(12, 8, 3, 4, plte=palette(16, 615), seed=615)
    sc = short.chunks()
    add("palette_index_out_of_range", assemble([(t, palette(5, 615) if t == b"PLTE" else d) for (t, d) in sc]),
        "paletteIndexOutOfRange", "4-bit indices up to 15 with a 5-entry PLTE (opaque black)")
    add("plte_duplicate_rgb", assemble(rgb_chunks[:1] + [(b"PLTE", palette(4, 1)), (b"PLTE", palette(4, 2))] + rgb_chunks[1:]),
        "duplicateChunk", "two PLTE chunks in an RGB image (error)")

    # --- Rows still in zlib's state when an IDAT is used up ---------------------------------
    # libpng reads the next IDAT piece before a row whenever zlib has used up the current one,
    # even when zlib could give the row without it. 190 rows of 1x1 gray deflate to 9 bytes (a
    # literal, then matches at distance 1); zlib takes the last of them while row 129 is
    # inflated. A second IDAT holds 2 of the 4 Adler-32 bytes: libpng reads it before row 130
    # and, after the last row, finds the stream unfinished with its input used up, so it
    # reads the next chunk's header for more: the chunk after that IDAT decides.
    zfull = zlib.compress(bytes(380), 9)
    zrc = [(b"IHDR", struct.pack(">IIBBBBB", 1, 190, 8, 0, 0, 0, 0)), (b"IDAT", zfull[:-4]), (b"IDAT", zfull[-4:-2])]
    add("rows_in_zlib_then_iend", assemble(zrc + [(b"IEND", b"")]), "unterminatedImageData",
        "the last 60 rows are in zlib's state when the first IDAT ends; a second IDAT of half the Adler-32, then IEND")
    add("rows_in_zlib_then_bad_type", assemble(zrc + [(b"\x43\xc7\xed\x6d", b"zz"), (b"IEND", b"")]),
        "invalidChunkType", "as rows_in_zlib_then_iend, then a chunk type that is not letters")
    add("rows_in_zlib_then_huge_length", assemble(zrc) + struct.pack(">I", 0x80000000) + b"tEXt",
        "invalidChunkLength", "as rows_in_zlib_then_iend, then a chunk length of 2^31")
    add("rows_in_zlib_then_eof", assemble(zrc), "truncated",
        "as rows_in_zlib_then_iend, and the file ends after the second IDAT")
    add("rows_in_zlib_then_text", assemble(zrc + [(b"tEXt", b"Comment\0late"), (b"IEND", b"")]), "unterminatedImageData",
        "as rows_in_zlib_then_iend, then a tEXt chunk")

    # --- Malformed ancillary chunks -------------------------------------------------------
    def anc_case(name, chunks_before_idat, strict, note, spec_chunks=None):
        base = spec_chunks if spec_chunks is not None else rgb_chunks
        add(name, assemble(insert_before(base, b"IDAT", chunks_before_idat)), strict, note)

    anc_case("gama_length_3", [(b"gAMA", b"\0\0\1")], "malformedChunk", "gAMA of 3 bytes")
    anc_case("gama_zero", [(b"gAMA", bytes(4))], "malformedChunk", "gAMA of 0")
    anc_case("srgb_length_2", [(b"sRGB", b"\0\0")], "malformedChunk", "sRGB of 2 bytes")
    anc_case("srgb_intent_9", [(b"sRGB", b"\x09")], "malformedChunk", "sRGB rendering intent 9")
    anc_case("chrm_length_31", [(b"cHRM", bytes(31))], "malformedChunk", "cHRM of 31 bytes")
    anc_case("phys_length_8", [(b"pHYs", bytes(8))], "malformedChunk", "pHYs of 8 bytes")
    anc_case("iccp_bad_method", [(b"iCCP", b"icc\0\x01" + zlib.compress(prof))], "malformedChunk", "iCCP compression method 1")
    anc_case("iccp_bad_zlib", [(b"iCCP", b"icc\0\0" + zlib.compress(prof)[:-30] + bytes(30))], "malformedChunk",
             "iCCP whose zlib data is damaged")
    anc_case("iccp_no_keyword", [(b"iCCP", b"\0\0" + zlib.compress(prof))], "malformedChunk", "iCCP with an empty name")
    anc_case("iccp_and_srgb", [(b"sRGB", b"\0"), (b"iCCP", b"icc\0\0" + zlib.compress(prof))], "malformedChunk",
             "sRGB then iCCP (too many profiles)")
    anc_case("ztxt_bad_zlib", [(b"zTXt", b"Title\0\0" + b"\x78\x9c\xff\xff\xff\xff")], "malformedChunk", "zTXt with broken zlib data")
    anc_case("ztxt_bad_method", [(b"zTXt", b"Title\0\x05" + zlib.compress(b"hello"))], "malformedChunk", "zTXt compression method 5")
    anc_case("itxt_bad_flag", [(b"iTXt", b"Title\0\x07\0\0\0hello")], "malformedChunk", "iTXt compression flag 7")
    anc_case("itxt_truncated", [(b"iTXt", b"Title\0\0")], "malformedChunk", "iTXt that ends after its keyword")
    anc_case("ztxt_no_keyword", [(b"zTXt", b"\0\0" + zlib.compress(b"hello"))], "malformedChunk", "zTXt with an empty keyword")
    anc_case("time_length_6", [(b"tIME", bytes(6))], "malformedChunk", "tIME of 6 bytes")
    anc_case("bkgd_length_1_rgb", [(b"bKGD", b"\0")], "malformedChunk", "bKGD of 1 byte in an RGB image")
    anc_case("sbit_zero", [(b"sBIT", b"\0\0\0")], "malformedChunk", "sBIT of 0 bits")
    anc_case("gama_after_plte", [(b"gAMA", struct.pack(">I", 45455))], "malformedChunk", "gAMA after PLTE (out of place)",
             spec_chunks=pp)
    anc_case("gama_twice", [(b"gAMA", struct.pack(">I", 45455)), (b"gAMA", struct.pack(">I", 100000))], "malformedChunk",
             "two gAMA chunks")
    add("phys_after_idat", assemble(rgb_chunks[:-1] + [(b"pHYs", struct.pack(">IIB", 1, 1, 0)), (b"IEND", b"")]),
        "malformedChunk", "pHYs after IDAT (out of place)")
    anc_case("exif_bad_byte_order", [(b"eXIf", b"XX\0*\0\0\0\x08\0\0")], "malformedChunk", "eXIf not starting with II or MM")
    # 16-bit output compared too.
    add("crc_text_gray16", crc_flipped(insert_before(gray16.chunks(), b"IDAT", [(b"tEXt", b"Key\0value")]), b"tEXt"),
        "badCRC", "16-bit gray, tEXt with a wrong CRC")
    add("extra_byte_in_stream_adam7", assemble(with_idat(adam7.chunks(),
                                                         [compress(scanlines(adam7.pixels, 19, 17, 8, 6, 1, "cycle") + b"\0\0")])),
        "tooMuchImageData", "Adam7 RGBA, two extra bytes inside the zlib stream")
    return out


def build_reference_tool(tmp):
    exe = os.path.join(tmp, "libpng_ref")
    subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(HERE, "libpng_ref.c"), "-lpng"], check=True)
    return exe


def main():
    for f in os.listdir(HERE):
        if f.endswith(".png") or f.endswith(".pam"):
            os.remove(os.path.join(HERE, f))
    tmp = tempfile.mkdtemp()
    try:
        exe = build_reference_tool(tmp)
        rows = []
        names = set()
        counts = {"ok": 0, "warn": 0, "error": 0}
        for (name, data, strict, note) in vectors():
            assert name not in names, name
            names.add(name)
            path = os.path.join(HERE, name + ".png")
            with open(path, "wb") as f:
                f.write(data)
            r = subprocess.run([exe, path], capture_output=True)
            lines = [l for l in r.stderr.decode("latin-1").splitlines() if l.strip()]
            if r.returncode == 0:
                ref = name + ".pam"
                with open(os.path.join(HERE, ref), "wb") as f:
                    f.write(r.stdout)
                status = "warn" if lines else "ok"
            elif r.returncode == 1:
                ref, status = "-", "error"
            else:
                raise SystemExit("%s: libpng_ref failed: %s" % (name, r.stderr))
            counts[status] += 1
            warnings = " | ".join(l.replace("\t", " ") for l in lines) or "-"
            rows.append((name + ".png", status, ref, strict, warnings, note))
        rows.sort()
        with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
            f.write("file\tlibpng\treference\tstrict\twarnings\tnote\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
        size = sum(os.path.getsize(os.path.join(HERE, f)) for f in os.listdir(HERE))
        print("%d damaged vectors: %d ok, %d warn, %d error; folder %d bytes" %
              (len(rows), counts["ok"], counts["warn"], counts["error"], size))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
