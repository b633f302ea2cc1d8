/* The libpng side of the diff-png fuzz target (Fuzz/Targets/diff-png.swift). */
#ifndef DIFF_PNG_H
#define DIFF_PNG_H
#include <stddef.h>

enum { DIFF_PNG_OK = 0, DIFF_PNG_ERROR = 1, DIFF_PNG_SKIPPED = 2 };

typedef struct {
    int status;           /* DIFF_PNG_OK: every row read (an error in png_read_end counts as OK) */
    int error_after_image;/* 1: png_read_end raised the error in message */
    int warnings;         /* png_warning calls (benign errors included) */
    int width, height, depth;     /* RGBA output, 8 or 16 bits; 16-bit samples in host order */
    unsigned char *pixels;        /* malloc'd, free with diff_png_free */
    char message[96];     /* the error (or first warning when status is OK and no error) */
} diff_png_result;

/* libpng's sequential read with its default settings, expanded to RGBA (see diff_png.c).
 * Refuses (DIFF_PNG_SKIPPED) images above max_pixels. */
void diff_png_decode(const unsigned char *data, size_t size, long max_pixels, diff_png_result *result);
void diff_png_free(diff_png_result *result);

#endif
