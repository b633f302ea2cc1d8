#!/usr/bin/env python3
"""APNG test vectors for PureImage (issue 17): writes every *.png here and expected.json.

Run:  python3 Vectors/apng/make_vectors.py          (needs numpy and Pillow; the tool-made
      files need apngasm 2.91, ffmpeg 5.1 and apngopt 1.4, the cross-checks apngdis 2.9:
      `apt-get install -y apngasm apngdis apngopt ffmpeg`)
      --no-tools   keeps the committed tool-made files (apngasm_*, ffmpeg_*, apngopt_*) as
                   they are instead of remaking them, and skips the cross-checks.

Which tool made each file (the `tool` field of expected.json says the same):
  * apngasm_*.png   apngasm 2.91, from PNG frames this script writes with Pillow;
  * ffmpeg_*.png    ffmpeg 5.1 `-f apng` (from a GIF Pillow writes, or from PNG frames);
  * apngopt_*.png   apngopt 1.4, optimizing an APNG this script writes;
  * every other file: this script's own writer (apnglib.py: zlib + crc32, filters cycled per
    row, Adam7, fcTL/fdAT sequence numbers, IDAT/fdAT splitting), from fixed seeds.

The expected values are computed from the bytes of each file by apnglib.analyze (strict chunk
checks, own inflate/unfilter/unpack) and apnglib.composite (the compositing rules of
README.md); for the hand-built files the decoded frames are also compared with the samples
the writer was given. Then every valid file is decoded by apngdis, ffmpeg and Pillow and each
composited frame compared with the reference; the summary printed at the end gives the
agreement counts per tool and the explanation of each disagreement: a model of that tool's
behaviour, taken from its source, that reproduces its output exactly (for ffmpeg's sub-byte
offset bug: except the pixels it reads from stale buffer bytes).

Deterministic: fixed seeds, zlib level 9. (A different zlib or tool version may give other
bytes with the same pixels; expected.json is always recomputed from the bytes written.)
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import warnings
import zlib

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ next to the vectors
sys.path.insert(0, HERE)
from apnglib import (BLEND_OVER, BLEND_SOURCE, DISPOSE_BACKGROUND, DISPOSE_NONE,  # noqa: E402
                     DISPOSE_PREVIOUS, Frame, analyze, build_apng, composite, compress, crc_rgba16,
                     fctl, hexcrc, ihdr, over, over_ffmpeg, pack_rows, serialize, to_rgba)

N, B, P = DISPOSE_NONE, DISPOSE_BACKGROUND, DISPOSE_PREVIOUS
S, O = BLEND_SOURCE, BLEND_OVER
DISPOSE_NAMES = {N: "none", B: "background", P: "previous"}
BLEND_NAMES = {S: "source", O: "over"}

VECTORS = []  # (name, tool, description, maker, intended strict error or None)


def vector(name, tool, desc, error=None):
    def deco(fn):
        VECTORS.append((name, tool, desc, fn, error))
        return fn
    return deco


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


# ----------------------------------------------------------------------------- pixel content

def rand_alpha(rng, shape, maxv, p0=0.2, p1=0.35):
    r = rng.random(shape)
    part = rng.integers(1, maxv, shape)
    return np.where(r < p0, 0, np.where(r < p0 + p1, maxv, part))


def rgba_img(rng, h, w, maxv, zero_transparent=False, p0=0.2, p1=0.35):
    a = np.zeros((h, w, 4), dtype=np.int64)
    a[..., :3] = rng.integers(0, maxv + 1, (h, w, 3))
    a[..., 3] = rand_alpha(rng, (h, w), maxv, p0, p1)
    if zero_transparent:
        a[a[..., 3] == 0] = 0
    return a


class Spec:
    """Colour type, depth and the chunks that go with it, plus a sample generator."""

    def __init__(self, ct, bd, plte=None, trns=None, key=None, near=()):
        if plte is not None:
            plte = bytes(np.asarray(plte, dtype=np.uint8).reshape(-1))
        self.ct, self.bd, self.plte, self.trns = ct, bd, plte, trns
        self.key, self.near = key, list(near)

    def samples(self, rng, h, w, first=False):
        ct, bd = self.ct, self.bd
        m = (1 << bd) - 1
        if ct == 0:
            g = rng.integers(0, m + 1, (h, w))
            if self.key is not None:
                pool = np.array([self.key] * 3 + self.near)
                pick = rng.random((h, w))
                g = np.where(pick < 0.45, pool[rng.integers(0, len(pool), (h, w))], g)
            return g[..., None]
        if ct == 2:
            c = rng.integers(0, m + 1, (h, w, 3))
            if self.key is not None:
                pool = np.array([self.key] * 3 + self.near)
                pick = rng.random((h, w))
                c = np.where((pick < 0.45)[..., None], pool[rng.integers(0, len(pool), (h, w))], c)
            return c
        if ct == 3:
            n = len(self.plte) // 3
            return rng.integers(0, n, (h, w))[..., None]
        if ct == 4:
            out = np.zeros((h, w, 2), dtype=np.int64)
            out[..., 0] = rng.integers(0, m + 1, (h, w))
            out[..., 1] = rand_alpha(rng, (h, w), m)
            if first:
                out[out[..., 1] == 0] = 0
            return out
        return rgba_img(rng, h, w, m, zero_transparent=first)


def make_frames(rng, spec, layout):
    """layout: list of (w, h, x, y, dispose, blend[, delay_num, delay_den])."""
    frames = []
    for i, t in enumerate(layout):
        w, h, x, y, dop, bop = t[:6]
        dn, dd = (t[6], t[7]) if len(t) > 6 else (1 + i % 3, 10)
        # frame 0 drawn with OVER: transparent pixels get colour 0 so that apngdis (which draws
        # the first frame with SOURCE) agrees; every other frame keeps random colours under alpha 0
        frames.append(Frame(spec.samples(rng, h, w, first=(i == 0 and bop == O)), x, y, dn, dd, dop, bop))
    return frames


def build(spec, W, H, frames, **kw):
    trns = spec.trns
    plte = spec.plte
    return serialize(build_apng(W, H, spec.ct, spec.bd, frames, plte=plte, trns=trns, **kw))


# ----------------------------------------------------------------------------- hand-built vectors

# every dispose x blend pair, RGBA 8 and 16
for _bd in (8, 16):
    for _d in (N, B, P):
        for _b in (S, O):
            _name = f"dispose_{DISPOSE_NAMES[_d]}_blend_{BLEND_NAMES[_b]}_rgba{_bd}"

            def _mk(name=_name, d=_d, b=_b, bd=_bd):
                rng = rng_for(name)
                spec = Spec(6, bd)
                layout = [(16, 16, 0, 0, N, S), (8, 6, 2, 3, d, b), (7, 7, 6, 5, d, b),
                          (5, 4, 9, 10, d, b), (6, 5, 4, 4, d, b)]
                fr = make_frames(rng, spec, layout)
                return build(spec, 16, 16, fr), fr
            vector(_name, "make_vectors.py",
                   f"16x16 RGBA {_bd}-bit, 5 frames: a full frame with partial alpha (SOURCE, dispose NONE), "
                   f"then 4 overlapping partial frames with partial alpha, each dispose "
                   f"{DISPOSE_NAMES[_d].upper()} and blend {BLEND_NAMES[_b].upper()}")(_mk)


@vector("dispose_previous_first_frame_rgba8", "make_vectors.py",
        "12x12 RGBA8, IDAT not part of the animation; frame 0 is 8x8 at 2,2 with dispose PREVIOUS "
        "(acts as BACKGROUND: its rectangle is cleared), then OVER frames on the cleared area")
def _():
    rng = rng_for("dispose_previous_first_frame_rgba8")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(8, 8, 2, 2, P, S), (6, 6, 4, 4, N, O), (12, 12, 0, 0, N, O)])
    default = rgba_img(rng, 12, 12, 255)
    return build(spec, 12, 12, fr, default=default), fr


@vector("dispose_previous_first_frame_default_rgba8", "make_vectors.py",
        "10x10 RGBA8, the IDAT image is frame 0 with dispose PREVIOUS (acts as BACKGROUND: the whole "
        "canvas is cleared before frame 1)")
def _():
    rng = rng_for("dispose_previous_first_frame_default_rgba8")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(10, 10, 0, 0, P, S), (5, 6, 3, 2, N, O), (4, 4, 0, 6, P, O)])
    return build(spec, 10, 10, fr), fr


@vector("dispose_background_last_frame_rgba8", "make_vectors.py",
        "10x10 RGBA8, the last frame has dispose BACKGROUND (its crc is taken before the dispose applies)")
def _():
    rng = rng_for("dispose_background_last_frame_rgba8")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(10, 10, 0, 0, N, S), (6, 5, 2, 2, N, O), (5, 5, 5, 5, B, S)])
    return build(spec, 10, 10, fr), fr


# colour types and depths: 13x11 canvas, 5 frames
CT_LAYOUT = [(13, 11, 0, 0, N, S), (5, 4, 3, 2, N, O), (6, 5, 7, 6, B, S), (4, 7, 1, 3, P, O),
             (3, 3, 9, 1, N, O), (13, 11, 0, 0, B, O)]


def trns_gray(v):
    return struct.pack(">H", v)


def trns_rgb(r, g, b):
    return struct.pack(">HHH", r, g, b)


def palette(rng, n):
    return rng.integers(0, 256, (n, 3))


def ct_vector(name, desc, spec_fn, interlace=0, layout=CT_LAYOUT, W=13, H=11):
    @vector(name, "make_vectors.py", desc)
    def _():
        rng = rng_for(name)
        spec = spec_fn(rng)
        fr = make_frames(rng, spec, layout)
        return build(spec, W, H, fr, interlace=interlace), fr


for _bd in (1, 2, 4, 8, 16):
    ct_vector(f"gray{_bd}", f"gray {_bd}-bit, 13x11, 6 frames (offsets, all dispose ops, OVER = copy "
              f"without alpha)", lambda rng, bd=_bd: Spec(0, bd))
ct_vector("gray1_trns", "gray 1-bit with tRNS key 1 (white pixels transparent), 6 frames",
          lambda rng: Spec(0, 1, trns=trns_gray(1), key=1))
ct_vector("gray2_trns", "gray 2-bit with tRNS key 2, 6 frames",
          lambda rng: Spec(0, 2, trns=trns_gray(2), key=2, near=[1, 3]))
ct_vector("gray4_trns", "gray 4-bit with tRNS key 9, 6 frames",
          lambda rng: Spec(0, 4, trns=trns_gray(9), key=9, near=[8, 10]))
ct_vector("gray8_trns", "gray 8-bit with tRNS key 0x40, 6 frames",
          lambda rng: Spec(0, 8, trns=trns_gray(0x40), key=0x40, near=[0x41, 0x3F]))
ct_vector("gray8_trns_highbits", "gray 8-bit, tRNS value 0x0140: only its low 8 bits (0x40) are compared "
          "(W3C PNG 3rd edition), so pixels 0x40 are transparent", lambda rng: Spec(
              0, 8, trns=trns_gray(0x0140), key=0x40, near=[0x41, 0x01]))
ct_vector("gray16_trns", "gray 16-bit with tRNS key 0x1234 (the full 16 bits are compared: 0x1235, "
          "0x1334 and 0x0034 stay opaque)", lambda rng: Spec(
              0, 16, trns=trns_gray(0x1234), key=0x1234, near=[0x1235, 0x1334, 0x0034, 0x3412]))
ct_vector("ga8", "gray+alpha 8-bit with partial alpha, 6 frames", lambda rng: Spec(4, 8))
ct_vector("ga16", "gray+alpha 16-bit with partial alpha, 6 frames", lambda rng: Spec(4, 16))
ct_vector("rgb8", "RGB 8-bit, no tRNS, 6 frames", lambda rng: Spec(2, 8))
ct_vector("rgb8_trns", "RGB 8-bit with tRNS key (10,200,30), near misses stay opaque", lambda rng: Spec(
    2, 8, trns=trns_rgb(10, 200, 30), key=[10, 200, 30], near=[[10, 200, 31], [11, 200, 30]]))
ct_vector("rgb16", "RGB 16-bit, no tRNS, 6 frames", lambda rng: Spec(2, 16))
ct_vector("rgb16_trns", "RGB 16-bit with tRNS key (0x1000,0x2000,0x3000); near misses differing only "
          "in the low byte stay opaque", lambda rng: Spec(
              2, 16, trns=trns_rgb(0x1000, 0x2000, 0x3000), key=[0x1000, 0x2000, 0x3000],
              near=[[0x1001, 0x2000, 0x3000], [0x1000, 0x2000, 0x30FF]]))
ct_vector("rgba8", "RGBA 8-bit with partial alpha, 6 frames", lambda rng: Spec(6, 8))
ct_vector("rgba16", "RGBA 16-bit with partial alpha, 6 frames", lambda rng: Spec(6, 16))
for _bd, _n in ((1, 2), (2, 3), (4, 11), (8, 200)):
    ct_vector(f"pal{_bd}", f"palette {_bd}-bit, {_n}-entry PLTE, no tRNS, 6 frames",
              lambda rng, bd=_bd, n=_n: Spec(3, bd, plte=palette(rng, n)))
    _t = {1: [0, 128], 2: [0, 255, 90], 4: [255, 0, 30, 200, 255, 120, 0, 60], 8: None}[_bd]

    def _pal_trns(rng, bd=_bd, n=_n, t=_t):
        if t is None:  # 8-bit: 150 tRNS entries (shorter than PLTE) with 0, 255 and partial values
            t = list(rng.integers(1, 255, 150))
            t[0], t[1], t[7], t[40] = 0, 255, 0, 255
        return Spec(3, bd, plte=palette(rng, n), trns=bytes(t))
    ct_vector(f"pal{_bd}_trns", f"palette {_bd}-bit, {_n}-entry PLTE with a tRNS of {len(_t) if _t else 150} "
              f"alphas (0, 255 and partial; entries past tRNS are opaque), 6 frames", _pal_trns)

# interlaced frames
IL_LAYOUT = [(17, 13, 0, 0, N, S), (1, 1, 8, 6, N, O), (2, 3, 15, 10, B, O), (5, 9, 3, 2, P, O),
             (9, 2, 0, 11, N, S), (17, 13, 0, 0, N, O), (3, 5, 7, 4, B, O)]
ct_vector("interlaced_rgba8", "Adam7 RGBA 8-bit, 17x13, frames from 1x1 to full (passes empty in the "
          "small ones)", lambda rng: Spec(6, 8), interlace=1, layout=IL_LAYOUT, W=17, H=13)
ct_vector("interlaced_pal4_trns", "Adam7 palette 4-bit with tRNS, 17x13", lambda rng: Spec(
    3, 4, plte=palette(rng, 16), trns=bytes([0, 255, 40, 200, 255, 0, 128])), interlace=1, layout=IL_LAYOUT,
    W=17, H=13)
ct_vector("interlaced_gray2", "Adam7 gray 2-bit, 17x13", lambda rng: Spec(0, 2), interlace=1,
          layout=IL_LAYOUT, W=17, H=13)
ct_vector("interlaced_rgba16", "Adam7 RGBA 16-bit, 17x13", lambda rng: Spec(6, 16), interlace=1,
          layout=IL_LAYOUT, W=17, H=13)


@vector("default_image_is_frame0_rgba8", "make_vectors.py",
        "14x10 RGBA8, fcTL before IDAT: the IDAT image is frame 0 (defaultIsFrame0 true)")
def _():
    rng = rng_for("default_image_is_frame0_rgba8")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(14, 10, 0, 0, N, S), (6, 4, 8, 6, N, O), (3, 3, 0, 0, B, O)])
    return build(spec, 14, 10, fr), fr


@vector("default_image_not_in_animation_rgba8", "make_vectors.py",
        "14x10 RGBA8, fcTL after IDAT: the IDAT image (opaque, different) is only the static fallback; "
        "frame 0 comes from fdAT and is 6x5 at 2,2, so the rest of the canvas stays transparent black")
def _():
    rng = rng_for("default_image_not_in_animation_rgba8")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(6, 5, 2, 2, N, S), (14, 10, 0, 0, N, O), (4, 4, 9, 5, B, S)])
    default = rgba_img(rng, 10, 14, 255, p0=0, p1=1)
    return build(spec, 14, 10, fr, default=default), fr


@vector("default_image_not_in_animation_pal8", "make_vectors.py",
        "14x10 palette 8-bit, fcTL after IDAT; frame 0 covers the canvas")
def _():
    rng = rng_for("default_image_not_in_animation_pal8")
    spec = Spec(3, 8, plte=palette(rng, 40), trns=bytes([0, 128, 255, 64]))
    fr = make_frames(rng, spec, [(14, 10, 0, 0, N, S), (7, 3, 2, 2, B, O), (4, 8, 9, 1, N, O)])
    default = spec.samples(rng, 10, 14)
    return build(spec, 14, 10, fr, default=default), fr


@vector("fdat_split_empty_chunks_rgba8", "make_vectors.py",
        "16x12 RGBA8: IDAT split in 4 chunks (one empty); frame 1's data in 7 fdAT chunks of 1, 0, 5, 0, 0, "
        "3 bytes and the rest; frame 2's one byte per fdAT; frame 3's in one fdAT followed by an empty one")
def _():
    rng = rng_for("fdat_split_empty_chunks_rgba8")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(16, 12, 0, 0, N, S), (6, 5, 3, 3, N, O), (3, 2, 12, 9, B, O),
                                 (8, 8, 4, 2, P, O)])
    z3 = len(compress(fr[3].samples, 8))
    z2 = len(compress(fr[2].samples, 8))
    return build(spec, 16, 12, fr, idat_split=[2, 0, 1], fdat_split={
        1: [1, 0, 5, 0, 0, 3], 2: [1] * z2, 3: [z3, 0]}), fr


@vector("delays_zero_den0_plays3", "make_vectors.py",
        "8x8 RGBA8, num_plays 3; delays 0/0, 0/100, 5/0 (den 0 means 100: 50 ms), 1/1, 65535/1000, 3/30")
def _():
    rng = rng_for("delays_zero_den0_plays3")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(8, 8, 0, 0, N, S, 0, 0), (4, 4, 2, 2, N, O, 0, 100), (3, 5, 5, 3, B, S, 5, 0),
                                 (8, 8, 0, 0, N, O, 1, 1), (2, 2, 6, 6, P, O, 65535, 1000),
                                 (5, 1, 0, 7, N, S, 3, 30)])
    return build(spec, 8, 8, fr, num_plays=3), fr


@vector("plays_1_rgb8", "make_vectors.py", "6x4 RGB8, num_plays 1, two full frames")
def _():
    rng = rng_for("plays_1_rgb8")
    spec = Spec(2, 8)
    fr = make_frames(rng, spec, [(6, 4, 0, 0, N, S), (6, 4, 0, 0, N, S)])
    return build(spec, 6, 4, fr, num_plays=1), fr


@vector("offsets_full_and_1x1_rgba8", "make_vectors.py",
        "20x14 RGBA8: frames at offsets, 1x1 frames at the bottom-right and top-left corners, "
        "full-canvas OVER and SOURCE frames, a frame touching the right and bottom edges")
def _():
    rng = rng_for("offsets_full_and_1x1_rgba8")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(20, 14, 0, 0, N, S), (1, 1, 19, 13, N, S), (20, 14, 0, 0, N, O),
                                 (1, 1, 0, 0, B, S), (10, 9, 7, 3, P, O), (7, 5, 13, 9, N, O),
                                 (20, 14, 0, 0, B, S), (1, 1, 10, 7, N, O)])
    return build(spec, 20, 14, fr), fr


@vector("first_frame_over_rgba8", "make_vectors.py",
        "9x7 RGBA8: frame 0 (the IDAT image) uses blend OVER onto the empty canvas (same as SOURCE)")
def _():
    rng = rng_for("first_frame_over_rgba8")
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(9, 7, 0, 0, N, O), (4, 3, 5, 4, N, O)])
    return build(spec, 9, 7, fr), fr


@vector("static_no_actl_rgba8", "make_vectors.py",
        "plain 8x6 RGBA8 PNG without acTL: not animated, no frames, not a fallback")
def _():
    rng = rng_for("static_no_actl_rgba8")
    img = rgba_img(rng, 6, 8, 255)
    return serialize([["IHDR", ihdr(8, 6, 8, 6)], ["IDAT", compress(img, 8)], ["IEND", b""]]), None


# medium file for the speed smoke test
def sprite(h, w, color, maxv=255):
    yy, xx = np.mgrid[0:h, 0:w]
    r = np.hypot(yy - (h - 1) / 2, xx - (w - 1) / 2) / (min(h, w) / 2)
    a = np.clip((1.0 - r) * 2.0, 0, 1)
    out = np.zeros((h, w, 4), dtype=np.int64)
    out[..., :3] = color
    out[..., 3] = np.round(a * maxv).astype(np.int64)
    out[out[..., 3] == 0] = 0
    return out


def gradient(h, w, phase):
    yy, xx = np.mgrid[0:h, 0:w]
    out = np.zeros((h, w, 4), dtype=np.int64)
    out[..., 0] = (xx * 255 // max(1, w - 1) + phase) % 256
    out[..., 1] = (yy * 255 // max(1, h - 1) + 2 * phase) % 256
    out[..., 2] = ((xx + yy) * 2 + phase * 3) % 256
    out[..., 3] = 255
    return out


@vector("medium_200x150_30frames_rgba8", "make_vectors.py",
        "speed smoke test: 200x150 RGBA8, 30 frames: gradient backgrounds (frames 0, 10, 20, full canvas, "
        "SOURCE) and soft-edged 32x32 discs (OVER) moving, with all three dispose ops")
def _():
    rng = rng_for("medium_200x150_30frames_rgba8")
    fr = []
    for i in range(30):
        if i % 10 == 0:
            g = gradient(150, 200, i * 7)
            if i:
                g[40:80, 60:140, 3] = 128  # a translucent band
            fr.append(Frame(g, 0, 0, 1, 30, N, S))
        else:
            x = int(84 + 80 * np.cos(i / 4.7))
            y = int(59 + 55 * np.sin(i / 3.1))
            color = rng.integers(0, 256, 3)
            fr.append(Frame(sprite(32, 32, color), x, y, 1, 30, (N, B, P)[i % 3], O))
    return serialize(build_apng(200, 150, 6, 8, fr)), fr


# ----------------------------------------------------------------------------- broken vectors

def base_broken(name, default=False):
    rng = rng_for(name)
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(12, 10, 0, 0, N, S), (5, 4, 3, 3, N, O), (6, 6, 6, 4, B, O)])
    d = rgba_img(rng, 10, 12, 255) if default else None
    return fr, d


def chunks_of(fr, default=None, **kw):
    return build_apng(12, 10, 6, 8, fr, default=default, **kw)


def find(chunks, ctype, k=0):
    idx = [i for i, c in enumerate(chunks) if c[0] == ctype]
    return idx[k]


def set_seq(chunk, seq):
    chunk[1] = struct.pack(">I", seq) + chunk[1][4:]


def broken(name, error, desc):
    def deco(fn):
        @vector(name, "make_vectors.py", desc + " (static image sound)", error=error)
        def _():
            return fn(name), None
        return fn
    return deco


@broken("broken_sequence_gap", "apngSequence", "12x10 RGBA8: the sequence numbers go 0,1,2,4,5")
def _(name):
    fr, _ = base_broken(name)
    ch = chunks_of(fr)
    for c in ch:
        if c[0] in ("fcTL", "fdAT"):
            s = struct.unpack(">I", c[1][:4])[0]
            if s >= 3:
                set_seq(c, s + 1)
    return serialize(ch)


@broken("broken_sequence_starts_at_1", "apngSequence", "12x10 RGBA8: the first fcTL has sequence number 1")
def _(name):
    fr, _ = base_broken(name)
    ch = chunks_of(fr)
    for c in ch:
        if c[0] in ("fcTL", "fdAT"):
            set_seq(c, struct.unpack(">I", c[1][:4])[0] + 1)
    return serialize(ch)


@broken("broken_sequence_swapped", "apngSequence",
        "12x10 RGBA8: frame 1's data in two fdAT chunks whose sequence numbers are swapped (2 then 1)")
def _(name):
    fr, _ = base_broken(name)
    ch = build_apng(12, 10, 6, 8, fr, fdat_split={1: [10]})
    i = find(ch, "fdAT", 0)
    j = find(ch, "fdAT", 1)
    a, b = struct.unpack(">I", ch[i][1][:4])[0], struct.unpack(">I", ch[j][1][:4])[0]
    set_seq(ch[i], b)
    set_seq(ch[j], a)
    return serialize(ch)


@broken("broken_frame_outside_canvas", "apngFrameOutsideCanvas",
        "12x10 RGBA8: frame 2 is 6x6 at 7,4 (x+width 13 > 12)")
def _(name):
    rng = rng_for(name)
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(12, 10, 0, 0, N, S), (5, 4, 3, 3, N, O), (6, 6, 7, 4, B, O)])
    return serialize(chunks_of(fr))


@broken("broken_frame_outside_canvas_y", "apngFrameOutsideCanvas",
        "12x10 RGBA8: frame 1 is 5x4 at 3,7 (y+height 11 > 10)")
def _(name):
    rng = rng_for(name)
    spec = Spec(6, 8)
    fr = make_frames(rng, spec, [(12, 10, 0, 0, N, S), (5, 4, 3, 7, N, O), (6, 6, 6, 4, B, O)])
    return serialize(chunks_of(fr))


@broken("broken_frame_zero_width", "apngFrameOutsideCanvas",
        "12x10 RGBA8: frame 1's fcTL has width 0 (its fdAT holds an empty zlib stream)")
def _(name):
    fr, _ = base_broken(name)
    ch = chunks_of(fr)
    i = find(ch, "fcTL", 1)
    seq, w, h, x, y, dn, dd, dop, bop = struct.unpack(">IIIIIHHBB", ch[i][1])
    ch[i][1] = fctl(seq, 0, h, x, y, dn, dd, dop, bop)
    j = find(ch, "fdAT", 0)
    ch[j][1] = ch[j][1][:4] + zlib.compress(b"", 9)
    return serialize(ch)


@broken("broken_num_frames_too_many", "apngFrameCount", "12x10 RGBA8: acTL num_frames 4, 3 fcTL chunks")
def _(name):
    fr, _ = base_broken(name)
    return serialize(chunks_of(fr, num_frames=4))


@broken("broken_num_frames_too_few", "apngFrameCount", "12x10 RGBA8: acTL num_frames 2, 3 fcTL chunks")
def _(name):
    fr, _ = base_broken(name)
    return serialize(chunks_of(fr, num_frames=2))


@broken("broken_num_frames_zero", "apngInvalidChunk", "12x10 RGBA8: acTL num_frames 0")
def _(name):
    fr, _ = base_broken(name)
    return serialize(chunks_of(fr, num_frames=0))


@broken("broken_dispose_op_3", "apngInvalidChunk", "12x10 RGBA8: frame 1's dispose_op is 3")
def _(name):
    fr, _ = base_broken(name)
    fr[1].dop = 3
    return serialize(chunks_of(fr))


@broken("broken_blend_op_2", "apngInvalidChunk", "12x10 RGBA8: frame 2's blend_op is 2")
def _(name):
    fr, _ = base_broken(name)
    fr[2].bop = 2
    return serialize(chunks_of(fr))


@broken("broken_fdat_before_fctl", "apngInvalidChunk",
        "12x10 RGBA8, IDAT not in the animation: an fdAT (sequence 0) comes before the first fcTL "
        "(sequence numbers otherwise in order, fcTL count = num_frames)")
def _(name):
    fr, d = base_broken(name, default=True)
    ch = chunks_of(fr, default=d)
    i = find(ch, "IDAT")
    ch.insert(i + 1, ["fdAT", struct.pack(">I", 0) + compress(fr[1].samples, 8)])
    seq = 1
    for c in ch[i + 2:]:
        if c[0] in ("fcTL", "fdAT"):
            set_seq(c, seq)
            seq += 1
    return serialize(ch)


@broken("broken_actl_after_idat", "apngInvalidChunk",
        "12x10 RGBA8: acTL comes after IDAT (the fcTL/fdAT that follow are otherwise valid)")
def _(name):
    fr, d = base_broken(name, default=True)
    ch = chunks_of(fr, default=d)
    ac = ch.pop(find(ch, "acTL"))
    ch.insert(find(ch, "IDAT") + 1, ac)
    return serialize(ch)


@broken("broken_fdat_truncated", "apngFrameData",
        "12x10 RGBA8: the last frame's zlib stream is cut 12 bytes short (chunk CRCs valid)")
def _(name):
    fr, _ = base_broken(name)
    ch = chunks_of(fr)
    i = find(ch, "fdAT", 1)
    ch[i][1] = ch[i][1][:-12]
    return serialize(ch)


@broken("broken_fdat_short_image", "apngFrameData",
        "12x10 RGBA8: frame 1's complete zlib stream holds one scanline less than its height")
def _(name):
    fr, _ = base_broken(name)
    ch = chunks_of(fr)
    i = find(ch, "fdAT", 0)
    ch[i][1] = ch[i][1][:4] + compress(fr[1].samples[:-1], 8)
    return serialize(ch)


@broken("broken_fctl_without_fdat", "apngFrameData",
        "12x10 RGBA8: frame 1's fcTL is followed directly by frame 2's fcTL (no fdAT)")
def _(name):
    fr, _ = base_broken(name)
    ch = chunks_of(fr)
    ch.pop(find(ch, "fdAT", 0))
    seq = 0
    for c in ch:
        if c[0] in ("fcTL", "fdAT"):
            set_seq(c, seq)
            seq += 1
    return serialize(ch)


@broken("broken_default_fctl_size", "apngInvalidChunk",
        "12x10 RGBA8: the fcTL before IDAT says 6x5 at 0,0 (must match IHDR)")
def _(name):
    fr, _ = base_broken(name)
    ch = chunks_of(fr)
    i = find(ch, "fcTL", 0)
    seq, w, h, x, y, dn, dd, dop, bop = struct.unpack(">IIIIIHHBB", ch[i][1])
    ch[i][1] = fctl(seq, 6, 5, 0, 0, dn, dd, dop, bop)
    return serialize(ch)


@broken("broken_fctl_length_25", "apngInvalidChunk", "12x10 RGBA8: frame 1's fcTL is 25 bytes long")
def _(name):
    fr, _ = base_broken(name)
    ch = chunks_of(fr)
    i = find(ch, "fcTL", 1)
    ch[i][1] = ch[i][1][:25]
    return serialize(ch)


# ----------------------------------------------------------------------------- tool-made vectors

def run(cmd, cwd=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=300)
    if check and p.returncode != 0:
        raise RuntimeError(f"{cmd} failed: {p.stderr.decode(errors='replace')[-2000:]}")
    return p


def write_plain_png(path, samples, ct, bd, plte=None):
    ch = [["IHDR", ihdr(samples.shape[1], samples.shape[0], bd, ct)]]
    if plte is not None:
        ch.append(["PLTE", bytes(np.asarray(plte, np.uint8).reshape(-1))])
    ch += [["IDAT", compress(samples, bd)], ["IEND", b""]]
    with open(path, "wb") as f:
        f.write(serialize(ch))


def ball_frames(n, W, H, seed, bg_alpha=True):
    rng = np.random.default_rng(seed)
    base = gradient(H, W, 40)
    if bg_alpha:
        yy, xx = np.mgrid[0:H, 0:W]
        base[..., 3] = 255 - (xx * 8 + yy * 3) % 200   # partial alpha everywhere, some opaque
        base[0:3, 0:3] = 0
    out = []
    for i in range(n):
        f = base.copy()
        s = sprite(10, 10, rng.integers(0, 256, 3))
        x, y = 2 + 2 * i, 1 + i
        reg = f[y:y + 10, x:x + 10]
        f[y:y + 10, x:x + 10] = over(reg, s, 255)
        out.append(f)
    return out


TOOL_NAMES = []


def tool_vector(name, tool, desc):
    TOOL_NAMES.append(name)
    return vector(name, tool, desc)


@tool_vector("apngasm_rgba8", "apngasm",
             "apngasm 2.91 from 5 RGBA 24x20 PNG frames (translucent gradient + moving soft disc): apngasm "
             "crops the frames (dispose NONE, blend SOURCE), 7-zip deflate; delay 3/25")
def _(tmp):
    for i, f in enumerate(ball_frames(5, 24, 20, 1)):
        Image.fromarray(f.astype(np.uint8), "RGBA").save(os.path.join(tmp, f"f{i + 1:03d}.png"))
    run(["apngasm", "out.png", "f001.png", "3", "25"], cwd=tmp)
    return open(os.path.join(tmp, "out.png"), "rb").read(), None


@tool_vector("apngasm_palette_plays2", "apngasm",
             "apngasm 2.91 -l2 from 4 RGBA 20x16 frames with 6 colours (one transparent, one half "
             "transparent): apngasm writes palette + tRNS; num_plays 2")
def _(tmp):
    rng = np.random.default_rng(7)
    cols = np.array([[0, 0, 0, 0], [255, 0, 0, 255], [0, 128, 255, 255], [20, 200, 20, 128],
                     [255, 255, 0, 255], [90, 40, 10, 255]])
    base = cols[rng.integers(0, 6, (16, 20))]
    for i in range(4):
        f = base.copy()
        f[2 + i * 3:6 + i * 3, 3 + i * 2:9 + i * 2] = cols[1 + i]
        Image.fromarray(f.astype(np.uint8), "RGBA").save(os.path.join(tmp, f"p{i + 1:03d}.png"))
    run(["apngasm", "out.png", "p001.png", "1", "8", "-l2"], cwd=tmp)
    return open(os.path.join(tmp, "out.png"), "rb").read(), None


@tool_vector("apngasm_gray_skip_first", "apngasm",
             "apngasm 2.91 -f from 4 gray 18x12 frames: the first frame is only the static image (fcTL "
             "after IDAT); apngasm writes grayscale")
def _(tmp):
    for i in range(4):
        yy, xx = np.mgrid[0:12, 0:18]
        g = ((xx * 13 + yy * 7 + i * 40) % 256).astype(np.uint8)
        g[3:8, 2 + 3 * i:7 + 3 * i] = 255 - 60 * i
        Image.fromarray(g, "L").save(os.path.join(tmp, f"g{i + 1:03d}.png"))
    run(["apngasm", "out.png", "g001.png", "1", "5", "-f"], cwd=tmp)
    return open(os.path.join(tmp, "out.png"), "rb").read(), None


FFMPEG_BITEXACT = ["-fflags", "+bitexact", "-flags", "+bitexact", "-map_metadata", "-1"]


@tool_vector("ffmpeg_from_gif", "ffmpeg",
             "ffmpeg 5.1 -f apng -plays 0 from a 4-frame 20x16 GIF (Pillow-written, transparent index, "
             "disposal 2)")
def _(tmp):
    rng = np.random.default_rng(11)
    frames = []
    for i in range(4):
        idx = rng.integers(1, 8, (16, 20)).astype(np.uint8)
        idx[4:12, 3 + 4 * i:9 + 4 * i] = 0
        im = Image.fromarray(idx, "P")
        pal = [0, 0, 0] + list(rng.integers(0, 256, 21)) + [0] * (768 - 24)
        im.putpalette(pal)
        frames.append(im)
    frames[0].save(os.path.join(tmp, "in.gif"), save_all=True, append_images=frames[1:], duration=[100, 60, 200, 80],
                   loop=0, transparency=0, disposal=2)
    run(["ffmpeg", "-v", "error", "-y", "-i", "in.gif", *FFMPEG_BITEXACT, "-plays", "0", "-f", "apng", "out.png"],
        cwd=tmp)
    return open(os.path.join(tmp, "out.png"), "rb").read(), None


@tool_vector("ffmpeg_rgba_plays3", "ffmpeg",
             "ffmpeg 5.1 -f apng -plays 3 from 5 RGBA 24x20 PNG frames (opaque gradient + soft-edged moving "
             "disc); ffmpeg crops the frames and blends them with OVER; 10 fps")
def _(tmp):
    for i, f in enumerate(ball_frames(5, 24, 20, 2, bg_alpha=False)):
        Image.fromarray(f.astype(np.uint8), "RGBA").save(os.path.join(tmp, f"f{i:03d}.png"))
    run(["ffmpeg", "-v", "error", "-y", "-framerate", "10", "-i", "f%03d.png", *FFMPEG_BITEXACT, "-plays", "3",
         "-pix_fmt", "rgba", "-f", "apng", "out.png"], cwd=tmp)
    return open(os.path.join(tmp, "out.png"), "rb").read(), None


@tool_vector("ffmpeg_rgb48_pred_mixed", "ffmpeg",
             "ffmpeg 5.1 -f apng -pix_fmt rgb48be -pred mixed from 4 RGB 16-bit 16x12 PNG frames (written "
             "by this script), 25 fps, num_plays 1 (ffmpeg's default)")
def _(tmp):
    rng = np.random.default_rng(5)
    base = rng.integers(0, 65536, (12, 16, 3))
    for i in range(4):
        f = base.copy()
        f[2 + i:7 + i, 3 * i:3 * i + 5] = rng.integers(0, 65536, 3)
        write_plain_png(os.path.join(tmp, f"h{i:03d}.png"), f, 2, 16)
    run(["ffmpeg", "-v", "error", "-y", "-framerate", "25", "-i", "h%03d.png", *FFMPEG_BITEXACT, "-pix_fmt",
         "rgb48be", "-pred", "mixed", "-f", "apng", "out.png"], cwd=tmp)
    return open(os.path.join(tmp, "out.png"), "rb").read(), None


@tool_vector("apngopt_optimized", "apngopt",
             "apngopt 1.4 output for a 6-frame 24x20 RGBA8 APNG of full-canvas SOURCE frames written by this "
             "script (apngopt crops the frames and recompresses with 7-zip deflate)")
def _(tmp):
    fr = [Frame(f, 0, 0, 1, 12, N, S) for f in ball_frames(6, 24, 20, 3)]
    with open(os.path.join(tmp, "in.png"), "wb") as fh:
        fh.write(serialize(build_apng(24, 20, 6, 8, fr)))
    run(["apngopt", "in.png", "out.png"], cwd=tmp)
    return open(os.path.join(tmp, "out.png"), "rb").read(), None


# ----------------------------------------------------------------------------- expected values

def frames_rgba(info):
    depth = 16 if info["bd"] == 16 else 8
    return [to_rgba(f["samples"], info["ct"], info["bd"], info["plte"], info["trns"]) for f in info["frames"]], depth


def reference(info):
    imgs, depth = frames_rgba(info)
    maxv = 65535 if depth == 16 else 255
    canv, masks = composite(imgs, info["frames"], info["W"], info["H"], maxv)
    return imgs, canv, masks, depth


def expected_entry(name, tool, desc, data, info):
    depth = 16 if info["bd"] == 16 else 8
    default = to_rgba(info["default"], info["ct"], info["bd"], info["plte"], info["trns"])
    e = {
        "bytes": len(data), "width": info["W"], "height": info["H"], "colorType": info["ct"],
        "bitDepth": info["bd"], "interlace": info["interlace"], "animated": bool(info["animated"]),
        "numFrames": None, "numPlays": None, "defaultIsFrame0": False,
        "defaultCRC": hexcrc(crc_rgba16(default, depth)), "frames": [],
        "fallback": None, "strictError": None, "warnings": [], "tool": tool, "description": desc,
    }
    if info["animated"]:
        _, canv, _, _ = reference(info)
        e["numFrames"] = info["num_frames"]
        e["numPlays"] = info["num_plays"]
        e["defaultIsFrame0"] = bool(info["default_is_frame0"])
        for f, c in zip(info["frames"], canv):
            e["frames"].append({k: f[k] for k in ("x", "y", "width", "height", "delayNum", "delayDen",
                                                  "dispose", "blend")} | {"crc": hexcrc(crc_rgba16(c, depth))})
    elif info["errors"]:
        e["fallback"] = "static"
        e["strictError"] = info["errors"][0][0]
        e["warnings"] = [f"{c}: {m}" for c, m in info["errors"]]
    return e


# ----------------------------------------------------------------------------- cross-checks

def decode_plain(path):
    """A tool's output PNG (not animated) -> (RGBA array, depth), with this script's own reader."""
    info = analyze(open(path, "rb").read())
    depth = 16 if info["bd"] == 16 else 8
    return to_rgba(info["default"], info["ct"], info["bd"], info["plte"], info["trns"]), depth


def tool_apngdis(path, tmp):
    """apngdis 2.9 writes every composited full-canvas frame as an RGBA8 PNG (frN.png) plus a
    frN.txt with the delay; when the IDAT image is not part of the animation it writes it first."""
    d = tempfile.mkdtemp(dir=tmp)
    shutil.copy(path, os.path.join(d, "in.png"))
    run(["apngdis", "in.png", "fr"], cwd=d, check=False)
    files = sorted((int(m.group(1)), fn) for fn in os.listdir(d) for m in [re.match(r"fr(\d+)\.png$", fn)] if m)
    out = []
    for _, fn in files:
        im = Image.open(os.path.join(d, fn))
        assert im.mode == "RGBA", im.mode
        out.append(np.asarray(im).astype(np.int64))
    return out


def tool_ffmpeg(path, tmp, png_pipe=False):
    """ffmpeg's own decoder; frames written losslessly as PNG in ffmpeg's native pixel format
    (-f image2 -c:v png, no swscale conversion), read back with decode_plain."""
    d = tempfile.mkdtemp(dir=tmp)
    cmd = ["ffmpeg", "-v", "error", "-nostdin"]
    if png_pipe:
        cmd += ["-f", "png_pipe"]
    cmd += ["-i", path, "-fps_mode", "passthrough", "-f", "image2", "-c:v", "png", os.path.join(d, "%04d.png")]
    p = run(cmd, check=False)
    out = [decode_plain(os.path.join(d, fn)) for fn in sorted(os.listdir(d))]
    err = [ln for ln in p.stderr.decode(errors="replace").splitlines() if "repeated" not in ln]
    return out, (err[0].strip() if err else ""), p.returncode


def tool_pillow(path):
    out = []
    try:
        im = Image.open(path)
        skip = 1 if im.info.get("default_image") else 0
        for i in range(getattr(im, "n_frames", 1)):
            im.seek(i)
            if i >= skip:
                out.append(np.asarray(im.convert("RGBA")).astype(np.int64))
        return out, None
    except Exception as ex:  # noqa: BLE001
        return out, f"{type(ex).__name__}: {ex}"


def to8(a):
    return a >> 8


def same(a, b):
    return len(a) == len(b) and all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b))


def ref8(info):
    """The reference at 8 bits per channel, as an 8-bit decoder (apngdis, Pillow) must produce it:
    16-bit frames are cut to their high byte (libpng png_set_strip_16) and composited in 8 bits."""
    imgs, depth = frames_rgba(info)
    if depth == 16:
        imgs = [to8(i) for i in imgs]
    return composite(imgs, info["frames"], info["W"], info["H"], 255)[0], imgs


FULL = {"x": 0, "y": 0, "dispose": N, "blend": S}


def with_default_first(info, imgs, default, f0_source=False):
    """Frame list with the IDAT image drawn first (as apngdis and Pillow do when it is not part of
    the animation)."""
    full = dict(FULL, width=info["W"], height=info["H"])
    fr = [dict(f) for f in info["frames"]]
    if f0_source:
        fr[0]["blend"] = S
        if fr[0]["dispose"] == P:
            fr[0]["dispose"] = B
    return [default] + list(imgs), [full] + fr


def model_apngdis(info, imgs8):
    """apngdis 2.9 load_apng: the first animation frame is drawn with SOURCE (dispose PREVIOUS
    turned into BACKGROUND); when the IDAT image is not part of the animation it is drawn first
    and the animation is composited over it instead of over transparent black."""
    W, H = info["W"], info["H"]
    if info["default_is_frame0"]:
        return composite(imgs8, info["frames"], W, H, 255, first_over_as_source=True)[0]
    default = to_rgba(info["default"], info["ct"], info["bd"], info["plte"], info["trns"])
    if info["bd"] == 16:
        default = to8(default)
    imgs, fr = with_default_first(info, imgs8, default, f0_source=True)
    return composite(imgs, fr, W, H, 255)[0][1:]


def ffmpeg_subbyte(f, bd, W):
    """ffmpeg 5.1 handle_small_bpp: the packed 1/2/4-bit row of a frame is stored at byte
    x_offset of the canvas row and then expanded from byte 0 of the row, so a frame at
    x_offset > 0 gets the samples of the wrong bytes. Bytes left of x_offset hold whatever the
    recycled frame buffer held (zeros here); returns (samples, mask of the pixels taken from
    such unknown bytes)."""
    samples = f["samples"]
    per, mask = 8 // bd, (1 << bd) - 1
    out = np.zeros_like(samples)
    unknown = np.zeros(samples.shape[:2], bool)
    for r, row in enumerate(pack_rows(samples, bd)):
        buf = np.zeros(W + len(row) + 8, np.int64)
        buf[f["x"]:f["x"] + len(row)] = np.frombuffer(row, np.uint8)
        p = np.arange(f["x"], f["x"] + f["width"])
        out[r, :, 0] = (buf[p // per] >> (8 - bd * (p % per + 1))) & mask
        unknown[r] = p // per < f["x"]
    return out, unknown


def model_ffmpeg(info):
    """ffmpeg 5.1 (libavcodec/pngdec.c, libavformat/apngdec.c), in RGBA terms:
    (1) gray/RGB without tRNS have no alpha plane: BACKGROUND disposal zeroes the samples, i.e.
        opaque black (palette images are expanded to RGBA, so they clear to transparent);
    (2) OVER: over_ffmpeg rounding (alpha rounded, colours rounded or truncated);
    (3) 2/4-bit gray tRNS keys are compared with the already scaled 8-bit samples;
    (4) sub-byte frames at an x offset: ffmpeg_subbyte;
    (5) the demuxer flags a full-canvas frame whose own dispose_op is BACKGROUND or whose blend
        is SOURCE as a key frame, and the decoder does not blend key frames: it is shown alone.
    (6) 1-bit gray is decoded without its tRNS.
    Only the frames ffmpeg decodes are compared (it refuses OVER on 16-bit alpha and on 1-bit
    gray, and a first frame smaller than the canvas)."""
    ct, bd, trns, plte = info["ct"], info["bd"], info["trns"], info["plte"]
    fr = [dict(f) for f in info["frames"]]
    W, H = info["W"], info["H"]
    for i, f in enumerate(fr):
        if i and (f["x"], f["y"], f["width"], f["height"]) == (0, 0, W, H) and (f["dispose"] == B or f["blend"] == S):
            f["blend"] = S
    samples = [f["samples"] for f in info["frames"]]
    unknown = [np.zeros(s.shape[:2], bool) for s in samples]
    if bd < 8 and not (ct == 0 and bd == 1):
        both = [ffmpeg_subbyte(dict(f, samples=s), bd, W) for f, s in zip(fr, samples)]
        samples, unknown = [b[0] for b in both], [b[1] for b in both]
    if ct == 0 and bd == 1:
        trns = None  # (6) 1-bit gray is decoded as MONOBLACK, tRNS ignored
    imgs = [to_rgba(s, ct, bd, plte, trns) for s in samples]
    depth = 16 if bd == 16 else 8
    maxv = 65535 if depth == 16 else 255
    if ct == 0 and bd in (2, 4) and trns is not None:
        key = struct.unpack(">H", trns[:2])[0] & ((1 << bd) - 1)
        for img in imgs:
            img[..., 3] = np.where(img[..., 0] == key, 0, maxv)
    clear = np.array([0, 0, 0, maxv]) if ct in (0, 2) and trns is None else None
    fn = over_ffmpeg if depth == 8 else None
    canv = composite(imgs, fr, W, H, maxv, over_fn=fn, clear=clear)[0]
    # where do pixels derived from unknown bytes end up: composite [flag, alpha] pairs
    tagged = [np.stack([u.astype(np.int64), img[..., 3]], -1) for u, img in zip(unknown, imgs)]

    def tag_over(d, s):
        return np.stack([s[..., 0] | (d[..., 0] & (s[..., 1] != maxv)), s[..., 1]], -1)
    tags = composite(tagged, fr, W, H, maxv, over_fn=tag_over)[0]
    return canv, [t[..., 0].astype(bool) for t in tags]


def div255r(x):
    t = x + 128
    return ((t >> 8) + t) >> 8


def model_pillow(info):
    """Pillow 13 PngImagePlugin, in its native modes (1, L, LA, RGB, RGBA, P): frames are
    pasted on the previous canvas; OVER is Image.paste(frame, box, mask) with mask = the frame's
    alpha (RGBA/LA), its tRNS key test (RGB only), its palette alphas (P) or 255 (1, L), and
    paste blends EVERY band, alpha and palette indices included, as round((dst*(255-m)+src*m)/255);
    BACKGROUND fills native zeros; the first frame is drawn as is; an IDAT image that is not part
    of the animation is drawn first. Finally convert("RGBA"): tRNS keys are compared on their low
    8 bits with the 8-bit (scaled) samples. 16-bit samples are cut to the high byte, except
    16-bit gray (mode I;16), which convert("RGBA") clips to 255 (and which Pillow cannot
    composite at all: animated 16-bit gray is not compared)."""
    ct, bd, trns, plte = info["ct"], info["bd"], info["trns"], info["plte"]
    pal = palpha = None
    if ct == 3:
        pal = np.frombuffer(plte, np.uint8).reshape(-1, 3).astype(np.int64)
        palpha = np.full(256, 255, np.int64)
        if trns is not None:
            palpha[:len(trns)] = np.frombuffer(trns, np.uint8)
        pal = np.concatenate([pal, np.zeros((256 - len(pal), 3), np.int64)])
    key = None
    if trns is not None and ct == 0:
        v = struct.unpack(">H", trns[:2])[0]
        key = (255 if v else 0) if bd == 1 else v & 0xFF
    if trns is not None and ct == 2:
        key = np.array([v & 0xFF for v in struct.unpack(">HHH", trns[:6])])

    def nat(s):
        if ct == 6 or ct == 2:
            return s >> 8 if bd == 16 else s
        if ct == 4:
            if bd == 16:
                g, a = s[..., 0] >> 8, s[..., 1] >> 8
                return np.stack([g, g, g, a], -1)
            return s
        if ct == 0:
            return np.minimum(s, 255) if bd == 16 else s * {1: 255, 2: 85, 4: 17, 8: 1}[bd]
        return s

    def keyalpha(n):
        if key is None:
            return np.full(n.shape[:2], 255, np.int64)
        if ct == 0:
            return np.where(n[..., 0] == key, 0, 255)
        return np.where((n == key).all(-1), 0, 255)

    def mask(n):
        if ct == 6 or (ct == 4 and bd == 16):
            return n[..., 3]
        if ct == 4:
            return n[..., 1]
        if ct == 2:
            return keyalpha(n)
        if ct == 3:
            return palpha[n[..., 0]]
        return np.full(n.shape[:2], 255, np.int64)

    def final(n):
        out = np.zeros(n.shape[:2] + (4,), np.int64)
        if ct == 6 or (ct == 4 and bd == 16):
            return n
        if ct == 4:
            out[..., 0] = out[..., 1] = out[..., 2] = n[..., 0]
            out[..., 3] = n[..., 1]
        elif ct == 2:
            out[..., :3] = n
            out[..., 3] = keyalpha(n)
        elif ct == 0:
            out[..., 0] = out[..., 1] = out[..., 2] = n[..., 0]
            out[..., 3] = keyalpha(n)
        else:
            out[..., :3] = pal[n[..., 0]]
            out[..., 3] = palpha[n[..., 0]]
        return out

    def paste(d, s):
        m = mask(s)[..., None]
        return div255r(d * (255 - m) + s * m)

    imgs = [nat(f["samples"]) for f in info["frames"]]
    W, H = info["W"], info["H"]
    if info["default_is_frame0"]:
        fr = info["frames"]
    else:
        imgs, fr = with_default_first(info, imgs, nat(info["default"]))
    # load_end pastes an OVER frame into self._prev_im in place, so the saved "previous" canvas
    # already holds that frame: dispose PREVIOUS after an OVER frame (not the first) keeps it.
    fr = [dict(f, dispose=N) if i > 0 and f["blend"] == O and f["dispose"] == P else f for i, f in enumerate(fr)]
    canv = composite(imgs, fr, W, H, 255, over_fn=paste, first_over_as_source=True)[0]
    if not info["default_is_frame0"]:
        canv = canv[1:]
    return [final(c) for c in canv]


def crosscheck(name, path, info, stats, notes, tmp):
    imgs, canv, masks, depth = reference(info)
    r8, imgs8 = ref8(info)
    nf = len(canv)

    def record(tool, got, ref, model=None, why_fail=None):
        st = stats.setdefault(tool, {"files": 0, "files_agree": 0, "frames": 0, "frames_agree": 0,
                                     "explained": 0, "unsupported": 0, "unexplained": 0})
        st["files"] += 1
        if why_fail is not None or len(got) != len(ref):
            st["unsupported"] += 1
            notes.append(f"{tool:8s} {name}: not compared ({why_fail or f'{len(got)} frames, {len(ref)} expected'})")
            return
        agree = [np.array_equal(g, r) for g, r in zip(got, ref)]
        st["frames"] += len(ref)
        st["frames_agree"] += sum(agree)
        if all(agree):
            st["files_agree"] += 1
            return
        bad = [i for i, a in enumerate(agree) if not a]
        maxdiff = max(int(np.abs(got[i] - ref[i]).max()) for i in bad)
        part = sum(int(((got[i] != ref[i]).any(-1) & ~masks[i]).sum()) for i in bad)
        m = model() if model else None
        ignore = None
        if isinstance(m, tuple):
            m, ignore = m
        explained = m is not None and same(m, got)
        verdict = "reproduced exactly by the tool model" if explained else "NOT REPRODUCED BY THE MODEL"
        if not explained and m is not None and ignore is not None:
            rest = sum(int(((g != x).any(-1) & ~ig).sum()) for g, x, ig in zip(got, m, ignore))
            unk = sum(int(((g != x).any(-1) & ig).sum()) for g, x, ig in zip(got, m, ignore))
            if rest == 0:
                explained = True
                verdict = (f"reproduced by the tool model except {unk} pixels expanded from bytes left of a "
                           f"sub-byte frame's x offset (stale buffer contents)")
        if explained:
            st["explained"] += len(bad)
        else:
            st["unexplained"] += len(bad)
        notes.append(f"{tool:8s} {name}: frames {bad} differ (max |diff| {maxdiff}; {part} differing pixels "
                     f"outside partial-OVER results): " + verdict)

    # apngdis: RGBA8 full canvases; with the IDAT image first when it is not part of the animation
    got = tool_apngdis(path, tmp)
    if not info["default_is_frame0"] and len(got) == nf + 1:
        d8 = to_rgba(info["default"], info["ct"], info["bd"], info["plte"], info["trns"])
        d8 = to8(d8) if depth == 16 else d8
        if not np.array_equal(got[0], d8):
            notes.append(f"apngdis  {name}: its extra first frame is not the IDAT image")
        got = got[1:]
    record("apngdis", got, r8, lambda: model_apngdis(info, imgs8))
    # ffmpeg: native format -> RGBA of that depth
    got, err, rc = tool_ffmpeg(path, tmp)
    fail = None
    if len(got) != nf:
        fail = f"{len(got)} frames of {nf}: {err or 'rc ' + str(rc)}"
    elif any(g[1] != depth for g in got):
        fail = "ffmpeg output depth differs"
    got = [g[0] for g in got]
    record("ffmpeg", got, canv, lambda: model_ffmpeg(info), why_fail=fail)
    # Pillow: RGBA8
    got, err = tool_pillow(path)
    record("Pillow", got, r8, lambda: model_pillow(info), why_fail=err)


def default_check(name, path, info, stats, notes, tmp):
    """defaultCRC cross-check: ffmpeg's plain PNG decoder (-f png_pipe) and Pillow's frame 0; a
    difference is accepted as explained when the tool's model gives exactly its output."""
    default = to_rgba(info["default"], info["ct"], info["bd"], info["plte"], info["trns"])
    depth = 16 if info["bd"] == 16 else 8
    W, H = info["W"], info["H"]
    single = dict(info, frames=[dict(FULL, width=W, height=H, samples=info["default"])], default_is_frame0=True)
    st = stats.setdefault("default", {"ffmpeg": [0, 0, 0], "Pillow": [0, 0, 0]})
    got, err, rc = tool_ffmpeg(path, tmp, png_pipe=True)
    st["ffmpeg"][1] += 1
    if got and got[0][1] == depth and np.array_equal(got[0][0], default):
        st["ffmpeg"][0] += 1
    elif got and same([got[0][0]], model_ffmpeg(single)[0]):
        st["ffmpeg"][2] += 1
        notes.append(f"default  {name}: ffmpeg png_pipe differs, reproduced exactly by the ffmpeg model")
    else:
        notes.append(f"default  {name}: ffmpeg png_pipe differs, NOT REPRODUCED ({err})")
    st["Pillow"][1] += 1
    try:
        im = Image.open(path)
        im.seek(0)
        a = np.asarray(im.convert("RGBA")).astype(np.int64)
    except Exception as ex:  # noqa: BLE001
        notes.append(f"default  {name}: Pillow failed ({type(ex).__name__}: {ex})")
        return
    exp = to8(default) if depth == 16 else default
    if np.array_equal(a, exp):
        st["Pillow"][0] += 1
    elif same([a], model_pillow(single)):
        st["Pillow"][2] += 1
        notes.append(f"default  {name}: Pillow differs, reproduced exactly by the Pillow model")
    else:
        notes.append(f"default  {name}: Pillow differs, NOT REPRODUCED (max |diff| {int(np.abs(a - exp).max())})")


