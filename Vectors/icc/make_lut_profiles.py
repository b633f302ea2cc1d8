#!/usr/bin/env python3
"""Writes the synthetic LUT-based profiles in Vectors/icc/profiles/synth-*.icc.

Run from anywhere: python3 Vectors/icc/make_lut_profiles.py (plain Python 3, no packages).
Each profile exercises one LUT layout PureColor reads; the colours come from simple models
(an RGB working space, a subtractive CMYK with dot gain) computed here:

  synth-rgb-mAB-xyz.icc    v4 RGB, A2B0 mAB: A curves (para gamma 2.2, curv table, curv gamma),
                           17^3 16-bit CLUT, M curves (para), matrix + offset, B curves; PCS XYZ.
  synth-rgb-mAB-lab8.icc   v4 RGB, A2B0 mAB: A curves, 9^3 8-bit CLUT (precision 1), PCS Lab.
  synth-rgb-mft2-lab.icc   v2 RGB, A2B0 mft2 (legacy 16-bit Lab, 0xFF00 = 100), 1024-entry tables.
  synth-rgb-mft1-lab.icc   v2 RGB, A2B0 mft1 (8-bit), PCS Lab.
  synth-rgb-A2B1-only.icc  v4 RGB with only A2B1 (mAB, XYZ): lcms2 fails perceptual (no A2B0,
                           no colorants) and uses A2B1 for relative colorimetric.
  synth-cmyk-mAB-lab16.icc v4 CMYK, A2B0 + A2B1 mAB: A curves, 9^4 16-bit CLUT, M curves,
                           matrix, B curves; PCS Lab (perceptual differs: forced black-point
                           compensation in lcms2).
  synth-cmyk-mAB-xyz8.icc  v4 CMYK, A2B0 mAB: 7^4 8-bit CLUT only; PCS XYZ.
  synth-cmyk-mft1-lab.icc  v2 CMYK, A2B0 mft1, 9^4, PCS Lab.
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "profiles")
D50 = (0.9642, 1.0, 0.8249)
# Adobe-RGB-like primaries adapted to D50 (rows: X, Y, Z of R, G, B columns).
RGB_TO_XYZ = [[0.6097, 0.2053, 0.1492], [0.3111, 0.6257, 0.0632], [0.0195, 0.0609, 0.7446]]


def s15(v):
    return struct.pack(">i", int(round(v * 65536)))


def pad(b):
    return b + b"\0" * (-len(b) % 4)


def lab(xyz):
    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = (f(xyz[i] / D50[i]) for i in range(3))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def mul(m, v):
    return [sum(m[r][c] * v[c] for c in range(3)) for r in range(3)]


def clamp(v, lo=0.0, hi=1.0):
    return min(max(v, lo), hi)


# Colour models: device values in [0, 1] -> XYZ (D50).
def rgb_model(r, g, b):
    lin = [clamp(x) ** 2.2 for x in (r, g, b)]
    # A little cross-talk so the CLUT is not a pure matrix.
    lin = [lin[0] * 0.96 + 0.04 * lin[1] * lin[2], lin[1], lin[2] * 0.97 + 0.03 * lin[0]]
    return mul(RGB_TO_XYZ, lin)


def cmyk_model(c, m, y, k):
    gain = lambda t: t + 0.15 * t * (1 - t)  # dot gain
    c, m, y, k = (gain(t) for t in (c, m, y, k))
    r, g, b = ((1 - c * 0.95) * (1 - 0.08 * m), (1 - m * 0.93) * (1 - 0.1 * y), (1 - y * 0.9) * (1 - 0.05 * c))
    black = 1 - 0.92 * k
    lin = [max(0.02, x * black) ** 1.8 for x in (r, g, b)]
    return mul(RGB_TO_XYZ, lin)


def encode_pcs(xyz, pcs, legacy=False):
    """Normalised [0, 1] PCS values as a LUT's outputs encode them."""
    if pcs == "XYZ ":
        return [clamp(v / (65535 / 32768)) for v in xyz]
    L, a, b = lab(xyz)
    v = [L / 100, (a + 128) / 255, (b + 128) / 255]
    if legacy:
        v = [x * 65280 / 65535 for x in v]
    return [clamp(x) for x in v]


