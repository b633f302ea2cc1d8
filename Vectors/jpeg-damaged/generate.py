#!/usr/bin/env python3
"""Generates the damaged-JPEG vectors in this folder (run from anywhere; outputs are committed).

Every file here is a valid JPEG with one kind of damage, and djpeg's verdict on it: libjpeg-turbo
2.1.5 decodes most damage with a warning (JWRN_* in jerror.h) and rejects the rest. PureJPEG by
default must decode exactly what `djpeg -dct int` decodes (same pixels, and a `.warning` event where
djpeg warned) and reject what djpeg rejects; with `JPEGDecodingOptions(strict: true)` every file
here must be rejected, but for the few whose damage may be undetectable (strict = any).

Which tool made what:
  * the undamaged sources are Vectors/jpeg/valid/*.jpg (made by ../jpeg/generate.py with cjpeg
    2.1.x and Pillow), plus three made here by cjpeg from valid/s444_q100.ppm (restart intervals
    of 2 MCUs: 4:2:0, greyscale, 4:4:4 progressive);
  * every damage (cuts, byte edits, inserted segments, renumbered markers, stripped DHT, AVI1
    APP0) is made by this script in Python, deterministically (random.Random seeded per file);
  * references are `djpeg -dct int -pnm` (PGM for greyscale; for CMYK files djpeg 2.1 writes
    RGB, as in ../jpeg), and `djpeg -dct int -scale 1/N -pnm` for manifest_scaled.tsv.

Needs: python3, Debian's libjpeg-turbo-progs 2.1.5 (cjpeg, djpeg).

Layout:
  NAME.jpg            the damaged file
  NAME.ppm / .pgm     djpeg's output, when djpeg produced an image (status ok or warn)
  scaled/NAME_1_N.p?m djpeg -scale 1/N output for the rows of manifest_scaled.tsv
  manifest.tsv        file, djpeg, reference, width, height, leniency, strict, djpeg_stderr,
                      all_warnings, source, note
      djpeg         ok (exit 0, no message), warn (exit 2: warnings, image written),
                    error (exit 1: no image)
      reference     the .ppm/.pgm, or - when djpeg failed
      leniency      the damage class: eof, corrupt-entropy, hit-marker, extraneous,
                    segment-length, resync, sos-params, progression, adobe-transform,
                    jfif-version, mjpeg-no-dht, after-eoi, rst-outside-scan, random
                    (seeded byte changes anywhere), fatal (damage djpeg rejects)
      strict        error: strict decoding must throw; any: the damage may be undetectable
                    (djpeg decoded changed entropy data without a warning), so strict
                    decoding may instead succeed with djpeg's pixels
      djpeg_stderr  what djpeg prints (libjpeg prints only the first warning), ' | '-joined
      all_warnings  every warning libjpeg emitted (djpeg -verbose x3 shows them all), as
                    "message xN", ' | '-joined; - when none
  manifest_scaled.tsv file, scale_denominator, djpeg, width, height, expected
"""
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VALID = os.path.join(HERE, "..", "jpeg", "valid")
SCALED = os.path.join(HERE, "scaled")
TMP = tempfile.mkdtemp(prefix="jpegdamaged")

rows = []
scaled_rows = []
names = set()

# ---------------------------------------------------------------- djpeg


def warning_patterns():
    """JWRN_* message formats of libjpeg-turbo 2.1.5 (jerror.h), as regular expressions."""
    formats = [
        "Unknown Adobe color transform code %d",
        "Corrupt JPEG data: bad arithmetic code",
        "Inconsistent progression sequence for component %d coefficient %d",
        "Corrupt JPEG data: %u extraneous bytes before marker 0x%02x",
        "Corrupt JPEG data: premature end of data segment",
        "Corrupt JPEG data: bad Huffman code",
        "Warning: unknown JFIF revision number %d.%02d",
        "Premature end of JPEG file",
        "Corrupt JPEG data: found marker 0x%02x instead of RST%d",
        "Invalid SOS parameters for sequential JPEG",
        "Application transferred too many scanlines",
        "Corrupt JPEG data: bad ICC marker",
    ]
    out = []
    for f in formats:
        rx = re.escape(f)
        rx = rx.replace("%02x", "[0-9a-f]+").replace("%d", "-?[0-9]+").replace("%u", "[0-9]+").replace("%02d", "[0-9]+")
        out.append(re.compile("^" + rx + "$"))
    return out


WARNINGS = warning_patterns()


