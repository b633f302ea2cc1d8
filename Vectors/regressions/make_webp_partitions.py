#!/usr/bin/env python3
"""Makes the two diff-webp regression vectors about where libwebp 1.2.4's one-shot decoder
(WebPDecode / WebPDecodeRGBA, what dwebp runs) ends a VP8 frame's token partitions, and their
dwebp references (outputs are committed; run from anywhere).

Needs: python3 with Pillow and numpy, Debian's `webp` 1.2.4 (cwebp, dwebp), gcc with
libwebp-dev 1.2.4 (the token-partition encoder of ../webp/make_lossy.py, as cwebp has no flag
for the partition count).

libwebp's still decoder hands the VP8 decoder every byte from the VP8 payload to the end of the
input (io.data_size = data_size - offset in DecodeInto), not the chunk: the last token partition
runs to the end of the file, a partition size past it is clamped, and a last partition that
starts at or past the end is VP8_STATUS_SUSPENDED (ParsePartitions), the frame refused.

  webp-lossy-partition-past-chunk.webp   `cwebp -q 60` of a 48x32 gradient with noise (one token
                                         partition), then the VP8 chunk size and the RIFF size
                                         both lowered by 24: the last 24 bytes of the partition
                                         lie after the RIFF end. dwebp decodes it (and refuses it,
                                         NOT_ENOUGH_DATA, without those 24 bytes).
  webp-lossy-partition-past-chunk.pam    `dwebp -pam` of it (the same pixels as the unpatched file).
  webp-lossy-last-partition-at-end.webp  partitions.c (libwebp's encode API, partitions = 1: two
                                         token partitions, -q 70 -m 1) of a 48x16 gradient, one
                                         macroblock row, so only partition 0 is read; partition
                                         0's size then patched to reach the end of the file, so
                                         partition 1 starts exactly there. dwebp: SUSPENDED.
  webp-lossy-last-partition-at-end.pam   `dwebp -pam` of that file with one byte (0) appended:
                                         partition 1 then starts before the end and dwebp decodes
                                         it (the unpatched file's pixels).
  webp-lossless-past-chunk.webp          `cwebp -lossless` of the 48x32 image above, then its VP8L
                                         chunk and RIFF sizes lowered by 24 as above: libwebp's
                                         still decoder reads a VP8L stream to the end of the input
                                         too. dwebp decodes it (NOT_ENOUGH_DATA without the 24).
  webp-lossless-past-chunk.pam           `dwebp -pam` of it (the unpatched file's pixels).
  webp-lossy-empty-partition.webp        partitions.c (partitions = 2: four token partitions,
                                         -q 70 -m 0) of a flat grey 32x48 image, whose macroblocks
                                         are all skipped (no token is read), then partition 1's
                                         size patched to 0. libwebp's bit reader is at its end as
                                         soon as it is set up on no bytes, so the first macroblock
                                         of row 1 fails even though it reads nothing: dwebp says
                                         NOT_ENOUGH_DATA (and decodes the unpatched file).
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "webp"))
import make_lossy  # noqa: E402  (PARTITIONS_C, gradient, noise)
from PIL import Image  # noqa: E402

PAST_CHUNK = "webp-lossy-partition-past-chunk"
AT_END = "webp-lossy-last-partition-at-end"
EMPTY = "webp-lossy-empty-partition"
LOSSLESS = "webp-lossless-past-chunk"
CUT = 24


def dwebp(path, pam=None):
    """dwebp's status line on failure, or None (writing `pam` when given)."""
    r = subprocess.run(["dwebp", path, "-pam", "-o", pam or os.devnull], capture_output=True, text=True)
    return None if r.returncode == 0 else r.stderr.strip().splitlines()[-1]


def first_partition_end(vp8):
    """Payload offset just past the first partition (frame tag, start code, sizes: 10 bytes)."""
    return 10 + ((vp8[0] | vp8[1] << 8 | vp8[2] << 16) >> 5)


