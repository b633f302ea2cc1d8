/*
 * giflib's decoding for the diff-gif fuzz target: DGifOpen with a memory read callback, then the
 * body of giflib 5.2.1's DGifSlurp (dgif_lib.c) with the same calls in the same order, so that
 * a frame larger than the fuzz targets' pixel limit is refused before its raster is allocated
 * (DGifSlurp would malloc width * height bytes, up to 4 GiB for a 20-byte header, which
 * libFuzzer's malloc limit reports as an out-of-memory). Everything else is giflib's: the
 * extension blocks saved with each image, DGifSavedExtensionToGCB (the first graphic control
 * extension before the image), the zero-size check, the interlace passes.
 *
 * When the loop fails, SavedImages holds the frames read so far; the last one may be partial
 * (its raster uninitialised past the failure), so only frames whose pixels were all read are
 * reported.
 */
#include "diff_gif.h"

#include <gif_lib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const unsigned char *data;
    size_t left;
} source;

static int on_read(GifFileType *gif, GifByteType *out, int count)
{
    source *src = gif->UserData;
    size_t n = count < 0 ? 0 : (size_t)count;
    if (n > src->left)
        n = src->left;
    memcpy(out, src->data, n);
    src->data += n;
    src->left -= n;
    return (int)n;
}

/* DGifSlurp of giflib 5.2.1, with the pixel limit. Returns GIF_OK, GIF_ERROR or 2 (skipped). */
static int slurp(GifFileType *gif, long max_pixels, int max_frames, diff_gif_result *result)
{
    GifRecordType type;
    GifByteType *ext;
    int function;
    gif->ExtensionBlocks = NULL;
    gif->ExtensionBlockCount = 0;
    do {
        result->stage = 2;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR)
            return GIF_ERROR;
        switch (type) {
        case IMAGE_DESC_RECORD_TYPE: {
            result->stage = 4;
            if (gif->ImageCount >= max_frames)
                return 2;
            if (DGifGetImageDesc(gif) == GIF_ERROR)
                return GIF_ERROR;
            SavedImage *sp = &gif->SavedImages[gif->ImageCount - 1];
            if (sp->ImageDesc.Width <= 0 || sp->ImageDesc.Height <= 0 ||
                sp->ImageDesc.Width > INT_MAX / sp->ImageDesc.Height)
                return GIF_ERROR;
            size_t size = (size_t)sp->ImageDesc.Width * (size_t)sp->ImageDesc.Height;
            if ((long)size > max_pixels)
                return 2;
            sp->RasterBits = malloc(size);
            if (sp->RasterBits == NULL)
                return GIF_ERROR;
            result->stage = 5;
            if (sp->ImageDesc.Interlace) {
                static const int offsets[] = { 0, 4, 2, 1 }, jumps[] = { 8, 8, 4, 2 };
                for (int i = 0; i < 4; i++)
                    for (int j = offsets[i]; j < sp->ImageDesc.Height; j += jumps[i])
                        if (DGifGetLine(gif, sp->RasterBits + j * sp->ImageDesc.Width, sp->ImageDesc.Width) == GIF_ERROR)
                            return GIF_ERROR;
            } else if (DGifGetLine(gif, sp->RasterBits, (int)size) == GIF_ERROR) {
                return GIF_ERROR;
            }
            result->complete = gif->ImageCount;
            if (gif->ExtensionBlocks) {
                sp->ExtensionBlocks = gif->ExtensionBlocks;
                sp->ExtensionBlockCount = gif->ExtensionBlockCount;
                gif->ExtensionBlocks = NULL;
                gif->ExtensionBlockCount = 0;
            }
            break;
        }
        case EXTENSION_RECORD_TYPE:
            result->stage = 3;
            if (DGifGetExtension(gif, &function, &ext) == GIF_ERROR)
                return GIF_ERROR;
            /* giflib 5.2.1's DGifSlurp asks for the next sub-block even when the first was the
             * terminator, so it reads the bytes after the extension as more of it. */
            if (ext == NULL)
                result->empty_extension = 1;
            if (ext != NULL &&
                GifAddExtensionBlock(&gif->ExtensionBlockCount, &gif->ExtensionBlocks, function, ext[0], &ext[1]) == GIF_ERROR)
                return GIF_ERROR;
            for (;;) {
                if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR)
                    return GIF_ERROR;
                if (ext == NULL)
                    break;
                if (GifAddExtensionBlock(&gif->ExtensionBlockCount, &gif->ExtensionBlocks, CONTINUE_EXT_FUNC_CODE,
                                         ext[0], &ext[1]) == GIF_ERROR)
                    return GIF_ERROR;
            }
            break;
        default:
            break;
        }
    } while (type != TERMINATE_RECORD_TYPE);
    if (gif->ImageCount == 0) {
        result->stage = 6;
        gif->Error = D_GIF_ERR_NO_IMAG_DSCR;
        return GIF_ERROR;
    }
    return GIF_OK;
}

