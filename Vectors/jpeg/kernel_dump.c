/* Vector tool, not part of the package: dumps libjpeg-turbo's own intermediate results for one
 * baseline JPEG so the Swift kernels can be checked stage by stage.
 *   kernel_dump in.jpg blocks <denom> out.bin   records: 64 int16 coef, 64 uint16 quant, S*S output
 *                                               (S = 8/denom; components libjpeg-turbo decodes at
 *                                               another block size when scaling are left out)
 *   kernel_dump in.jpg planes out.bin           per component: raw (downsampled) plane, then the
 *                                               upsampled YCbCr plane; then the RGB image
 *   kernel_dump in.jpg cmyk out.bin             4-component file: W, H, the stored samples with no
 *                                               colour conversion, then libjpeg's CMYK output
 *   kernel_dump out.jpg ycck W H in.cmyk        writes an Adobe YCCK JPEG (quality 90) from raw CMYK
 * All integers little-endian. Build: cc -O2 kernel_dump.c -ljpeg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <jpeglib.h>

static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }

static JSAMPLE **raw_planes(const char *path, int denom, int *pw, int *ph, int *nc, int *hs, int *vs,
                            int *dw, int *dh, int *ss) {
  struct jpeg_decompress_struct d; struct jpeg_error_mgr e;
  FILE *f = fopen(path, "rb"); if (!f) exit(2);
  d.err = jpeg_std_error(&e); jpeg_create_decompress(&d); jpeg_stdio_src(&d, f);
  jpeg_read_header(&d, TRUE);
  d.raw_data_out = TRUE; d.dct_method = JDCT_ISLOW; d.scale_num = 1; d.scale_denom = denom;
  d.do_fancy_upsampling = TRUE;
  jpeg_start_decompress(&d);
  *nc = d.num_components;
  JSAMPLE **planes = calloc(d.num_components, sizeof(JSAMPLE *));
  for (int c = 0; c < d.num_components; c++) {
    jpeg_component_info *ci = &d.comp_info[c];
    /* libjpeg-turbo gives subsampled components a larger IDCT when scaling (jdmaster.c) */
    int S = ci->DCT_scaled_size;
    ss[c] = S;
    pw[c] = ci->width_in_blocks * S;
    ph[c] = ((ci->height_in_blocks + ci->v_samp_factor - 1) / ci->v_samp_factor) * ci->v_samp_factor * S;
    /* rows are read in iMCU rows: allocate a full multiple */
    int rows = (d.total_iMCU_rows) * ci->v_samp_factor * S;
    if (rows > ph[c]) ph[c] = rows;
    planes[c] = calloc((size_t)pw[c] * ph[c] + 64, 1);
    hs[c] = ci->h_samp_factor; vs[c] = ci->v_samp_factor;
    dw[c] = ci->downsampled_width; dh[c] = ci->downsampled_height;
  }
  int lines = d.max_v_samp_factor * d.min_DCT_scaled_size;
  JSAMPARRAY arr[MAX_COMPONENTS]; JSAMPROW rowp[MAX_COMPONENTS][64];
  for (int y = 0; y < (int)d.total_iMCU_rows; y++) {
    for (int c = 0; c < d.num_components; c++) {
      int n = d.comp_info[c].v_samp_factor * ss[c];
      for (int r = 0; r < n; r++) rowp[c][r] = planes[c] + (size_t)(y * n + r) * pw[c];
      arr[c] = rowp[c];
    }
    jpeg_read_raw_data(&d, arr, lines);
  }
  jpeg_finish_decompress(&d); jpeg_destroy_decompress(&d); fclose(f);
  return planes;
}

