"""The invalid PNG vectors: (name, bytes, PNGError code, note, partial size or None).

Each file breaks exactly one rule; where a file could break two, the note says which one a
streaming decoder meets first (that is the code in the table).
"""

import struct
import zlib

from pngkit import (SIG, CT_NAME, Spec, assemble, chunk, compress, ihdr_data, palette, scanlines)



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
    # Files libpng 1.6 decodes (with warnings, or keeping the image after an error past the
    # image data) are damaged vectors now, not invalid ones: damaged/generate.py makes them
    # (same constructions, its MOVED table gives their new names), and PurePNG decodes them
    # as libpng does unless PNGDecodingOptions.strict is set. They are built here still, so
    # that the other files keep their bytes, and left out of the table.
    return [v for v in out if v[0] not in MOVED_TO_DAMAGED]


MOVED_TO_DAMAGED = {
    "chunk_after_iend", "chunk_after_iend_second_iend", "crc_ancillary_gama", "crc_ancillary_text_after_idat",
    "crc_iend", "critical_unknown_after_idat", "image_data_too_long", "image_data_too_long_byte", "plte_after_idat",
    "plte_in_gray", "plte_in_gray_alpha", "plte_odd_length_rgb", "plte_too_many_for_depth", "trns_gray_wrong_length",
    "trns_in_gray_alpha", "trns_in_rgba", "trns_longer_than_plte", "trns_rgb_wrong_length", "truncated_before_iend",
    "truncated_iend_missing_crc", "truncated_mid_iend",
}
