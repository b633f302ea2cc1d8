#!/usr/bin/env python3
"""Generates the JPEG test vectors in this folder (run from anywhere; outputs are committed).

Needs: python3 with Pillow and numpy, libjpeg-turbo's cjpeg/djpeg/jpegtran (2.1.x), ImageMagick
`convert`, a C compiler with libjpeg headers (for kernel_dump.c), and the matplotlib wheel's sample
photo grace_hopper.jpg (`pip download matplotlib --no-deps -d /tmp/mpl`, then unzip), found via
$MPL_SAMPLE_DATA or /tmp/mpl/matplotlib/mpl-data/sample_data.

Layout:
  valid/NAME.jpg     with valid/NAME.ppm (colour) or valid/NAME.pgm (grey): `djpeg -dct int`
                     (default fancy upsampling). For CMYK/YCCK files djpeg 2.1 itself writes RGB
                     (R = C*K/255 on the stored, Adobe-inverted values, rounded) as .ppm.
  invalid/NAME.jpg   files a decoder must reject, with the expected error code in the manifest:
                     files djpeg rejects too, or decodes only with what we do not implement
                     (arithmetic coding) or allow (more scans than the default limit). Damaged
                     files djpeg decodes (cut from the SOS header on, bytes before a marker, RSTn
                     outside a scan, no DHT) are made by ../jpeg-damaged/generate.py.
  kernels/*.bin      libjpeg-turbo's own intermediate results (see kernel_dump.c) for the IDCT,
                     upsampling and colour-conversion kernel tests.
  manifest.tsv       file, width, height, components, process, sampling, expected, error, note.
  scaled/            `djpeg -dct int -scale 1/N` of some valid files (N = 2, 4, 8), listed in
                     manifest_scaled.tsv: file, scale denominator, width, height, expected.
                     libjpeg-turbo decodes subsampled chroma with a larger IDCT when scaling
                     (see JPEGKernels.blockSize) and turns fancy upsampling off at 1/8.
"""
import io
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageCms

HERE = os.path.dirname(os.path.abspath(__file__))
VALID = os.path.join(HERE, "valid")
INVALID = os.path.join(HERE, "invalid")
KERNELS = os.path.join(HERE, "kernels")
SCALED = os.path.join(HERE, "scaled")
TMP = tempfile.mkdtemp(prefix="jpegvec")
SAMPLE_DATA = os.environ.get("MPL_SAMPLE_DATA", "/tmp/mpl/matplotlib/mpl-data/sample_data")
DUMP = os.path.join(TMP, "kernel_dump")

rows = []  # manifest rows


