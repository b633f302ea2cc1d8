/* A djpeg for 12-bit files with libjpeg-turbo 3 (as PyPI's imagecodecs bundles it: the
 * libjpeg 8 ABI), for the scaled vectors: decodes at N/D (-scale N/D), with fancy upsampling
 * off on -nosmooth, and writes the 12-bit samples as a PGM/PPM (MAXVAL 4095, two bytes a
 * sample, big-endian). Built by scaled.py against Debian's jpeglib.h with JPEG_LIB_VERSION 80.
 *   djpeg12 [-scale N/D] [-nosmooth] in.jpg out.pnm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

/* libjpeg-turbo 3's 12-bit scanline reader; a 12-bit sample is a C short (J12SAMPLE). */
extern JDIMENSION jpeg12_read_scanlines(j_decompress_ptr cinfo, short **rows, JDIMENSION count);

int main(int argc, char **argv) {
  int num = 8, denom = 8, fancy = 1, i = 1;
  for (; i < argc - 2; i++) {
    if (!strcmp(argv[i], "-scale") && i + 1 < argc - 2) {
      if (sscanf(argv[++i], "%d/%d", &num, &denom) != 2) return 2;
    } else if (!strcmp(argv[i], "-nosmooth")) {
      fancy = 0;
    } else {
      return 2;
    }
  }
  if (argc - i != 2) {
    fprintf(stderr, "usage: djpeg12 [-scale N/D] [-nosmooth] in.jpg out.pnm\n");
    return 2;
  }
  FILE *in = fopen(argv[i], "rb");
  if (!in) { perror(argv[i]); return 1; }
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, in);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.scale_num = num;
  cinfo.scale_denom = denom;
  cinfo.do_fancy_upsampling = fancy;
  jpeg_start_decompress(&cinfo);
  int width = cinfo.output_width, channels = cinfo.output_components;
  FILE *out = fopen(argv[i + 1], "wb");
  if (!out) { perror(argv[i + 1]); return 1; }
  fprintf(out, "P%d\n%d %d\n4095\n", channels == 1 ? 5 : 6, width, (int)cinfo.output_height);
  short *row = malloc(sizeof(short) * width * channels);
  unsigned char *bytes = malloc(2 * (size_t)width * channels);
  while (cinfo.output_scanline < cinfo.output_height) {
    jpeg12_read_scanlines(&cinfo, &row, 1);
    for (int k = 0; k < width * channels; k++) {
      bytes[2 * k] = (unsigned char)(row[k] >> 8);
      bytes[2 * k + 1] = (unsigned char)(row[k] & 255);
    }
    fwrite(bytes, 1, 2 * (size_t)width * channels, out);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  free(row);
  free(bytes);
  fclose(out);
  fclose(in);
  return 0;
}
