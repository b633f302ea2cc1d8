#!/usr/bin/env bash
# Runs every image in Vectors/ (regression vectors included) through the jpng commands under a
# 2 GiB address-space limit (`ulimit -v 2097152`): info, decode to PAM, convert to PNG, a
# 200-px thumbnail and a Deep Zoom pyramid. A command may refuse a file (exit status 1, one
# line on stderr), never die of a signal (an allocation abort, a trap). Prints each failure and
# exits 1 if there was one.
#   Tools/address-space-check.sh [path/to/jpng]     (default: .build/release/jpng)
set -uo pipefail
cd "$(dirname "$0")/.."
jpng=${1:-.build/release/jpng}
[ -x "$jpng" ] || { echo "address-space-check: no $jpng (swift build -c release --product jpng)"; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0 runs=0
while IFS= read -r -d '' file; do
    for command in info decode convert thumbnail tile; do
        case $command in
            info) args=(info "$file") ;;
            decode) args=(decode "$file" -o "$scratch/out.pam" --force) ;;
            convert) args=(convert "$file" --to png --out-dir "$scratch/convert" --force) ;;
            thumbnail) args=(thumbnail "$file" -o "$scratch/thumb.jpg" --size 200 --force) ;;
            tile) rm -rf "$scratch/tiles"; args=(tile "$file" --out "$scratch/tiles") ;;
        esac
        (ulimit -v 2097152; exec "$jpng" "${args[@]}") > /dev/null 2> "$scratch/stderr"
        status=$?
        runs=$((runs + 1))
        if [ $status -ge 2 ]; then
            failures=$((failures + 1))
            echo "FAIL (status $status): jpng ${args[*]}"
            head -3 "$scratch/stderr"
        fi
    done
done < <(find Vectors -type f \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.png' -o -name '*.gif' -o -name '*.jpng' \
                               -o -name '*.ppm' -o -name '*.pgm' -o -name '*.pam' -o -name '*.pbm' \) -print0 | sort -z)
echo "address-space-check: $runs runs, $failures died or exited with a status other than 0 or 1"
[ $failures -eq 0 ]
