/*
 * cbench: the reference figures for PureImage's benchmarks (libpng, libjpeg-turbo, giflib).
 *
 *   cbench decode|encode png|jpeg|gif FILE [-n N] [--level L] [--quality Q]
 *   cbench decode jpeg FILE --previews [-n N]
 *
 * The file is read into memory once. Then N timed iterations (after one untimed warm-up) do
 * the whole operation a caller would do, including allocating the output buffer, and the
 * median is printed as one line:
 *
 *   decode PNG 4000x3000 123.4 MP/s
 *   encode PNG 4000x3000 45.6 MP/s 1234567 bytes
 *   decode GIF 500x500x100 210.0 MP/s          (MP counts every frame of the canvas)
 *
 * For encode, FILE may be any PNG or JPEG: it is decoded once (untimed) and those pixels are
 * encoded. --dump PATH writes the last result (raw pixels; the GIF's last composited canvas
 * as RGBA; the encoded file) for checking the harness against other tools.
 *
 * --previews (progressive JPEG): libjpeg-turbo's own way of showing a progressive file scan by
 * scan, buffered-image mode with one output pass after every scan (libjpeg.txt, "Buffered-image
 * mode"), alternated N times with the one-shot decode; prints the one-shot line and
 *   previews JPEG 10 previews: 3.21x the one-shot decode
 * (medians), the same two lines as `jpng bench --previews`. Build: cc -O2 -o Benchmarks/bin/cbench bench.c -lpng -ljpeg -lgif
 */
#include <gif_lib.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <jpeglib.h>

static void die(const char *msg) {
    fprintf(stderr, "cbench: %s\n", msg);
    exit(1);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

/* An image buffer: malloc, as djpeg and pngtopnm allocate theirs; with CBENCH_HUGEPAGES=1 the
   2 MiB-aligned part is also offered to transparent huge pages (madvise), as PureImage does
   for large images, so the two can be compared with the same page-fault cost. */
static void *image_malloc(size_t n) {
    void *p = xmalloc(n);
    const char *hint = getenv("CBENCH_HUGEPAGES");
    if (hint && *hint == '1' && n >= (4u << 20)) {
        uintptr_t huge = 2u << 20;
        uintptr_t first = ((uintptr_t)p + huge - 1) & ~(huge - 1);
        uintptr_t end = ((uintptr_t)p + n) & ~(huge - 1);
        if (end > first) madvise((void *)first, end - first, MADV_HUGEPAGE);
    }
    return p;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    unsigned char *data;
    size_t size;
} Bytes;

static Bytes read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open input file");
    Bytes b = {NULL, 0};
    size_t cap = 1 << 20;
    b.data = xmalloc(cap);
    for (;;) {
        if (b.size == cap) {
            cap *= 2;
            b.data = realloc(b.data, cap);
            if (!b.data) die("out of memory");
        }
        size_t got = fread(b.data + b.size, 1, cap - b.size, f);
        if (got == 0) break;
        b.size += got;
    }
    fclose(f);
    return b;
}

/* An image in memory: 8-bit samples, rows tightly packed. */
typedef struct {
    unsigned char *pixels;
    int width, height, channels;
} Pixels;

/* ---------------------------------------------------------------- PNG */

typedef struct {
    const unsigned char *data;
    size_t size, pos;
} Reader;

static void png_read_mem(png_structp png, png_bytep out, png_size_t n) {
    Reader *r = png_get_io_ptr(png);
    if (n > r->size - r->pos) png_error(png, "truncated");
    memcpy(out, r->data + r->pos, n);
    r->pos += n;
}

