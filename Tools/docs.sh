#!/usr/bin/env bash
# Builds the DocC documentation of every library module with warnings as errors, so a broken
# symbol link fails, and prints the documentation coverage of each module's public symbols.
# PureImage (the module users import) carries the catalog with the articles.
#   Tools/docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for target in PureImage ImageCore PurePNG PureJPEG PureGIF JPNG PureColor PureWebP PureQuant; do
    echo "== documentation: $target, warnings as errors"
    log=$(mktemp)
    if ! swift package generate-documentation --target "$target" --warnings-as-errors \
        --experimental-documentation-coverage --coverage-summary-level brief > "$log" 2>&1; then
        cat "$log"
        rm -f "$log"
        exit 1
    fi
    # The brief summary's table: types, members and globals with a summary.
    sed -n '/Abstract/,/^$/p' "$log" | head -8
    rm -f "$log"
done
