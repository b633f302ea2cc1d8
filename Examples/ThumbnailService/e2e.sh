#!/usr/bin/env bash
# End-to-end test of ThumbnailService: builds it in release, writes test images with PureImage
# (the make-test-images helper), starts the server on a free loopback port, sends real uploads
# over HTTP (python3's standard library only) and checks statuses, media types, thumbnail sizes,
# refusals, 20 concurrent 12 MP uploads and the server's peak memory.
#
# Usage: ./e2e.sh        Prints one line per check and closes with "N passed, M failed";
#                        exits non-zero on any failure.
set -euo pipefail

cd "$(dirname "$0")"
VECTORS="$(cd ../.. && pwd)/Vectors"
WORK="$(mktemp -d)"
SERVER_PID=""

cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "== swift build -c release"
start=$SECONDS
if ! swift build -c release >"$WORK/build.log" 2>&1; then
    tail -40 "$WORK/build.log"
    echo "build failed"
    exit 1
fi
# The example's own code must build without warnings (dependencies' warnings are not ours).
if grep -E "Examples/ThumbnailService/Sources/.*(warning|error):" "$WORK/build.log"; then
    echo "the example's sources have warnings"
    exit 1
fi
echo "built in $((SECONDS - start)) s"
BIN="$(swift build -c release --show-bin-path)"
export BIN

echo "== test images"
"$BIN/make-test-images" "$WORK"

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
echo "== starting ThumbnailService on 127.0.0.1:$PORT"
"$BIN/ThumbnailService" --host 127.0.0.1 --port "$PORT" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

status=0
python3 - "$PORT" "$SERVER_PID" "$WORK" "$VECTORS" <<'PYTHON' || status=$?
import http.client, json, os, random, socket, struct, sys, threading, time, zlib

port, pid, work, vectors = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
passed = failed = 0

def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}" + (f" ({detail})" if detail else ""))
    else:
        failed += 1
        print(f"FAIL  {name}: {detail}")

def post(path, body=b"", headers=None, timeout=120):
    """POSTs `body`: bytes (sent with a Content-Length) or an iterator of pieces (sent chunked
    unless `headers` gives a Content-Length). Returns (status, content type, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        conn.close()

def get(path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()

def pieces(data, size=16 * 1024, pause=0.0):
    """The upload in small pieces, as a slow client sends it."""
    for start in range(0, len(data), size):
        yield data[start:start + size]
        if pause:
            time.sleep(pause)

def jpeg_size(data):
    """(width, height) from a JPEG's SOF segment."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG")
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise ValueError(f"no marker at {i}")
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    raise ValueError("no SOF")

def png_info(data):
    """(width, height, colour type) from a PNG's IHDR."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    return width, height, data[25]

def image_size(content_type, data):
    if content_type == "image/jpeg":
        return jpeg_size(data)
    if content_type == "image/png":
        return png_info(data)[:2]
    raise ValueError(f"unexpected type {content_type}")

def png_chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

def png_bomb(width, height):
    """A few hundred bytes claiming a width x height RGBA image: IHDR, a tiny IDAT, IEND."""
    return (b"\x89PNG\r\n\x1a\n"
            + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(b"\0" * 65536, 9))
            + png_chunk(b"IEND", b""))

def gif_bomb():
    """A GIF whose canvas and frame claim 65535 x 65535 pixels."""
    screen = struct.pack("<HHBBB", 65535, 65535, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, 65535, 65535, 0) + b"\x02\x02\x4c\x01\x00"
    return b"GIF89a" + screen + frame + b"\x3b"

def peak_rss_mb():
    """The server's peak resident memory so far (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmHWM"].split()[0]) // 1024

def read(path):
    with open(path, "rb") as f:
        return f.read()

# -- health ---------------------------------------------------------------------------------
deadline = time.time() + 30
while True:
    try:
        status, body = get("/health")
        break
    except OSError:
        if time.time() > deadline:
            print("FAIL  the server did not answer /health within 30 s")
            sys.exit(1)
        time.sleep(0.1)
check("GET /health -> 200 ok", status == 200 and body.strip() == b"ok", f"{status} {body!r}")

