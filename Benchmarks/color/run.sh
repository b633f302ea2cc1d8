#!/bin/sh
# Builds ColorBench (release) and runs it and the lcms2 side in alternating rounds, one core
# each, then prints each transform's rates and the PureColor / lcms2 ratio of every round, the
# worst round last (what a target is judged on).
#   Benchmarks/color/run.sh [ROUNDS]     (default 5)
set -e
cd "$(dirname "$0")"
rounds=${1:-5}
swift build -c release --product ColorBench
PROFILES=../../Vectors/icc/profiles
out=$(mktemp -d)
r=1
while [ "$r" -le "$rounds" ]; do
    .build/release/ColorBench "$PROFILES" > "$out/ours.$r"
    python3 lcms2_bench.py "$PROFILES" > "$out/lcms2.$r"
    r=$((r + 1))
done
# Ours: "PureColor<TAB>profile<TAB>kind<TAB>kernel<TAB>rate MP/s..."; lcms2: "lcms2 V<TAB>profile<TAB>kind<TAB>rate MP/s".
python3 - "$out" "$rounds" <<'PY'
import sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for r in range(1, rounds + 1):
    for line in open(f"{out}/ours.{r}"):
        f = line.rstrip("\n").split("\t")
        if f[3] == "scalar" and "cmyk" in f[2]:
            rows.setdefault((f[1], "scalar"), []).append((float(f[4].split()[0]), None))
            continue
        rows.setdefault((f[1], "ours"), []).append(float(f[4].split()[0]))
    for line in open(f"{out}/lcms2.{r}"):
        f = line.rstrip("\n").split("\t")
        rows.setdefault((f[1], "lcms2"), []).append(float(f[3].split()[0]))
print("transform\tPureColor MP/s (per round)\tlcms2 MP/s\tratio per round\tworst round")
for name in dict.fromkeys(k[0] for k in rows):
    ours, ref = rows[(name, "ours")], rows[(name, "lcms2")]
    ratios = [a / b for a, b in zip(ours, ref)]
    scalar = rows.get((name, "scalar"))
    note = f" (scalar {min(s for s, _ in scalar):.1f}-{max(s for s, _ in scalar):.1f})" if scalar else ""
    print(f"{name}\t{min(ours):.1f}-{max(ours):.1f}{note}\t{min(ref):.1f}-{max(ref):.1f}\t"
          + " ".join(f"{x:.2f}" for x in ratios) + f"\t{min(ratios):.2f}")
PY
rm -rf "$out"