/* Decodes to RGB8 or RGBA8 (alpha when the file has any: an alpha channel or tRNS). */
static Pixels png_decode(const Bytes *in) {
    Pixels img = {NULL, 0, 0, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (!png || !info) die("libpng init");
    png_bytep *rows = NULL;
    if (setjmp(png_jmpbuf(png))) die("libpng decode failed");
    Reader r = {in->data, in->size, 0};
    png_set_read_fn(png, &r, png_read_mem);
    png_read_info(png, info);
    int color = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_strip_16(png);
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    img.width = (int)png_get_image_width(png, info);
    img.height = (int)png_get_image_height(png, info);
    img.channels = png_get_channels(png, info);
    size_t stride = (size_t)img.width * (size_t)img.channels;
    if (png_get_rowbytes(png, info) != stride) die("unexpected PNG row size");
    img.pixels = image_malloc(stride * (size_t)img.height);
    rows = xmalloc(sizeof *rows * (size_t)img.height);
    for (int y = 0; y < img.height; y++) rows[y] = img.pixels + stride * (size_t)y;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    return img;
}

typedef struct {
    unsigned char *data;
    size_t size, cap;
} Writer;

static void png_write_mem(png_structp png, png_bytep data, png_size_t n) {
    Writer *w = png_get_io_ptr(png);
    if (w->size + n > w->cap) {
        size_t cap = w->cap ? w->cap : 1 << 20;
        while (cap < w->size + n) cap *= 2;
        unsigned char *p = realloc(w->data, cap);
        if (!p) png_error(png, "out of memory");
        w->data = p;
        w->cap = cap;
    }
    memcpy(w->data + w->size, data, n);
    w->size += n;
}

static void png_flush_mem(png_structp png) { (void)png; }

/* libpng's defaults except for the level when one is given (level < 0: library default, 6). */
static Writer png_encode(const Pixels *img, int level) {
    Writer w = {NULL, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (!png || !info) die("libpng init");
    png_bytep *rows = xmalloc(sizeof *rows * (size_t)img->height);
    if (setjmp(png_jmpbuf(png))) die("libpng encode failed");
    png_set_write_fn(png, &w, png_write_mem, png_flush_mem);
    if (level >= 0) png_set_compression_level(png, level);
    int color = img->channels == 4 ? PNG_COLOR_TYPE_RGBA
              : img->channels == 3 ? PNG_COLOR_TYPE_RGB
              : img->channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA : PNG_COLOR_TYPE_GRAY;
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8, color,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    size_t stride = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) rows[y] = img->pixels + stride * (size_t)y;
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    return w;
}

/* ---------------------------------------------------------------- JPEG */

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} JpegError;

static void jpeg_error_exit(j_common_ptr cinfo) {
    JpegError *e = (JpegError *)cinfo->err;
    longjmp(e->jump, 1);
}

/* The header read, with the output a caller wants from each file: RGB8 for colour files,
 * gray8 for grayscale ones; the library's defaults otherwise: islow DCT, fancy upsampling (as
 * `djpeg -dct int`). The caller has set up the error manager (and its setjmp). */
static void jpeg_open(struct jpeg_decompress_struct *cinfo, const Bytes *in) {
    jpeg_create_decompress(cinfo);
    jpeg_mem_src(cinfo, in->data, (unsigned long)in->size);
    jpeg_read_header(cinfo, TRUE);
    cinfo->out_color_space = cinfo->num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
}

/* Every row of the current output pass into `pixels`, 16 rows per call. */
static void jpeg_read_rows(struct jpeg_decompress_struct *cinfo, unsigned char *pixels, size_t stride) {
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[16];
        int n = 0;
        while (n < 16 && cinfo->output_scanline + (unsigned)n < cinfo->output_height) {
            rows[n] = pixels + stride * (cinfo->output_scanline + (size_t)n);
            n++;
        }
        jpeg_read_scanlines(cinfo, rows, (JDIMENSION)n);
    }
}

/* A one-shot decode, or (`passes` not NULL) libjpeg-turbo's per-scan display: buffered-image
 * mode with an output pass per scan, every pass writing the whole image into the same buffer as
 * a viewer would, block smoothing off since PureImage's previews do not smooth (it would add
 * work to libjpeg-turbo's passes); `*passes` is then the number of passes. */
