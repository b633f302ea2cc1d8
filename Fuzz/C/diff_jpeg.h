/* The libjpeg-turbo side of the diff-jpeg fuzz target (Fuzz/Targets/diff-jpeg.swift). */
#ifndef DIFF_JPEG_H
#define DIFF_JPEG_H
#include <stddef.h>

enum { DIFF_JPEG_OK = 0, DIFF_JPEG_ERROR = 1, DIFF_JPEG_SKIPPED = 2 };

typedef struct {
    int status;          /* DIFF_JPEG_OK: jpeg_finish_decompress returned */
    int msg_code;        /* the error's msg_code (libjpeg's J_MESSAGE_CODE), or why it was skipped */
    int warnings;        /* emit_message calls with level -1 */
    int first_warning;   /* msg_code of the first warning, 0 if none */
    int num_components;  /* the frame's component count (after jpeg_read_header) */
    int width, height, channels;  /* output; channels 1 (gray) or 3 (RGB; CMYK converted) */
    unsigned char *pixels;        /* malloc'd, free with diff_jpeg_free */
} diff_jpeg_result;

/* Decodes with libjpeg-turbo's defaults at scale 1/scale_denom (1, 2, 4 or 8). Refuses
 * (DIFF_JPEG_SKIPPED) frames above max_pixels and files with more than max_scans scans. */
void diff_jpeg_decode(const unsigned char *data, size_t size, int scale_denom, long max_pixels,
                      int max_scans, diff_jpeg_result *result);
void diff_jpeg_free(diff_jpeg_result *result);
/* libjpeg-turbo's message text for a msg_code (its format string). */
const char *diff_jpeg_message(int msg_code);

#endif
