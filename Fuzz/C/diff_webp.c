/* The libwebp side of the diff-webp fuzz target: a still through WebPDecode into RGBA (what
 * dwebp -pam gives: fancy upsampling; WebPDecodeRGBA's decoder, with the status code), an
 * animation through WebPAnimDecoder (RGBA, threads off), the canvases kept in order. See diff_webp.h.
 *
 * libwebp runs its portable C kernels here, not SSE2: VP8GetCPUInfo (exported by libwebp.so)
 * is cleared before the first decode. The SSE2 inverse transform computes in 16-bit lanes, so
 * the huge dequantized coefficients of a mutated file wrap differently from the C code's int
 * arithmetic (the first diff-webp run found it: a 64x64 VP8 whose U plane differed; PureWebP
 * equals the C kernels there, and SSE2 and C agree on anything an encoder writes). */
#include "diff_webp.h"
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

typedef int (*diff_webp_cpu_info)(int feature);
extern diff_webp_cpu_info VP8GetCPUInfo;

void diff_webp_decode(const unsigned char *data, size_t size, long max_pixels, int max_frames,
                      diff_webp_result *result) {
    memset(result, 0, sizeof *result);
    result->status = DIFF_WEBP_ERROR;
    VP8GetCPUInfo = NULL;   /* libwebp's C kernels (see above) */
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, size, &features);
    result->vp8_status = (int)code;
    if (code != VP8_STATUS_OK) { result->stage = 1; return; }
    result->animated = features.has_animation;
    result->width = features.width;
    result->height = features.height;
    if ((long)features.width * features.height > max_pixels) { result->status = DIFF_WEBP_SKIPPED; return; }
    if (!features.has_animation) {
        /* WebPDecode into RGBA: WebPDecodeRGBA's decoder (DecodeInto after the same feature
         * check), and dwebp's call, but with the status code for the class table. */
        WebPDecoderConfig config;
        if (!WebPInitDecoderConfig(&config)) { result->stage = 2; return; }
        config.output.colorspace = MODE_RGBA;
        code = WebPDecode(data, size, &config);
        result->vp8_status = (int)code;
        if (code != VP8_STATUS_OK) { result->stage = 2; WebPFreeDecBuffer(&config.output); return; }
        int w = config.output.width, h = config.output.height;
        size_t bytes = (size_t)w * h * 4;
        result->pixels = malloc(bytes ? bytes : 1);
        for (int y = 0; y < h; y++)
            memcpy(result->pixels + (size_t)y * w * 4, config.output.u.RGBA.rgba + (size_t)y * config.output.u.RGBA.stride, (size_t)w * 4);
        WebPFreeDecBuffer(&config.output);
        result->width = w;
        result->height = h;
        result->frame_count = 1;
        result->status = DIFF_WEBP_OK;
        return;
    }
    WebPData webp = { data, size };
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) { result->stage = 3; return; }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&webp, &options);
    if (decoder == NULL) { result->stage = 3; return; }
    WebPAnimInfo info;
    if (!WebPAnimDecoderGetInfo(decoder, &info)) { result->stage = 3; WebPAnimDecoderDelete(decoder); return; }
    result->width = (int)info.canvas_width;
    result->height = (int)info.canvas_height;
    result->loop_count = (int)info.loop_count;
    if ((long)info.canvas_width * info.canvas_height > max_pixels || (int)info.frame_count > max_frames) {
        result->status = DIFF_WEBP_SKIPPED;
        WebPAnimDecoderDelete(decoder);
        return;
    }
    size_t canvas = (size_t)info.canvas_width * info.canvas_height * 4;
    result->pixels = malloc(canvas * (info.frame_count ? info.frame_count : 1));
    result->timestamps = malloc(sizeof(int) * (info.frame_count ? info.frame_count : 1));
    while (WebPAnimDecoderHasMoreFrames(decoder)) {
        uint8_t *frame = NULL;
        int timestamp = 0;
        if (!WebPAnimDecoderGetNext(decoder, &frame, &timestamp)) { result->stage = 4; WebPAnimDecoderDelete(decoder); return; }
        memcpy(result->pixels + canvas * result->frame_count, frame, canvas);
        result->timestamps[result->frame_count] = timestamp;
        result->frame_count++;
    }
    WebPAnimDecoderDelete(decoder);
    result->status = DIFF_WEBP_OK;
}

void diff_webp_free(diff_webp_result *result) {
    free(result->pixels);
    free(result->timestamps);
    result->pixels = NULL;
    result->timestamps = NULL;
}
