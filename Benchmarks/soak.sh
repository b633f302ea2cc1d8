#!/usr/bin/env bash
# The long run of FUZZING.md: decodes and encodes every vector in a loop for MINUTES (default
# 30) in one process and prints its RSS once a minute (release build of Benchmarks/soak).
#   Benchmarks/soak.sh [MINUTES] [VECTOR_FOLDER]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
folder=${2:-Vectors}
swift build -c release --package-path Benchmarks/soak --scratch-path Benchmarks/soak/.build >&2
exec Benchmarks/soak/.build/release/Soak "$minutes" "$folder"
