#!/usr/bin/env python3
"""Times lcms2 (Pillow's ImageCms, its bundled lcms2) on the same 12 MP buffers as ColorBench:
AdobeRGB1998 -> sRGB RGB 8-bit in place, and each CMYK profile -> sRGB (CMYK 8-bit -> RGB 8-bit),
default (optimised) flags, perceptual intent, one thread (Pillow calls cmsDoTransform on the
calling thread), worst of 5 runs in the thread's CPU time. Usage: python3 lcms2_bench.py [profiles directory]
"""
import os
import sys
import time

from PIL import Image, ImageCms

DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../Vectors/icc/profiles")
W, H = 4000, 3000


def worst(fn):
    slowest = 0.0
    for _ in range(5):
        start = time.thread_time()
        fn()
        slowest = max(slowest, time.thread_time() - start)
    return W * H / 1e6 / slowest


srgb = ImageCms.createProfile("sRGB")
rgb = Image.frombytes("RGB", (W, H), os.urandom(W * H * 3))
t = ImageCms.buildTransform(os.path.join(DIR, "AdobeRGB1998.icc"), srgb, "RGB", "RGB")
print(f"lcms2 {ImageCms.core.littlecms_version}\tAdobeRGB1998.icc\trgb8\t{worst(lambda: ImageCms.applyTransform(rgb, t, inPlace=True)):.1f} MP/s")
cmyk = Image.frombytes("CMYK", (W, H), os.urandom(W * H * 4))
for name in ["default_cmyk.icc", "ps_cmyk.icc", "ISOcoated_v2_300_bas.icc"]:
    t = ImageCms.buildTransform(os.path.join(DIR, name), srgb, "CMYK", "RGB")
    print(f"lcms2 {ImageCms.core.littlecms_version}\t{name}\tcmyk8->rgb8\t{worst(lambda: ImageCms.applyTransform(cmyk, t)):.1f} MP/s")
