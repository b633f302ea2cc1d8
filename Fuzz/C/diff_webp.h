/* The libwebp side of the diff-webp fuzz target (Fuzz/Targets/diff-webp.swift). */
#ifndef DIFF_WEBP_H
#define DIFF_WEBP_H
#include <stddef.h>
#include <stdint.h>

enum { DIFF_WEBP_OK = 0, DIFF_WEBP_ERROR = 1, DIFF_WEBP_SKIPPED = 2 };

typedef struct {
    int status;          /* DIFF_WEBP_OK: decoded (a still whole, an animation: frame_count frames) */
    int stage;           /* where it failed: 1 features, 2 still decode, 3 demux/anim decoder, 4 a frame */
    int vp8_status;      /* VP8StatusCode: WebPGetFeatures', then a still's WebPDecode */
    int animated;        /* WebPGetFeatures' has_animation */
    int width, height;   /* the image, or the canvas */
    int frame_count;     /* animation: frames decoded (all of them when status is OK) */
    int loop_count;      /* animation: WebPAnimInfo.loop_count */
    uint8_t *pixels;     /* RGBA8: the still (WebPDecode into RGBA, as dwebp), or frame_count canvases
                            one after another (WebPAnimDecoder, RGBA, as anim_dump) */
    int *timestamps;     /* animation: each frame's end timestamp (WebPAnimDecoderGetNext) */
} diff_webp_result;

/* Decodes with libwebp 1.2.4's defaults. An image (or canvas) above max_pixels, or an animation
 * of more than max_frames frames, is DIFF_WEBP_SKIPPED before its pixels are allocated. */
void diff_webp_decode(const unsigned char *data, size_t size, long max_pixels, int max_frames,
                      diff_webp_result *result);
void diff_webp_free(diff_webp_result *result);

#endif
