"""Checks that GIFs written by `jpng convert --to gif` play identically in PureGIF, Pillow and
giflib: every frame of each GIF decoded by `jpng decode --frame N` (PureGIF) must equal
Pillow's frame N (RGBA, transparent pixels compared as transparent), and giflib's `gif2rgb`
(Debian giflib-tools, which dumps the first image composited on the screen) must match the
opaque pixels of a still (it draws every image of a file on one screen, without disposal,
so it is no animation player).
Inputs: an APNG made here with Pillow (moving square over a gradient, a growing hole), and the
first four images of the benchmark set as stills. Usage: python3 gif_check.py path/to/jpng
"""
import glob, os, subprocess, sys, tempfile
import numpy as np
from PIL import Image

jpng = sys.argv[1]
tmp = tempfile.mkdtemp()

def scene(t):
    y, x = np.mgrid[0:120, 0:160]
    a = np.zeros((120, 160, 4), np.uint8)
    a[..., 0], a[..., 1], a[..., 2], a[..., 3] = x * 1.5, y * 2, (x + y) % 256, 255
    a[30:60, t * 9:t * 9 + 30] = (250, 30, 30, 255)
    a[:20, :t * 6, 3] = 0
    return Image.fromarray(a, "RGBA")

frames = [scene(t) for t in (0, 1, 1, 2, 3, 4, 5)]
apng = os.path.join(tmp, "anim.png")
frames[0].save(apng, save_all=True, append_images=frames[1:], duration=[40, 50, 60, 70, 80, 90, 100], loop=0)
inputs = [apng] + sorted(glob.glob(os.path.join(os.path.dirname(__file__), "set", "*.png")))[:4]
failures = 0
for src in inputs:
    subprocess.run([jpng, "convert", src, "--to", "gif", "--out-dir", tmp, "--force"], check=True, stdout=subprocess.DEVNULL)
    gif = os.path.join(tmp, os.path.splitext(os.path.basename(src))[0] + ".gif")
    pil = Image.open(gif)
    n = getattr(pil, "n_frames", 1)
    for k in range(n):
        pil.seek(k)
        theirs = np.asarray(pil.convert("RGBA")).astype(int)
        out = os.path.join(tmp, f"f{k}.pam")
        subprocess.run([jpng, "decode", gif, "-o", out, "--frame", str(k), "--force"], check=True, stdout=subprocess.DEVNULL)
        data = open(out, "rb").read()
        body = data[data.index(b"ENDHDR\n") + 7:]
        ours = np.frombuffer(body, np.uint8).reshape(theirs.shape).astype(int)
        opaque = (ours[..., 3] > 0) | (theirs[..., 3] > 0)
        same = np.array_equal(ours[..., 3] > 0, theirs[..., 3] > 0) and np.array_equal(ours[opaque], theirs[opaque])
        if not same:
            failures += 1
            print(f"{gif} frame {k}: PureGIF and Pillow differ")
    print(f"{os.path.basename(gif)}: {n} frames equal in PureGIF and Pillow" if n > 1 else "", end="")
    if n > 1:
        print()
        continue   # gif2rgb draws every image on one screen without disposal: stills only
    rgb = os.path.join(tmp, "g.rgb")
    subprocess.run(["gif2rgb", "-1", "-o", rgb, gif], check=True)
    g = np.fromfile(rgb, np.uint8)
    pil.seek(0)
    first = np.asarray(pil.convert("RGBA"))
    g = g.reshape(first.shape[0], first.shape[1], 3)
    mask = first[..., 3] == 255
    if not np.array_equal(g[mask], first[..., :3][mask]):
        failures += 1
        print(f"{gif}: gif2rgb differs on frame 0")
    print(f"{os.path.basename(gif)}: still equal in PureGIF, Pillow and gif2rgb")
print("gif_check:", "all equal" if failures == 0 else f"{failures} differences")
sys.exit(1 if failures else 0)
