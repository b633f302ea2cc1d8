#!/usr/bin/env python3
"""Makes the PNG colour-precedence vectors and their lcms2 references for PureImageTests
(PNGColorPrecedenceTests).

Run from anywhere: python3 Vectors/png-color/make_png_color.py
Needs Pillow with ImageCms (lcms2 2.19 inside) and the system liblcms2 (ctypes; used only to
build source profiles with cmsCreateRGBProfile / cmsCreateGrayProfile, saved to memory and
handed to Pillow's lcms2).

The PNG files are written chunk by chunk here (plain Python, zlib): an RGB image of the
17x17x17 grid (0, 16, ..., 240, 255; pixel (ri*17 + gi)*17 + bi, 17 wide and 289 high) or a
gray ramp 0...255 (256x1), with the colour chunks each case names. The reference `<name>.ref`
holds the raw 8-bit pixels (RGB or gray) a browser-like reader shows: the colour space that
wins by the PNG third edition's order (cICP > iCCP > sRGB > cHRM/gAMA; gAMA alone with sRGB
primaries and D65) converted by lcms2 to its built-in sRGB (gray: to a gray profile with the
sRGB curve), relative colorimetric, flags NOOPTIMIZE | HIGHRESPRECALC (float pipeline). Where
the result is sRGB itself the reference is the input. manifest.tsv lists name, kind,
expected winner and whether a warning is expected.
"""
import ctypes
import io
import os
import struct
import zlib

from PIL import Image, ImageCms

HERE = os.path.dirname(os.path.abspath(__file__))
ICC = os.path.join(HERE, "..", "icc", "profiles")
GRID = [min(16 * i, 255) for i in range(17)]
FLAGS = ImageCms.Flags.NOOPTIMIZE | ImageCms.Flags.HIGHRESPRECALC
RELATIVE = ImageCms.Intent.RELATIVE_COLORIMETRIC

ADOBE = [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)]
SRGB = [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
P3 = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
BT2020 = [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]
D65 = (0.3127, 0.3290)
D50 = (0.3457, 0.3585)
SRGB_CURVE = (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
REC709_CURVE = (4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])

# --- lcms2 (system library) to build profiles as cmsCreateRGBProfile does -----------------
lcms = ctypes.CDLL("liblcms2.so.2")
lcms.cmsBuildParametricToneCurve.restype = ctypes.c_void_p
lcms.cmsBuildParametricToneCurve.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
lcms.cmsCreateRGBProfile.restype = ctypes.c_void_p
lcms.cmsCreateRGBProfile.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double),
                                     ctypes.POINTER(ctypes.c_void_p)]
lcms.cmsCreateGrayProfile.restype = ctypes.c_void_p
lcms.cmsCreateGrayProfile.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_void_p]
lcms.cmsSaveProfileToMem.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32)]
lcms.cmsCloseProfile.argtypes = [ctypes.c_void_p]


def curve(kind, params):
    arr = (ctypes.c_double * 10)(*params)
    return lcms.cmsBuildParametricToneCurve(None, kind, arr)


def gamma_curve(g):
    return curve(1, [g])


def saved(profile):
    size = ctypes.c_uint32(0)
    lcms.cmsSaveProfileToMem(profile, None, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    assert lcms.cmsSaveProfileToMem(profile, buf, ctypes.byref(size))
    lcms.cmsCloseProfile(profile)
    return buf.raw


def rgb_profile(primaries, white, trc):
    """cmsCreateRGBProfile: white (x, y, Y=1), primaries (Y=1), the same curve on R, G, B."""
    wp = (ctypes.c_double * 3)(white[0], white[1], 1.0)
    pr = (ctypes.c_double * 9)(*[v for p in primaries for v in (p[0], p[1], 1.0)])
    curves = (ctypes.c_void_p * 3)(trc, trc, trc)
    return saved(lcms.cmsCreateRGBProfile(wp, pr, curves))


def gray_profile(trc):
    wp = (ctypes.c_double * 3)(D50[0], D50[1], 1.0)
    return saved(lcms.cmsCreateGrayProfile(wp, trc))


# --- PNG writing -----------------------------------------------------------------------------
def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def fixed(v):
    return struct.pack(">I", int(round(v * 100000)))


def gAMA(g):
    return chunk(b"gAMA", fixed(g))


def cHRM(primaries, white):
    return chunk(b"cHRM", b"".join(fixed(v) for p in [white] + primaries for v in p))


def sRGB():
    return chunk(b"sRGB", bytes([0]))


def iCCP(profile, name=b"icc"):
    return chunk(b"iCCP", name + b"\0\0" + zlib.compress(profile))


def cICP(primaries, transfer):
    return chunk(b"cICP", bytes([primaries, transfer, 0, 1]))


def png(width, height, color_type, pixels, chunks):
    channels = 3 if color_type == 2 else 1
    raw = b"".join(b"\0" + pixels[y * width * channels:(y + 1) * width * channels] for y in range(height))
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0))
    out += b"".join(chunks) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return out