def djpeg(path, *extra):
    """(status, image bytes or None, stderr lines)."""
    p = subprocess.run(["djpeg", "-dct", "int", *extra, "-pnm", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    lines = [l for l in p.stderr.decode("latin-1").splitlines() if l.strip()]
    if p.returncode == 0:
        return "ok", p.stdout, lines
    if p.returncode == 2:
        return "warn", p.stdout, lines
    return "error", None, lines


def all_warnings(path):
    """Every warning libjpeg emits (it prints only the first unless trace_level >= 3)."""
    p = subprocess.run(["djpeg", "-dct", "int", "-verbose", "-verbose", "-verbose", "-pnm", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    counts = []
    for line in p.stderr.decode("latin-1").splitlines():
        line = line.strip()
        if any(rx.match(line) for rx in WARNINGS):
            if counts and counts[-1][0] == line:
                counts[-1][1] += 1
            else:
                counts.append([line, 1])
    return " | ".join(m if n == 1 else "%s x%d" % (m, n) for m, n in counts) or "-"


def add(name, data, leniency, note, source, scales=()):
    assert name not in names, name
    names.add(name)
    path = os.path.join(HERE, name + ".jpg")
    with open(path, "wb") as f:
        f.write(data)
    status, image, lines = djpeg(path)
    ref, w, h = "-", "-", "-"
    if image is not None:
        if not image:
            # djpeg exited 0/2 without writing rows (cannot happen with 2.1.5; keep the row honest).
            status, image = "error", None
        else:
            ext = ".pgm" if image[:2] == b"P5" else ".ppm"
            ref = name + ext
            with open(os.path.join(HERE, ref), "wb") as f:
                f.write(image)
            w, h = (int(v) for v in image.split(b"\n")[1].split())
    # Damage in the entropy-coded data (or anywhere, for the random files) that djpeg decodes
    # without a word may be undetectable: coefficients changed into other valid codes. Strict
    # decoding may then succeed (with djpeg's pixels). Everything else is detectably damaged.
    # Entropy damage djpeg decodes silently may be undetectable; a JFIF revision other than 1
    # is djpeg's warning but not damage a strict reader refuses.
    # The fuzzer's inputs that djpeg decodes without a word need no leniency either.
    strict = "any" if status == "ok" and (leniency in ("corrupt-entropy", "random") or source == "diff-jpeg fuzzer") \
        or leniency == "jfif-version" else "error"
    rows.append([name + ".jpg", status, ref, w, h, leniency, strict, " | ".join(lines) or "-", all_warnings(path),
                 source, note])
    for denom in scales:
        s_status, s_image, _ = djpeg(path, "-scale", "1/%d" % denom)
        if s_image:
            ext = ".pgm" if s_image[:2] == b"P5" else ".ppm"
            rel = "scaled/%s_1_%d%s" % (name, denom, ext)
            with open(os.path.join(HERE, rel), "wb") as f:
                f.write(s_image)
            sw, sh = (int(v) for v in s_image.split(b"\n")[1].split())
            scaled_rows.append([name + ".jpg", denom, s_status, sw, sh, rel])
        else:
            scaled_rows.append([name + ".jpg", denom, s_status, "-", "-", "-"])
    return status


# ---------------------------------------------------------------- JPEG structure


def parse(data):
    """The file's layout: a list of dicts, one per marker, in file order:
    {marker, start, end} for segments (end = past the segment), and for SOS also data_end (where
    the entropy-coded data ends: at the next marker other than RSTn) and rst (RSTn offsets)."""
    out = []
    i = 2
    n = len(data)
    while i + 1 < n:
        if data[i] != 0xFF:
            raise ValueError("not a marker at %d" % i)
        m = data[i + 1]
        if m == 0xFF:
            i += 1
            continue
        if m == 0xD9:
            out.append({"marker": m, "start": i, "end": i + 2})
            break
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        seg = {"marker": m, "start": i, "end": i + 2 + length}
        out.append(seg)
        i += 2 + length
        if m == 0xDA:
            rst = []
            while i + 1 < n:
                if data[i] == 0xFF and data[i + 1] != 0x00:
                    if 0xD0 <= data[i + 1] <= 0xD7:
                        rst.append(i)
                        i += 2
                        continue
                    break
                i += 1
            seg["data_end"] = i
            seg["rst"] = rst
    return out


def find(layout, marker, k=0):
    return [s for s in layout if s["marker"] == marker][k]


def scans(layout):
    return [s for s in layout if s["marker"] == 0xDA]


def strip(data, marker):
    """Removes every segment with this marker (headers only, not inside entropy data)."""
    for s in parse(data):
        if s["marker"] == marker:
            return strip(data[:s["start"]] + data[s["end"]:], marker)
    return data


def patch(data, offset, values):
    b = bytearray(data)
    b[offset:offset + len(values)] = values
    return bytes(b)


def rename_ids(data, mapping):
    """Component ids renamed in SOF and in every SOS (old id -> new id)."""
    b = bytearray(data)
    for s in parse(data):
        if 0xC0 <= s["marker"] <= 0xC2:
            for i in range(b[s["start"] + 9]):
                at = s["start"] + 10 + 3 * i
                b[at] = mapping.get(b[at], b[at])
        elif s["marker"] == 0xDA:
            for i in range(b[s["start"] + 4]):
                at = s["start"] + 5 + 2 * i
                b[at] = mapping.get(b[at], b[at])
    return bytes(b)


def entropy_offsets(data, scan, lo=0.0, hi=1.0):
    """Offsets in a scan's entropy data, between fractions lo and hi of it, that are neither
    0xFF nor the byte after one (so a change cannot make or unmake a marker)."""
    a = scan["end"] + int((scan["data_end"] - scan["end"]) * lo)
    b = scan["end"] + int((scan["data_end"] - scan["end"]) * hi)
    return [k for k in range(max(a, scan["end"] + 1), min(b, scan["data_end"] - 1))
            if data[k] != 0xFF and data[k - 1] != 0xFF]


def flip(data, offsets):
    b = bytearray(data)
    for k, v in offsets:
        b[k] = v
    return bytes(b)


def segment(marker, body):
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def load(name):
    with open(os.path.join(VALID, name + ".jpg"), "rb") as f:
        return f.read()


def cjpeg(src, *args):
    return subprocess.run(["cjpeg", "-dct", "int", *args, src], stdout=subprocess.PIPE, check=True).stdout


# ---------------------------------------------------------------- the damage


def make(sources):
    b420, b444, gray = sources["s420_q75"], sources["s444_q75"], sources["gray_q75"]
    prog, gprog = sources["progressive_420"], sources["gray_progressive"]
    r1row, r1blk, rprog = sources["restart_1row"], sources["restart_1block"], sources["restart_progressive"]
    r444, cmyk, odd = sources["restart_444_1block"], sources["cmyk_adobe"], sources["s420_odd33x31"]
    r2b, g2b, p444r = sources["r420_2B"], sources["gray_2B"], sources["prog444_restart2"]
    L = {k: parse(v) for k, v in sources.items()}
    src = lambda k: "valid/%s.jpg" % k if not k.startswith(("r420_2B", "gray_2B", "prog444")) else "cjpeg (here)"

    # --- moved from ../jpeg/invalid (djpeg decodes them); same bytes as ../jpeg/generate.py made.
    lay = L["s420_q75"]
    sos = scans(lay)[0]
    n = len(b420)
    for off in sorted({sos["end"] - 3, sos["end"], sos["end"] + 5, (sos["end"] + n) // 2, n - 100, n - 10, n - 2}):
        note = "cut inside the SOS header" if off < sos["end"] else "cut in the scan"
        if off == n - 2:
            note = "missing EOI only"
        add("truncated_%05d" % off, b420[:off], "eof", note + " (was ../jpeg/invalid)", src("s420_q75"),
            scales=(2, 4, 8) if off == (sos["end"] + n) // 2 else ())
    pscans = scans(L["progressive_420"])
    add("truncated_progressive_scan2", prog[:pscans[1]["start"] - 1], "eof",
        "progressive, ends after the first scan, one byte short of the next marker (was ../jpeg/invalid)",
        src("progressive_420"), scales=(2,))
    add("soi_only_then_garbage", b420[:2] + b"\x12\x34\x56\x78" + b420[2:], "extraneous",
        "4 bytes between SOI and APP0 (was ../jpeg/invalid)", src("s420_q75"))
    dqt = find(lay, 0xDB)
    add("rst_before_sos", b420[:dqt["start"]] + b"\xff\xd3" + b420[dqt["start"]:], "rst-outside-scan",
        "RST3 between APP0 and DQT: libjpeg ignores it silently (was ../jpeg/invalid)", src("s420_q75"))
    add("missing_dht", strip(b420, 0xC4), "mjpeg-no-dht",
        "every DHT removed from a cjpeg default-table file: libjpeg uses T.81 K.3 tables (was ../jpeg/invalid)",
        src("s420_q75"))

    # --- premature end of file (JWRN_JPEG_EOF; libjpeg's source manager inserts a fake EOI).
    def cuts(key, data, points, scales_at=()):
        for label, off, note in points:
            add("eof_%s_%s" % (key, label), data[:off], "eof", note, src(key),
                scales=(2,) if label in scales_at else ())

    s = scans(L["s444_q75"])[0]
    cuts("s444_q75", b444, [("scan33", s["end"] + (s["data_end"] - s["end"]) // 3, "4:4:4 cut at a third of the scan")])
    s = scans(L["gray_q75"])[0]
    cuts("gray_q75", gray, [("scan50", s["end"] + (s["data_end"] - s["end"]) // 2, "greyscale cut mid-scan"),
                            ("no_eoi", len(gray) - 2, "greyscale, missing EOI only")], scales_at=("scan50",))
    ff = [k for k in range(sos["end"] + 200, sos["data_end"]) if b420[k] == 0xFF][0]
    add("eof_s420_q75_after_ff", b420[:ff + 1], "eof", "cut right after an 0xFF (its stuffed 0x00 missing)",
        src("s420_q75"))
    s = scans(L["s420_odd33x31"])[0]
    cuts("s420_odd33x31", odd, [("scan60", s["end"] + (s["data_end"] - s["end"]) * 6 // 10, "odd size 33x31, cut mid-scan")])
    ps = pscans
    cuts("progressive_420", prog, [
        ("in_dc_scan", ps[0]["end"] + (ps[0]["data_end"] - ps[0]["end"]) // 2, "progressive, cut in the DC scan"),
        ("before_scan3", ps[2]["start"], "progressive, cut between scans (before the 3rd SOS)"),
        ("in_ac_scan", ps[1]["end"] + (ps[1]["data_end"] - ps[1]["end"]) // 2, "progressive, cut in the first AC scan"),
        ("in_refine", ps[-2]["end"] + (ps[-2]["data_end"] - ps[-2]["end"]) // 2, "progressive, cut in a refinement scan"),
        ("after_last_scan", ps[-1]["data_end"], "progressive, all scans, EOI missing"),
        ("in_dht", [x for x in L["progressive_420"] if x["marker"] == 0xC4 and x["start"] > ps[0]["start"]][0]["start"] + 9,
         "progressive, cut inside a DHT between scans"),
    ], scales_at=("in_ac_scan",))
    gs = scans(L["gray_progressive"])
    cuts("gray_progressive", gprog, [("two_thirds", gs[len(gs) * 2 // 3]["start"], "greyscale progressive, cut before a later scan")])
    rs = scans(L["restart_1row"])[0]
    cuts("restart_1row", r1row, [
        ("mid_interval", (rs["rst"][1] + rs["rst"][2]) // 2, "DRI 1 row, cut mid-interval"),
        ("after_rst", rs["rst"][1] + 2, "DRI 1 row, cut right after an RST marker"),
        ("in_rst", rs["rst"][2] + 1, "DRI 1 row, cut between the 0xFF and the RST code"),
    ])
    rps = scans(L["restart_progressive"])
    cuts("restart_progressive", rprog, [("mid_scan", rps[3]["end"] + (rps[3]["data_end"] - rps[3]["end"]) // 2,
                                         "progressive with DRI, cut in the 4th scan")])
    cs = scans(L["cmyk_adobe"])[0]
    cuts("cmyk_adobe", cmyk, [("scan60", cs["end"] + (cs["data_end"] - cs["end"]) * 6 // 10, "Adobe CMYK, cut mid-scan")])

    # --- corrupt entropy data (JWRN_HUFF_BAD_CODE and garbage coefficients; resync at RSTn).
    def corrupt(key, data, label, note, count=1, lo=0.0, hi=1.0, scan=0, run=False, value=None, scales=()):
        rng = random.Random("%s/%s" % (key, label))
        sc = scans(L[key])[scan]
        offs = entropy_offsets(data, sc, lo, hi)
        if run:
            k = rng.randrange(len(offs) - count)
            at = [o for o in offs if offs[k] <= o < offs[k] + count]
        else:
            at = sorted(rng.sample(offs, count))
        vals = [value if value is not None else (data[o] ^ (1 << rng.randrange(8))) for o in at]
        if value is None and not run:
            # A random byte, never 0xFF (that would make a marker).
            vals = [rng.choice([v for v in range(255) if v != data[o]]) for o in at]
        add("corrupt_%s_%s" % (key, label), flip(data, zip(at, vals)), "corrupt-entropy",
            note + " (offsets %s)" % ",".join(map(str, at[:4])) + ("..." if len(at) > 4 else ""), src(key), scales)

    corrupt("s420_q75", b420, "byte_mid", "one byte changed mid-scan", lo=0.4, hi=0.6, scales=(2,))
    corrupt("s420_q75", b420, "byte_end", "one byte changed in the last MCUs", lo=0.95, hi=1.0)
    corrupt("s420_q75", b420, "run_fe", "16 bytes set to 0xFE (no valid code)", count=16, lo=0.3, hi=0.7, run=True, value=0xFE)
    corrupt("s420_q75", b420, "run_00", "24 bytes set to 0x00", count=24, lo=0.2, hi=0.5, run=True, value=0x00)
    corrupt("s420_q75", b420, "bytes8", "8 random bytes changed across the scan", count=8)
    corrupt("s444_q75", b444, "bytes3", "4:4:4, 3 random bytes changed", count=3)
    corrupt("gray_q75", gray, "run_fe", "greyscale, 12 bytes set to 0xFE", count=12, run=True, value=0xFE, lo=0.5)
    corrupt("progressive_420", prog, "dc_scan", "progressive, one byte changed in the DC scan", scan=0)
    corrupt("progressive_420", prog, "ac_scan", "progressive, 2 bytes changed in the first AC scan", count=2, scan=1,
            scales=(2,))
    corrupt("progressive_420", prog, "refine_scan", "progressive, run of 0xFE in the last (refinement) scan",
            count=10, scan=len(pscans) - 1, run=True, value=0xFE)
    corrupt("gray_progressive", gprog, "ac_scan", "greyscale progressive, 3 bytes changed in scan 2", count=3, scan=1)
    corrupt("restart_1row", r1row, "interval2", "DRI 1 row, 20 bytes of 0xFE in the second interval",
            count=20, lo=rs_frac(rs, 1), hi=rs_frac(rs, 2), run=True, value=0xFE)
    corrupt("r420_2B", r2b, "bytes4", "DRI 2 MCUs, 4 bytes changed", count=4)
    corrupt("restart_progressive", rprog, "ac_scan", "progressive with DRI, 6 bytes changed in an AC scan",
            count=6, scan=2)
    corrupt("cmyk_adobe", cmyk, "bytes2", "Adobe CMYK, 2 bytes changed", count=2)

    # Bytes inserted into / deleted from entropy data.
    rng = random.Random("insert")
    at = entropy_offsets(b420, sos, 0.3, 0.4)[5]
    add("insert_s420_q75_3bytes", b420[:at] + bytes([0x5A, 0x17, 0xC3]) + b420[at:], "corrupt-entropy",
        "3 bytes inserted at %d" % at, src("s420_q75"))
    at = entropy_offsets(b420, sos, 0.6, 0.7)[3]
    add("delete_s420_q75_5bytes", b420[:at] + b420[at + 5:], "corrupt-entropy", "5 bytes deleted at %d" % at,
        src("s420_q75"))
    at = entropy_offsets(r1row, rs, 0.45, 0.55)[0]
    add("insert_restart_1row_40bytes", r1row[:at] + bytes(rng.randrange(255) for _ in range(40)) + r1row[at:],
        "corrupt-entropy", "DRI 1 row, 40 random bytes (no 0xFF) inserted at %d" % at, src("restart_1row"))
    at = entropy_offsets(r1blk, scans(L["restart_1block"])[0], 0.5, 0.6)[0]
    add("delete_restart_1block_3bytes", r1blk[:at] + r1blk[at + 3:], "corrupt-entropy",
        "DRI 1 MCU, 3 bytes deleted at %d" % at, src("restart_1block"))
    at = entropy_offsets(gprog, gs[2], 0.2, 0.8)[0]
    add("insert_gray_progressive_ff00", gprog[:at] + b"\xff\x00\xff\x00" + gprog[at:], "corrupt-entropy",
        "greyscale progressive, two stuffed 0xFF bytes inserted at %d" % at, src("gray_progressive"))

    # --- a marker inside entropy-coded data (JWRN_HIT_MARKER, then extraneous bytes).
    mid = entropy_offsets(b420, sos, 0.5, 0.6)[0]
    add("marker_eoi_mid_scan", b420[:mid] + b"\xff\xd9" + b420[mid:], "hit-marker",
        "EOI inserted mid-scan at %d; the rest of the file follows it" % mid, src("s420_q75"), scales=(2,))
    add("marker_app1_mid_scan", b420[:mid] + segment(0xE1, b"junk" * 3) + b420[mid:], "hit-marker",
        "an APP1 segment inserted mid-scan at %d" % mid, src("s420_q75"))
    add("marker_rst_no_dri", b420[:mid] + b"\xff\xd3" + b420[mid:], "hit-marker",
        "RST3 inserted mid-scan at %d in a file without DRI" % mid, src("s420_q75"))
    add("marker_ff12_mid_scan", b420[:mid] + b"\xff\x12" + b420[mid:], "hit-marker",
        "0xFF 0x12 (an unstuffed 0xFF) inserted mid-scan at %d" % mid, src("s420_q75"))
    gmid = entropy_offsets(gray, scans(L["gray_q75"])[0], 0.4, 0.5)[0]
    add("marker_sos_mid_scan", gray[:gmid] + gray[find(L["gray_q75"], 0xDA)["start"]:], "hit-marker",
        "greyscale: the scan restarts (SOS repeated) at %d" % gmid, src("gray_q75"))
    pm = entropy_offsets(prog, pscans[1], 0.4, 0.5)[0]
    add("marker_com_in_progressive", prog[:pm] + segment(0xFE, b"hello") + prog[pm:], "hit-marker",
        "progressive: COM inserted in the first AC scan at %d" % pm, src("progressive_420"))
    rm = rs["rst"][2] - 7
    add("marker_eoi_in_interval", r1row[:rm] + b"\xff\xd9", "hit-marker",
        "DRI 1 row: EOI written 7 bytes before the 3rd RST, the rest dropped", src("restart_1row"))

    # --- extraneous bytes before a marker (JWRN_EXTRANEOUS_DATA).
    dht = find(lay, 0xC4)
    add("garbage_before_dht", b420[:dht["start"]] + b"abcde" + b420[dht["start"]:], "extraneous",
        "5 bytes between DQT and DHT", src("s420_q75"))
    add("garbage_before_sos", b420[:sos["start"]] + b"\x00" * 3 + b420[sos["start"]:], "extraneous",
        "3 zero bytes before SOS", src("s420_q75"))
    add("garbage_before_eoi", b420[:-2] + b"\x00\x11\x22\x33\x44\x55\x66" + b420[-2:], "extraneous",
        "7 bytes after the scan's data, before EOI", src("s420_q75"))
    add("garbage_ff_before_eoi", b420[:-2] + b"\x01\x02\xff\x03\xff\xff" + b420[-2:], "extraneous",
        "bytes and 0xFF fill after the scan, before EOI", src("s420_q75"))
    add("garbage_between_scans", prog[:pscans[2]["start"]] + b"\x5a" * 9 + prog[pscans[2]["start"]:], "extraneous",
        "progressive: 9 bytes before the 3rd SOS", src("progressive_420"), scales=(2,))
    pd = [x for x in L["progressive_420"] if x["marker"] == 0xC4 and x["start"] > pscans[0]["start"]][0]
    add("garbage_before_dht_between_scans", prog[:pd["start"]] + b"\x01" + prog[pd["start"]:], "extraneous",
        "progressive: 1 byte before a DHT between scans", src("progressive_420"))
    r = rs["rst"][1]
    add("garbage_before_rst", r1row[:r] + b"\x00\x00\x00\x00" + r1row[r:], "extraneous",
        "DRI 1 row: 4 zero bytes before the 2nd RST", src("restart_1row"))
    app0 = find(L["gray_q75"], 0xE0)
    add("garbage_after_app0_gray", gray[:app0["end"]] + b"\x80" * 2 + gray[app0["end"]:], "extraneous",
        "greyscale: 2 bytes after APP0", src("gray_q75"))

    # --- skippable segments (COM, APPn) with bad lengths; libjpeg's skip_variable skips length-2.
    app0 = find(lay, 0xE0)
    body = b"a comment"
    add("com_length_0", b420[:app0["end"]] + b"\xff\xfe\x00\x00" + b420[app0["end"]:], "segment-length",
        "COM with length 0 and no body: libjpeg skips nothing and goes on", src("s420_q75"))
    add("com_length_1_with_body", b420[:app0["end"]] + b"\xff\xfe\x00\x01" + body + b420[app0["end"]:],
        "segment-length", "COM length 1 followed by its 9-byte body", src("s420_q75"))
    add("app1_length_0_with_body", b420[:app0["end"]] + b"\xff\xe1\x00\x00" + b"Exif\0\0" + b420[app0["end"]:],
        "segment-length", "APP1 length 0 followed by 6 bytes", src("s420_q75"))
    add("app15_length_1", b420[:app0["end"]] + b"\xff\xef\x00\x01" + b420[app0["end"]:], "segment-length",
        "APP15 length 1, nothing after it", src("s420_q75"))
    add("com_too_long_into_dqt", b420[:app0["end"]] + b"\xff\xfe" + struct.pack(">H", 2 + len(body) + 4) + body
        + b420[app0["end"]:], "segment-length", "COM length 4 too long: it swallows DQT's marker and length",
        src("s420_q75"))
    add("com_too_long_to_eof", b420[:app0["end"]] + b"\xff\xfe\xff\xf0" + body + b420[app0["end"]:],
        "segment-length", "COM length 65520, past the end of the file", src("s420_q75"))
    add("app0_jfif_short", patch(b420, app0["start"] + 2, struct.pack(">H", 8)), "segment-length",
        "JFIF APP0 length 8 instead of 16: the rest of it becomes extraneous bytes", src("s420_q75"))
    add("com_length_0_between_scans", prog[:pscans[1]["start"]] + b"\xff\xfe\x00\x00xyz" + prog[pscans[1]["start"]:],
        "segment-length", "progressive: COM length 0 then 3 bytes, before the 2nd SOS", src("progressive_420"))

    # --- restart markers renumbered, dropped, duplicated, replaced (JWRN_MUST_RESYNC).
    def rst_edit(key, data, label, note, fn, scales=()):
        sc = scans(L[key])
        add("rst_%s_%s" % (key, label), fn(data, sc), "resync", note, src(key), scales)

    rst = lambda sc, k, scan=0: sc[scan]["rst"][k]
    rst_edit("restart_1row", r1row, "renumbered", "DRI 1 row: the 3rd RST (RST2) written as RST6",
             lambda d, sc: patch(d, rst(sc, 2) + 1, bytes([0xD6])), scales=(2, 4))
    rst_edit("restart_1row", r1row, "dropped", "DRI 1 row: the 2nd RST removed",
             lambda d, sc: d[:rst(sc, 1)] + d[rst(sc, 1) + 2:])
    rst_edit("restart_1row", r1row, "duplicated", "DRI 1 row: the 2nd RST written twice",
             lambda d, sc: d[:rst(sc, 1)] + d[rst(sc, 1):rst(sc, 1) + 2] * 2 + d[rst(sc, 1) + 2:])
    rst_edit("restart_1row", r1row, "replaced_by_bytes", "DRI 1 row: the 3rd RST replaced by two data bytes",
             lambda d, sc: patch(d, rst(sc, 2), b"\x12\x34"))
    rst_edit("restart_1block", r1blk, "renumbered_many", "DRI 1 MCU: RSTs 5, 9 and 10 renumbered",
             lambda d, sc: flip(d, [(rst(sc, k) + 1, 0xD0 + (d[rst(sc, k) + 1] - 0xD0 + 3) % 8) for k in (5, 9, 10)]))
    rst_edit("restart_1block", r1blk, "last_dropped", "DRI 1 MCU: the last RST removed",
             lambda d, sc: d[:rst(sc, -1)] + d[rst(sc, -1) + 2:])
    rst_edit("restart_444_1block", r444, "duplicated", "4:4:4, DRI 1 MCU: the 12th RST written twice",
             lambda d, sc: d[:rst(sc, 11)] + d[rst(sc, 11):rst(sc, 11) + 2] * 2 + d[rst(sc, 11) + 2:])
    rst_edit("gray_2B", g2b, "dropped", "greyscale, DRI 2 MCUs: the 6th RST removed",
             lambda d, sc: d[:rst(sc, 5)] + d[rst(sc, 5) + 2:])
    rst_edit("r420_2B", r2b, "renumbered", "4:2:0, DRI 2 MCUs: the 3rd RST renumbered",
             lambda d, sc: patch(d, rst(sc, 2) + 1, bytes([0xD0 + (d[rst(sc, 2) + 1] - 0xD0 + 5) % 8])))
    rst_edit("restart_progressive", rprog, "renumbered_ac", "progressive with DRI: an RST renumbered in an AC scan",
             lambda d, sc: patch(d, rst(sc, 1, 2) + 1, bytes([0xD0 + (d[rst(sc, 1, 2) + 1] - 0xD0 + 2) % 8])))
    last_with_rst = max(k for k, s in enumerate(scans(L["restart_progressive"])) if s["rst"])
    rst_edit("restart_progressive", rprog, "dropped_refine", "progressive with DRI: an RST removed in a later scan",
             lambda d, sc: d[:rst(sc, 0, last_with_rst)] + d[rst(sc, 0, last_with_rst) + 2:])
    rst_edit("prog444_restart2", p444r, "renumbered_dc", "progressive 4:4:4 with DRI: the 2nd RST of the DC scan renumbered",
             lambda d, sc: patch(d, rst(sc, 1) + 1, bytes([0xD0 + (d[rst(sc, 1) + 1] - 0xD0 + 4) % 8])))

    # --- scan parameters (JWRN_NOT_SEQUENTIAL, JWRN_BOGUS_PROGRESSION).
    add("sos_sequential_se_62", patch(b420, sos["end"] - 2, bytes([62])), "sos-params",
        "baseline SOS with Se = 62 (libjpeg warns and decodes all 64 coefficients)", src("s420_q75"))
    add("sos_sequential_al_1", patch(b420, sos["end"] - 1, bytes([0x01])), "sos-params",
        "baseline SOS with Al = 1", src("s420_q75"))
    # The last refinement scan of progressive_420 (Ah=1, Al=0): claim Ah=2, Al=1 instead.
    last = pscans[-1]
    ah_al = prog[last["end"] - 1]
    add("progression_bad_refinement", patch(prog, last["end"] - 1, bytes([0x21])), "progression",
        "progressive: last scan's Ah/Al 0x%02X rewritten as 0x21 (inconsistent with the earlier scans)" % ah_al,
        src("progressive_420"))
    # A first AC scan that claims to refine (Ah=1, Al=0) bits never sent.
    first_ac = pscans[1]
    add("progression_refine_before_first", patch(prog, first_ac["end"] - 1, bytes([0x10])), "progression",
        "progressive: the first AC scan claims Ah=1 Al=0 (refinement before any first scan)", src("progressive_420"))

    # --- header fields libjpeg warns about.
    adobe = segment(0xEE, b"Adobe" + bytes([0, 100, 0, 0, 0, 0, 7]))
    add("adobe_transform_7", b420[:app0["start"]] + adobe + b420[app0["end"]:], "adobe-transform",
        "JFIF APP0 replaced by APP14 Adobe with transform 7 (libjpeg: unknown, assumes YCbCr)", src("s420_q75"))
    add("jfif_version_2", patch(b420, app0["start"] + 9, bytes([2, 1])), "jfif-version",
        "JFIF version 2.01 (libjpeg warns for a major version other than 1)", src("s420_q75"))

    # --- Motion-JPEG without DHT: libjpeg-turbo's std_huff_tables (T.81 K.3) fill empty slots.
    add("mjpeg_no_dht_444", strip(b444, 0xC4), "mjpeg-no-dht", "4:4:4 without DHT (cjpeg default tables)",
        src("s444_q75"), scales=(2,))
    add("mjpeg_no_dht_gray", strip(gray, 0xC4), "mjpeg-no-dht", "greyscale without DHT", src("gray_q75"))
    add("mjpeg_no_dht_restart", strip(r1row, 0xC4), "mjpeg-no-dht", "DRI 1 row without DHT", src("restart_1row"))
    avi1 = segment(0xE0, b"AVI1" + bytes([0, 0]) + struct.pack(">II", len(b420), len(b420)))
    noh = strip(b420, 0xC4)
    a0 = find(parse(noh), 0xE0)
    add("mjpeg_avi1", noh[:a0["start"]] + avi1 + noh[a0["end"]:], "mjpeg-no-dht",
        "AVI1 APP0 in place of JFIF, no DHT (as a Motion-JPEG AVI frame)", src("s420_q75"))
    # Only the AC tables missing (the DHT segments of cjpeg each hold one table).
    only_dc = b420
    for seg in reversed([x for x in lay if x["marker"] == 0xC4]):
        if only_dc[seg["start"] + 4] >> 4 == 1:
            only_dc = only_dc[:seg["start"]] + only_dc[seg["end"]:]
    add("mjpeg_no_ac_dht", only_dc, "mjpeg-no-dht", "the two AC DHT segments removed, DC kept", src("s420_q75"))

    # --- data after EOI (ignored by libjpeg; no warning).
    rng = random.Random("after-eoi")
    add("after_eoi_random", b420 + bytes(rng.randrange(256) for _ in range(100)), "after-eoi",
        "100 random bytes after EOI", src("s420_q75"))
    add("after_eoi_second_jpeg", gray + b420, "after-eoi", "a second JPEG after EOI", src("gray_q75"))

    # --- random damage anywhere (seeded), whatever djpeg makes of it.
    pool = [("s420_q75", b420), ("progressive_420", prog), ("restart_1row", r1row), ("gray_q75", gray),
            ("cmyk_adobe", cmyk), ("restart_progressive", rprog)]
    for k in range(6):
        rng = random.Random("anywhere-%d" % k)
        key, data = pool[k % len(pool)]
        b = bytearray(data)
        at = sorted(rng.randrange(len(b)) for _ in range(1 + rng.randrange(4)))
        for o in at:
            b[o] = rng.randrange(256)
        add("random_%d_%s" % (k, key), bytes(b), "random", "bytes at %s set to random values" % at, src(key))

    # --- damage djpeg rejects: both modes must throw.
    sof = find(lay, 0xC0)
    add("fatal_sof_length", patch(b420, sof["start"] + 2, struct.pack(">H", 14)), "fatal",
        "SOF length 14 for 3 components (Bogus marker length)", src("s420_q75"))
    add("fatal_dht_counts", patch(b420, dht["start"] + 5, bytes([0, 4])), "fatal",
        "DHT counts: four 2-bit codes plus the rest (over-subscribed)", src("s420_q75"))
    add("fatal_sos_table_3", patch(b420, sos["start"] + 6, bytes([0x33])), "fatal",
        "SOS asks for Huffman tables 3 that were never defined", src("s420_q75"))
    add("fatal_sos_ns_4", patch(b420, sos["start"] + 4, bytes([4])), "fatal", "SOS with Ns = 4 in a 3-component frame",
        src("s420_q75"))
    add("fatal_sos_ss_gt_se", patch(prog, pscans[1]["end"] - 3, bytes([20, 10])), "fatal",
        "progressive SOS with Ss = 20 > Se = 10", src("progressive_420"))
    add("fatal_second_soi", b420[:sos["start"]] + b"\xff\xd8" + b420[sos["start"]:], "fatal", "a second SOI before SOS",
        src("s420_q75"))
    add("fatal_second_sof", b420[:sos["start"]] + b420[sof["start"]:sof["end"]] + b420[sos["start"]:], "fatal",
        "SOF repeated before SOS", src("s420_q75"))
    add("fatal_progressive_no_dht", strip(prog, 0xC4), "fatal",
        "progressive without DHT: no standard tables for progressive (Huffman table not defined)", src("progressive_420"))
    add("fatal_dqt_length_1_between_scans", prog[:pscans[1]["start"]] + b"\xff\xdb\x00\x01" + prog[pscans[1]["start"]:],
        "fatal", "progressive: DQT of length 1 between scans", src("progressive_420"))

    # --- one component id declared twice in SOF: libjpeg-turbo accepts it without a word, and a
    # scan names the first component with the id at or after the scan position (get_sos).
    add("sof_duplicate_ids_baseline", rename_ids(b420, {3: 2}), "scan-parameters",
        "SOF and SOS ids 1, 2, 2: the interleaved scan's third selector finds the third component",
        src("s420_q75"))
    add("sof_duplicate_ids_all_one", rename_ids(b420, {2: 1, 3: 1}), "scan-parameters",
        "every component id 1 in SOF and SOS", src("s420_q75"))
    add("sof_duplicate_ids_progressive", rename_ids(prog, {3: 2}), "scan-parameters",
        "progressive, ids 1, 2, 2: the Cr scans of one component name Cb, which they refine "
        "again, and Cr keeps its DC only", src("progressive_420"), scales=(2, 4, 8))


def rs_frac(scan, k):
    """The fraction of a scan's entropy data at which its k-th RST marker stands (0 before the first)."""
    if k == 0:
        return 0.0
    return (scan["rst"][k - 1] - scan["end"]) / (scan["data_end"] - scan["end"])


# Inputs found by the differential fuzzer (Fuzz/Targets/diff-jpeg.swift, libFuzzer mutations of
# the vectors), kept as they are: file -> (leniency, note). Their references are made like the rest.
FUZZ = {
    "fuzz_invalid_dht_unused": ("extraneous", "an oversubscribed DHT that no scan uses (libjpeg refuses a table "
                                "only when a scan uses it)"),
    "fuzz_table_selector_unused": ("scan-parameters", "a progressive scan naming Huffman table selectors above 3 it "
                                   "does not use"),
    "fuzz_progressive_resync_smoothing": ("resync", "a progressive 4:2:0 file whose last scan resumes at a restart "
                                          "after a skipped interval, then meets the end of the file: libjpeg's "
                                          "last_good_iMCU_row is set before each MCU's restart is read, so block "
                                          "smoothing takes the resumed row at the previous scan's status"),
    "fuzz_progressive_lone_component_v3": ("none", "a progressive 33x31 grayscale file whose one component declares "
                                           "sampling 1x3 and has only its DC scan: libjpeg keeps the factor, so "
                                           "block smoothing groups block rows in iMCU rows of 3"),
    "fuzz_sof_table_selector_unscanned": ("extraneous", "a component that no scan uses names quantization table 255: "
                                          "libjpeg checks a table only when a scan latches it"),
    "fuzz_dqt_precision_5": ("extraneous", "a DQT with precision 5: libjpeg reads 16-bit entries for any precision "
                             "other than 0"),
    # Made by hand (the fuzzer's 94 inputs were 1.5 KB and 40263x53): a 32x24 4:2:0 file of
    # non-interleaved sequential scans whose luma is scanned again with another image's scan.
    "fuzz_sequential_component_rescanned": ("sequential-rescan", "a sequential component scanned twice: the second "
                                            "scan's nonzero coefficients over the first's (jdhuff never clears the "
                                            "coefficient buffer)"),
}


def main():
    fuzz = {}
    for name in FUZZ:
        with open(os.path.join(HERE, name + ".jpg"), "rb") as f:
            fuzz[name] = f.read()
    for old in os.listdir(HERE):
        if old.endswith((".jpg", ".ppm", ".pgm", ".tsv")):
            os.remove(os.path.join(HERE, old))
    shutil.rmtree(SCALED, ignore_errors=True)
    os.makedirs(SCALED)
    keys = ["s420_q75", "s444_q75", "gray_q75", "progressive_420", "gray_progressive", "restart_1row",
            "restart_1block", "restart_progressive", "restart_444_1block", "cmyk_adobe", "s420_odd33x31"]
    sources = {k: load(k) for k in keys}
    photo = os.path.join(VALID, "s444_q100.ppm")
    sources["r420_2B"] = cjpeg(photo, "-quality", "80", "-restart", "2B")
    sources["gray_2B"] = cjpeg(photo, "-grayscale", "-quality", "80", "-restart", "2B")
    sources["prog444_restart2"] = cjpeg(photo, "-quality", "80", "-sample", "1x1", "-progressive", "-restart", "2B")
    for k, v in sources.items():
        status, _, lines = djpeg_bytes(v)
        assert status == "ok", (k, lines)
    make(sources)
    for name, data in fuzz.items():
        leniency, note = FUZZ[name]
        add(name, data, leniency, note, "diff-jpeg fuzzer")
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("file\tdjpeg\treference\twidth\theight\tleniency\tstrict\tdjpeg_stderr\tall_warnings\tsource\tnote\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    with open(os.path.join(HERE, "manifest_scaled.tsv"), "w") as f:
        f.write("file\tscale_denominator\tdjpeg\twidth\theight\texpected\n")
        for r in scaled_rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    shutil.rmtree(TMP, ignore_errors=True)
    counts = {}
    for r in rows:
        counts[r[1]] = counts.get(r[1], 0) + 1
    print("%d files (%s), %d scaled references" % (len(rows), ", ".join("%s %d" % kv for kv in sorted(counts.items())),
                                                    len(scaled_rows)))


def djpeg_bytes(data):
    path = os.path.join(TMP, "check.jpg")
    with open(path, "wb") as f:
        f.write(data)
    return djpeg(path)


if __name__ == "__main__":
    sys.exit(main())
