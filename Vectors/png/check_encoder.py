#!/usr/bin/env python3
"""Checks a PNG re-encoder (or any lossless converter) against the valid PNG vectors.

    python3 Vectors/png/check_encoder.py 'jpng decode {in} -o {out}'
    python3 Vectors/png/check_encoder.py 'jpng decode {in} -o {out}' --ext pam --strict-format
    python3 Vectors/png/check_encoder.py 'convert {in} {out}' --only photo_

For every valid row of manifest.tsv the command template is run with {in} replaced by the
vector's path and {out} by a fresh file in a temporary folder (extension .png unless --ext
says otherwise). The output is read back (PNG with pypng at full 16-bit precision and, as a
second opinion, with Pillow; .pam/.ppm/.pgm with the small Netpbm reader below), expanded to
RGBA16 by the same rules as generate.py (pngkit.py), and its CRC-32 compared with the manifest's
checksum. Any difference, a non-zero exit status or a missing output is a failure.

The benign_* vectors carry malformed ancillary chunks (the decoder must ignore them); a
converter's output is expected to be clean, so a plain copy (`cp {in} {out}`) fails on them.

--strict-format also requires the output to keep the vector's native format (the manifest's
PixelFormat: channels and 8/16-bit depth), as the CLI contract asks of `decode`.

Needs python3 with pypng and Pillow. Exits 0 only when every vector passes; prints
'N passed, N failed' last.
"""

import argparse
import io
import os
import shlex
import struct
import subprocess
import sys
import tempfile

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pngkit  # noqa: E402  (same folder: the reference expansion rules live there)


def read_manifest():
    rows = []
    with open(os.path.join(HERE, "manifest.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            fields = dict(zip(header, line.rstrip("\n").split("\t")))
            rows.append(fields)
    return rows


def read_netpbm(data):
    """(width, height, format, rgba16 rows) for P5, P6 and P7 files."""
    magic = data[:2]
    if magic == b"P7":
        fields, pos = {}, data.index(b"\n") + 1
        while True:
            nl = data.index(b"\n", pos)
            line = data[pos:nl].split(b"#")[0].strip()
            pos = nl + 1
            if line == b"ENDHDR":
                break
            if line:
                key, _, value = line.partition(b" ")
                fields[key.decode()] = value.strip().decode()
        w, h = int(fields["WIDTH"]), int(fields["HEIGHT"])
        depth, maxval = int(fields["DEPTH"]), int(fields["MAXVAL"])
        tupl = fields.get("TUPLTYPE", "")
        body = data[pos:]
    elif magic in (b"P5", b"P6"):
        values, pos = [], 2
        while len(values) < 3:
            while data[pos:pos + 1].isspace():
                pos += 1
            if data[pos:pos + 1] == b"#":
                pos = data.index(b"\n", pos)
                continue
            start = pos
            while data[pos:pos + 1].isdigit():
                pos += 1
            values.append(int(data[start:pos]))
        w, h, maxval = values
        body = data[pos + 1:]  # exactly one whitespace byte ends the header
        depth = 1 if magic == b"P5" else 3
        tupl = ""
    else:
        raise ValueError("not a P5/P6/P7 file: %r" % magic)
    size = 2 if maxval > 255 else 1
    need = w * h * depth * size
    if len(body) < need:
        raise ValueError("Netpbm body has %d bytes, needs %d" % (len(body), need))
    expected_tupl = {1: "GRAYSCALE", 2: "GRAYSCALE_ALPHA", 3: "RGB", 4: "RGB_ALPHA"}[depth]
    if tupl and tupl != expected_tupl:
        raise ValueError("TUPLTYPE %s with DEPTH %d" % (tupl, depth))
    fmt = {1: "gray", 2: "grayAlpha", 3: "rgb", 4: "rgba"}[depth] + ("16" if size == 2 else "8")
    samples = struct.unpack(">%dH" % (need // 2), body[:need]) if size == 2 else body[:need]
    rows = []
    for y in range(h):
        line = []
        for x in range(w):
            px = [samples[(y * w + x) * depth + c] * 65535 // maxval for c in range(depth)]
            if depth == 1:
                line.append((px[0], px[0], px[0], 65535))
            elif depth == 2:
                line.append((px[0], px[0], px[0], px[1]))
            elif depth == 3:
                line.append((px[0], px[1], px[2], 65535))
            else:
                line.append(tuple(px))
        rows.append(line)
    return w, h, fmt, rows


def decode_output(path):
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(pngkit.SIG):
        w, h, fmt, rows = pngkit.reference_rgba16(data)
        problem = pngkit.pillow_mismatch(data, rows)
        if problem:
            raise ValueError("pypng and Pillow disagree on the output: " + problem)
        return w, h, fmt, rows
    if data[:2] in (b"P5", b"P6", b"P7"):
        return read_netpbm(data)
    im = Image.open(io.BytesIO(data)).convert("RGBA")
    rows = [[tuple(v * 257 for v in im.getpixel((x, y))) for x in range(im.width)] for y in range(im.height)]
    return im.width, im.height, "rgba8", rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("template", help="command with {in} and {out}, e.g. 'jpng decode {in} -o {out}'")
    ap.add_argument("--ext", default="png", help="extension of the output files (default png)")
    ap.add_argument("--strict-format", action="store_true", help="the output must keep the native PixelFormat")
    ap.add_argument("--only", default="", help="only vectors whose path contains this text")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per command (default 60)")
    args = ap.parse_args()
    if "{in}" not in args.template or "{out}" not in args.template:
        ap.error("the template needs both {in} and {out}")

    passed, failed = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for row in read_manifest():
            if row["error"] or args.only not in row["path"]:
                continue
            src = os.path.join(HERE, row["path"])
            out = os.path.join(tmp, os.path.basename(row["path"])[:-4] + "." + args.ext.lstrip("."))
            cmd = args.template.replace("{in}", shlex.quote(src)).replace("{out}", shlex.quote(out))
            try:
                r = subprocess.run(cmd, shell=True, capture_output=True, timeout=args.timeout)
                if r.returncode != 0:
                    raise ValueError("exit status %d: %s" % (r.returncode, r.stderr.decode("utf-8", "replace").strip()[:200]))
                if not os.path.exists(out):
                    raise ValueError("no output file")
                w, h, fmt, rows = decode_output(out)
                if (w, h) != (int(row["width"]), int(row["height"])):
                    raise ValueError("size %dx%d, expected %sx%s" % (w, h, row["width"], row["height"]))
                got = pngkit.checksum(rows)
                if got != row["checksum"]:
                    raise ValueError("RGBA16 checksum %s, expected %s" % (got, row["checksum"]))
                if args.strict_format and fmt != row["format"]:
                    raise ValueError("format %s, expected %s" % (fmt, row["format"]))
                passed += 1
            except Exception as e:  # noqa: BLE001 - every failure is reported per vector
                failed.append("%s: %s" % (row["path"], e))
            finally:
                if os.path.exists(out):
                    os.remove(out)
    for line in failed:
        print("FAIL " + line)
    print("%d passed, %d failed" % (passed, len(failed)))
    sys.exit(1 if failed or passed == 0 else 0)


if __name__ == "__main__":
    main()