static Pixels jpeg_decode_passes(const Bytes *in, int *passes) {
    Pixels img = {NULL, 0, 0, 0};
    struct jpeg_decompress_struct cinfo;
    JpegError err;
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = jpeg_error_exit;
    if (setjmp(err.jump)) die("libjpeg decode failed");
    jpeg_open(&cinfo, in);
    if (passes) {
        cinfo.buffered_image = TRUE;
        cinfo.do_block_smoothing = FALSE;
    }
    jpeg_start_decompress(&cinfo);
    img.width = (int)cinfo.output_width;
    img.height = (int)cinfo.output_height;
    img.channels = cinfo.output_components;
    size_t stride = (size_t)img.width * (size_t)img.channels;
    img.pixels = image_malloc(stride * (size_t)img.height);
    if (passes) {
        *passes = 0;
        while (!jpeg_input_complete(&cinfo)) {
            /* Show the scan being read: with all the data in memory, the pass reads that scan
             * to its end (jpeg_finish_output absorbs what the rows did not need). */
            jpeg_start_output(&cinfo, cinfo.input_scan_number);
            jpeg_read_rows(&cinfo, img.pixels, stride);
            jpeg_finish_output(&cinfo);
            (*passes)++;
        }
    } else {
        jpeg_read_rows(&cinfo, img.pixels, stride);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return img;
}

static Pixels jpeg_decode(const Bytes *in) { return jpeg_decode_passes(in, NULL); }

/* Baseline, 4:2:0, islow FDCT, standard Huffman tables (jpeg_set_defaults, as cjpeg). */
static Writer jpeg_encode(const Pixels *img, int quality) {
    Writer w = {NULL, 0, 0};
    unsigned long size = 0;
    struct jpeg_compress_struct cinfo;
    JpegError err;
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = jpeg_error_exit;
    if (setjmp(err.jump)) die("libjpeg encode failed");
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &w.data, &size);
    cinfo.image_width = (JDIMENSION)img->width;
    cinfo.image_height = (JDIMENSION)img->height;
    cinfo.input_components = img->channels;
    cinfo.in_color_space = img->channels == 4 ? JCS_EXT_RGBA
                         : img->channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    if (img->channels == 2) die("gray+alpha input is not supported for JPEG encode");
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)img->width * (size_t)img->channels;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = img->pixels + stride * cinfo.next_scanline;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    w.size = size;
    w.cap = size;
    return w;
}

/* ---------------------------------------------------------------- GIF */

static int gif_read_mem(GifFileType *gif, GifByteType *out, int n) {
    Reader *r = gif->UserData;
    size_t avail = r->size - r->pos;
    size_t take = (size_t)n < avail ? (size_t)n : avail;
    memcpy(out, r->data + r->pos, take);
    r->pos += take;
    return (int)take;
}

typedef struct {
    int width, height, frames;
    uint32_t checksum; /* keeps the compositing from being optimised away */
    unsigned char *canvas; /* the last frame composited, kept only when asked for */
} GifResult;

/* --dump PATH: the last decoded pixels as raw bytes, to check the harness against other
 * decoders; not part of what is timed. */
static void dump(const char *path, const unsigned char *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f)) die("cannot write the dump file");
}

/* Decodes every frame into an index buffer (incremental API, one frame at a time) and
 * composites it onto an RGBA canvas, honouring the previous frame's disposal method
 * (GIF89a 23.c.iv): 2 clears its rectangle to transparent, 3 restores the canvas as it was
 * before that frame. */
