#!/usr/bin/env python3
"""Regenerates the lcms2 reference outputs for PureColorTests.

Run from anywhere: python3 Vectors/icc/make_reference.py
Needs Pillow with ImageCms (lcms2 2.x inside). Writes Vectors/icc/refs/* and
Vectors/icc/manifest.tsv from the profiles in Vectors/icc/profiles/.

Inputs:
  RGB profiles: a 17x17x17 grid of 8-bit values (0, 16, ..., 240, 255), pixel
  index (ri * 17 + gi) * 17 + bi holds (v[ri], v[gi], v[bi]), as one 4913x1 image.
  Gray profiles: a 256-entry ramp 0...255.
  LUT-based RGB profiles (A2B0/A2B1 as mft1, mft2, mAB): the same 17^3 grid (kind `lut`).
  CMYK profiles with A2B LUTs: 864 samples (kind `cmyk`), C, M, Y in 0, 51, ..., 255 and K in
  0, 85, 170, 255 (0 = no ink, lcms2's TYPE_CMYK_8), pixel ((ci * 6 + mi) * 6 + yi) * 4 + ki,
  as one 864x1 image; output 8-bit RGB.
  A transform lcms2 refuses (a profile with A2B1 only asked for perceptual: no A2B0 and no
  colorants to fall back on) gets reference `-` and the note `lcms2: no transform`.
Transforms (flags NOOPTIMIZE | HIGHRESPRECALC, so lcms2 evaluates the full pipeline
in floating point for every pixel, no precalculated device link):
  RGB profile  -> lcms2's built-in sRGB (cmsCreate_sRGBProfile), RGB 8-bit out.
  Gray profile -> a gray profile with the sRGB curve (built below, D50 white), 8-bit gray out,
                  and gray profile -> built-in sRGB, RGB 8-bit out (`.gray-rgb`).
Intents: relative colorimetric and perceptual.
"""
import io
import os
import struct
import sys

from PIL import Image, ImageCms

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILES = os.path.join(HERE, "profiles")
REFS = os.path.join(HERE, "refs")
GRID = [min(16 * i, 255) for i in range(17)]
CMY_LEVELS = [0, 51, 102, 153, 204, 255]
K_LEVELS = [0, 85, 170, 255]
FLAGS = ImageCms.Flags.NOOPTIMIZE | ImageCms.Flags.HIGHRESPRECALC
INTENTS = [("relative", ImageCms.Intent.RELATIVE_COLORIMETRIC), ("perceptual", ImageCms.Intent.PERCEPTUAL)]


def s15(v):
    return struct.pack(">i", int(round(v * 65536)))


def gray_srgb_profile():
    """A v4.3 display-class gray profile: kTRC = sRGB curve (para type 3), wtpt = D50."""
    desc_text = "Gray sRGB TRC (PureColor test)".encode("utf-16-be")
    desc = b"mluc" + b"\0" * 4 + struct.pack(">II", 1, 12) + b"enUS" + struct.pack(">II", len(desc_text), 28) + desc_text
    desc += b"\0" * (-len(desc) % 4)
    wtpt = b"XYZ " + b"\0" * 4 + s15(0.9642) + s15(1.0) + s15(0.8249)
    params = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
    ktrc = b"para" + b"\0" * 4 + struct.pack(">HH", 3, 0) + b"".join(s15(p) for p in params)
    tags = [(b"desc", desc), (b"wtpt", wtpt), (b"kTRC", ktrc)]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for sig, body in tags:
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += body + b"\0" * (-len(body) % 4)
    size = offset + len(data)
    header = struct.pack(">I", size) + b"lcms" + bytes([4, 0x30, 0, 0]) + b"mntr" + b"GRAY" + b"XYZ "
    header += b"\0" * 12 + b"acsp" + b"\0" * 4 + b"\0" * 4 + b"\0" * 8 + b"\0" * 8 + struct.pack(">I", 0)
    header += s15(0.9642) + s15(1.0) + s15(0.8249) + b"\0" * 4
    header += b"\0" * (128 - len(header))
    return header + struct.pack(">I", len(tags)) + table + data