int main(int argc, char **argv) {
  if (argc < 4) return 1;
  const char *path = argv[1];
  if (!strcmp(argv[2], "blocks")) {
    int denom = atoi(argv[3]); int S = 8 / denom;
    int pw[4], ph[4], nc, hs[4], vs[4], dw[4], dh[4], ss[4];
    JSAMPLE **planes = raw_planes(path, denom, pw, ph, &nc, hs, vs, dw, dh, ss);
    struct jpeg_decompress_struct d; struct jpeg_error_mgr e;
    FILE *f = fopen(path, "rb");
    d.err = jpeg_std_error(&e); jpeg_create_decompress(&d); jpeg_stdio_src(&d, f);
    jpeg_read_header(&d, TRUE);
    jvirt_barray_ptr *coefs = jpeg_read_coefficients(&d);
    FILE *o = fopen(argv[4], "wb");
    for (int c = 0; c < d.num_components; c++) {
      jpeg_component_info *ci = &d.comp_info[c];
      JQUANT_TBL *q = ci->quant_table;
      if (ss[c] != S) continue; /* only components decoded at the requested block size */
      for (int by = 0; by < (int)ci->height_in_blocks; by++) {
        JBLOCKARRAY rows = (*d.mem->access_virt_barray)((j_common_ptr)&d, coefs[c], by, 1, FALSE);
        for (int bx = 0; bx < (int)ci->width_in_blocks; bx++) {
          fwrite(rows[0][bx], 2, 64, o);
          fwrite(q->quantval, 2, 64, o);
          for (int r = 0; r < S; r++)
            fwrite(planes[c] + (size_t)(by * S + r) * pw[c] + bx * S, 1, S, o);
        }
      }
    }
    fclose(o); jpeg_finish_decompress(&d); jpeg_destroy_decompress(&d); fclose(f);
    return 0;
  }
  if (!strcmp(argv[2], "planes")) {
    int pw[4], ph[4], nc, hs[4], vs[4], dw[4], dh[4], ss[4];
    JSAMPLE **planes = raw_planes(path, 1, pw, ph, &nc, hs, vs, dw, dh, ss);
    FILE *o = fopen(argv[3], "wb");
    for (int pass = 0; pass < 2; pass++) {
      struct jpeg_decompress_struct d; struct jpeg_error_mgr e;
      FILE *f = fopen(path, "rb");
      d.err = jpeg_std_error(&e); jpeg_create_decompress(&d); jpeg_stdio_src(&d, f);
      jpeg_read_header(&d, TRUE);
      d.dct_method = JDCT_ISLOW; d.do_fancy_upsampling = TRUE;
      d.out_color_space = pass == 0 ? (nc == 1 ? JCS_GRAYSCALE : JCS_YCbCr) : (nc == 1 ? JCS_GRAYSCALE : JCS_RGB);
      jpeg_start_decompress(&d);
      int W = d.output_width, H = d.output_height, C = d.output_components;
      unsigned char *img = malloc((size_t)W * H * C);
      while (d.output_scanline < d.output_height) {
        JSAMPROW r = img + (size_t)d.output_scanline * W * C;
        jpeg_read_scanlines(&d, &r, 1);
      }
      if (pass == 0) {
        put32(o, W); put32(o, H); put32(o, nc);
        put32(o, d.max_h_samp_factor); put32(o, d.max_v_samp_factor);
        for (int c = 0; c < nc; c++) {
          put32(o, hs[c]); put32(o, vs[c]); put32(o, dw[c]); put32(o, dh[c]);
          for (int y = 0; y < dh[c]; y++) fwrite(planes[c] + (size_t)y * pw[c], 1, dw[c], o);
          for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) fputc(img[((size_t)y * W + x) * C + c], o);
        }
      } else {
        fwrite(img, 1, (size_t)W * H * C, o);
      }
      free(img);
      jpeg_finish_decompress(&d); jpeg_destroy_decompress(&d); fclose(f);
    }
    fclose(o);
    return 0;
  }
  if (!strcmp(argv[2], "cmyk")) {
    FILE *o = fopen(argv[3], "wb");
    for (int pass = 0; pass < 2; pass++) {
      struct jpeg_decompress_struct d; struct jpeg_error_mgr e;
      FILE *f = fopen(path, "rb");
      d.err = jpeg_std_error(&e); jpeg_create_decompress(&d); jpeg_stdio_src(&d, f);
      jpeg_read_header(&d, TRUE);
      if (pass == 0) d.jpeg_color_space = JCS_CMYK; /* no conversion: the stored samples */
      d.out_color_space = JCS_CMYK; d.dct_method = JDCT_ISLOW;
      jpeg_start_decompress(&d);
      int W = d.output_width, H = d.output_height;
      unsigned char *img = malloc((size_t)W * H * 4);
      while (d.output_scanline < d.output_height) {
        JSAMPROW r = img + (size_t)d.output_scanline * W * 4;
        jpeg_read_scanlines(&d, &r, 1);
      }
      if (pass == 0) { put32(o, W); put32(o, H); }
      fwrite(img, 1, (size_t)W * H * 4, o);
      free(img); jpeg_finish_decompress(&d); jpeg_destroy_decompress(&d); fclose(f);
    }
    fclose(o);
    return 0;
  }
  if (!strcmp(argv[2], "ycck") && argc >= 6) {
    int W = atoi(argv[3]), H = atoi(argv[4]);
    unsigned char *img = malloc((size_t)W * H * 4);
    FILE *in = fopen(argv[5], "rb"); if (!in || fread(img, 1, (size_t)W * H * 4, in) != (size_t)W * H * 4) return 2;
    fclose(in);
    struct jpeg_compress_struct c; struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e); jpeg_create_compress(&c);
    FILE *o = fopen(path, "wb"); jpeg_stdio_dest(&c, o);
    c.image_width = W; c.image_height = H; c.input_components = 4; c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c); jpeg_set_colorspace(&c, JCS_YCCK); jpeg_set_quality(&c, 90, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
      JSAMPROW r = img + (size_t)c.next_scanline * W * 4;
      jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c); jpeg_destroy_compress(&c); fclose(o);
    return 0;
  }
  return 1;
}