def fallback_check(name, path, info, stats, tmp):
    """For the broken files: how many frames each tool shows (informational)."""
    a = tool_apngdis(path, tmp)
    f, err, rc = tool_ffmpeg(path, tmp)
    p, perr = tool_pillow(path)
    stats.setdefault("fallback", []).append((name, len(a), len(f), len(p), perr))


def main():
    warnings.filterwarnings("ignore")  # Pillow warns about the broken APNGs
    no_tools = "--no-tools" in sys.argv
    tools_ok = all(shutil.which(t) for t in ("apngasm", "apngdis", "apngopt", "ffmpeg"))
    if not no_tools and not tools_ok:
        sys.exit("apngasm, apngdis, apngopt and ffmpeg are needed (apt-get install -y apngasm apngdis "
                 "apngopt ffmpeg), or pass --no-tools")
    expected = {}
    problems = []
    stats, notes = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        # remove stale vectors (but keep committed tool-made ones with --no-tools)
        names = {v[0] for v in VECTORS}
        for fn in os.listdir(HERE):
            if fn.endswith(".png") and fn[:-4] not in names:
                os.remove(os.path.join(HERE, fn))
        for name, tool, desc, maker, error in VECTORS:
            path = os.path.join(HERE, name + ".png")
            if name in TOOL_NAMES:
                if no_tools:
                    data = open(path, "rb").read()
                else:
                    d = tempfile.mkdtemp(dir=tmp)
                    data, _ = maker(d)
                intended = None
            else:
                data, intended = maker()
            with open(path, "wb") as f:
                f.write(data)
            info = analyze(data)
            got_err = info["errors"][0][0] if info["errors"] else None
            if got_err != error:
                problems.append(f"{name}: strict error {got_err}, intended {error}")
            if intended is not None:
                if len(intended) != len(info["frames"]):
                    problems.append(f"{name}: {len(info['frames'])} frames decoded, {len(intended)} written")
                for i, (a, b) in enumerate(zip(intended, info["frames"])):
                    if not np.array_equal(a.samples, b["samples"]):
                        problems.append(f"{name}: frame {i} decodes to other samples than written")
            expected[name] = expected_entry(name, tool, desc, data, info)
            if no_tools:
                continue
            if info["animated"]:
                crosscheck(name, path, info, stats, notes, tmp)
            elif info["errors"]:
                fallback_check(name, path, info, stats, tmp)
            default_check(name, path, info, stats, notes, tmp)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(dict(sorted(expected.items())), f, indent=1)
        f.write("\n")

    total = sum(os.path.getsize(os.path.join(HERE, n + ".png")) for n in expected)
    valid = sum(1 for e in expected.values() if e["animated"])
    fallback = sum(1 for e in expected.values() if e["fallback"])
    print(f"{len(expected)} files: {valid} animated, {fallback} static fallback, "
          f"{len(expected) - valid - fallback} plain PNG; {total} bytes of .png")
    big = max(expected.items(), key=lambda kv: kv[1]["bytes"])
    print(f"largest: {big[0]} {big[1]['bytes']} bytes")
    if not no_tools:
        print("\ncross-checks of the composited frames (valid files):")
        for tool in ("apngdis", "ffmpeg", "Pillow"):
            st = stats[tool]
            print(f"  {tool:8s} files agreeing {st['files_agree']}/{st['files']}, frames agreeing "
                  f"{st['frames_agree']}/{st['frames']}; differing frames reproduced exactly by the tool's "
                  f"model {st['explained']}, not reproduced {st['unexplained']}; files not compared "
                  f"{st['unsupported']}")
        d = stats["default"]
        print(f"  default image (defaultCRC): ffmpeg png_pipe {d['ffmpeg'][0]}/{d['ffmpeg'][1]} agree "
              f"({d['ffmpeg'][2]} more reproduced by its model), Pillow {d['Pillow'][0]}/{d['Pillow'][1]} agree "
              f"({d['Pillow'][2]} more reproduced by its model; the rest cannot be opened)")
        print("\nbroken files: frames shown by apngdis / ffmpeg / Pillow (a static fallback shows 1):")
        for name, a, b, c, perr in stats.get("fallback", []):
            print(f"  {name:34s} {a} / {b} / {c}" + (f"  (Pillow: {perr})" if perr else ""))
        print("\nnotes:")
        for n in notes:
            print("  " + n)
    if problems:
        print("\nPROBLEMS:")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print("\nself-checks passed: every hand-built file decodes to the samples written, every broken file "
          "raises exactly its intended strict error")


if __name__ == "__main__":
    main()