def describe(path):
    b = open(path, "rb").read()
    cls, space, pcs = b[12:16].decode(), b[16:20].decode(), b[20:24].decode()
    version = f"{b[8]}.{b[9] >> 4}"
    count = struct.unpack(">I", b[128:132])[0]
    tags = {}
    for i in range(count):
        sig, off, size = struct.unpack(">4sII", b[132 + 12 * i: 144 + 12 * i])
        tags[sig.decode("latin1")] = b[off: off + 4].decode("latin1")
    luts = [t for t in ("A2B0", "A2B1", "A2B2") if t in tags]
    lut_note = "LUT-based (" + ",".join(f"{t}:{tags[t]}" for t in luts) + ")"
    if luts and space == "RGB ":
        kind, note = "lut", lut_note
    elif luts and space == "CMYK":
        kind, note = "cmyk", lut_note
    elif space == "RGB " and cls in ("mntr", "scnr", "spac") and not luts and all(
            t in tags for t in ("rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC")):
        kind, note = "matrix", ""
    elif space == "GRAY" and "kTRC" in tags and not luts:
        kind, note = "gray", ""
    elif luts:
        kind, note = "skipped", lut_note + f": {space.strip()} device data not supported"
    else:
        kind, note = "skipped", f"class {cls.strip()} space {space.strip()}: no matrix/TRC or gray TRC tags"
    return cls.strip(), space.strip(), pcs.strip(), version, kind, note


def main():
    os.makedirs(REFS, exist_ok=True)
    srgb = ImageCms.createProfile("sRGB")
    gray_srgb = ImageCms.ImageCmsProfile(io.BytesIO(gray_srgb_profile()))
    grid = bytes(v for r in GRID for g in GRID for b in GRID for v in (r, g, b))
    ramp = bytes(range(256))
    cmyk = bytes(v for c in CMY_LEVELS for m in CMY_LEVELS for y in CMY_LEVELS for k in K_LEVELS for v in (c, m, y, k))
    rows = ["profile\tclass\tspace\tpcs\tversion\tkind\tintent\tinput\toutput\treference\tnote"]
    for name in sorted(os.listdir(PROFILES)):
        if not name.endswith(".icc"):
            continue
        cls, space, pcs, version, kind, note = describe(os.path.join(PROFILES, name))
        stem = name[:-4]
        if kind == "skipped":
            rows.append("\t".join([name, cls, space, pcs, version, kind, "-", "-", "-", "-", note]))
            continue
        profile = ImageCms.ImageCmsProfile(os.path.join(PROFILES, name))
        for intent_name, intent in INTENTS:
            if kind in ("matrix", "lut"):
                jobs = [("grid17", "rgb", "RGB", srgb, "RGB", grid, 17 ** 3)]
            elif kind == "cmyk":
                jobs = [("cmyk864", "rgb", "CMYK", srgb, "RGB", cmyk, len(CMY_LEVELS) ** 3 * len(K_LEVELS))]
            else:
                jobs = [("ramp256", "gray", "L", gray_srgb, "L", ramp, 256),
                        ("ramp256", "gray-rgb", "L", srgb, "RGB", ramp, 256)]
            for input_name, output_name, in_mode, dest, out_mode, data, count in jobs:
                try:
                    transform = ImageCms.buildTransform(profile, dest, in_mode, out_mode,
                                                        renderingIntent=intent, flags=FLAGS)
                except ImageCms.PyCMSError:
                    rows.append("\t".join([name, cls, space, pcs, version, kind, intent_name, input_name,
                                           output_name, "-", "lcms2: no transform"]))
                    continue
                image = Image.frombytes(in_mode, (count, 1), data)
                result = ImageCms.applyTransform(image, transform).tobytes()
                ref = f"{stem}.{intent_name}.{output_name}"
                with open(os.path.join(REFS, ref), "wb") as f:
                    f.write(result)
                rows.append("\t".join([name, cls, space, pcs, version, kind, intent_name, input_name,
                                       output_name, ref, note]))
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(os.path.join(REFS, "gray-srgb-trc.icc"), "wb") as f:
        f.write(gray_srgb_profile())
    print(f"{len(rows) - 1} rows, lcms2 {ImageCms.core.littlecms_version}", file=sys.stderr)


if __name__ == "__main__":
    main()
