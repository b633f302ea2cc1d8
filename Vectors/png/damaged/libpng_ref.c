/*
 * libpng_ref: the reference decoding of the damaged PNG vectors.
 *
 *     gcc -O2 -o libpng_ref libpng_ref.c -lpng      (Debian: libpng-dev, libpng 1.6)
 *     ./libpng_ref FILE.png > FILE.pam               (stderr: one line per libpng warning)
 *
 * Reads FILE with libpng's low-level sequential API and its default settings: benign errors
 * are warnings on read (libpng 1.6's default), CRC handling is PNG_CRC_DEFAULT (a critical
 * chunk's CRC error is an error, an ancillary chunk's is a warning and the chunk is dropped),
 * the zlib Adler-32 is checked (PNG_IGNORE_ADLER32 is off unless an application turns it on).
 * The image is expanded to RGBA: png_set_expand (palette to RGB, gray below 8 bits to 8 bits,
 * tRNS to alpha), png_set_gray_to_rgb, png_set_add_alpha 0xFF / 0xFFFF where there is no alpha,
 * png_set_interlace_handling for Adam7. 16-bit images stay 16-bit: libpng hands out 16-bit
 * samples big-endian (network order) unless png_set_swap is called, which is what PAM wants,
 * so png_set_swap is NOT called.
 *
 * Output: a PAM on stdout (P7, TUPLTYPE RGB_ALPHA, MAXVAL 255 or 65535, big-endian samples).
 * Exit status 0 when libpng gave the image (with or without warnings), 1 on png_error.
 *
 * Policy for errors after the image: png_read_image reads every row (and finishes the IDAT
 * stream: png_read_finish_IDAT), then png_read_end reads the chunks after the image data up
 * to IEND. A png_error raised inside png_read_end (the file ends before IEND, a critical
 * chunk's CRC is wrong after the image data, an unknown critical chunk after IDAT, ...) comes
 * after every row was delivered, and libpng-based viewers keep and show the image. This
 * harness does the same: the image is written, the error is printed on stderr as a warning
 * line "error after the image data: MESSAGE", and the exit status is 0. An error raised
 * before png_read_end has returned control (in png_read_info or png_read_image, which
 * includes finishing the IDAT stream and the last IDAT's CRC) is an error: nothing on
 * stdout, exit status 1.
 */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

/* Set once png_read_image has returned: an error after it is the "error after the image" case. */
static volatile int image_read = 0;

static void on_error(png_structp png, png_const_charp message)
{
    if (image_read)
        fprintf(stderr, "error after the image data: %s\n", message);
    else
        fprintf(stderr, "error: %s\n", message);
    longjmp(png_jmpbuf(png), 1);
}

static void on_warning(png_structp png, png_const_charp message)
{
    (void)png;
    fprintf(stderr, "%s\n", message);
}

static void write_pam(png_uint_32 width, png_uint_32 height, int depth, png_bytepp rows, size_t row_bytes)
{
    printf("P7\nWIDTH %u\nHEIGHT %u\nDEPTH 4\nMAXVAL %d\nTUPLTYPE RGB_ALPHA\nENDHDR\n", (unsigned)width,
           (unsigned)height, depth == 16 ? 65535 : 255);
    for (png_uint_32 y = 0; y < height; y++)
        fwrite(rows[y], 1, row_bytes, stdout);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: libpng_ref FILE.png > FILE.pam\n");
        return 2;
    }
    FILE *file = fopen(argv[1], "rb");
    if (file == NULL) {
        perror(argv[1]);
        return 2;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
    png_infop info = png == NULL ? NULL : png_create_info_struct(png);
    if (info == NULL)
        return 2;
    /* volatile: read after longjmp. */
    png_bytepp volatile rows = NULL;
    volatile png_uint_32 width = 0, height = 0;
    volatile int depth = 8;
    volatile size_t row_bytes = 0;
    if (setjmp(png_jmpbuf(png))) {
        int status = 1;
        if (image_read) {
            /* The error came from png_read_end: the image stands (see the policy above). */
            write_pam(width, height, depth, rows, row_bytes);
            status = 0;
        }
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        return status;
    }
    png_init_io(png, file);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFFFF, PNG_FILLER_AFTER);
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    width = png_get_image_width(png, info);
    height = png_get_image_height(png, info);
    depth = png_get_bit_depth(png, info);
    row_bytes = png_get_rowbytes(png, info);
    if (png_get_channels(png, info) != 4 || (depth != 8 && depth != 16)) {
        fprintf(stderr, "error: unexpected output layout\n");
        return 1;
    }
    rows = malloc(sizeof(png_bytep) * height);
    for (png_uint_32 y = 0; y < height; y++)
        rows[y] = malloc(row_bytes);
    png_read_image(png, rows);
    image_read = 1;
    png_read_end(png, info);
    write_pam(width, height, depth, rows, row_bytes);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(file);
    return 0;
}