def grid_values(points, inputs, model, pcs, legacy=False, pre=None):
    """CLUT values (first input slowest) at the nodes, after the inverse of the input curves `pre`."""
    out = []
    for n in range(points ** inputs):
        idx, rest = [], n
        for _ in range(inputs):
            idx.append(rest % points)
            rest //= points
        node = [i / (points - 1) for i in reversed(idx)]
        device = [pre(x) for x in node] if pre else node
        out.extend(encode_pcs(model(*device), pcs, legacy))
    return out


def curv_table(fn, n):
    return b"curv" + b"\0" * 4 + struct.pack(">I", n) + b"".join(
        struct.pack(">H", int(round(clamp(fn(i / (n - 1))) * 65535))) for i in range(n))


def curv_gamma(g):
    return b"curv" + b"\0" * 4 + struct.pack(">IH", 1, int(round(g * 256)))


def para(kind, params):
    return b"para" + b"\0" * 4 + struct.pack(">HH", kind, 0) + b"".join(s15(p) for p in params)


def mab(inputs, a_curves, clut, m_curves=None, matrix=None, b_curves=None, tag=b"mAB "):
    """clut: (grid points, precision, values in [0, 1]) or None."""
    body = b""
    offsets = {}
    header_len = 32

    def place(name, data):
        nonlocal body
        offsets[name] = header_len + len(body)
        body += pad(data)
    if b_curves:
        place("B", b"".join(pad(c) for c in b_curves))
    if matrix:
        m, off = matrix
        place("matrix", b"".join(s15(v) for row in m for v in row) + b"".join(s15(v) for v in off))
    if m_curves:
        place("M", b"".join(pad(c) for c in m_curves))
    if clut:
        points, precision, values = clut
        grid = bytes([points] * inputs + [0] * (16 - inputs))
        data = b"".join(struct.pack(">H", int(round(v * 65535))) if precision == 2 else bytes([int(round(v * 255))])
                        for v in values)
        place("CLUT", grid + bytes([precision, 0, 0, 0]) + data)
    if a_curves:
        place("A", b"".join(pad(c) for c in a_curves))
    head = tag + b"\0" * 4 + bytes([inputs, 3, 0, 0])
    for name in ("B", "matrix", "M", "CLUT", "A"):
        head += struct.pack(">I", offsets.get(name, 0))
    return head + body


def mft(inputs, points, values, sixteen, in_fn=lambda x: x, out_fn=lambda x: x, entries=1024):
    n_in = entries if sixteen else 256
    head = (b"mft2" if sixteen else b"mft1") + b"\0" * 4 + bytes([inputs, 3, points, 0])
    head += b"".join(s15(1.0 if r == c else 0.0) for r in range(3) for c in range(3))
    if sixteen:
        head += struct.pack(">HH", n_in, n_in)

    def val(v):
        return struct.pack(">H", int(round(clamp(v) * 65535))) if sixteen else bytes([int(round(clamp(v) * 255))])
    tables = b"".join(val(in_fn(i / (n_in - 1))) for _ in range(inputs) for i in range(n_in))
    data = b"".join(val(v) for v in values)
    outs = b"".join(val(out_fn(i / (n_in - 1))) for _ in range(3) for i in range(n_in))
    return head + tables + data + outs


def mluc(text):
    t = text.encode("utf-16-be")
    return pad(b"mluc" + b"\0" * 4 + struct.pack(">II", 1, 12) + b"enUS" + struct.pack(">II", len(t), 28) + t)


def desc_v2(text):
    t = text.encode("ascii") + b"\0"
    return pad(b"desc" + b"\0" * 4 + struct.pack(">I", len(t)) + t + b"\0" * 12 + b"\0" * 67)


def profile(version, cls, space, pcs, tags):
    v4 = version >= 4
    name = tags.pop("name")
    entries = [(b"desc", mluc(name) if v4 else desc_v2(name)),
               (b"cprt", mluc("CC0 (PureColor test profile)") if v4 else b"text" + b"\0" * 4 + b"CC0\0"),
               (b"wtpt", b"XYZ " + b"\0" * 4 + b"".join(s15(v) for v in D50))]
    entries += [(k.encode(), v) for k, v in tags.items()]
    offset = 128 + 4 + 12 * len(entries)
    table, data = b"", b""
    for sig, body in entries:
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += pad(body)
    size = offset + len(data)
    header = struct.pack(">I", size) + b"\0" * 4 + bytes([version, 0x30 if v4 else 0x10, 0, 0]) + cls + space + pcs
    header += b"\0" * 12 + b"acsp" + b"\0" * 4 + b"\0" * 4 + b"\0" * 8 + b"\0" * 8 + struct.pack(">I", 0)
    header += b"".join(s15(v) for v in D50) + b"\0" * 4
    header += b"\0" * (128 - len(header))
    return header + struct.pack(">I", len(entries)) + table + data


