#!/usr/bin/env python3
"""Writes the colour-managed thumbnail vectors in Vectors/color-photos/.

Run: python3 Vectors/color-photos/make_photos.py (Pillow 13 with lcms2 2.19 made the committed
files). Which tool made what:

  DisplayP3.icc       written here (plain Python): ICC v4 matrix/TRC, Display P3 primaries and
                      D65 white adapted to D50 with Bradford, the sRGB curve as `para` type 3.
  photo-*.jpg         Pillow (libjpeg-turbo): a smooth synthetic 640x480 "photo" (gradients and
                      blurred saturated discs), quality 92, EXIF Orientation 6 with a GPS IFD,
                      the profile embedded (APP2 ICC_PROFILE):
                        photo-adobergb.jpg  AdobeRGB1998.icc (the RGB values tagged as they are)
                        photo-prophoto.jpg  ProPhotoRGB.icc
                        photo-p3.jpg        DisplayP3.icc
                        photo-cmyk.jpg      default_cmyk.icc (Ghostscript): the picture taken as
                                            sRGB and converted to CMYK with lcms2 (perceptual),
                                            written by Pillow as an Adobe (inverted) CMYK JPEG.
  photo-*.ref.png     the reference thumbnail, 120x160: Pillow decodes the JPEG, turns it
                      upright (exif_transpose), reduces it with Image.LANCZOS (CMYK as four
                      channels), then lcms2 converts it to its built-in sRGB, perceptual intent,
                      float precision (NOOPTIMIZE | HIGHRESPRECALC).

The test (`jpng thumbnail --size 160`) must come within 1.5 mean code values of the reference.
"""
import io
import math
import os
import struct

from PIL import Image, ImageCms, ImageDraw, ImageFilter, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILES = os.path.join(HERE, "..", "icc", "profiles")
FLAGS = ImageCms.Flags.NOOPTIMIZE | ImageCms.Flags.HIGHRESPRECALC
SIZE = (640, 480)
THUMB = 160


def s15(v):
    return struct.pack(">i", int(round(v * 65536)))


def mat_mul(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(3)) for c in range(3)] for r in range(3)]


def mat_inv(m):
    a, b, c = m[0]
    d, e, f = m[1]
    g, h, i = m[2]
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


def rgb_to_xyz(primaries, white):
    cols = [[x / y, 1.0, (1 - x - y) / y] for x, y in primaries]
    m = [[cols[c][r] for c in range(3)] for r in range(3)]
    w = [white[0] / white[1], 1.0, (1 - white[0] - white[1]) / white[1]]
    s = [sum(mat_inv(m)[r][k] * w[k] for k in range(3)) for r in range(3)]
    return [[m[r][c] * s[c] for c in range(3)] for r in range(3)]


def bradford(src_white_xyz, dst_white_xyz):
    cone = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
    s = [sum(cone[r][k] * src_white_xyz[k] for k in range(3)) for r in range(3)]
    d = [sum(cone[r][k] * dst_white_xyz[k] for k in range(3)) for r in range(3)]
    diag = [[d[0] / s[0], 0, 0], [0, d[1] / s[1], 0], [0, 0, d[2] / s[2]]]
    return mat_mul(mat_inv(cone), mat_mul(diag, cone))


