#!/bin/sh
# Regenerates this folder: JPEG files whose blocks overflow the 16-bit SIMD inverse DCTs, and
# djpeg's decodes of them. Run from anywhere; needs gcc, libjpeg-turbo's headers (libjpeg-dev)
# and djpeg. Made with libjpeg-turbo 2.1.5 (Debian) on x86-64 with AVX2.
#
# Which tool made which file:
#   gen.c (this folder, built against -ljpeg) -> NAME.jpg, via jpeg_write_coefficients
#   djpeg -dct int (default: SIMD, jsimd_idct_islow_avx2, jsimd_idct_4x4/2x2_sse2)
#                                             -> NAME_s8.pnm, NAME_s4.pnm (-scale 1/2),
#                                                NAME_s2.pnm (-scale 1/4), NAME_s1.pnm
#                                                (-scale 1/8: C jidctred.c even here, since
#                                                libjpeg-turbo has no SIMD 1x1): the references
#   JSIMD_FORCENONE=1 djpeg -dct int          -> NAME_c_s8.pnm: the C kernels (jidctint.c),
#                                                kept for comparison only; PureJPEG does not
#                                                follow them on overflow
#   this script                               -> manifest.tsv
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -o "$tmp/gen" "$here/gen.c" -ljpeg
rm -f "$here"/*.jpg "$here"/*.pnm
"$tmp/gen" "$here" 2>/dev/null
printf 'file\tscale\tsimd\tc\n' > "$here/manifest.tsv"
for jpg in "$here"/*.jpg; do
    name=$(basename "$jpg" .jpg)
    djpeg -dct int -pnm "$jpg" > "$here/${name}_s8.pnm"
    djpeg -dct int -scale 1/2 -pnm "$jpg" > "$here/${name}_s4.pnm"
    djpeg -dct int -scale 1/4 -pnm "$jpg" > "$here/${name}_s2.pnm"
    djpeg -dct int -scale 1/8 -pnm "$jpg" > "$here/${name}_s1.pnm"
    JSIMD_FORCENONE=1 djpeg -dct int -pnm "$jpg" > "$here/${name}_c_s8.pnm"
    printf '%s.jpg\t8\t%s_s8.pnm\t%s_c_s8.pnm\n' "$name" "$name" "$name" >> "$here/manifest.tsv"
    printf '%s.jpg\t4\t%s_s4.pnm\t-\n' "$name" "$name" >> "$here/manifest.tsv"
    printf '%s.jpg\t2\t%s_s2.pnm\t-\n' "$name" "$name" >> "$here/manifest.tsv"
    printf '%s.jpg\t1\t%s_s1.pnm\t-\n' "$name" "$name" >> "$here/manifest.tsv"
done
du -sh "$here"
