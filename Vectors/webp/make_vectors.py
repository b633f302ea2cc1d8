#!/usr/bin/env python3
"""Makes the WebP test vectors in this folder and their references (Debian webp 1.2.4).

Run from anywhere: python3 Vectors/webp/make_vectors.py

Every .webp here is made by a libwebp tool, named in manifest.tsv's `tool` column:
- cwebp (lossless -z 0..9, -near_lossless, -exact, lossy + alpha with -alpha_filter /
  -alpha_method / -alpha_q), webpmux (-set icc/exif/xmp), img2webp (-lossy/-lossless/-mixed, -d),
  gif2webp (from the GIFs in Vectors/gif). Source images are drawn with Pillow here (gradients,
  few-colour images, noise) or cropped from Vectors/examples/portrait.png.
References:
- stills: `dwebp -pam` (RGBA), saved as <name>.pam;
- animations: anim_dump.c (compiled here with gcc against libwebp-dev, -lwebpdemux -lwebp), which
  writes WebPAnimDecoder's composited canvases stacked in one PAM (<name>.pam, height = canvas
  height x frames) and prints the demuxer's frame table into manifest.tsv.
manifest.tsv columns: name, kind (still | anim), tool (command line), width, height, then for
animations: loop, bgcolor, frames and one x,y,w,h,duration,dispose_bg,blend,has_alpha per frame.
"""
import os, re, random, shutil, subprocess, sys, tempfile
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TMP = tempfile.mkdtemp()
rows = []

def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def src(name, im):
    path = os.path.join(TMP, name + ".png")
    im.save(path)
    return path

def still(name, tool_args, tool="cwebp", inp=None):
    out = os.path.join(HERE, name + ".webp")
    if tool == "cwebp":
        cmd = ["cwebp", "-quiet"] + tool_args + [inp, "-o", out]
    else:
        cmd = [tool] + tool_args + ["-o", out]
    run(cmd)
    ref(name, " ".join([tool] + tool_args))

def ref(name, toolline):
    out = os.path.join(HERE, name + ".webp")
    run(["dwebp", "-quiet", "-pam", out, "-o", os.path.join(HERE, name + ".pam")])
    w, h = pam_size(os.path.join(HERE, name + ".pam"))
    rows.append([name, "still", toolline, str(w), str(h)])

def pam_size(path):
    head = open(path, "rb").read(200).decode("latin-1")
    w = int(re.search(r"WIDTH (\d+)", head).group(1)); h = int(re.search(r"HEIGHT (\d+)", head).group(1))
    return w, h

def anim(name, toolline):
    out = os.path.join(HERE, name + ".webp")
    line = subprocess.run([os.path.join(TMP, "anim_dump"), out, os.path.join(HERE, name + ".pam")],
                          check=True, capture_output=True, text=True).stdout.strip().split("\t")
    rows.append([name, "anim", toolline] + line)

# ---- source images (Pillow) ----
random.seed(7)
portrait = Image.open(os.path.join(ROOT, "Vectors/examples/portrait.png")).convert("RGBA")
photo = portrait.crop((100, 60, 196, 140)).convert("RGB")                # 96x80
photo_alpha = portrait.crop((0, 0, 80, 64))                               # 80x64 with alpha

