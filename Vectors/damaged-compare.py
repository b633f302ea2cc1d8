#!/usr/bin/env python3
"""Damaged-file comparison: PureImage against the C libraries, on freshly damaged copies of the
valid vectors.

    Vectors/damaged-compare.py [N] [--seed S] [--codec jpeg|png|both] [--keep DIR]
                               [--jpng PATH] [--scratch-path DIR] [--no-build] [-j JOBS]

Makes N damaged files per codec (default 300; deterministic for a seed) from
  JPEG: Vectors/jpeg/valid/*.jpg and Vectors/jpeg-extra/*.jpg
  PNG:  Vectors/png/valid/*.png and Vectors/png/pngsuite/*.png (not the x* files, invalid already)
with a mix of damage: bytes changed anywhere or in the compressed data, runs of bytes changed,
truncation, bytes inserted or deleted, garbage before a marker / between chunks, markers inside
entropy data, RSTn renumbered or dropped, bad COM/APPn lengths, data after the end (JPEG);
broken chunk CRCs, wrong chunk lengths (PNG).

Each file is decoded by
  C:         `djpeg -dct int -pnm` (libjpeg-turbo; exit 0 ok, 2 warnings + image, 1 error), and
             for PNG Vectors/png/damaged/libpng_ref.c (libpng; RGBA PAM, 8 or 16 bit, on stdout;
             exit 0 / 1), compiled here with `cc -O2 ... -lpng` (PNG is skipped when it is missing);
  PureImage: `jpng decode FILE -o OUT.pam` (built with `swift build -c release --product jpng`
             in --scratch-path, default <package>/.build-jvec, unless --jpng or --no-build).
Both outputs are brought to the same form with numpy (JPEG: RGB or grey as djpeg writes it;
PNG: RGBA at the C side's depth) and compared exactly.

Prints per codec how many files: both decode identically, both reject, C decodes and PureImage
refuses, C decodes and the pixels differ, C rejects and PureImage decodes; and lists the files of
the last three classes, copied (with both outputs) into --keep DIR (default: a new temporary
folder, kept only when it holds something). Exit status 1 when any file is in "C decodes and
PureImage refuses" or "pixels differ".

Needs: python3 with numpy; djpeg (libjpeg-turbo 2.1.x); a C compiler and libpng headers for PNG;
Swift to build jpng.
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIMEOUT = 60

# ---------------------------------------------------------------- images


def read_netpbm(data):
    """P5/P6/P7 bytes -> (array h x w x channels, maxval), or None."""
    if data[:2] == b"P7":
        end = data.find(b"ENDHDR\n")
        if end < 0:
            return None
        fields = {}
        for line in data[:end].decode("latin-1").splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 2 and not line.startswith("#"):
                fields[parts[0]] = parts[1]
        w, h, d, maxval = (int(fields[k]) for k in ("WIDTH", "HEIGHT", "DEPTH", "MAXVAL"))
        body = data[end + 7:]
    elif data[:2] in (b"P5", b"P6"):
        tokens, i = [], 2
        while len(tokens) < 3:
            while data[i:i + 1].isspace():
                i += 1
            if data[i:i + 1] == b"#":
                i = data.index(b"\n", i)
                continue
            j = i
            while not data[j:j + 1].isspace():
                j += 1
            tokens.append(int(data[i:j]))
            i = j
        w, h, maxval = tokens
        d = 1 if data[:2] == b"P5" else 3
        body = data[i + 1:]
    else:
        return None
    dtype = np.dtype(">u2") if maxval > 255 else np.dtype(np.uint8)
    n = w * h * d
    if len(body) < n * dtype.itemsize:
        return None
    return np.frombuffer(body, dtype=dtype, count=n).reshape(h, w, d).astype(np.uint16), maxval


def to_rgba(pixels, maxval, depth16):
    """Grey, grey+alpha, RGB or RGBA at 8 or 16 bits -> RGBA at the given depth."""
    h, w, d = pixels.shape
    if d == 1:
        pixels = np.concatenate([pixels] * 3, axis=2)
    elif d == 2:
        pixels = np.concatenate([pixels[:, :, :1]] * 3 + [pixels[:, :, 1:]], axis=2)
    if pixels.shape[2] == 3:
        pixels = np.concatenate([pixels, np.full((h, w, 1), maxval, np.uint16)], axis=2)
    if depth16 and maxval <= 255:
        pixels = pixels * 257
    return pixels


# ---------------------------------------------------------------- damage


def jpeg_layout(data):
    """(marker offsets [(offset, code)], entropy ranges [(start, end)], RSTn offsets)."""
    markers, entropy, rst = [], [], []
    i, n = 0, len(data)
    while i + 1 < n:
        if data[i] == 0xFF and data[i + 1] not in (0x00, 0xFF):
            code = data[i + 1]
            markers.append((i, code))
            if 0xD0 <= code <= 0xD7:
                rst.append(i)
                i += 2
                continue
            if code in (0xD8, 0xD9, 0x01) or i + 4 > n:
                i += 2
                continue
            length = struct.unpack(">H", data[i + 2:i + 4])[0]
            if code == 0xDA:
                start = j = i + 2 + length
                while j + 1 < n:
                    if data[j] != 0xFF:
                        j += 1
                    elif data[j + 1] == 0x00:
                        j += 2
                    elif 0xD0 <= data[j + 1] <= 0xD7:
                        rst.append(j)
                        markers.append((j, data[j + 1]))
                        j += 2
                    else:
                        break
                entropy.append((start, j))
                i = j
                continue
            i += 2 + length
        else:
            i += 1
    return markers, entropy, rst


def safe_entropy_offsets(data, entropy):
    """Entropy-data offsets whose byte is not 0xFF and does not follow one."""
    out = []
    for a, b in entropy:
        out.extend(k for k in range(a + 1, b - 1) if data[k] != 0xFF and data[k - 1] != 0xFF)
    return out


def rand_bytes(rng, n, no_ff=False):
    return bytes(rng.randrange(255 if no_ff else 256) for _ in range(n))


def damage_common(rng, data, kind):
    b = bytearray(data)
    if kind == "flip_any":
        at = sorted(rng.randrange(len(b)) for _ in range(1 + rng.randrange(4)))
        for k in at:
            b[k] = rng.randrange(256)
        return bytes(b), "bytes at %s changed" % at
    if kind == "truncate":
        cut = rng.randrange(2, len(b))
        return bytes(b[:cut]), "cut at %d of %d" % (cut, len(b))
    if kind == "insert":
        at, n = rng.randrange(2, len(b)), 1 + rng.randrange(16)
        return bytes(b[:at]) + rand_bytes(rng, n) + bytes(b[at:]), "%d bytes inserted at %d" % (n, at)
    if kind == "delete":
        at, n = rng.randrange(2, len(b) - 1), 1 + rng.randrange(16)
        return bytes(b[:at] + b[at + n:]), "%d bytes deleted at %d" % (n, at)
    raise ValueError(kind)


JPEG_KINDS = [("flip_any", 3), ("flip_entropy", 4), ("run_entropy", 2), ("truncate", 4), ("insert", 2),
              ("delete", 2), ("garbage_before_marker", 2), ("marker_in_entropy", 2), ("rst", 2),
              ("segment_length", 1), ("after_eoi", 1)]
PNG_KINDS = [("flip_any", 3), ("flip_idat", 3), ("truncate", 4), ("insert", 2), ("delete", 2), ("crc", 3),
             ("chunk_length", 1), ("garbage_between_chunks", 2)]


def pick(rng, kinds):
    total = sum(w for _, w in kinds)
    r = rng.randrange(total)
    for k, w in kinds:
        if r < w:
            return k
        r -= w


def damage_jpeg(rng, data, kind):
    markers, entropy, rst = jpeg_layout(data)
    safe = safe_entropy_offsets(data, entropy)
    if kind in ("flip_entropy", "run_entropy", "marker_in_entropy") and not safe:
        kind = "flip_any"
    if kind == "rst" and not rst:
        kind = "flip_entropy" if safe else "flip_any"
    b = bytearray(data)
    if kind == "truncate" and entropy and rng.randrange(4):
        # Mostly in the scans: a cut anywhere lands in the (sometimes large) metadata too often.
        a, e = rng.choice(entropy)
        cut = rng.randrange(a, e + 3)
        out, note = data[:cut], "cut at %d of %d (scan data %d-%d)" % (cut, len(data), a, e)
    elif kind in ("flip_any", "truncate", "insert", "delete"):
        out, note = damage_common(rng, data, kind)
    elif kind == "flip_entropy":
        at = sorted(rng.sample(safe, min(len(safe), 1 + rng.randrange(8))))
        for k in at:
            b[k] = rng.randrange(255)
        out, note = bytes(b), "entropy bytes at %s changed" % at[:8]
    elif kind == "run_entropy":
        k = rng.choice(safe)
        n = 4 + rng.randrange(29)
        value = rng.choice([0x00, 0xFE, None])
        for j in range(k, min(k + n, len(b))):
            if b[j] == 0xFF or b[j - 1] == 0xFF:
                break
            b[j] = value if value is not None else rng.randrange(255)
        out, note = bytes(b), "run of %d bytes (%s) at %d" % (n, "random" if value is None else "0x%02X" % value, k)
    elif kind == "garbage_before_marker":
        at, code = rng.choice(markers[1:] or markers)
        g = rand_bytes(rng, 1 + rng.randrange(8), no_ff=True)
        out, note = data[:at] + g + data[at:], "%d bytes before marker 0x%02X at %d" % (len(g), code, at)
    elif kind == "marker_in_entropy":
        k = rng.choice(safe)
        m = rng.choice([b"\xff\xd9", b"\xff\xd0", b"\xff\xd5", b"\xff\xfe\x00\x04ab", b"\xff\xe1\x00\x02"])
        out, note = data[:k] + m + data[k:], "marker %s inserted in entropy data at %d" % (m[:2].hex(), k)
    elif kind == "rst":
        at = rng.choice(rst)
        how = rng.choice(["renumber", "drop", "duplicate"])
        if how == "renumber":
            b[at + 1] = 0xD0 + (b[at + 1] - 0xD0 + 1 + rng.randrange(7)) % 8
            out = bytes(b)
        elif how == "drop":
            out = data[:at] + data[at + 2:]
        else:
            out = data[:at] + data[at:at + 2] + data[at:]
        note = "RST at %d: %s" % (at, how)
    elif kind == "segment_length":
        segs = [(at, c) for at, c in markers if c == 0xFE or 0xE0 <= c <= 0xEF]
        if segs and rng.randrange(2):
            at, code = rng.choice(segs)
            length = rng.choice([0, 1, rng.randrange(2, 65536)])
            struct.pack_into(">H", b, at + 2, length)
            out, note = bytes(b), "length of 0x%02X at %d set to %d" % (code, at, length)
        else:
            length = rng.choice([0, 1])
            body = rand_bytes(rng, rng.randrange(6), no_ff=True)
            out = data[:2] + b"\xff\xfe" + struct.pack(">H", length) + body + data[2:]
            note = "COM of length %d with %d body bytes after SOI" % (length, len(body))
    else:  # after_eoi
        out, note = data + rand_bytes(rng, 1 + rng.randrange(200)), "bytes after EOI"
    return out, kind, note


def png_chunks(data):
    """[(offset, length, type)] from the signature on, as far as the lengths hold."""
    out, i = [], 8
    while i + 12 <= len(data):
        length = struct.unpack(">I", data[i:i + 4])[0]
        out.append((i, length, data[i + 4:i + 8]))
        i += 12 + length
    return out


def damage_png(rng, data, kind):
    chunks = png_chunks(data)
    idat = [c for c in chunks if c[2] == b"IDAT" and c[1] > 0]
    if kind == "flip_idat" and not idat:
        kind = "flip_any"
    b = bytearray(data)
    if kind in ("flip_any", "truncate", "insert", "delete"):
        out, note = damage_common(rng, data, kind)
    elif kind == "flip_idat":
        off, length, _ = rng.choice(idat)
        at = sorted(off + 8 + rng.randrange(length) for _ in range(1 + rng.randrange(4)))
        for k in at:
            b[k] = rng.randrange(256)
        # Keep the CRC right, so that only the compressed data is damaged.
        struct.pack_into(">I", b, off + 8 + length, zlib.crc32(bytes(b[off + 4:off + 8 + length])) & 0xFFFFFFFF)
        out, note = bytes(b), "IDAT bytes at %s changed, CRC fixed" % at
    elif kind == "crc":
        off, length, typ = rng.choice(chunks)
        b[off + 8 + length + rng.randrange(4)] ^= 1 << rng.randrange(8)
        out, note = bytes(b), "CRC of %s at %d broken" % (typ.decode("latin-1"), off)
    elif kind == "chunk_length":
        off, length, typ = rng.choice(chunks)
        new = max(0, length + rng.choice([-4, -1, 1, 4, 1000]))
        struct.pack_into(">I", b, off, new)
        out, note = bytes(b), "length of %s at %d: %d -> %d" % (typ.decode("latin-1"), off, length, new)
    else:  # garbage_between_chunks
        off = rng.choice([c[0] for c in chunks[1:]] or [8])
        g = rand_bytes(rng, 1 + rng.randrange(12))
        out, note = data[:off] + g + data[off:], "%d bytes before the chunk at %d" % (len(g), off)
    return out, kind, note


# ---------------------------------------------------------------- decoding


def run(args, stdout=subprocess.PIPE):
    try:
        p = subprocess.run(args, stdout=stdout, stderr=subprocess.PIPE, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr.decode("latin-1", "replace")
    except subprocess.TimeoutExpired:
        return -1, b"", "timeout after %d s" % TIMEOUT


def c_decode(codec, path, libpng_ref):
    """(image array and maxval, or None; message)."""
    if codec == "jpeg":
        rc, out, err = run(["djpeg", "-dct", "int", "-pnm", path])
        ok = rc in (0, 2) and out
    else:
        rc, out, err = run([libpng_ref, path])
        ok = rc == 0 and out
    img = read_netpbm(out) if ok else None
    msg = " | ".join(l.strip() for l in err.splitlines() if l.strip())
    return img, out if img is not None else None, ("exit %d" % rc) + (": " + msg if msg else "")


def pure_decode(jpng, path, workdir):
    out_path = os.path.join(workdir, os.path.basename(path) + ".pure.pam")
    rc, _, err = run([jpng, "decode", path, "-o", out_path, "--force"], stdout=subprocess.DEVNULL)
    if rc != 0 or not os.path.exists(out_path):
        return None, None, ("exit %d" % rc) + (": " + err.strip().replace("\n", " | ") if err.strip() else "")
    with open(out_path, "rb") as f:
        data = f.read()
    os.remove(out_path)
    img = read_netpbm(data)
    return img, data, "ok" if img is not None else "unreadable output"


def same_pixels(codec, c_img, p_img):
    (c, cmax), (p, pmax) = c_img, p_img
    if codec == "png":
        depth16 = cmax > 255 or pmax > 255
        c, p = to_rgba(c, cmax, depth16), to_rgba(p, pmax, depth16)
    elif c.shape[2] != p.shape[2] or cmax != pmax:
        return False, "layout %s/%d vs %s/%d" % (c.shape, cmax, p.shape, pmax)
    if c.shape != p.shape:
        return False, "size %dx%d vs %dx%d" % (c.shape[1], c.shape[0], p.shape[1], p.shape[0])
    diff = np.abs(c.astype(np.int32) - p.astype(np.int32))
    if diff.max() == 0:
        return True, ""
    return False, "max difference %d, %d samples differ" % (diff.max(), int((diff > 0).sum()))


CLASSES = [("same", "both decode identically"), ("both_reject", "both reject"),
           ("pure_refuses", "C decodes, PureImage refuses"), ("differ", "C decodes, pixels differ"),
           ("pure_only", "C rejects, PureImage decodes")]
BAD = ("pure_refuses", "differ", "pure_only")


def compare_one(codec, path, jpng, libpng_ref, workdir):
    c_img, c_raw, c_msg = c_decode(codec, path, libpng_ref)
    p_img, p_raw, p_msg = pure_decode(jpng, path, workdir)
    if c_img is None and p_img is None:
        return "both_reject", c_msg, p_msg, None, None
    if c_img is None:
        return "pure_only", c_msg, p_msg, None, p_raw
    if p_img is None:
        return "pure_refuses", c_msg, p_msg, c_raw, None
    same, why = same_pixels(codec, c_img, p_img)
    return ("same" if same else "differ"), c_msg, (p_msg if same else why), c_raw, p_raw


# ---------------------------------------------------------------- driver


def sources(codec):
    if codec == "jpeg":
        dirs = [os.path.join(HERE, "jpeg", "valid"), os.path.join(HERE, "jpeg-extra")]
        ext = ".jpg"
    else:
        dirs = [os.path.join(HERE, "png", "valid"), os.path.join(HERE, "png", "pngsuite")]
        ext = ".png"
    out = []
    for d in dirs:
        if os.path.isdir(d):
            out += [os.path.join(d, f) for f in sorted(os.listdir(d))
                    if f.endswith(ext) and not (d.endswith("pngsuite") and f.startswith("x"))]
    return out


def build_jpng(args):
    if args.jpng:
        return args.jpng
    scratch = args.scratch_path or os.path.join(ROOT, ".build-jvec")
    if not args.no_build:
        subprocess.run(["swift", "build", "-c", "release", "--scratch-path", scratch, "--product", "jpng"],
                       cwd=ROOT, check=True, stdout=sys.stderr)
    out = subprocess.run(["swift", "build", "-c", "release", "--scratch-path", scratch, "--show-bin-path"],
                         cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    return os.path.join(out, "jpng")


def build_libpng_ref(tmp):
    src = os.path.join(HERE, "png", "damaged", "libpng_ref.c")
    if not os.path.exists(src):
        return None, "%s is missing" % os.path.relpath(src, ROOT)
    exe = os.path.join(tmp, "libpng_ref")
    cc = os.environ.get("CC", "cc")
    p = subprocess.run([cc, "-O2", "-o", exe, src, "-lpng"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        return None, "compiling libpng_ref.c failed: " + p.stdout.decode("latin-1")[-500:]
    return exe, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", nargs="?", type=int, default=300, help="damaged files per codec (default 300)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--codec", choices=["jpeg", "png", "both"], default="both")
    ap.add_argument("--keep", help="folder for the files in the bad classes (default: a new temp folder)")
    ap.add_argument("--jpng", help="a jpng binary to use instead of building one")
    ap.add_argument("--scratch-path", help="swift build scratch path (default <package>/.build-jvec)")
    ap.add_argument("--no-build", action="store_true", help="use the jpng already built in the scratch path")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()

    jpng = build_jpng(args)
    tmp = tempfile.mkdtemp(prefix="damaged-compare-")
    keep = args.keep or tempfile.mkdtemp(prefix="damaged-compare-keep-")
    os.makedirs(keep, exist_ok=True)
    codecs = ["jpeg", "png"] if args.codec == "both" else [args.codec]
    libpng_ref, why = (None, "")
    if "png" in codecs:
        libpng_ref, why = build_libpng_ref(tmp)
        if libpng_ref is None:
            print("PNG skipped: %s" % why, file=sys.stderr)
            codecs.remove("png")

    failing = False
    kept = 0
    for codec in codecs:
        rng = random.Random("%s/%d" % (codec, args.seed))
        srcs = sources(codec)
        contents = {}
        for src in srcs:
            with open(src, "rb") as f:
                contents[src] = f.read()
        # Restart-marker damage needs a file with restart markers.
        with_rst = [s for s in srcs if codec == "jpeg" and jpeg_layout(contents[s])[2]]
        jobs = []
        for k in range(args.n):
            kind = pick(rng, JPEG_KINDS if codec == "jpeg" else PNG_KINDS)
            src = rng.choice(with_rst if kind == "rst" and with_rst else srcs)
            damaged, kind, note = (damage_jpeg if codec == "jpeg" else damage_png)(rng, contents[src], kind)
            name = "%s_%04d_%s_%s" % (codec, k, kind, os.path.splitext(os.path.basename(src))[0])
            path = os.path.join(tmp, name + (".jpg" if codec == "jpeg" else ".png"))
            with open(path, "wb") as f:
                f.write(damaged)
            jobs.append((path, kind, note, os.path.relpath(src, HERE)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda j: compare_one(codec, j[0], jpng, libpng_ref, tmp), jobs))

        counts = {c: 0 for c, _ in CLASSES}
        by_kind = {}
        for (path, kind, note, src), (cls, c_msg, p_msg, c_raw, p_raw) in zip(jobs, results):
            counts[cls] += 1
            by_kind.setdefault(kind, {c: 0 for c, _ in CLASSES})[cls] += 1
        print("\n%s: %d damaged files (seed %d)" % (codec.upper(), args.n, args.seed))
        width = max(len(t) for _, t in CLASSES)
        for c, title in CLASSES:
            print("  %-*s %5d" % (width, title, counts[c]))
        print()
        kw = max(len(k) for k in list(by_kind) + ["damage kind"])
        print("  %-*s %s" % (kw, "damage kind", " ".join("%12s" % c for c, _ in CLASSES)))
        for kind in sorted(by_kind):
            print("  %-*s %s" % (kw, kind, " ".join("%12d" % by_kind[kind][c] for c, _ in CLASSES)))
        for c, title in CLASSES:
            if c not in BAD or not counts[c]:
                continue
            print("\n  %s:" % title)
            for (path, kind, note, src), (cls, c_msg, p_msg, c_raw, p_raw) in zip(jobs, results):
                if cls != c:
                    continue
                name = os.path.basename(path)
                shutil.copy(path, os.path.join(keep, name))
                if c_raw:
                    with open(os.path.join(keep, name + ".c" + (".pam" if codec == "png" else ".pnm")), "wb") as f:
                        f.write(c_raw)
                if p_raw:
                    with open(os.path.join(keep, name + ".pure.pam"), "wb") as f:
                        f.write(p_raw)
                kept += 1
                print("    %s  (%s; %s)\n        C: %s\n        PureImage: %s" % (name, src, note, c_msg, p_msg))
        if counts["pure_refuses"] or counts["differ"]:
            failing = True
    shutil.rmtree(tmp, ignore_errors=True)
    if kept:
        print("\n%d files kept in %s" % (kept, keep))
    elif not args.keep:
        shutil.rmtree(keep, ignore_errors=True)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
