#!/usr/bin/env bash
# Builds the libFuzzer targets with swiftc (no SwiftPM) and runs one of them.
#   Fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
#   Fuzz/run.sh build            # build every target only
# TARGET: png apng jpeg gif jpng webp imagesource icc quant gifenc, or a differential target diff-jpeg diff-png
# diff-gif diff-webp (PureJPEG / PurePNG / PureGIF / PureWebP against libjpeg-turbo / libpng / giflib /
# libwebp, whose C side is in Fuzz/C; needs clang and Debian's libjpeg62-turbo-dev, libpng-dev,
# libgif-dev, libwebp-dev). Exits non-zero on a
# crash, leaving crash-*/timeout-*/oom-* files in Fuzz/out/artifacts-TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/Fuzz/out"
mkdir -p "$out"
if ! command -v swiftc >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swiftc ]; then
    export PATH=/opt/swift/usr/bin:$PATH
fi
# The toolchain's clang, whose ASan and libFuzzer runtimes are the ones swiftc links.
clang=$(dirname "$(command -v swiftc)")/clang
targets="png apng jpeg gif jpng webp imagesource icc quant gifenc diff-jpeg diff-png diff-gif diff-webp"

# Library modules are compiled with ASan and libFuzzer's coverage instrumentation
# (-sanitize=fuzzer on a library adds edge/cmp coverage without a main), optimised like release;
# one package name for all of them, as SwiftPM gives, for the modules' `package` declarations.
flags=(-parse-as-library -O -wmo -sanitize=fuzzer,address -g -package-name pureimage -I "$out" -I "$root/Sources/CZlib")

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
    build_module PureQuant "$out/libImageCore.a"
    build_module PurePNG "$out/libImageCore.a" "$out/libPureQuant.a"
    build_module PureJPEG "$out/libImageCore.a"
    build_module PureGIF "$out/libImageCore.a" "$out/libPureQuant.a"
    build_module JPNG "$out/libPurePNG.a" "$out/libPureJPEG.a"
    build_module PureColor "$out/libImageCore.a"
    build_module PureWebP "$out/libImageCore.a"
    build_module PureImage "$out/libJPNG.a" "$out/libPureGIF.a" "$out/libPureColor.a" "$out/libPureWebP.a"
}

build_target() {
    local t=$1
    local bin="$out/fuzz-$t"
    local sources=("Fuzz/Targets/$t.swift" Fuzz/Targets/Common.swift)
    local extra=()
    case $t in
        diff-*)
            # The C reference (libjpeg-turbo, libpng, giflib) is compiled with ASan and libFuzzer's
            # coverage too, reached from Swift through its header (-import-objc-header).
            local c=${t#diff-}
            sources+=(Fuzz/Targets/diff-common.swift)
            if [ ! -f "$out/diff_$c.o" ] || [ "Fuzz/C/diff_$c.c" -nt "$out/diff_$c.o" ] || [ "Fuzz/C/diff_$c.h" -nt "$out/diff_$c.o" ]; then
                echo "fuzz: compiling Fuzz/C/diff_$c.c" >&2
                "$clang" -O1 -g -fsanitize=address,fuzzer-no-link -c "Fuzz/C/diff_$c.c" -o "$out/diff_$c.o"
            fi
            extra=(-import-objc-header "Fuzz/C/diff_$c.h" "$out/diff_$c.o" -ljpeg -lpng -lgif)
            [ "$c" = webp ] && extra+=(-lwebpdemux -lwebp)
            ;;
    esac
    local deps=("$out"/lib*.a "${sources[@]}")
    [ ${#extra[@]} -gt 0 ] && deps+=("$out/diff_${t#diff-}.o" "Fuzz/C/diff_${t#diff-}.h")
    if [ -f "$bin" ]; then
        local stale=0
        for f in "${deps[@]}"; do [ "$f" -nt "$bin" ] && stale=1 && break; done
        [ $stale -eq 1 ] || return 0
    fi
    echo "fuzz: linking fuzz-$t" >&2
    # gold warns once per ASan helper that the C object's "local symbols" cannot be exported: noise.
    swiftc "${flags[@]}" -module-name "Fuzz_${t//-/_}" -o "$bin" "${sources[@]}" "${extra[@]}" \
        -L "$out" -lPureImage -lJPNG -lPureGIF -lPureJPEG -lPurePNG -lPureQuant -lPureColor -lPureWebP -lImageCore -lz \
        2> >(grep -v "Cannot export local symbol '__asan" >&2)
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
        jpeg) dirs=(Vectors/jpeg Vectors/jpeg-encoder Vectors/jpeg-arithmetic Vectors/jpeg-encoder-arithmetic Vectors/jpeg-lossless Vectors/jpeg-12bit); exts=(jpg jpeg) ;;
        gif) dirs=(Vectors/gif); exts=(gif) ;;
        webp) dirs=(Vectors/webp); exts=(webp) ;;
        icc) dirs=(Vectors/icc/profiles); exts=(icc) ;;
        jpng) dirs=(Vectors/jpeg-encoder Fuzz/seeds/jpng); exts=(jpg jpng) ;;
        imagesource) dirs=(Vectors Fuzz/seeds); exts=(png jpg gif webp jpng pbm pgm ppm pam) ;;
        # The differential targets: their plain counterparts' seeds plus the damaged files, whose
        # libjpeg / libpng behaviour the decoders follow.
        diff-jpeg) dirs=(Vectors/jpeg Vectors/jpeg-encoder Vectors/jpeg-damaged Vectors/jpeg-extra Vectors/jpeg-smoothing Vectors/jpeg-idct-overflow Vectors/jpeg-arithmetic); exts=(jpg jpeg) ;;
        diff-png) dirs=(Vectors/png); exts=(png) ;;
        diff-gif) dirs=(Vectors/gif); exts=(gif) ;;
        diff-webp) dirs=(Vectors/webp); exts=(webp) ;;
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
# ASan records no allocation stacks (unwinding them took 7% of the JPEG target's time): a report
# still shows where the fault is; rerun the artifact with ASAN_OPTIONS=malloc_context_size=30 to
# see where the memory was allocated and freed.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
# -entropic_scale_per_exec_time=1: inputs that run fast get more of the mutation budget, so a
# mutated 256x256 progressive photo (17 ms an execution here) no longer eats the run; the JPEG
# target runs 3.5 times the executions in a minute for the same coverage (FUZZING.md).
exec "$out/fuzz-$target" "$corpus" -dict="$root/Fuzz/dict/${target#diff-}.dict" \
    -timeout=2 -rss_limit_mb=1024 -max_total_time="$seconds" -max_len=65536 -entropic_scale_per_exec_time=1 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "$@"
