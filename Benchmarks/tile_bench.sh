#!/usr/bin/env bash
# Tile-pyramid benchmark: peak memory and wall time of `jpng tile` on the 16000x12000 baseline
# JPEG made by make_huge.py, beside djpeg and a plain in-process decode of the same file.
#
# Usage: Benchmarks/tile_bench.sh [--write]
#   prints a markdown section; --write also puts it into BENCHMARKS.md as "## Tile pyramid"
#   (replacing that section if present, other sections kept).
# JPNG=/path/to/jpng skips the release build. Needs /usr/bin/time, djpeg, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
HUGE=Benchmarks/corpus/huge.jpg
[ -f "$HUGE" ] || python3 Benchmarks/make_huge.py >&2
if [ -z "${JPNG:-}" ]; then
    swift build -c release --product jpng --static-swift-stdlib >&2
    JPNG=.build/release/jpng
fi
WORK=$(mktemp -d /tmp/tile_bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
RATE=${RATE:-8000000}   # bytes per second of the slow-stream row
ROUNDS=${ROUNDS:-3}     # runs per row; the fastest is reported (the machine is shared)
LOAD_NOTE=${LOAD_NOTE:-}   # a sentence on what else ran, printed after the load average
# Pyramids go to tmpfs when there is one: on a busy ext4 /tmp, creating 4000 files costs
# seconds of kernel time (inode search), which measures the disk, not the tiler. One row
# shows the same run onto $WORK's file system.
OUTROOT=${OUTROOT:-}
if [ -z "$OUTROOT" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then OUTROOT=$(mktemp -d /dev/shm/tile_bench.XXXXXX); fi
OUTROOT=${OUTROOT:-$WORK}
trap 'rm -rf "$WORK" "$OUTROOT"' EXIT
OUTFS=$(df --output=fstype "$OUTROOT" | tail -1)
WORKFS=$(df --output=fstype "$WORK" | tail -1)

# measure NAME COMMAND...: one row `| NAME | wall s | cpu s | max RSS MB | note |`, the fastest
# of ROUNDS runs (outputs removed between runs).
measure() {
    local name=$1; shift
    : > "$WORK/rounds.txt"
    for _ in $(seq "$ROUNDS"); do
        rm -rf "$OUTROOT"/out "$WORK"/out
        /usr/bin/time -v -o "$WORK/time.txt" "$@" > "$WORK/out.txt" 2> "$WORK/err.txt" || {
            echo "failed: $name" >&2; cat "$WORK/err.txt" >&2; return 1; }
        python3 - "$WORK/time.txt" "$WORK/err.txt" "$WORK/out.txt" >> "$WORK/rounds.txt" <<'PY'
import re, sys
tfile, efile, ofile = sys.argv[1:4]
t = open(tfile).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
parts = [float(p) for p in wall.split(":")]
secs = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
cpu = float(re.search(r"User time \(seconds\): (\S+)", t).group(1)) + float(re.search(r"System time \(seconds\): (\S+)", t).group(1))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
note = ""
m = re.search(r"([\d.]+) s from the last input byte to done \(([\d.]+)%\)", open(efile).read())
if m:
    note = f"last byte to done {float(m.group(1)):.2f} s ({m.group(2)}%)"
# `jpng bench -n 1` decodes twice (a warm-up, then the timed one): its own timing of one decode.
b = re.search(r"decode \S+ (\d+)x(\d+) ([\d.]+) MP/s", open(ofile, errors="replace").read(5000))
if b:
    note = f"one decode {int(b.group(1)) * int(b.group(2)) / 1e6 / float(b.group(3)):.2f} s (its own timing)"
print(f"{secs:.2f}\t{cpu:.2f}\t{rss:.0f}\t{note}")
PY
    done
    sort -n "$WORK/rounds.txt" | head -1 | awk -F'\t' -v name="$name" '{printf "| %s | %s | %s | %s | %s |\n", name, $1, $2, $3, $4}'
}

ROWS=$(
    measure "djpeg to /dev/null" djpeg "$HUGE"
    measure "jpng bench -n 1 (plain decode)" "$JPNG" bench "$HUGE" -n 1
    measure "jpng tile FILE" "$JPNG" tile "$HUGE" --out "$OUTROOT/out" --stats
    measure "jpng tile FILE, output on $WORKFS" "$JPNG" tile "$HUGE" --out "$WORK/out" --stats
    measure "cat FILE \| jpng tile -" sh -c "cat '$HUGE' | '$JPNG' tile - --out '$OUTROOT/out' --name huge --stats"
    measure "stdin at $((RATE / 1000000)) MB/s \| jpng tile -" sh -c "python3 -c '
import sys, time
data = open(sys.argv[1], \"rb\").read(); rate = int(sys.argv[2]); step = 65536; t0 = time.time()
for i in range(0, len(data), step):
    sys.stdout.buffer.write(data[i:i + step]); sys.stdout.buffer.flush()
    ahead = (i + step) / rate - (time.time() - t0)
    if ahead > 0: time.sleep(ahead)
' '$HUGE' $RATE | '$JPNG' tile - --out '$OUTROOT/out' --name huge --stats"
)
decode=$(echo "$ROWS" | sed -n 's/.*one decode \([0-9.]*\) s.*/\1/p')
tile=$(echo "$ROWS" | awk -F'|' '$2 == " jpng tile FILE " {print $3}')
ratio=$(python3 -c "print(f'{float(\"$tile\") / float(\"$decode\"):.2f}')")
"$JPNG" tile "$HUGE" --out "$OUTROOT/count" > /dev/null
TILES=$(find "$OUTROOT/count" -type f | wc -l)
SECTION=$(cat <<MD
## Tile pyramid (\`jpng tile\`, issue 7)

\`Benchmarks/tile_bench.sh\` on \`Benchmarks/corpus/huge.jpg\` (made by \`Benchmarks/make_huge.py\`:
16000x12000 baseline JPEG, quality 85, 4:2:0, $(du -m "$HUGE" | cut -f1) MB), 256x256 JPEG tiles at
quality 0.8, overlap 1: $TILES files in 15 levels, written to $OUTFS (one row: to $WORKFS).
\`/usr/bin/time -v\`, fastest of $ROUNDS runs: wall time, user + system CPU time, maximum
resident set. Measured $(date -u +"%Y-%m-%d %H:%M UTC"), load average
$(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores. ${LOAD_NOTE:-}

| command | wall s | CPU s | max RSS MB | note |
| --- | ---: | ---: | ---: | --- |
$ROWS

Tiling time (wall, whole process, file read included) / one plain decode (in process,
\`jpng bench\`'s own timing; its process decodes twice): **$ratio** (target: at most 1.5).
MD
)
echo "$SECTION"
if [ "${1:-}" = "--write" ]; then
    python3 - "$SECTION" <<'PY'
import re, sys
section = sys.argv[1].rstrip() + "\n"
path = "BENCHMARKS.md"
text = open(path).read()
pattern = re.compile(r"^## Tile pyramid.*?(?=^## |\Z)", re.S | re.M)
if pattern.search(text):
    text = pattern.sub(lambda m: section + "\n", text)
else:
    text = text.rstrip() + "\n\n" + section
open(path, "w").write(text)
PY
fi