static GifResult gif_decode(const Bytes *in, int keep_canvas) {
    GifResult res = {0, 0, 0, 0, NULL};
    Reader r = {in->data, in->size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&r, gif_read_mem, &error);
    if (!gif) die("giflib open failed");
    int cw = gif->SWidth, ch = gif->SHeight;
    size_t canvas_bytes = (size_t)cw * (size_t)ch * 4;
    unsigned char *canvas = xmalloc(canvas_bytes);
    unsigned char *saved = NULL;
    GifByteType *indices = NULL;
    size_t indices_cap = 0;
    memset(canvas, 0, canvas_bytes);

    GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
    int prev_disposal = DISPOSAL_UNSPECIFIED;
    int px = 0, py = 0, pw = 0, ph = 0;
    GifRecordType type;
    do {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) die("giflib record failed");
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) die("giflib extension failed");
            if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4)
                DGifExtensionToGCB(ext[0], ext + 1, &gcb);
            while (ext) {
                if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) die("giflib extension failed");
            }
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) die("giflib image failed");
            GifImageDesc *d = &gif->Image;
            int fw = d->Width, fh = d->Height;
            size_t n = (size_t)fw * (size_t)fh;
            if (n > indices_cap) {
                free(indices);
                indices = xmalloc(n);
                indices_cap = n;
            }
            if (d->Interlace) {
                static const int start[] = {0, 4, 2, 1}, step[] = {8, 8, 4, 2};
                for (int pass = 0; pass < 4; pass++)
                    for (int y = start[pass]; y < fh; y += step[pass])
                        if (DGifGetLine(gif, indices + (size_t)y * fw, fw) == GIF_ERROR)
                            die("giflib line failed");
            } else if (n && DGifGetLine(gif, indices, (int)n) == GIF_ERROR) {
                die("giflib line failed");
            }

            /* Dispose of the previous frame. */
            if (prev_disposal == DISPOSE_BACKGROUND) {
                for (int y = py; y < py + ph; y++)
                    memset(canvas + ((size_t)y * cw + px) * 4, 0, (size_t)pw * 4);
            } else if (prev_disposal == DISPOSE_PREVIOUS && saved) {
                memcpy(canvas, saved, canvas_bytes);
            }
            /* Clip the frame to the canvas. */
            int x0 = d->Left, y0 = d->Top;
            int x1 = x0 + fw < cw ? x0 + fw : cw, y1 = y0 + fh < ch ? y0 + fh : ch;
            if (x0 > cw) x0 = cw;
            if (y0 > ch) y0 = ch;
            if (gcb.DisposalMode == DISPOSE_PREVIOUS) {
                if (!saved) saved = xmalloc(canvas_bytes);
                memcpy(saved, canvas, canvas_bytes);
            }
            ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
            unsigned char lut[256 * 4];
            memset(lut, 0, sizeof lut);
            if (map)
                for (int i = 0; i < map->ColorCount && i < 256; i++) {
                    lut[i * 4] = map->Colors[i].Red;
                    lut[i * 4 + 1] = map->Colors[i].Green;
                    lut[i * 4 + 2] = map->Colors[i].Blue;
                    lut[i * 4 + 3] = 255;
                }
            int transparent = gcb.TransparentColor;
            for (int y = y0; y < y1; y++) {
                const GifByteType *src = indices + (size_t)(y - d->Top) * fw;
                unsigned char *dst = canvas + ((size_t)y * cw + x0) * 4;
                for (int x = x0; x < x1; x++, src++, dst += 4) {
                    int i = *src;
                    if (i == transparent) continue;
                    memcpy(dst, lut + i * 4, 4);
                }
            }
            res.checksum += canvas[((size_t)(ch / 2) * cw + cw / 2) * 4];
            res.frames++;
            prev_disposal = gcb.DisposalMode;
            px = x0, py = y0, pw = x1 - x0, ph = y1 - y0;
            gcb.DisposalMode = DISPOSAL_UNSPECIFIED;
            gcb.TransparentColor = NO_TRANSPARENT_COLOR;
        }
    } while (type != TERMINATE_RECORD_TYPE);
    DGifCloseFile(gif, &error);
    free(indices);
    free(saved);
    if (keep_canvas) res.canvas = canvas;
    else free(canvas);
    res.width = cw;
    res.height = ch;
    return res;
}

/* ---------------------------------------------------------------- driver */

static int is_png(const Bytes *b) {
    return b->size >= 8 && memcmp(b->data, "\x89PNG\r\n\x1a\n", 8) == 0;
}

static int is_jpeg(const Bytes *b) {
    return b->size >= 3 && b->data[0] == 0xFF && b->data[1] == 0xD8 && b->data[2] == 0xFF;
}

