#!/usr/bin/env bash
# Builds the libFuzzer targets with swiftc (no SwiftPM) and runs one of them.
#   Fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
#   Fuzz/run.sh build            # build every target only
# TARGET: png apng jpeg gif jpng imagesource. Exits non-zero on a crash, leaving crash-*/timeout-*/
# oom-* files in Fuzz/out/artifacts-TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/Fuzz/out"
mkdir -p "$out"
if ! command -v swiftc >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swiftc ]; then
    export PATH=/opt/swift/usr/bin:$PATH
fi
targets="png apng jpeg gif jpng imagesource"

# Library modules are compiled with ASan and libFuzzer's coverage instrumentation
# (-sanitize=fuzzer on a library adds edge/cmp coverage without a main), optimised like release.
flags=(-parse-as-library -O -wmo -sanitize=fuzzer,address -g -I "$out" -I "$root/Sources/CZlib")

# Rebuilds a module when any of its sources (or a dependency) is newer than its library.
build_module() {
    local name=$1; shift
    local lib="$out/lib$name.a"
    local srcs=()
    while IFS= read -r f; do srcs+=("$f"); done < <(find "Sources/$name" -name '*.swift' | sort)
    local stale=0
    [ -f "$lib" ] || stale=1
    if [ $stale -eq 0 ]; then
        for f in "${srcs[@]}" "$@"; do [ "$f" -nt "$lib" ] && stale=1 && break; done
    fi
    [ $stale -eq 1 ] || return 0
    echo "fuzz: building $name" >&2
    swiftc "${flags[@]}" -emit-library -static -module-name "$name" \
        -emit-module -emit-module-path "$out/$name.swiftmodule" -o "$lib" "${srcs[@]}"
}

build_all_modules() {
    build_module ImageCore
    build_module PurePNG "$out/libImageCore.a"
    build_module PureJPEG "$out/libImageCore.a"
    build_module PureGIF "$out/libImageCore.a"
    build_module JPNG "$out/libPurePNG.a" "$out/libPureJPEG.a"
    build_module PureImage "$out/libJPNG.a" "$out/libPureGIF.a"
}

build_target() {
    local t=$1
    local bin="$out/fuzz-$t"
    local deps=("$out"/lib*.a "Fuzz/Targets/$t.swift" Fuzz/Targets/Common.swift)
    if [ -f "$bin" ]; then
        local stale=0
        for f in "${deps[@]}"; do [ "$f" -nt "$bin" ] && stale=1 && break; done
        [ $stale -eq 1 ] || return 0
    fi
    echo "fuzz: linking fuzz-$t" >&2
    swiftc "${flags[@]}" -module-name "Fuzz_$t" -o "$bin" \
        "Fuzz/Targets/$t.swift" Fuzz/Targets/Common.swift \
        -L "$out" -lPureImage -lJPNG -lPureGIF -lPureJPEG -lPurePNG -lImageCore -lz
}

# Seed corpus: the committed vectors of the formats a target reads (copied, so libFuzzer's
# additions never land in Vectors/).
seed_corpus() {
    local t=$1
    local dir="$out/corpus-$t"
    mkdir -p "$dir"
    local dirs=() exts=()
    case $t in
        png) dirs=(Vectors/png); exts=(png) ;;
        apng) dirs=(Vectors/apng); exts=(png) ;;
        jpeg) dirs=(Vectors/jpeg Vectors/jpeg-encoder); exts=(jpg jpeg) ;;
        gif) dirs=(Vectors/gif); exts=(gif) ;;
        jpng) dirs=(Vectors/jpeg-encoder Fuzz/seeds/jpng); exts=(jpg jpng) ;;
        imagesource) dirs=(Vectors Fuzz/seeds); exts=(png jpg gif jpng) ;;
    esac
    # Past findings (Vectors/regressions) are always part of the corpus.
    [ -d Vectors/regressions ] && dirs+=(Vectors/regressions) && exts+=(bin)
    local names=()
    for e in "${exts[@]}"; do names+=(-o -name "*.$e"); done
    find "${dirs[@]}" -type f -size -64k \( "${names[@]:1}" \) -exec cp -n {} "$dir/" \; 2>/dev/null || true
    echo "$dir"
}

build_all_modules
if [ "${1:-}" = build ] || [ $# -eq 0 ]; then
    for t in $targets; do build_target "$t"; done
    exit 0
fi

target=$1; seconds=${2:-60}; shift; [ $# -gt 0 ] && shift
case " $targets " in *" $target "*) ;; *) echo "unknown target $target (one of: $targets)" >&2; exit 2 ;; esac
build_target "$target"
corpus=$(seed_corpus "$target")
artifacts="$out/artifacts-$target"
mkdir -p "$artifacts"
exec "$out/fuzz-$target" "$corpus" -dict="$root/Fuzz/dict/$target.dict" \
    -timeout=2 -rss_limit_mb=1024 -max_total_time="$seconds" -max_len=65536 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "$@"