def main():
    gamma = lambda x: x ** (1 / 2.2)  # inverse of the A curves' gamma 2.2: CLUT nodes sit on linear light
    files = {}
    # RGB mAB, XYZ: A = (para gamma 2.2, table of x^2.2, curv gamma 2.2); CLUT over linear values;
    # M = para type 0 gamma 1.0 (identity), matrix scales by 0.9 plus offset, B = para gamma 1.
    a = [para(0, [2.2]), curv_table(lambda x: x ** 2.2, 256), curv_gamma(2.2)]
    values = grid_values(17, 3, rgb_model, "XYZ ", pre=lambda x: x ** (1 / 2.2))
    values = [v / 0.9 - 0.01 for v in values]
    files["synth-rgb-mAB-xyz.icc"] = profile(4, b"mntr", b"RGB ", b"XYZ ", {
        "name": "PureColor synthetic RGB mAB XYZ", "A2B0": mab(3, a, (17, 2, [clamp(v) for v in values]),
        m_curves=[para(0, [1.0])] * 3, matrix=([[0.9, 0, 0], [0, 0.9, 0], [0, 0, 0.9]], [0.009, 0.009, 0.009]),
        b_curves=[para(0, [1.0])] * 3)})
    values = grid_values(9, 3, rgb_model, "Lab ", pre=lambda x: x ** (1 / 2.2))
    files["synth-rgb-mAB-lab8.icc"] = profile(4, b"mntr", b"RGB ", b"Lab ", {
        "name": "PureColor synthetic RGB mAB Lab 8-bit",
        "A2B0": mab(3, [para(3, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])] * 3, (9, 1, values),
                    b_curves=[curv_table(lambda x: x, 2)] * 3)})
    values = grid_values(17, 3, rgb_model, "Lab ", legacy=True, pre=lambda x: x ** (1 / 2.2))
    files["synth-rgb-mft2-lab.icc"] = profile(2, b"mntr", b"RGB ", b"Lab ", {
        "name": "PureColor synthetic RGB mft2 Lab", "A2B0": mft(3, 17, values, True, in_fn=lambda x: x ** 2.2)})
    values = grid_values(17, 3, rgb_model, "Lab ", pre=lambda x: x ** (1 / 2.2))
    files["synth-rgb-mft1-lab.icc"] = profile(2, b"mntr", b"RGB ", b"Lab ", {
        "name": "PureColor synthetic RGB mft1 Lab", "A2B0": mft(3, 17, values, False, in_fn=lambda x: x ** 2.2)})
    values = grid_values(17, 3, rgb_model, "XYZ ")
    files["synth-rgb-A2B1-only.icc"] = profile(4, b"mntr", b"RGB ", b"XYZ ", {
        "name": "PureColor synthetic RGB with A2B1 only", "A2B1": mab(3, [para(0, [1.0])] * 3, (17, 2, values))})
    # CMYK mAB, Lab, 16-bit: A curves = dot-gain-free identity tables, M curves gamma 1, matrix identity.
    values = grid_values(9, 4, cmyk_model, "Lab ")
    cmyk_lab = mab(4, [curv_table(lambda x: x, 256)] * 4, (9, 2, values), m_curves=[para(0, [1.0])] * 3,
                   matrix=([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0]), b_curves=[curv_gamma(1.0)] * 3)
    files["synth-cmyk-mAB-lab16.icc"] = profile(4, b"prtr", b"CMYK", b"Lab ", {
        "name": "PureColor synthetic CMYK mAB Lab 16-bit", "A2B0": cmyk_lab, "A2B1": cmyk_lab})
    values = grid_values(7, 4, cmyk_model, "XYZ ")
    files["synth-cmyk-mAB-xyz8.icc"] = profile(4, b"prtr", b"CMYK", b"XYZ ", {
        "name": "PureColor synthetic CMYK mAB XYZ 8-bit", "A2B0": mab(4, None, (7, 1, values))})
    values = grid_values(9, 4, cmyk_model, "Lab ")
    files["synth-cmyk-mft1-lab.icc"] = profile(2, b"prtr", b"CMYK", b"Lab ", {
        "name": "PureColor synthetic CMYK mft1 Lab", "A2B0": mft(4, 9, values, False)})
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        print(name, len(data))


if __name__ == "__main__":
    main()