photo = read(os.path.join(work, "photo-12mp.jpg"))
alpha = read(os.path.join(work, "alpha.png"))
print(f"      (12 MP JPEG: {len(photo)} bytes, alpha PNG: {len(alpha)} bytes)")

# -- thumbnails -------------------------------------------------------------------------------
N = 256
status, ctype, body = post(f"/thumbnail?size={N}", pieces(photo, pause=0.001))
try:
    w, h = jpeg_size(body) if status == 200 else (0, 0)
except ValueError as e:
    w = h = -1
check(f"12 MP JPEG in 16 KiB chunks (chunked) -> 200 image/jpeg, <= {N}",
      status == 200 and ctype == "image/jpeg" and 0 < max(w, h) <= N, f"{status} {ctype} {w}x{h}")

status, ctype, body = post(f"/thumbnail?size={N}", pieces(photo, pause=0.001),
                           headers={"Content-Length": str(len(photo)), "Content-Type": "image/jpeg"})
w, h = jpeg_size(body) if status == 200 else (0, 0)
check(f"12 MP JPEG in 16 KiB pieces with Content-Length -> 200 image/jpeg, {N} on the long side",
      status == 200 and ctype == "image/jpeg" and max(w, h) == N, f"{status} {ctype} {w}x{h}")

# -- 20 concurrent 12 MP uploads ----------------------------------------------------------------
results = [None] * 20
def upload(i):
    try:
        status, ctype, body = post(f"/thumbnail?size={N}", pieces(photo, size=64 * 1024, pause=0.001), timeout=300)
        results[i] = (status, ctype, max(jpeg_size(body)) if status == 200 else 0)
    except Exception as e:
        results[i] = ("error", repr(e), 0)
started = time.time()
threads = [threading.Thread(target=upload, args=(i,)) for i in range(20)]
for t in threads:
    t.start()
for t in threads:
    t.join()
elapsed = time.time() - started
good = sum(1 for r in results if r[0] == 200 and r[1] == "image/jpeg" and r[2] == N)
check("20 concurrent 12 MP uploads -> all 200 image/jpeg", good == 20,
      f"{good}/20 in {elapsed:.1f} s" + ("" if good == 20 else f": {[r for r in results if r[0] != 200][:3]}"))

peak_mb = peak_rss_mb()
print(f"peak RSS: {peak_mb} MB")
check("peak RSS under 2 GB after 20 concurrent 12 MP uploads", peak_mb < 2048, f"{peak_mb} MB")

status, ctype, body = post("/thumbnail?size=300", alpha)
info = png_info(body) if status == 200 and ctype == "image/png" else (0, 0, -1)
check("PNG with alpha -> 200 image/png with alpha, <= 300",
      status == 200 and info[2] in (4, 6) and 0 < max(info[:2]) <= 300,
      f"{status} {ctype} {info[0]}x{info[1]} colour type {info[2]}")

# Colour: a CMYK JPEG with its CMYK profile and an Adobe RGB JPEG (Vectors/color-photos, EXIF
# Orientation 6): the answer is upright, in sRGB, within a few code values of lcms2's float
# conversion of Pillow's Lanczos reduction. JPEG quality 85 at 160 px adds about 2.5 of its own;
# the pixels left unconverted are 11 (Adobe RGB) to 35 (CMYK) off, so a bound of 4 tells them apart.
import subprocess
for name in ("cmyk", "adobergb"):
    source = read(os.path.join(vectors, "color-photos", f"photo-{name}.jpg"))
    status, ctype, body = post("/thumbnail?size=160", pieces(source))
    answer = os.path.join(work, f"colour-{name}.jpg")
    with open(answer, "wb") as f:
        f.write(body)
    mean = subprocess.run([os.path.join(os.environ["BIN"], "make-test-images"), "--mean-difference", answer,
                           os.path.join(vectors, "color-photos", f"photo-{name}.ref.png")],
                          capture_output=True, text=True).stdout.strip() if status == 200 else "no answer"
    try:
        ok = float(mean) <= 4
    except ValueError:
        ok = False
    check(f"{name} photo with its profile -> sRGB colours (mean |diff| vs lcms2 <= 4)",
          status == 200 and ctype == "image/jpeg" and ok, f"{status} {ctype} mean {mean}")

