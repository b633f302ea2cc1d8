#!/usr/bin/env python3
"""Makes the diff-webp regression vectors about what libwebp 1.2.4 reads besides a plain RIFF
file, and their references (outputs are committed; run from anywhere).

Needs: python3 with Pillow and numpy, Debian's `webp` 1.2.4 (cwebp, dwebp, img2webp), gcc with
libwebp-dev 1.2.4 (../webp/anim_dump.c, libwebp's WebPAnimDecoder).

Stills: libwebp's one-shot decoder (WebPDecode, what dwebp runs; ParseHeadersInternal) takes a
`VP8 `/`VP8L` chunk without the RIFF header, and a raw VP8 or VP8L bitstream with no chunk header
(alone, or where a RIFF file's first chunk header should be); the bitstream runs to the end of
the input. Each `.pam` is `dwebp -pam` of its `.webp`, checked equal to dwebp of the plain file.

  webp-raw-vp8l.webp        the VP8L payload of `cwebp -lossless` (40x24 gradient), nothing else
  webp-raw-vp8.webp         the VP8 payload of `cwebp -q 70` of the same image, nothing else
  webp-bare-vp8l-chunk.webp the `VP8L` chunk of the lossless file without the RIFF header
  webp-riff-raw-vp8.webp    RIFF + WEBP + the raw VP8 payload (no chunk header), RIFF size to
                            the end of the file
  webp-vp8l-short-chunk.webp the lossless file with its VP8L chunk size set to 3 (odd: 1 padding
                            byte) and the RIFF size kept: the stream's header and the rest lie
                            past the chunk, where libwebp's still decoder reads them
  webp-alph-bare-chunks.webp the ALPH and VP8 chunks of `cwebp -q 70` of the gradient with an
                            alpha ramp (VP8X, ALPH, VP8), without the RIFF header and VP8X: the
                            input starts with ALPH, so ParseOptionalChunks reads it (alpha kept)
  webp-second-vp8x.webp     the lossless file as VP8X + VP8L, then a second VP8X chunk: the still
                            decoder skips it

Animations (anim_dump.c: WebPAnimDecoder's canvases, checked against the plain file's):

  webp-anim-frame-padding.webp  `img2webp -lossless` of three 24x16 frames; the first frame's
                            VP8L chunk size lowered by one (even to odd), so the stream's last
                            byte is the chunk's padding byte. The demuxer hands the frame's
                            codec the chunk with its padding byte: the same canvases as the
                            plain file. `.pam`: anim_dump's canvases.
  webp-anim-reserved-flag.webp  the plain animation with VP8X flag bit 0x40 (reserved) set: the
                            demuxer refuses it (IsValidExtendedFormat); anim_dump fails.
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "webp"))
import make_lossy  # noqa: E402  (gradient, noise)
from PIL import Image  # noqa: E402


def run(cmd):
    subprocess.run(cmd, check=True, capture_output=True)


def dwebp(path, pam):
    r = subprocess.run(["dwebp", path, "-pam", "-o", pam], capture_output=True, text=True)
    assert r.returncode == 0, (path, r.stderr)
    return open(pam, "rb").read()


def write(name, data):
    out = os.path.join(HERE, name + ".webp")
    open(out, "wb").write(data)
    return out


def riff(chunks):
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WEBP" + chunks


def payload(path, tag):
    b = open(path, "rb").read()
    assert b[12:16] == tag
    size = struct.unpack("<I", b[16:20])[0]
    return b[20:20 + size]


def still(name, data, reference):
    out = write(name, data)
    assert dwebp(out, os.path.join(HERE, name + ".pam")) == reference, name


def main():
    tmp = tempfile.mkdtemp()
    img = make_lossy.gradient(40, 24).astype(int) + (make_lossy.noise(40, 24, 3).astype(int) - 128) // 4
    src = os.path.join(tmp, "src.ppm")
    Image.fromarray(img.clip(0, 255).astype("uint8"), "RGB").save(src)
    lossless, lossy = os.path.join(tmp, "ll.webp"), os.path.join(tmp, "ly.webp")
    run(["cwebp", "-lossless", src, "-o", lossless])
    run(["cwebp", "-q", "70", src, "-o", lossy])
    ref_ll = dwebp(lossless, os.path.join(tmp, "ll.pam"))
    ref_ly = dwebp(lossy, os.path.join(tmp, "ly.pam"))
    vp8l, vp8 = payload(lossless, b"VP8L"), payload(lossy, b"VP8 ")

    still("webp-raw-vp8l", vp8l, ref_ll)
    still("webp-raw-vp8", vp8, ref_ly)
    still("webp-bare-vp8l-chunk", b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l, ref_ll)
    still("webp-riff-raw-vp8", riff(vp8), ref_ly)
    b = bytearray(open(lossless, "rb").read())
    b[16:20] = struct.pack("<I", 3)
    still("webp-vp8l-short-chunk", bytes(b), ref_ll)

    alpha = os.path.join(tmp, "alpha.png")
    rgba = make_lossy.np.dstack([img.clip(0, 255).astype("uint8"),
                                 make_lossy.np.tile(make_lossy.np.linspace(0, 255, 40).astype("uint8"), (24, 1))])
    Image.fromarray(rgba, "RGBA").save(alpha)
    with_alpha = os.path.join(tmp, "alpha.webp")
    run(["cwebp", "-q", "70", alpha, "-o", with_alpha])
    ref_alpha = dwebp(with_alpha, os.path.join(tmp, "alpha.pam"))
    b = open(with_alpha, "rb").read()
    assert b[12:16] == b"VP8X" and b[30:34] == b"ALPH"
    still("webp-alph-bare-chunks", b[30:], ref_alpha)
    vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([0, 0, 0, 0]) + (39).to_bytes(3, "little") + (23).to_bytes(3, "little")
    ll_chunk = b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l + (b"\0" if len(vp8l) & 1 else b"")
    still("webp-second-vp8x", riff(vp8x + ll_chunk + vp8x), ref_ll)

    exe = os.path.join(tmp, "anim_dump")
    run(["gcc", "-O1", "-o", exe, os.path.join(HERE, "..", "webp", "anim_dump.c"), "-lwebpdemux", "-lwebp"])
    frames = []
    for i in range(3):
        f = os.path.join(tmp, f"f{i}.png")
        shifted = (img.clip(0, 255).astype("uint8")[4 * i:4 * i + 16, 8 * i:8 * i + 24])
        Image.fromarray(shifted, "RGB").save(f)
        frames.append(f)
    plain = os.path.join(tmp, "anim.webp")
    run(["img2webp", "-loop", "0", "-lossless", "-d", "80"] + frames + ["-o", plain])
    plain_pam = os.path.join(tmp, "anim.pam")
    plain_line = subprocess.run([exe, plain, plain_pam], check=True, capture_output=True, text=True).stdout
    b = bytearray(open(plain, "rb").read())
    at = 12
    while b[at:at + 4] != b"ANMF":
        at += 8 + (struct.unpack("<I", b[at + 4:at + 8])[0] + 1 & ~1)
    image = at + 8 + 16
    assert b[image:image + 4] == b"VP8L"
    size = struct.unpack("<I", b[image + 4:image + 8])[0]
    assert size % 2 == 0, "the first frame's VP8L payload must be even for this construction"
    b[image + 4:image + 8] = struct.pack("<I", size - 1)
    name = "webp-anim-frame-padding"
    out = write(name, bytes(b))
    line = subprocess.run([exe, out, os.path.join(HERE, name + ".pam")], check=True, capture_output=True,
                          text=True).stdout
    assert line == plain_line
    assert open(os.path.join(HERE, name + ".pam"), "rb").read() == open(plain_pam, "rb").read()

    b = bytearray(open(plain, "rb").read())
    assert b[12:16] == b"VP8X"
    b[20] |= 0x40
    out = write("webp-anim-reserved-flag", bytes(b))
    assert subprocess.run([exe, out, os.path.join(tmp, "x.pam")], capture_output=True).returncode != 0


if __name__ == "__main__":
    main()