RGB_PIXELS = bytes(v for r in GRID for g in GRID for b in GRID for v in (r, g, b))
GRAY_PIXELS = bytes(range(256))


def reference(pixels, gray, source):
    """lcms2 (Pillow) from `source` (profile bytes; None: the input is sRGB already)."""
    if source is None:
        return pixels
    mode = "L" if gray else "RGB"
    image = Image.frombytes(mode, (256, 1) if gray else (17, 289), pixels)
    src = ImageCms.ImageCmsProfile(io.BytesIO(source))
    dst = ImageCms.ImageCmsProfile(io.BytesIO(gray_profile(curve(*SRGB_CURVE)))) if gray else ImageCms.createProfile("sRGB")
    transform = ImageCms.buildTransform(src, dst, mode, mode, renderingIntent=RELATIVE, flags=FLAGS)
    return ImageCms.applyTransform(image, transform).tobytes()


def icc_file(name):
    return open(os.path.join(ICC, name), "rb").read()


PROPHOTO = icc_file("ProPhotoRGB.icc")
GRAY_ICC = icc_file("Gray.icc")

# name, gray?, chunks, winning source profile (None = sRGB), winner, warning expected
CASES = [
    ("chrm-gama", False, [cHRM(ADOBE, D65), gAMA(0.55556)],
     rgb_profile(ADOBE, D65, gamma_curve(1 / 0.55556)), "cHRM+gAMA", 0),
    ("chrm-d50-gama", False, [cHRM(SRGB, D50), gAMA(0.45455)],
     rgb_profile(SRGB, D50, gamma_curve(1 / 0.45455)), "cHRM+gAMA", 0),
    ("gama-only", False, [gAMA(0.55556)], rgb_profile(SRGB, D65, gamma_curve(1 / 0.55556)), "gAMA", 0),
    ("srgb-gama-chrm", False, [sRGB(), gAMA(0.55556), cHRM(ADOBE, D65)], None, "sRGB", 0),
    ("iccp-chrm-gama", False, [iCCP(PROPHOTO), cHRM(ADOBE, D65), gAMA(0.55556)], PROPHOTO, "iCCP", 0),
    ("gray-iccp-on-rgb", False, [iCCP(GRAY_ICC), gAMA(0.55556)],
     rgb_profile(SRGB, D65, gamma_curve(1 / 0.55556)), "gAMA", 1),
    ("cicp-p3-iccp", False, [cICP(12, 13), iCCP(PROPHOTO)], rgb_profile(P3, D65, curve(*SRGB_CURVE)), "cICP", 0),
    ("cicp-2020-linear", False, [cICP(9, 8)], rgb_profile(BT2020, D65, gamma_curve(1.0)), "cICP", 0),
    ("cicp-709", False, [cICP(1, 1)], rgb_profile(SRGB, D65, curve(*REC709_CURVE)), "cICP", 0),
    ("cicp-pq", False, [cICP(9, 16)], None, "sRGB", 1),
    ("gray-gama", True, [gAMA(0.55556)], gray_profile(gamma_curve(1 / 0.55556)), "gAMA", 0),
]

manifest = ["# name\tkind\twinner\twarning"]
for name, gray, chunks, source, winner, warning in CASES:
    pixels = GRAY_PIXELS if gray else RGB_PIXELS
    data = png(256, 1, 0, pixels, chunks) if gray else png(17, 289, 2, pixels, chunks)
    open(os.path.join(HERE, name + ".png"), "wb").write(data)
    open(os.path.join(HERE, name + ".ref"), "wb").write(reference(pixels, gray, source))
    manifest.append(f"{name}\t{'gray' if gray else 'rgb'}\t{winner}\t{warning}")
open(os.path.join(HERE, "manifest.tsv"), "w").write("\n".join(manifest) + "\n")
print("\n".join(manifest))
