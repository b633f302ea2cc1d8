/* The giflib side of the diff-gif fuzz target (Fuzz/Targets/diff-gif.swift). */
#ifndef DIFF_GIF_H
#define DIFF_GIF_H
#include <stddef.h>

enum { DIFF_GIF_OK = 0, DIFF_GIF_ERROR = 1, DIFF_GIF_SKIPPED = 2 };

typedef struct {
    int left, top, width, height, interlace;
    int has_local_map;
    int color_count;                 /* of the map the frame uses (local, else global); 0: none */
    const unsigned char *colors;     /* color_count RGB triples */
    const unsigned char *raster;     /* width * height indices, rows in display order */
    int has_gcb;                     /* DGifSavedExtensionToGCB returned GIF_OK */
    int disposal, user_input, delay, transparent;   /* the GCB (defaults without one) */
    /* The browsers' reading of the same saved extension blocks (PureGIF's rule): the last graphic
     * control extension whose first sub-block has at least 4 bytes. giflib takes the first one
     * and only when it has exactly 4. */
    int gce_count, gce_first_size;
    int browser_disposal, browser_user_input, browser_delay, browser_transparent;
} diff_gif_frame;

typedef struct {
    int status;        /* DIFF_GIF_OK: DGifSlurp's loop reached the trailer */
    int error;         /* giflib's D_GIF_ERR_* (or 0) */
    int stage;         /* where it failed: 1 open, 2 record type, 3 extension, 4 image descriptor, 5 pixels, 6 no image */
    int width, height; /* the logical screen */
    int image_count;   /* frames giflib started (the last is partial when stage is 5) */
    int complete;      /* frames whose pixels were all read */
    int empty_extension; /* an extension whose first sub-block is the terminator came before the
                            last frame read: DGifSlurp's loop then reads on past the terminator */
    diff_gif_frame *frames;   /* complete entries */
    void *handle;      /* the GifFileType, closed by diff_gif_close */
} diff_gif_result;

/* DGifOpen over memory, then DGifSlurp's loop (giflib 5.2.1) with one addition: a frame above
 * max_pixels stops it (DIFF_GIF_SKIPPED) before its raster is allocated. */
void diff_gif_decode(const unsigned char *data, size_t size, long max_pixels, int max_frames,
                     diff_gif_result *result);
void diff_gif_close(diff_gif_result *result);

#endif