def run(args, stdin=None):
    return subprocess.run(args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout


# ---------------------------------------------------------------- sources

def sources():
    photo = Image.open(os.path.join(SAMPLE_DATA, "grace_hopper.jpg")).convert("RGB")
    srcs = {
        "face256": photo.crop((128, 80, 384, 336)),
        "face64": photo.crop((200, 150, 264, 214)),
        "uniform64": photo.crop((10, 500, 74, 564)),
        "detail64": photo.crop((300, 420, 364, 484)),
    }
    # Saturated colour bars and a hard diagonal edge: drive IDCT overshoot and RGB clamping.
    y, x = np.mgrid[0:64, 0:64]
    bars = np.zeros((64, 64, 3), np.uint8)
    palette = np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0],
                        [0, 255, 255], [255, 0, 255], [255, 255, 255], [0, 0, 0]], np.uint8)
    bars[:] = palette[(x // 8 + y // 16) % 8]
    bars[(x + y) % 23 == 0] = [255, 255, 255]
    srcs["bars64"] = Image.fromarray(bars)
    return srcs


def save_ppm(img, name):
    path = os.path.join(TMP, name + (".pgm" if img.mode == "L" else ".ppm"))
    img.save(path)
    return path


# ---------------------------------------------------------------- JPEG header parsing

SOF_PROCESS = {0xC0: "baseline", 0xC1: "extended", 0xC2: "progressive", 0xC3: "lossless",
               0xC5: "differential", 0xC6: "differential", 0xC7: "differential",
               0xC9: "arithmetic", 0xCA: "arithmetic", 0xCB: "arithmetic"}


def parse_header(data):
    """Returns (width, height, components, process, sampling) from the first SOF, or None."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in SOF_PROCESS:
            if i + 10 > len(data) or i + 10 + 3 * data[i + 9] > len(data):
                return None
            h, w, nc = struct.unpack(">HHB", data[i + 5:i + 10])
            samp = []
            for c in range(nc):
                hv = data[i + 10 + 3 * c + 1]
                samp.append("%dx%d" % (hv >> 4, hv & 15))
            return w, h, nc, SOF_PROCESS[marker], ",".join(samp)
        if marker == 0xDA:
            return None
        i += 2 + length
    return None


def add_valid(name, jpeg_bytes, note=""):
    path = os.path.join(VALID, name + ".jpg")
    with open(path, "wb") as f:
        f.write(jpeg_bytes)
    hdr = parse_header(jpeg_bytes)
    w, h, nc, process, samp = hdr
    ext = ".pgm" if nc == 1 else ".ppm"
    out = run(["djpeg", "-dct", "int", "-pnm", path])
    with open(os.path.join(VALID, name + ext), "wb") as f:
        f.write(out)
    rows.append(["valid/" + name + ".jpg", w, h, nc, process, samp, "valid/" + name + ext, "-", note])


def add_invalid(name, data, error, note=""):
    with open(os.path.join(INVALID, name + ".jpg"), "wb") as f:
        f.write(data)
    hdr = parse_header(data)
    if hdr:
        w, h, nc, process, samp = hdr
    else:
        w = h = nc = process = samp = "-"
    rows.append(["invalid/" + name + ".jpg", w, h, nc, process, samp, "-", error, note])


def cjpeg(src_path, *args):
    return run(["cjpeg", "-dct", "int", *args, src_path])


# ---------------------------------------------------------------- valid files

SAMPLINGS = {
    "444": "1x1,1x1,1x1", "422": "2x1,1x1,1x1", "420": "2x2,1x1,1x1", "440": "1x2,1x1,1x1",
    "411": "4x1,1x1,1x1", "410": "4x2,1x1,1x1", "311": "3x1,1x1,1x1", "321": "3x2,1x1,1x1",
    "mixed": "2x2,2x1,1x1", "412": "4x1,2x1,1x1",
}


def make_valid(srcs):
    face64 = save_ppm(srcs["face64"], "face64")
    detail64 = save_ppm(srcs["detail64"], "detail64")
    bars64 = save_ppm(srcs["bars64"], "bars64")
    face256 = save_ppm(srcs["face256"], "face256")
    odd = save_ppm(srcs["detail64"].crop((0, 0, 33, 31)), "odd33x31")

    for key, samp in SAMPLINGS.items():
        add_valid("s%s_q75" % key, cjpeg(face64, "-quality", "75", "-sample", samp), "sampling " + samp)
        add_valid("s%s_odd33x31" % key, cjpeg(odd, "-quality", "80", "-sample", samp), "odd size")
    for q in (1, 10, 50, 75, 90, 100):
        for key in ("420", "444"):
            note = "quality %d" % q + (" (16-bit DQT, SOF1)" if q == 1 else "")
            add_valid("s%s_q%d" % (key, q) if q != 75 else "s%s_q75_detail" % key,
                      cjpeg(detail64, "-quality", str(q), "-sample", SAMPLINGS[key]), note)
    add_valid("s420_q1_baseline", cjpeg(detail64, "-quality", "1", "-baseline", "-sample", "2x2"),
              "quality 1 forced to 8-bit tables (-baseline)")
    add_valid("bars_420_q90", cjpeg(bars64, "-quality", "90"), "saturated colours: clamping")
    add_valid("bars_444_q100", cjpeg(bars64, "-quality", "100", "-sample", "1x1"), "saturated colours, q100")

    # Odd sizes with 4:2:0, and widths 1...17 (h2v2 fancy switches to box at chroma width <= 2).
    detail = srcs["detail64"]
    for (w, h) in [(1, 1), (1, 9), (9, 1), (17, 13), (2, 2), (3, 3)]:
        p = save_ppm(detail.crop((5, 7, 5 + w, 7 + h)), "size%dx%d" % (w, h))
        add_valid("s420_%dx%d" % (w, h), cjpeg(p, "-quality", "85"), "odd size")
    for w in range(1, 18):
        p = save_ppm(detail.crop((11, 3, 11 + w, 3 + 5)), "w%d" % w)
        add_valid("s420_w%02d" % w, cjpeg(p, "-quality", "85"), "width sweep, 4:2:0")
        if w <= 6:
            add_valid("s422_w%02d" % w, cjpeg(p, "-quality", "85", "-sample", "2x1"), "width sweep, 4:2:2")
            add_valid("s440_h%02d" % w, cjpeg(save_ppm(detail.crop((3, 11, 3 + 5, 11 + w)), "h%d" % w),
                                              "-quality", "85", "-sample", "1x2"), "height sweep, 4:4:0")

    # Greyscale, RGB (Adobe transform 0 via cjpeg -rgb).
    add_valid("gray_q75", cjpeg(face64, "-grayscale", "-quality", "75"), "greyscale")
    add_valid("gray_17x13", cjpeg(save_ppm(detail.crop((0, 0, 17, 13)), "g17"), "-grayscale"), "greyscale odd size")
    add_valid("gray_progressive", cjpeg(face64, "-grayscale", "-progressive"), "greyscale progressive")
    add_valid("rgb_q90", cjpeg(face64, "-rgb", "-quality", "90"), "RGB components (no colour transform)")

    # Restart intervals.
    add_valid("restart_1row", cjpeg(face64, "-restart", "1"), "DRI: 1 MCU row")
    add_valid("restart_1block", cjpeg(face64, "-restart", "1B"), "DRI: every MCU")
    add_valid("restart_3block_odd", cjpeg(odd, "-restart", "3B"), "DRI: 3 MCUs, odd size")
    add_valid("restart_progressive", cjpeg(face64, "-progressive", "-restart", "2B"), "progressive with DRI")
    add_valid("restart_444_1block", cjpeg(face64, "-sample", "1x1", "-restart", "1B"), "DRI with 3 blocks an MCU")

    # Huffman tables: standard (default) and optimized.
    add_valid("optimize_420", cjpeg(face64, "-optimize"), "optimized Huffman tables")
    add_valid("optimize_gray", cjpeg(face64, "-optimize", "-grayscale"), "optimized, greyscale")

    # Progressive: default script, and custom scripts.
    add_valid("progressive_420", cjpeg(face64, "-progressive"), "progressive, default script")
    add_valid("progressive_444", cjpeg(face64, "-progressive", "-sample", "1x1"), "progressive 4:4:4")
    add_valid("progressive_odd", cjpeg(odd, "-progressive"), "progressive odd size")
    add_valid("progressive_411", cjpeg(face64, "-progressive", "-sample", "4x1"), "progressive 4:1:1")
    scripts = {
        "spectral": "0,1,2: 0-0, 0, 0;\n0: 1-5, 0, 0;\n2: 1-63, 0, 0;\n1: 1-63, 0, 0;\n0: 6-63, 0, 0;\n",
        "successive": ("0: 0-0, 0, 2;\n1: 0-0, 0, 1;\n2: 0-0, 0, 0;\n0: 0-0, 2, 1;\n0: 0-0, 1, 0;\n"
                       "1: 0-0, 1, 0;\n0: 1-63, 0, 3;\n1: 1-63, 0, 0;\n2: 1-63, 0, 0;\n"
                       "0: 1-63, 3, 2;\n0: 1-63, 2, 1;\n0: 1-63, 1, 0;\n"),
        "many_bands": "".join(["0,1,2: 0-0, 0, 0;\n"] + ["0: %d-%d, 0, 0;\n" % (k, k) for k in range(1, 64)]
                              + ["1: 1-63, 0, 0;\n", "2: 1-63, 0, 0;\n"]),
    }
    for name, script in scripts.items():
        sp = os.path.join(TMP, name + ".scans")
        with open(sp, "w") as f:
            f.write(script)
        add_valid("progressive_" + name, cjpeg(face64, "-scans", sp), "progressive, custom -scans " + name)

    # Photo crops at 256x256.
    add_valid("photo256_420_q90", cjpeg(face256, "-quality", "90"), "photo 4:2:0")
    add_valid("photo256_progressive", cjpeg(face256, "-quality", "85", "-progressive"), "photo progressive")
    add_valid("photo256_444_q75", cjpeg(face256, "-quality", "75", "-sample", "1x1"), "photo 4:4:4")

    # CMYK (Pillow: Adobe APP14 transform 0, inverted) and YCCK (ImageMagick: transform 2; and
    # libjpeg's jpeg_set_colorspace(JCS_YCCK) through kernel_dump).
    cmyk = srcs["face64"].convert("CMYK")
    buf = io.BytesIO()
    cmyk.save(buf, "JPEG", quality=90)
    add_valid("cmyk_adobe", buf.getvalue(), "Adobe CMYK (transform 0, inverted); .ppm is djpeg's RGB")
    ycck = run(["convert", face64, "-colorspace", "CMYK", "-quality", "90", "jpg:-"])
    add_valid("ycck_imagemagick", ycck, "Adobe YCCK (transform 2); .ppm is djpeg's RGB")
    raw = os.path.join(TMP, "cmyk.raw")
    with open(raw, "wb") as f:
        f.write(np.asarray(cmyk.crop((0, 0, 40, 24))).tobytes())
    ycck_path = os.path.join(TMP, "ycck.jpg")
    run([DUMP, ycck_path, "ycck", "40", "24", raw])
    with open(ycck_path, "rb") as f:
        add_valid("ycck_libjpeg", f.read(), "YCCK written by libjpeg (jpeg_set_colorspace JCS_YCCK)")

    # Metadata: EXIF (with orientation), ICC (small, and over 64 KB: several APP2 segments),
    # and an EXIF thumbnail that is itself a JPEG.
    img = srcs["face64"]
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x010F] = "PureImage"
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85, exif=exif.tobytes())
    add_valid("exif_orientation6", buf.getvalue(), "EXIF orientation 6")
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85, icc_profile=srgb)
    add_valid("icc_srgb", buf.getvalue(), "ICC sRGB profile (%d bytes, one APP2)" % len(srgb))
    big = bytearray(srgb) + bytes((i * 7) & 0xFF for i in range(150_000 - len(srgb)))
    struct.pack_into(">I", big, 0, len(big))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85, icc_profile=bytes(big))
    add_valid("icc_150k", buf.getvalue(), "ICC 150000 bytes split over 3 APP2 segments")
    add_valid("exif_thumbnail", with_exif_thumbnail(img), "EXIF IFD1 thumbnail (a JPEG inside APP1)")
    add_valid("comment_app_segments", with_extra_segments(cjpeg(face64)), "COM, unknown APPn, fill bytes")


def tiff_ifd(entries, next_ifd, base):
    """Little-endian TIFF IFD: entries (tag, type, count, value-bytes) laid out at offset `base`."""
    out = struct.pack("<H", len(entries))
    data_off = base + 2 + 12 * len(entries) + 4
    extra = b""
    for tag, typ, count, value in entries:
        if len(value) <= 4:
            out += struct.pack("<HHI", tag, typ, count) + value.ljust(4, b"\0")
        else:
            out += struct.pack("<HHII", tag, typ, count, data_off + len(extra))
            extra += value
    return out + struct.pack("<I", next_ifd) + extra


def with_exif_thumbnail(img):
    tbuf = io.BytesIO()
    img.resize((16, 16)).save(tbuf, "JPEG", quality=70)
    thumb = tbuf.getvalue()
    ifd0 = tiff_ifd([(0x0112, 3, 1, struct.pack("<H", 1))], 0, 8)
    ifd1_off = 8 + len(ifd0)
    # IFD1: Compression 6 (JPEG), JPEGInterchangeFormat (offset), JPEGInterchangeFormatLength.
    ifd1_size = 2 + 12 * 3 + 4
    thumb_off = ifd1_off + ifd1_size
    ifd0 = tiff_ifd([(0x0112, 3, 1, struct.pack("<H", 1))], ifd1_off, 8)
    ifd1 = tiff_ifd([(0x0103, 3, 1, struct.pack("<H", 6)), (0x0201, 4, 1, struct.pack("<I", thumb_off)),
                     (0x0202, 4, 1, struct.pack("<I", len(thumb)))], 0, ifd1_off)
    tiff = b"II*\0" + struct.pack("<I", 8) + ifd0 + ifd1 + thumb
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85, exif=b"Exif\0\0" + tiff)
    return buf.getvalue()


def with_extra_segments(jpeg):
    com = b"\xff\xfe" + struct.pack(">H", 2 + 13) + b"hello, world!"
    app = b"\xff\xe9" + struct.pack(">H", 2 + 4) + b"abcd"
    # Extra 0xFF fill bytes before a marker are legal (T.81 B.1.1.2).
    return jpeg[:2] + com + app + b"\xff\xff\xff" + jpeg[2:]


# ---------------------------------------------------------------- invalid files

def segments(data):
    """(marker, start, end) for each marker segment up to and including SOS."""
    out = []
    i = 2
    while i + 4 <= len(data):
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((marker, i, i + 2 + length))
        if marker == 0xDA:
            break
        i += 2 + length
    return out


def drop(data, marker):
    for m, s, e in segments(data):
        if m == marker:
            data = data[:s] + data[e:]
            return drop(data, marker)
    return data


def make_invalid(srcs):
    face64 = os.path.join(TMP, "face64.ppm")
    base = cjpeg(face64, "-quality", "75")
    segs = segments(base)
    sos_end = segs[-1][2]
    dqt = [s for s in segs if s[0] == 0xDB][0]
    dht = [s for s in segs if s[0] == 0xC4][0]
    sof = [s for s in segs if s[0] == 0xC0][0]
    n = len(base)
    # Cuts djpeg rejects (in the headers, before any scan can start). Cuts from the SOS header on,
    # which djpeg decodes with "Premature end of JPEG file", are in ../jpeg-damaged.
    offsets = sorted({1, 2, 3, 4, 10, dqt[1] + 30, dht[1] + 10, sof[1] + 5, (sos_end + n) // 4})
    for off in offsets:
        add_invalid("truncated_%05d" % off, base[:off], "truncated")
    prog = cjpeg(face64, "-progressive")
    add_invalid("truncated_progressive_half", prog[:len(prog) // 2], "truncated")

    # Huffman tables.
    def patch(data, offset, values):
        b = bytearray(data)
        b[offset:offset + len(values)] = values
        return bytes(b)
    counts = dht[1] + 5  # after FF C4, length, Tc/Th
    add_invalid("dht_oversubscribed", patch(base, counts, bytes([3])), "invalidHuffmanTable",
                "three 1-bit codes")
    add_invalid("dht_count_over_256", patch(base, counts, bytes([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255])),
                "invalidHuffmanTable", "counts sum over 256 / past the segment")
    add_invalid("dht_table_index_4", patch(base, dht[1] + 4, bytes([0x04])), "invalidHuffmanTable", "Th = 4")
    add_invalid("dht_class_2", patch(base, dht[1] + 4, bytes([0x20])), "invalidHuffmanTable", "Tc = 2")

    # Markers.
    add_invalid("not_jpeg", b"\x89PNG\r\n\x1a\n" + base[8:], "invalidMarker", "no SOI")
    add_invalid("segment_length_1", patch(base, dqt[1] + 2, bytes([0, 1])), "invalidMarker", "DQT length 1")
    add_invalid("eoi_before_sos", base[:sos_end - 14] + b"\xff\xd9", "truncated", "EOI before any scan")

    # Missing tables.
    add_invalid("missing_dqt", drop(base, 0xDB), "missingTable")

    # Dimensions and limits.
    add_invalid("sof_height_0", patch(base, sof[1] + 5, bytes([0, 0])), "invalidDimensions",
                "Y = 0 (DNL not supported)")
    add_invalid("sof_width_0", patch(base, sof[1] + 7, bytes([0, 0])), "invalidDimensions")
    add_invalid("sof_65535x65535", patch(base, sof[1] + 5, bytes([255, 255, 255, 255])), "invalidDimensions",
                "over libjpeg's 65500-pixel maximum dimension")
    add_invalid("sof_sampling_0", patch(base, sof[1] + 11, bytes([0x00])), "corruptData", "H = V = 0")
    add_invalid("sof_sampling_5", patch(base, sof[1] + 11, bytes([0x51])), "corruptData", "H = 5")
    add_invalid("sof_quant_index_4", patch(base, sof[1] + 12, bytes([4])), "missingTable", "Tq = 4 (libjpeg: no such table when a scan latches it)")
    add_invalid("sof_precision_16", patch(base, sof[1] + 4, bytes([16])), "unsupported",
                "16-bit precision declared in SOF0 (no DCT process has it)")
    add_invalid("sos_unknown_component", patch(base, segs[-1][1] + 5, bytes([9])), "corruptData",
                "scan names component 9")
    add_invalid("dqt_precision_2", patch(base, dqt[1] + 4, bytes([0x20])), "invalidSegment", "Pq = 2 (libjpeg reads 16-bit entries: the segment is too short)")

    # Unsupported processes.
    add_invalid("sof3_lossless", patch(base, sof[1] + 1, bytes([0xC3])), "unsupported", "SOF0 patched to SOF3")
    add_invalid("sof5_differential", patch(base, sof[1] + 1, bytes([0xC5])), "unsupported", "SOF0 patched to SOF5")
    add_valid("sof9_arithmetic", cjpeg(face64, "-arithmetic"), "cjpeg -arithmetic")
    add_valid("sof10_arithmetic_progressive", cjpeg(face64, "-arithmetic", "-progressive"), "cjpeg -arithmetic -progressive")

    # Too many scans: cjpeg/jpegtran cap scripts at 100 scans, so write one directly.
    many, count = many_scans_jpeg()
    add_invalid("too_many_scans", many, "tooManyScans",
                "%d valid scans (djpeg decodes it: flat grey), over the default limit of 1,000" % count)
    half, count = many_scans_jpeg(components=1)
    add_valid("progressive_896_scans", half, "%d valid scans (under the default limit): flat grey" % count)


def many_scans_jpeg(components=3):
    """An 8x8 progressive JPEG whose coefficients are all zero, coded with every possible scan:
    DC first scan at Al = 13 and its 13 refinements, then for each component and each single AC
    coefficient a first scan at Al = 13 and 13 refinements. Each Huffman table holds one symbol
    (DC category 0, AC EOB) coded as the single bit 0, so every scan body is one byte."""
    seg = lambda marker, body: bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body
    out = b"\xff\xd8"
    out += seg(0xDB, bytes([0]) + bytes([1] * 64))
    out += seg(0xC2, struct.pack(">BHHB", 8, 8, 8, components)
               + b"".join(bytes([c + 1, 0x11, 0]) for c in range(components)))
    one_symbol = bytes([1] + [0] * 15 + [0])
    out += seg(0xC4, bytes([0x00]) + one_symbol + bytes([0x10]) + one_symbol)
    fill = lambda bits: bytes([(0xFF >> bits) & 0xFF])  # `bits` zero bits, then 1-padding
    scans = 0
    ids = b"".join(bytes([c + 1, 0x00]) for c in range(components))
    for ah, al in [(0, 13)] + [(a + 1, a) for a in range(12, -1, -1)]:
        out += seg(0xDA, bytes([components]) + ids + bytes([0, 0, (ah << 4) | al])) + fill(components)
        scans += 1
    for c in range(components):
        for k in range(1, 64):
            for ah, al in [(0, 13)] + [(a + 1, a) for a in range(12, -1, -1)]:
                out += seg(0xDA, bytes([1, c + 1, 0x00, k, k, (ah << 4) | al])) + fill(1)
                scans += 1
    return out + b"\xff\xd9", scans


# ---------------------------------------------------------------- kernel vectors

def make_kernels():
    files = {"face420_q75": "valid/s420_q75.jpg", "detail444_q100": "valid/s444_q100.jpg",
             "detail420_q10": "valid/s420_q10.jpg", "bars444_q100": "valid/bars_444_q100.jpg",
             "gray_q75": "valid/gray_q75.jpg"}
    for name, rel in files.items():
        for denom in (1, 2, 4, 8):
            run([DUMP, os.path.join(HERE, rel), "blocks", str(denom),
                 os.path.join(KERNELS, "idct%d_%s.bin" % (8 // denom, name))])
    for key in ("422", "420", "440", "411", "410", "311", "321", "mixed", "412"):
        for suffix in ("q75", "odd33x31"):
            run([DUMP, os.path.join(VALID, "s%s_%s.jpg" % (key, suffix)), "planes",
                 os.path.join(KERNELS, "planes_s%s_%s.bin" % (key, suffix))])
    for w in (1, 2, 3, 4, 5, 6):
        run([DUMP, os.path.join(VALID, "s420_w%02d.jpg" % w), "planes",
             os.path.join(KERNELS, "planes_s420_w%02d.bin" % w)])
    run([DUMP, os.path.join(VALID, "bars_420_q90.jpg"), "planes", os.path.join(KERNELS, "planes_bars_420.bin")])
    for name in ("ycck_imagemagick", "ycck_libjpeg", "cmyk_adobe"):
        run([DUMP, os.path.join(VALID, name + ".jpg"), "cmyk", os.path.join(KERNELS, "cmyk_%s.bin" % name)])


def make_scaled():
    out = []
    names = ["s420_q75", "s444_q75", "s422_q75", "s440_q75", "s411_q75", "s410_q75", "smixed_odd33x31",
             "s420_odd33x31", "gray_q75", "progressive_420", "photo256_420_q90", "s420_w05", "cmyk_adobe"]
    for name in names:
        src = os.path.join(VALID, name + ".jpg")
        for denom in (2, 4, 8):
            data = run(["djpeg", "-dct", "int", "-scale", "1/%d" % denom, "-pnm", src])
            ext = ".pgm" if data[:2] == b"P5" else ".ppm"
            rel = "scaled/%s_1_%d%s" % (name, denom, ext)
            with open(os.path.join(HERE, rel), "wb") as f:
                f.write(data)
            w, h = data.split(b"\n")[1].split()
            out.append(["valid/" + name + ".jpg", denom, int(w), int(h), rel])
    with open(os.path.join(HERE, "manifest_scaled.tsv"), "w") as f:
        f.write("file\tscale_denominator\twidth\theight\texpected\n")
        for r in out:
            f.write("\t".join(str(x) for x in r) + "\n")


def main():
    for d in (VALID, INVALID, KERNELS, SCALED):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    subprocess.run(["cc", "-O2", "-o", DUMP, os.path.join(HERE, "kernel_dump.c"), "-ljpeg"], check=True)
    srcs = sources()
    make_valid(srcs)
    make_invalid(srcs)
    make_kernels()
    make_scaled()
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\twidth\theight\tcomponents\tprocess\tsampling\texpected\terror\tnote\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    shutil.rmtree(TMP, ignore_errors=True)
    print("%d files in the manifest" % len(rows))


if __name__ == "__main__":
    sys.exit(main())
