/*
 * libjpeg-turbo's default decompression for the diff-jpeg fuzz target: jpeg_mem_src, islow IDCT,
 * fancy upsampling, block smoothing, RGB (3 components) or grayscale (1) output. 4-component
 * files come out as libjpeg's CMYK and are turned into RGB with djpeg's cmyk_to_rgb (cmyk.h:
 * R = C * K / 255 rounded) on the stored values, Adobe marker or not: the rule PureJPEG's RGB
 * output for CMYK follows (ColorConvert.cmykToRGB). libjpeg-turbo 2.1.5 has no
 * CMYK -> RGB in the library (jdcolor.c: JERR_CONVERSION_NOTIMPL), so out_color_space stays
 * JCS_CMYK.
 *
 * Errors longjmp out; warnings (emit_message level -1) are counted, never printed.
 */
#include "diff_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

enum { SKIP_PIXELS = 10000, SKIP_SCANS = 10001 };

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int warnings, first_warning;
} error_manager;

typedef struct {
    struct jpeg_progress_mgr pub;
    j_decompress_ptr cinfo;
    int max_scans;
} scan_limit;

static void on_error_exit(j_common_ptr cinfo)
{
    longjmp(((error_manager *)cinfo->err)->jump, 1);
}

static void on_emit_message(j_common_ptr cinfo, int level)
{
    error_manager *err = (error_manager *)cinfo->err;
    if (level >= 0)
        return; /* trace messages */
    if (err->warnings++ == 0)
        err->first_warning = err->pub.msg_code;
    err->pub.num_warnings++;
}

static void on_output_message(j_common_ptr cinfo)
{
    (void)cinfo;
}

/* PureJPEG stops at DecodingLimits.maxScans; libjpeg has no limit, so stop it at the same count. */
static void on_progress(j_common_ptr cinfo)
{
    scan_limit *limit = (scan_limit *)cinfo->progress;
    if (limit->cinfo->input_scan_number > limit->max_scans) {
        cinfo->err->msg_code = SKIP_SCANS;
        longjmp(((error_manager *)cinfo->err)->jump, 2);
    }
}

static unsigned char scale255(unsigned a, unsigned k)
{
    return (unsigned char)((double)a * (double)k / 255.0 + 0.5);
}

void diff_jpeg_decode(const unsigned char *data, size_t size, int scale_denom, long max_pixels,
                      int max_scans, diff_jpeg_result *result)
{
    struct jpeg_decompress_struct cinfo;
    error_manager err;
    scan_limit limit;
    unsigned char *volatile pixels = NULL;
    memset(result, 0, sizeof *result);
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = on_error_exit;
    err.pub.emit_message = on_emit_message;
    err.pub.output_message = on_output_message;
    err.warnings = 0;
    err.first_warning = 0;
    int jumped = setjmp(err.jump);
    if (jumped) {
        result->status = jumped == 2 || err.pub.msg_code == SKIP_PIXELS ? DIFF_JPEG_SKIPPED : DIFF_JPEG_ERROR;
        result->msg_code = err.pub.msg_code;
        result->warnings = err.warnings;
        result->first_warning = err.first_warning;
        free(pixels);
        jpeg_destroy_decompress(&cinfo);
        return;
    }
    jpeg_create_decompress(&cinfo);
    limit.pub.progress_monitor = on_progress;
    limit.cinfo = &cinfo;
    limit.max_scans = max_scans;
    cinfo.progress = &limit.pub;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    result->num_components = cinfo.num_components;
    if ((long)cinfo.image_width * (long)cinfo.image_height > max_pixels) {
        err.pub.msg_code = SKIP_PIXELS;
        longjmp(err.jump, 2);
    }
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)scale_denom;
    /* The defaults already are JDCT_ISLOW, fancy upsampling, block smoothing, and RGB / GRAYSCALE /
     * CMYK output for 3 / 1 / 4 components; JCS_UNKNOWN (2 or 5+ components) passes samples through. */
    jpeg_start_decompress(&cinfo);
    int n = cinfo.output_components;
    size_t row = (size_t)cinfo.output_width * (size_t)n;
    pixels = malloc(row * cinfo.output_height + 1);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[1] = { pixels + row * cinfo.output_scanline };
        jpeg_read_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_decompress(&cinfo);
    result->status = DIFF_JPEG_OK;
    result->width = (int)cinfo.output_width;
    result->height = (int)cinfo.output_height;
    result->channels = n;
    result->msg_code = cinfo.out_color_space; /* for the caller's "unknown layout" class */
    if (cinfo.out_color_space == JCS_CMYK && n == 4) {
        size_t count = (size_t)cinfo.output_width * cinfo.output_height;
        for (size_t i = 0; i < count; i++) {
            unsigned k = pixels[4 * i + 3];
            unsigned char r = scale255(pixels[4 * i], k);
            unsigned char g = scale255(pixels[4 * i + 1], k);
            unsigned char b = scale255(pixels[4 * i + 2], k);
            pixels[3 * i] = r;
            pixels[3 * i + 1] = g;
            pixels[3 * i + 2] = b;
        }
        result->channels = 3;
    }
    result->pixels = pixels;
    result->warnings = err.warnings;
    result->first_warning = err.first_warning;
    jpeg_destroy_decompress(&cinfo);
}

void diff_jpeg_free(diff_jpeg_result *result)
{
    free(result->pixels);
    result->pixels = NULL;
}

const char *diff_jpeg_message(int msg_code)
{
    static struct jpeg_error_mgr table;
    if (table.jpeg_message_table == NULL)
        jpeg_std_error(&table);
    if (msg_code == SKIP_PIXELS)
        return "(harness) more pixels than the limit";
    if (msg_code == SKIP_SCANS)
        return "(harness) more scans than the limit";
    if (msg_code < 0 || msg_code > table.last_jpeg_message)
        return "?";
    return table.jpeg_message_table[msg_code];
}