def gradient(w, h, alpha=False):
    im = Image.new("RGBA" if alpha else "RGB", (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            c = (x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) * 255 // max(w + h - 2, 1))
            px[x, y] = c + ((x * 7 + y * 3) % 256,) if alpha else c
    return im

def colours(w, h, n):
    pal = [(random.randrange(256), random.randrange(256), random.randrange(256)) for _ in range(n)]
    im = Image.new("RGB", (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            px[x, y] = pal[((x // 3) * 7 + (y // 2) * 3 + (x * y) % 5) % n]
    return im

def noise(w, h, alpha=False):
    im = Image.new("RGBA" if alpha else "RGB", (w, h))
    im.putdata([tuple(random.randrange(256) for _ in range(4 if alpha else 3)) for _ in range(w * h)])
    return im

def alpha_holes(im):
    """Transparent pixels that keep a colour (for -exact)."""
    im = im.convert("RGBA")
    px = im.load()
    for y in range(im.size[1]):
        for x in range(im.size[0]):
            r, g, b, a = px[x, y]
            px[x, y] = (r, g, b, 0 if (x // 8 + y // 8) % 3 == 0 else (255 if (x + y) % 2 else 128))
    return im

def main():
    for f in os.listdir(HERE):
        if f.endswith(".webp") or f.endswith(".pam"):
            os.remove(os.path.join(HERE, f))
    run(["gcc", "-O1", "-o", os.path.join(TMP, "anim_dump"), os.path.join(HERE, "anim_dump.c"), "-lwebpdemux", "-lwebp"])

    p_photo = src("photo", photo)
    p_photo_alpha = src("photo_alpha", photo_alpha)
    p_grad = src("grad", gradient(64, 48))
    p_grad_alpha = src("grad_alpha", gradient(50, 40, alpha=True))
    p_noise = src("noise", noise(40, 30))
    p_noise_alpha = src("noise_alpha", noise(33, 21, alpha=True))
    p_holes = src("holes", alpha_holes(photo))

    # Lossless, every effort level.
    for z in range(10):
        still(f"ll_photo_z{z}", ["-lossless", "-z", str(z)], inp=p_photo)
    still("ll_photo_alpha", ["-lossless"], inp=p_photo_alpha)
    still("ll_photo_alpha_z9", ["-lossless", "-z", "9"], inp=p_photo_alpha)
    still("ll_grad", ["-lossless"], inp=p_grad)
    still("ll_grad_alpha", ["-lossless", "-z", "6"], inp=p_grad_alpha)
    still("ll_noise", ["-lossless"], inp=p_noise)
    still("ll_noise_alpha", ["-lossless", "-z", "9"], inp=p_noise_alpha)
    for nl in (0, 40, 80):
        still(f"ll_near{nl}", ["-lossless", "-near_lossless", str(nl)], inp=p_photo)
    still("ll_exact", ["-lossless", "-exact"], inp=p_holes)
    still("ll_holes", ["-lossless"], inp=p_holes)
    # Colour indexing with pixel bundling (2, 4, 16 colours) and without (256).
    for n in (2, 3, 4, 11, 16, 17, 256):
        p = src(f"col{n}", colours(37, 23, n))
        still(f"ll_colors{n}", ["-lossless"], inp=p)
        still(f"ll_colors{n}_z9", ["-lossless", "-z", "9"], inp=p)
    # Odd sizes.
    for (w, h) in ((1, 1), (1, 7), 
                   (7, 1), (3, 5), (33, 17), (127, 3), (5, 129)):
        p = src(f"odd{w}x{h}", noise(w, h, alpha=(w * h) % 2 == 1))
        still(f"ll_odd{w}x{h}", ["-lossless"], inp=p)
        p = src(f"oddg{w}x{h}", gradient(w, h))
        still(f"ll_oddgrad{w}x{h}", ["-lossless", "-z", "9"], inp=p)

    # Lossy with alpha (the VP8 part comes from the lossy decoder).
    for filt in ("none", "fast", "best"):
        still(f"alpha_filter_{filt}", ["-q", "70", "-alpha_filter", filt], inp=p_photo_alpha)
    for method in (0, 1):
        still(f"alpha_method{method}", ["-q", "70", "-alpha_method", str(method)], inp=p_grad_alpha)
    for q in (0, 50, 100):
        still(f"alpha_q{q}", ["-q", "60", "-alpha_q", str(q), "-alpha_filter", "best"], inp=p_holes)
    still("alpha_noise", ["-q", "80", "-alpha_method", "1", "-alpha_filter", "fast"], inp=p_noise_alpha)
    still("alpha_odd", ["-q", "80", "-alpha_filter", "best"], inp=src("oa", noise(13, 9, alpha=True)))
    still("lossy_plain", ["-q", "75"], inp=p_photo)

    # Metadata: webpmux -set on a lossless and a lossy file.
    icc = os.path.join(ROOT, "Vectors/icc/profiles/compatibleWithAdobeRGB1998.icc")
    exif = os.path.join(TMP, "exif.bin")
    # A little-endian TIFF: IFD0 with Orientation (0x0112) = 6.
    with open(exif, "wb") as f:
        f.write(b"II*\x00\x08\x00\x00\x00" + b"\x01\x00" + b"\x12\x01\x03\x00\x01\x00\x00\x00\x06\x00\x00\x00" + b"\x00\x00\x00\x00")
    xmp = os.path.join(TMP, "xmp.xml")
    with open(xmp, "w") as f:
        f.write('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>\n')
    base = os.path.join(HERE, "ll_grad.webp")
    for kind, path in (("icc", icc), ("exif", exif), ("xmp", xmp)):
        run(["webpmux", "-set", kind, path, base, "-o", os.path.join(HERE, f"meta_{kind}.webp")])
        ref(f"meta_{kind}", f"webpmux -set {kind} ll_grad.webp")
    tmp1 = os.path.join(TMP, "m1.webp"); tmp2 = os.path.join(TMP, "m2.webp")
    run(["webpmux", "-set", "icc", icc, os.path.join(HERE, "alpha_filter_fast.webp"), "-o", tmp1])
    run(["webpmux", "-set", "exif", exif, tmp1, "-o", tmp2])
    run(["webpmux", "-set", "xmp", xmp, tmp2, "-o", os.path.join(HERE, "meta_all_lossy_alpha.webp")])
    ref("meta_all_lossy_alpha", "webpmux -set icc/exif/xmp alpha_filter_fast.webp")

    # Animations: img2webp from drawn frames.
    frames = []
    for i in range(4):
        im = gradient(40, 30, alpha=True).rotate(i * 90, expand=False)
        im2 = Image.new("RGBA", (40, 30), (0, 0, 0, 0))
        im2.paste(noise(12, 10, alpha=True), (i * 6, i * 4))
        frames.append(src(f"f{i}", Image.alpha_composite(im, im2) if i % 2 else im2))
    for mode in ("-lossless", "-lossy", "-mixed"):
        name = "anim_img2webp" + mode.replace("-", "_")
        cmd = ["img2webp", "-loop", "3", mode, "-d", "80"] + [x for f in frames for x in (f,)] + ["-o", os.path.join(HERE, name + ".webp")]
        run(cmd)
        anim(name, " ".join(cmd[:6]) + " 4 frames")
    # Per-frame durations and settings.
    cmd = ["img2webp", "-kmax", "1", "-d", "30", frames[0], "-d", "120", "-lossy", "-q", "50", frames[1], "-lossless", "-d", "10", frames[2], frames[3], "-o", os.path.join(HERE, "anim_img2webp_perframe.webp")]
    run(cmd); anim("anim_img2webp_perframe", "img2webp -kmax 1 per-frame -d/-lossy/-lossless")
    # gif2webp from the GIF vectors (disposal and transparency mixes become blend/dispose mixes).
    gifs = ["disposal_background", "disposal_background_transparent", "disposal_keep_transparent",
            "disposal_previous_transparent", "disposal_chain_mixed", "disposal_unspecified_transparent",
            "pillow_anim", "pillow_transparent", "anim_local_tables_interlaced", "delays", "loop_animexts"]
    for g in gifs:
        gp = os.path.join(ROOT, "Vectors/gif", g + ".gif")
        if not os.path.exists(gp):
            continue
        for opts, suffix in (([], ""), (["-lossy"], "_lossy"), (["-mixed", "-kmax", "2"], "_mixed")):
            name = f"gif_{g}{suffix}"
            run(["gif2webp", "-quiet"] + opts + [gp, "-o", os.path.join(HERE, name + ".webp")])
            anim(name, " ".join(["gif2webp"] + opts + [g + ".gif"]))

    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    shutil.rmtree(TMP)

main()
