/* libwebp side of the WebP benchmark: decodes FILE N times into one RGB (or RGBA) buffer with
 * WebPDecodeRGBInto / WebPDecodeRGBAInto (libwebp's simple API, one thread, its SSE2 paths) and
 * prints the median seconds. Build: gcc -O2 cbench.c -lwebp.  Usage: cbench FILE N [rgba] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <webp/decode.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: cbench FILE N [rgba]\n"); return 2; }
    int n = atoi(argv[2]), rgba = argc > 3 && strcmp(argv[3], "rgba") == 0;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(size);
    if (fread(data, 1, size, f) != (size_t)size) { perror("read"); return 1; }
    fclose(f);
    int w, h;
    if (!WebPGetInfo(data, size, &w, &h)) { fprintf(stderr, "not a WebP\n"); return 1; }
    int bpp = rgba ? 4 : 3;
    size_t stride = (size_t)w * bpp, total = stride * h;
    uint8_t *out = malloc(total);
    double *t = malloc(sizeof(double) * n);
    unsigned sum = 0;
    for (int i = 0; i < n; i++) {
        double s = now();
        uint8_t *r = rgba ? WebPDecodeRGBAInto(data, size, out, total, (int)stride)
                          : WebPDecodeRGBInto(data, size, out, total, (int)stride);
        t[i] = now() - s;
        if (!r) { fprintf(stderr, "decode failed\n"); return 1; }
        sum += out[total / 2];
    }
    qsort(t, n, sizeof(double), cmp);
    printf("%.4f %dx%d %u\n", t[n / 2], w, h, sum);
    return 0;
}
