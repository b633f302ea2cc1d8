/*
 * libpng's decoding for the diff-png fuzz target: Vectors/png/damaged/libpng_ref.c as a function
 * over a memory buffer. Low-level sequential API, default settings (benign errors are warnings on
 * read, PNG_CRC_DEFAULT, Adler-32 checked, default user limits; allocations are bounded, see
 * below), png_set_expand +
 * png_set_gray_to_rgb + png_set_add_alpha(0xFFFF, after) + png_set_interlace_handling, and
 * png_set_swap so that 16-bit samples come out in host (little-endian) order like PurePNG's.
 *
 * An error raised in png_read_end, after png_read_image delivered every row, leaves the image
 * standing (PurePNG's rule, Sources/PurePNG/Notes.md "Damaged files (libpng compatibility)");
 * an error before that is an error.
 */
#include "diff_png.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const unsigned char *data;
    size_t left;
    diff_png_result *result;
    volatile int image_read;
} source;

static void on_error(png_structp png, png_const_charp message)
{
    source *src = png_get_error_ptr(png);
    strncpy(src->result->message, message, sizeof src->result->message - 1);
    longjmp(png_jmpbuf(png), 1);
}

static void on_warning(png_structp png, png_const_charp message)
{
    source *src = png_get_error_ptr(png);
    if (src->result->warnings++ == 0)
        strncpy(src->result->message, message, sizeof src->result->message - 1);
}

/* As png_default_read_data: a short read is png_error("Read Error"). */
static void on_read(png_structp png, png_bytep out, size_t count)
{
    source *src = png_get_io_ptr(png);
    if (src->left < count)
        png_error(png, "Read Error");
    memcpy(out, src->data, count);
    src->data += count;
    src->left -= count;
}

static png_voidp bounded_malloc(png_structp png, png_alloc_size_t size)
{
    (void)png;
    return size > (16u << 20) ? NULL : malloc(size);
}

static void bounded_free(png_structp png, png_voidp pointer)
{
    (void)png;
    free(pointer);
}

void diff_png_decode(const unsigned char *data, size_t size, long max_pixels, diff_png_result *result)
{
    memset(result, 0, sizeof *result);
    source src = { data, size, result, 0 };
    /* libpng allocates a chunk's declared length before reading it (up to 2 GiB: its check is a
     * benign error, a warning on read), which libFuzzer's malloc limit reports as an
     * out-of-memory and which costs seconds under ASan below that. An allocator that refuses
     * more than 16 MiB makes such a chunk fail at once ("Out of memory" or "insufficient
     * memory"); it would fail anyway, since no 64 KB input holds it. */
    png_structp png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &src, on_error, on_warning, NULL,
                                               bounded_malloc, bounded_free);
    png_infop info = png == NULL ? NULL : png_create_info_struct(png);
    if (info == NULL) {
        result->status = DIFF_PNG_ERROR;
        strcpy(result->message, "(harness) out of memory");
        png_destroy_read_struct(&png, NULL, NULL);
        return;
    }
    png_bytepp volatile rows = NULL;
    unsigned char *volatile pixels = NULL;
    volatile png_uint_32 height = 0;
    if (setjmp(png_jmpbuf(png))) {
        if (src.image_read) {
            result->status = DIFF_PNG_OK;
            result->error_after_image = 1;
            result->pixels = pixels;
        } else {
            result->status = DIFF_PNG_ERROR;
            free(pixels);
        }
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return;
    }
    png_set_read_fn(png, &src, on_read);
    png_read_info(png, info);
    if ((long)png_get_image_width(png, info) * (long)png_get_image_height(png, info) > max_pixels) {
        result->status = DIFF_PNG_SKIPPED;
        strcpy(result->message, "(harness) more pixels than the limit");
        png_destroy_read_struct(&png, &info, NULL);
        return;
    }
    png_set_expand(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFFFF, PNG_FILLER_AFTER);
    png_set_swap(png);
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    png_uint_32 width = png_get_image_width(png, info);
    height = png_get_image_height(png, info);
    int depth = png_get_bit_depth(png, info);
    size_t row_bytes = png_get_rowbytes(png, info);
    if (png_get_channels(png, info) != 4 || (depth != 8 && depth != 16) || row_bytes != (size_t)width * 4 * (depth / 8))
        png_error(png, "(harness) unexpected output layout");
    result->width = (int)width;
    result->height = (int)height;
    result->depth = depth;
    pixels = calloc(row_bytes * height + 1, 1);
    rows = malloc(sizeof(png_bytep) * (height + 1));
    for (png_uint_32 y = 0; y < height; y++)
        rows[y] = pixels + row_bytes * y;
    png_read_image(png, rows);
    src.image_read = 1;
    png_read_end(png, info);
    result->status = DIFF_PNG_OK;
    result->pixels = pixels;
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
}

void diff_png_free(diff_png_result *result)
{
    free(result->pixels);
    result->pixels = NULL;
}