def display_p3_profile():
    d65 = (0.3127, 0.3290)
    m = rgb_to_xyz([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], d65)
    d50 = [0.9642, 1.0, 0.8249]
    adapt = bradford([d65[0] / d65[1], 1.0, (1 - d65[0] - d65[1]) / d65[1]], d50)
    m50 = mat_mul(adapt, m)

    def xyz(v):
        return b"XYZ \0\0\0\0" + b"".join(s15(x) for x in v)

    def mluc(text):
        u = text.encode("utf-16-be")
        return b"mluc\0\0\0\0" + struct.pack(">II", 1, 12) + b"enUS" + struct.pack(">II", len(u), 28) + u

    para = b"para\0\0\0\0" + struct.pack(">HH", 3, 0) + b"".join(
        s15(v) for v in (2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045))
    tags = [(b"desc", mluc("Display P3 (PureImage test)")), (b"cprt", mluc("CC0")),
            (b"wtpt", xyz(d50)),
            (b"rXYZ", xyz([m50[r][0] for r in range(3)])), (b"gXYZ", xyz([m50[r][1] for r in range(3)])),
            (b"bXYZ", xyz([m50[r][2] for r in range(3)])),
            (b"rTRC", para), (b"gTRC", para), (b"bTRC", para)]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for sig, body in tags:
        body += b"\0" * (-len(body) % 4)
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = struct.pack(">I", size) + b"\0\0\0\0" + bytes([4, 0x30, 0, 0]) + b"mntrRGB XYZ "
    header += b"\0" * 12 + b"acsp" + b"\0" * 24 + s15(0.9642) + s15(1.0) + s15(0.8249)
    header += b"\0" * (128 - len(header))
    return header + struct.pack(">I", len(tags)) + table + data


def picture():
    w, h = SIZE
    img = Image.new("RGB", SIZE)
    px = img.load()
    for y in range(h):
        for x in range(w):
            r = 30 + 200 * x / (w - 1)
            g = 40 + 170 * y / (h - 1)
            b = 128 + 100 * math.sin(x / 90.0) * math.cos(y / 70.0)
            px[x, y] = (int(r), int(g), int(b))
    discs = Image.new("RGB", SIZE)
    mask = Image.new("L", SIZE)
    draw, mdraw = ImageDraw.Draw(discs), ImageDraw.Draw(mask)
    for (cx, cy, rad, colour) in [(140, 120, 70, (250, 20, 30)), (330, 300, 90, (20, 230, 40)),
                                  (520, 140, 80, (30, 40, 245)), (480, 380, 60, (250, 220, 10)),
                                  (200, 380, 55, (240, 30, 220))]:
        draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=colour)
        mdraw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=255)
    discs = discs.filter(ImageFilter.GaussianBlur(6))
    mask = mask.filter(ImageFilter.GaussianBlur(6))
    return Image.composite(discs, img, mask)


def exif():
    e = Image.Exif()
    e[0x0112] = 6
    e[0x8825] = {1: "N", 2: (48.0, 51.0, 30.0), 3: "E", 4: (2.0, 17.0, 40.0)}
    return e.tobytes()


def reference(path, icc):
    with Image.open(path) as im:
        im.load()
        up = ImageOps.exif_transpose(im)
    w, h = up.size
    scale = THUMB / max(w, h)
    small = up.resize((round(w * scale), round(h * scale)), Image.LANCZOS)
    source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    out = ImageCms.profileToProfile(small, source, ImageCms.createProfile("sRGB"), renderingIntent=0,
                                    outputMode="RGB", flags=FLAGS)
    out.save(path.replace(".jpg", ".ref.png"))


def main():
    p3 = display_p3_profile()
    with open(os.path.join(HERE, "DisplayP3.icc"), "wb") as f:
        f.write(p3)

    def profile(name):
        with open(os.path.join(PROFILES, name), "rb") as f:
            return f.read()

    rgb = picture()
    for name, icc in [("adobergb", profile("AdobeRGB1998.icc")), ("prophoto", profile("ProPhotoRGB.icc")), ("p3", p3)]:
        path = os.path.join(HERE, f"photo-{name}.jpg")
        rgb.save(path, quality=92, icc_profile=icc, exif=exif())
        reference(path, icc)
    cmyk_icc = profile("default_cmyk.icc")
    cmyk = ImageCms.profileToProfile(rgb, ImageCms.createProfile("sRGB"), ImageCms.ImageCmsProfile(io.BytesIO(cmyk_icc)),
                                     renderingIntent=0, outputMode="CMYK")
    path = os.path.join(HERE, "photo-cmyk.jpg")
    cmyk.save(path, quality=92, icc_profile=cmyk_icc, exif=exif())
    reference(path, cmyk_icc)


if __name__ == "__main__":
    main()
