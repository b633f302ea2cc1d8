"""PureQuant against libimagequant, both in process, one thread, 256 colours, full
Floyd-Steinberg: quantize + remap, what each library does between an RGBA buffer and
palette indices (no file decode or encode, no process start).

libimagequant is PyPI `imagequant`'s bundled build (2.x C, no OpenMP), called through its cffi
`lib` directly (liq_image_create_rgba, liq_image_quantize, liq_set_dithering_level 1.0,
liq_write_remapped_image): the package's `quantize_pil_image` adds a pure-Python pixel
conversion that costs tens of ms an image. PureQuant is the QuantBench executable in this
folder (release), serving one image per line on stdin.

Each image is timed on both sides in turn (best of 3 each, the side going first alternating),
so a pair is seconds apart on this VM whose speed swings within seconds; a round is one pass
over the set. Prints per round the mean ms per image on each side and the ratio
(libimagequant's time over ours: >= 1 means we are at least as fast), then the worst round.
Usage: python3 speed.py [rounds] [set-dir]    (build first: swift build -c release)
"""
import glob, os, subprocess, sys, time
from PIL import Image
from imagequant import lib, ffi

here = os.path.dirname(os.path.abspath(__file__))
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
files = sorted(glob.glob(os.path.join(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "set"), "*.png")))
server = subprocess.Popen([os.path.join(here, ".build/release/QuantBench"), "serve", "3"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

def ours(path):
    server.stdin.write(path + "\n"); server.stdin.flush()
    return float(server.stdout.readline()) / 1000

def liq_once(data, w, h):
    attr = lib.liq_attr_create()
    attr.max_colors = 256
    img = lib.liq_image_create_rgba(attr, data, w, h, 0)
    res = ffi.new("liq_result**")
    if lib.liq_image_quantize(img, attr, res) != lib.LIQ_OK: raise RuntimeError("liq")
    lib.liq_set_dithering_level(res[0], 1.0)
    out = ffi.new("char[]", w * h)
    lib.liq_write_remapped_image(res[0], img, out, w * h)
    lib.liq_result_destroy(res[0]); lib.liq_image_destroy(img); lib.liq_attr_destroy(attr)

def liq(image):
    data, (w, h) = image
    best = 1e9
    for _ in range(3):
        t = time.perf_counter(); liq_once(data, w, h); best = min(best, time.perf_counter() - t)
    return best

images = {}
for f in files:
    im = Image.open(f).convert("RGBA")
    images[f] = (im.tobytes(), im.size)
    ours(f)  # decode and cache on the Swift side, warm up
worst = None
for r in range(rounds):
    a = b = 0.0
    for i, f in enumerate(files):
        if (i + r) % 2 == 0:
            b += ours(f); a += liq(images[f])
        else:
            a += liq(images[f]); b += ours(f)
    n = len(files)
    ratio = a / b
    print(f"round {r + 1}: libimagequant {a / n * 1000:.1f} ms, PureQuant {b / n * 1000:.1f} ms per image, ratio {ratio:.2f}", flush=True)
    if worst is None or ratio < worst[0]: worst = (ratio, a / n * 1000, b / n * 1000)
print(f"# worst round: libimagequant {worst[1]:.1f} ms, PureQuant {worst[2]:.1f} ms per image, ratio {worst[0]:.2f}")
server.stdin.close(); server.wait()