def past_chunk(source, name, tag, tmp):
    """`source` with its image chunk and RIFF sizes lowered by CUT: the chunk's last CUT bytes
    follow the RIFF end. Checks dwebp decodes it to `source`'s pixels and refuses it without them."""
    b = bytearray(open(source, "rb").read())
    assert b[12:16] == tag
    size = struct.unpack("<I", b[16:20])[0]
    b[4:8] = struct.pack("<I", struct.unpack("<I", b[4:8])[0] - CUT)
    b[16:20] = struct.pack("<I", size - CUT)
    out = os.path.join(HERE, name + ".webp")
    open(out, "wb").write(b)
    assert dwebp(out, os.path.join(HERE, name + ".pam")) is None
    ref = os.path.join(tmp, name + ".ref.pam")
    assert dwebp(source, ref) is None
    assert open(ref, "rb").read() == open(os.path.join(HERE, name + ".pam"), "rb").read()
    short = os.path.join(tmp, name + ".short.webp")
    open(short, "wb").write(b[:8 + struct.unpack("<I", b[4:8])[0]])   # up to the RIFF end
    verdict = dwebp(short)
    assert verdict and ("NOT_ENOUGH_DATA" in verdict or "BITSTREAM_ERROR" in verdict), verdict


def main():
    tmp = tempfile.mkdtemp()
    img = make_lossy.gradient(48, 32).astype(int) + (make_lossy.noise(48, 32, 7).astype(int) - 128) // 4
    src = os.path.join(tmp, "src.ppm")
    Image.fromarray(img.clip(0, 255).astype("uint8"), "RGB").save(src)
    plain = os.path.join(tmp, "plain.webp")
    subprocess.run(["cwebp", "-q", "60", src, "-o", plain], check=True, capture_output=True)
    assert len(open(plain, "rb").read()) % 2 == 0   # no padding byte: the cut file ends at the RIFF end
    past_chunk(plain, PAST_CHUNK, b"VP8 ", tmp)
    lossless = os.path.join(tmp, "lossless.webp")
    subprocess.run(["cwebp", "-lossless", src, "-o", lossless], check=True, capture_output=True)
    past_chunk(lossless, LOSSLESS, b"VP8L", tmp)

    exe = os.path.join(tmp, "partitions")
    open(exe + ".c", "w").write(make_lossy.PARTITIONS_C)
    subprocess.run(["gcc", "-O2", "-o", exe, exe + ".c", "-lwebp"], check=True)
    src16 = os.path.join(tmp, "src16.ppm")
    Image.fromarray(make_lossy.gradient(48, 16), "RGB").save(src16)
    two = os.path.join(tmp, "two.webp")
    subprocess.run([exe, src16, two, "1", "70", "1"], check=True)
    b = bytearray(open(two, "rb").read())
    assert b[12:16] == b"VP8 " and len(b) == 20 + struct.unpack("<I", b[16:20])[0]
    table = 20 + first_partition_end(b[20:])
    part0 = table + 3   # two partitions: one 3-byte size, then partition 0
    old = b[table] | b[table + 1] << 8 | b[table + 2] << 16
    new = len(b) - part0
    assert new > old
    b[table:table + 3] = bytes([new & 255, new >> 8 & 255, new >> 16])
    out = os.path.join(HERE, AT_END + ".webp")
    open(out, "wb").write(b)
    assert "SUSPENDED" in dwebp(out)
    plus = os.path.join(tmp, "plus.webp")
    open(plus, "wb").write(b + b"\0")
    assert dwebp(plus, os.path.join(HERE, AT_END + ".pam")) is None
    ref = os.path.join(tmp, "two.pam")
    assert dwebp(two, ref) is None
    assert open(ref, "rb").read() == open(os.path.join(HERE, AT_END + ".pam"), "rb").read()

    grey = os.path.join(tmp, "grey.ppm")
    Image.fromarray(make_lossy.np.full((48, 32, 3), 128, make_lossy.np.uint8), "RGB").save(grey)
    four = os.path.join(tmp, "four.webp")
    subprocess.run([exe, grey, four, "2", "70", "0"], check=True)
    assert dwebp(four) is None
    b = bytearray(open(four, "rb").read())
    table = 20 + first_partition_end(b[20:])
    assert b[table + 3:table + 6] != b"\0\0\0"
    b[table + 3:table + 6] = b"\0\0\0"   # partition 1: 0 bytes
    out = os.path.join(HERE, EMPTY + ".webp")
    open(out, "wb").write(b)
    assert "NOT_ENOUGH_DATA" in dwebp(out)
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