gif_path = os.path.join(vectors, "gif", "pillow_anim.gif")
status, ctype, body = post("/thumbnail?size=32", pieces(read(gif_path), size=512))
try:
    w, h = image_size(ctype, body) if status == 200 else (0, 0)
except ValueError:
    w = h = -1
check("animated GIF -> 200, <= 32", status == 200 and 0 < max(w, h) <= 32, f"{status} {ctype} {w}x{h}")

# WebP (Vectors/webp, made by cwebp and img2webp from libwebp 1.2.4): a lossy still, a lossless
# still with alpha, an animation (its first frame).
webp_lossy = read(os.path.join(vectors, "webp", "lossy", "blocks40x24_q50_strong.webp"))
status, ctype, body = post("/thumbnail?size=20", pieces(webp_lossy, size=100))
try:
    w, h = image_size(ctype, body) if status == 200 else (0, 0)
except ValueError:
    w = h = -1
check("lossy WebP -> 200 image/jpeg 20x12", status == 200 and ctype == "image/jpeg" and (w, h) == (20, 12),
      f"{status} {ctype} {w}x{h}")
webp_alpha = read(os.path.join(vectors, "webp", "ll_photo_alpha.webp"))
status, ctype, body = post("/thumbnail?size=24", webp_alpha)
info = png_info(body) if status == 200 and ctype == "image/png" else (0, 0, -1)
check("lossless WebP with alpha -> 200 image/png with alpha, 24 on the long side",
      status == 200 and info[2] == 6 and max(info[:2]) == 24, f"{status} {ctype} {info[0]}x{info[1]} colour type {info[2]}")
webp_anim_path = os.path.join(vectors, "webp", "anim_img2webp_mixed.webp")
status, ctype, body = post("/thumbnail?size=32", pieces(read(webp_anim_path), size=256))
try:
    w, h = image_size(ctype, body) if status == 200 else (0, 0)
except ValueError:
    w = h = -1
check("animated WebP -> 200, 32 on the long side", status == 200 and max(w, h) == 32, f"{status} {ctype} {w}x{h}")
status, ctype, body = post("/info", read(webp_anim_path))
doc = json.loads(body) if status == 200 else {}
check("POST /info animated WebP -> WebP, 4 frames listed",
      status == 200 and doc.get("format") == "WebP" and doc.get("frames") == 4 and len(doc.get("frameList", [])) == 4,
      f"{status} format={doc.get('format')} frames={doc.get('frames')}")