void diff_gif_decode(const unsigned char *data, size_t size, long max_pixels, int max_frames,
                     diff_gif_result *result)
{
    memset(result, 0, sizeof *result);
    source src = { data, size };
    int error = 0;
    GifFileType *gif = DGifOpen(&src, on_read, &error);
    if (gif == NULL) {
        result->status = DIFF_GIF_ERROR;
        result->error = error;
        result->stage = 1;
        return;
    }
    result->handle = gif;
    result->width = gif->SWidth;
    result->height = gif->SHeight;
    if ((long)gif->SWidth * (long)gif->SHeight > max_pixels) {
        result->status = DIFF_GIF_SKIPPED;
        return;
    }
    int status = slurp(gif, max_pixels, max_frames, result);
    result->status = status == GIF_OK ? DIFF_GIF_OK : status == 2 ? DIFF_GIF_SKIPPED : DIFF_GIF_ERROR;
    result->error = status == GIF_OK ? 0 : gif->Error;
    result->image_count = gif->ImageCount;
    /* A frame whose pixels were read but whose extension blocks were not yet moved (none: the
     * move follows the read directly) is complete; frames past `complete` are not reported. */
    result->frames = calloc((size_t)result->complete + 1, sizeof(diff_gif_frame));
    for (int i = 0; i < result->complete; i++) {
        SavedImage *sp = &gif->SavedImages[i];
        diff_gif_frame *f = &result->frames[i];
        f->left = sp->ImageDesc.Left;
        f->top = sp->ImageDesc.Top;
        f->width = sp->ImageDesc.Width;
        f->height = sp->ImageDesc.Height;
        f->interlace = sp->ImageDesc.Interlace;
        f->has_local_map = sp->ImageDesc.ColorMap != NULL;
        ColorMapObject *map = sp->ImageDesc.ColorMap ? sp->ImageDesc.ColorMap : gif->SColorMap;
        if (map != NULL) {
            f->color_count = map->ColorCount;
            f->colors = (const unsigned char *)map->Colors;
        }
        f->raster = sp->RasterBits;
        GraphicsControlBlock gcb;
        f->has_gcb = DGifSavedExtensionToGCB(gif, i, &gcb) == GIF_OK;
        if (!f->has_gcb) {
            /* DGifSavedExtensionToGCB filled in the defaults before looking. */
            gcb.DisposalMode = DISPOSAL_UNSPECIFIED;
            gcb.UserInputFlag = false;
            gcb.DelayTime = 0;
            gcb.TransparentColor = NO_TRANSPARENT_COLOR;
        }
        f->browser_disposal = DISPOSAL_UNSPECIFIED;
        f->browser_transparent = NO_TRANSPARENT_COLOR;
        for (int e = 0; e < sp->ExtensionBlockCount; e++) {
            ExtensionBlock *ep = &sp->ExtensionBlocks[e];
            if (ep->Function != GRAPHICS_EXT_FUNC_CODE)
                continue;
            if (f->gce_count++ == 0)
                f->gce_first_size = ep->ByteCount;
            if (ep->ByteCount < 4)
                continue;
            f->browser_disposal = (ep->Bytes[0] >> 2) & 7;
            f->browser_user_input = (ep->Bytes[0] & 2) != 0;
            f->browser_delay = ep->Bytes[1] | ep->Bytes[2] << 8;
            f->browser_transparent = ep->Bytes[0] & 1 ? ep->Bytes[3] : NO_TRANSPARENT_COLOR;
        }
        f->disposal = gcb.DisposalMode;
        f->user_input = gcb.UserInputFlag;
        f->delay = gcb.DelayTime;
        f->transparent = gcb.TransparentColor;
    }
}

void diff_gif_close(diff_gif_result *result)
{
    free(result->frames);
    result->frames = NULL;
    if (result->handle != NULL) {
        int error = 0;
        DGifCloseFile(result->handle, &error);
        result->handle = NULL;
    }
}
