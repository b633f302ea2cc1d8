#!/usr/bin/env bash
# Builds the DocC documentation of PureImage (the module users import) with warnings as errors,
# so a broken symbol link fails, then prints the documentation coverage of each module's public
# symbols.
#   Tools/docs.sh            # check and report coverage
#   Tools/docs.sh --no-coverage
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== documentation: PureImage, warnings as errors"
swift package generate-documentation --target PureImage --warnings-as-errors
[ "${1:-}" = "--no-coverage" ] && exit 0
for target in PureImage ImageCore PurePNG PureJPEG PureGIF JPNG; do
    log=$(mktemp)
    swift package generate-documentation --target "$target" \
        --experimental-documentation-coverage --coverage-summary-level brief > "$log" 2>&1 || { cat "$log"; exit 1; }
    # The brief summary's table row for the module: "| Types | Members | Globals |" percentages.
    echo "== coverage $target"
    sed -n '/Abstract/,/^$/p' "$log" | head -8
    rm -f "$log"
done