status, ctype, body = post("/thumbnail?size=16", pieces(webp_lossy[:len(webp_lossy) // 2], size=100))
check("truncated WebP (chunked) -> 422", status == 422 and "\n" not in body.decode("utf-8", "replace").strip(),
      f"{status} {body[:120]!r}")

# -- /info --------------------------------------------------------------------------------------
status, ctype, body = post("/info", read(gif_path))
doc = json.loads(body) if status == 200 else {}
check("POST /info animated GIF -> 200 application/json",
      status == 200 and ctype.startswith("application/json") and doc.get("format") == "GIF" and doc.get("frames", 0) > 1,
      f"{status} {ctype} format={doc.get('format')} frames={doc.get('frames')}")

status, ctype, body = post("/info", pieces(photo))
doc = json.loads(body) if status == 200 else {}
check("POST /info 12 MP JPEG (chunked) -> 4000x3000",
      status == 200 and (doc.get("width"), doc.get("height")) == (4000, 3000),
      f"{status} {doc.get('format')} {doc.get('width')}x{doc.get('height')}")

# -- refusals -----------------------------------------------------------------------------------
def refused(name, expected, path, body, headers=None, contains=None):
    status, ctype, text = post(path, body, headers)
    message = text.decode("utf-8", "replace").strip()
    ok = status == expected and ctype.startswith("text/plain") and "\n" not in message and message
    if contains:
        ok = ok and contains in message
    check(f"{name} -> {expected}", ok, f"{status} {message!r}")

# A JPEG cut short is decoded as djpeg and browsers decode it (the rows that arrived, the rest
# what zero coefficients give): a thumbnail, not an error.
status, ctype, body = post("/thumbnail?size=256", photo[:len(photo) // 2])
check("truncated JPEG (first half) -> 200 thumbnail", status == 200 and ctype.startswith("image/"), f"{status} {ctype}")
status, ctype, body = post("/info", photo[:len(photo) // 2])
check("truncated JPEG (first half) to /info -> 200", status == 200 and b"4000" in body, f"{status} {ctype}")
damaged = bytearray(alpha)
damaged[100:110] = b"\xa5" * 10
refused("damaged PNG (bad CRC)", 422, "/thumbnail?size=256", bytes(damaged))
bomb = png_bomb(60000, 60000)
refused(f"{len(bomb)}-byte PNG bomb, 60000x60000", 413, "/thumbnail?size=256", bomb, contains="limit")
ratio_bomb = png_bomb(8000, 8000)
refused(f"{len(ratio_bomb)}-byte PNG of 8000x8000 (more than its bytes can hold, from Content-Length)", 413,
        "/thumbnail?size=256", ratio_bomb, contains="needs at least")
# Headers their bytes cannot hold (Vectors/regressions/hostile_headers.py).
for name in ("limits-jpeg-gray-40000.jpg", "limits-jpeg-rgb-40000.jpg", "limits-png-interlaced-65535.png"):
    hostile = open(os.path.join(vectors, "regressions", name), "rb").read()
    refused(f"{name} ({len(hostile)} bytes)", 413, "/thumbnail?size=256", hostile, contains="limit")
refused(f"{len(gif_bomb())}-byte GIF bomb, 65535x65535 canvas", 413, "/info", gif_bomb())
refused("random bytes (unknown format)", 415, "/thumbnail?size=256", random.Random(7).randbytes(4096))
refused("empty body", 400, "/thumbnail?size=256", b"")
refused("missing size", 400, "/thumbnail", photo)
for bad in ("0", "-3", "abc", "4097", "1e3"):
    refused(f"size={bad}", 400, f"/thumbnail?size={bad}", photo)

# A Content-Length over the upload limit is refused from the header, before any body is read.
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
conn.putrequest("POST", "/thumbnail?size=256")
conn.putheader("Content-Length", str(100 << 20))
conn.endheaders()
response = conn.getresponse()
message = response.read().decode().strip()
conn.close()
check("Content-Length of 100 MiB -> 413 before reading", response.status == 413, f"{response.status} {message!r}")

# A chunked upload (no Content-Length) is stopped at the limit while it streams: a JPEG of
# 65 MiB of APP15 segments, which the decoder skips.
def oversized_jpeg():
    yield b"\xff\xd8"
    segment = b"\xff\xef\xff\xff" + b"\0" * 65533
    for _ in range(65 * 1024 * 1024 // len(segment) + 1):
        yield segment
status, ctype, text = post("/thumbnail?size=256", oversized_jpeg())
check("chunked upload over 64 MiB -> 413 while streaming",
      status == 413 and b"upload exceeds" in text, f"{status} {text.decode().strip()!r}")

# Without a Content-Length there is no ratio check, but pixels and memory are still bounded and
# the missing data is reported.
status, ctype, text = post("/thumbnail?size=256", pieces(ratio_bomb, size=64))
check("8000x8000 PNG bomb chunked (no Content-Length) -> 422, not a crash", status == 422,
      f"{status} {text.decode().strip()!r}")

# The decoder reads the upload as it arrives: a bomb's header is refused while the rest of
# the body has not even been sent.
sock = socket.create_connection(("127.0.0.1", port), timeout=10)
sock.sendall(b"POST /thumbnail?size=64 HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
header = bomb[:33]  # signature and IHDR only; the body never ends
sock.sendall(b"%x\r\n%s\r\n" % (len(header), header))
try:
    reply = sock.recv(4096).split(b"\r\n", 1)[0].decode()
except OSError as e:
    reply = repr(e)
sock.close()
check("bomb header refused before the upload ends", reply.startswith("HTTP/1.1 413"), reply)

print(f"peak RSS after all tests: {peak_rss_mb()} MB")
status, body = get("/health")
check("server still healthy at the end", status == 200, f"{status}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PYTHON

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "the server died; its log:"
    tail -20 "$WORK/server.log"
    status=1
fi
exit "$status"