static void usage(void) {
    fprintf(stderr, "usage: cbench decode|encode png|jpeg|gif FILE [-n N] [--level L] [--quality Q]\n"
                    "       cbench decode jpeg FILE --previews [-n N]\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 4) usage();
    const char *op = argv[1], *codec = argv[2], *path = argv[3];
    int iterations = 5, level = -1, quality = 85;
    const char *dump_path = NULL;
    int previews = 0;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--previews")) { previews = 1; continue; }
        if (i + 1 >= argc) usage();
        if (!strcmp(argv[i], "-n")) iterations = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--level")) level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quality")) quality = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dump")) dump_path = argv[++i];
        else usage();
    }
    if (iterations < 1 || level > 9 || quality < 1 || quality > 100) usage();
    int decode = !strcmp(op, "decode");
    if (!decode && strcmp(op, "encode")) usage();
    int kind = !strcmp(codec, "png") ? 0 : !strcmp(codec, "jpeg") ? 1 : !strcmp(codec, "gif") ? 2 : -1;
    if (kind < 0 || (kind == 2 && !decode)) usage();
    if (previews && !(decode && kind == 1)) usage();

    Bytes in = read_file(path);
    double *times = xmalloc(sizeof(double) * (size_t)iterations);
    double pixels = 0;
    size_t out_size = 0;
    char dims[64];

    if (previews) {
        /* One-shot and buffered-image decodes alternate (after one untimed warm-up of each),
         * so that drift in the machine's speed touches both medians alike. */
        double *shown = xmalloc(sizeof(double) * (size_t)iterations);
        int passes = 0;
        Pixels p = {NULL, 0, 0, 0};
        for (int it = -1; it < iterations; it++) {
            double t0 = now();
            p = jpeg_decode(&in);
            double t1 = now();
            free(p.pixels);
            double t2 = now();
            Pixels shownImage = jpeg_decode_passes(&in, &passes);
            double t3 = now();
            free(shownImage.pixels);
            if (it >= 0) { times[it] = t1 - t0; shown[it] = t3 - t2; }
        }
        double one = median(times, iterations);
        printf("decode JPEG %dx%d %.1f MP/s\n", p.width, p.height, (double)p.width * p.height / one / 1e6);
        printf("previews JPEG %d previews: %.2fx the one-shot decode\n", passes, median(shown, iterations) / one);
        free(shown);
        free(times);
        free(in.data);
        return 0;
    }

    Pixels source = {NULL, 0, 0, 0};
    if (!decode) {
        if (is_png(&in)) source = png_decode(&in);
        else if (is_jpeg(&in)) source = jpeg_decode(&in);
        else die("encode input must be a PNG or JPEG file");
    }

    for (int it = -1; it < iterations; it++) { /* it == -1: warm-up, not timed */
        double t0 = now();
        if (decode && kind == 2) {
            int last = it == iterations - 1 && dump_path;
            GifResult g = gif_decode(&in, last);
            if (last) {
                dump(dump_path, g.canvas, (size_t)g.width * g.height * 4);
                free(g.canvas);
            }
            pixels = (double)g.width * g.height * g.frames;
            snprintf(dims, sizeof dims, "%dx%dx%d", g.width, g.height, g.frames);
            if (g.checksum == 0xFFFFFFFFu) fputc(' ', stderr);
        } else if (decode) {
            Pixels p = kind == 0 ? png_decode(&in) : jpeg_decode(&in);
            pixels = (double)p.width * p.height;
            snprintf(dims, sizeof dims, "%dx%d", p.width, p.height);
            if (it == iterations - 1 && dump_path)
                dump(dump_path, p.pixels, (size_t)p.width * p.height * p.channels);
            free(p.pixels);
        } else {
            Writer w = kind == 0 ? png_encode(&source, level) : jpeg_encode(&source, quality);
            pixels = (double)source.width * source.height;
            snprintf(dims, sizeof dims, "%dx%d", source.width, source.height);
            out_size = w.size;
            if (it == iterations - 1 && dump_path) dump(dump_path, w.data, w.size);
            free(w.data);
        }
        double t = now() - t0;
        if (it >= 0) times[it] = t;
    }

    double mps = pixels / median(times, iterations) / 1e6;
    const char *name = kind == 0 ? "PNG" : kind == 1 ? "JPEG" : "GIF";
    /* One decimal as in the contract, more below 10 MP/s so that slow encodes (PNG level 9
     * is under 1 MP/s) keep three significant digits for the ratio. */
    int decimals = mps >= 10 ? 1 : mps >= 1 ? 2 : 3;
    if (decode) printf("decode %s %s %.*f MP/s\n", name, dims, decimals, mps);
    else printf("encode %s %s %.*f MP/s %zu bytes\n", name, dims, decimals, mps, out_size);
    free(source.pixels);
    free(times);
    free(in.data);
    return 0;
}
