/*
 * Writes JPEG files whose blocks overflow the 16-bit arithmetic of libjpeg-turbo's x86 SIMD
 * inverse DCTs (jsimd_idct_islow_avx2/sse2, jsimd_idct_4x4/2x2_sse2), with chosen DCT
 * coefficients and quantization tables, through libjpeg's jpeg_write_coefficients (so the
 * entropy coding is libjpeg's own). Coefficients stay within what libjpeg's Huffman encoder
 * accepts (AC in -1023...1023, DC differences within 11 bits); the overflow comes from the
 * quantization tables (16-bit, written as SOF1) and from sign patterns that drive the outputs
 * far beyond 0...255.
 *
 *   gcc -O2 -o gen gen.c -ljpeg && ./gen OUTDIR
 *
 * Deterministic: every random choice comes from one seeded xorshift generator per file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

static unsigned long long rng_state;

static unsigned next_u32(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state >> 16);
}

static int uniform(int lo, int hi) { return lo + (int)(next_u32() % (unsigned)(hi - lo + 1)); }

enum quant_kind { Q_ONE, Q_MAX, Q_RAND16, Q_MID, Q_HIGH };

static void fill_quant(JQUANT_TBL *t, enum quant_kind kind) {
  for (int k = 0; k < 64; k++) {
    unsigned v;
    switch (kind) {
    case Q_ONE: v = 1; break;                              /* in range: outputs far past 0...255 */
    case Q_MAX: v = 65535; break;                          /* every product wraps 16 bits */
    case Q_RAND16: v = (unsigned)uniform(1, 65535); break;
    case Q_MID: v = (unsigned)uniform(2, 2000); break;     /* products 16-bit, pass 1 saturates */
    default: v = (unsigned)uniform(32768, 65535); break;   /* negative as libjpeg's short */
    }
    t->quantval[k] = (UINT16)v;
  }
  t->sent_table = FALSE;
}

/* One block (natural order) by pattern number: hand-picked edge cases first, then random. */
static void fill_block(JCOEF *b, int pattern) {
  memset(b, 0, 64 * sizeof(JCOEF));
  switch (pattern) {
  case 0: for (int k = 0; k < 64; k++) b[k] = 1023; break;                       /* all max */
  case 1: for (int k = 0; k < 64; k++) b[k] = -1023; break;                      /* all min */
  case 2: for (int k = 0; k < 64; k++) b[k] = ((k / 8 + k % 8) & 1) ? -1023 : 1023; break;
  case 3: for (int k = 0; k < 64; k++) b[k] = (k & 1) ? -1023 : 1023; break;     /* alternating */
  case 4: b[0] = 1023; break;                                                    /* DC only */
  case 5: b[0] = -1023; break;
  case 6: b[uniform(1, 63)] = uniform(0, 1) ? 1023 : -1023; break;               /* one AC */
  case 7: for (int k = 0; k < 8; k++) b[k] = uniform(0, 1) ? 1023 : -1023; break; /* first row */
  case 8: for (int k = 0; k < 64; k += 8) b[k] = uniform(0, 1) ? 1023 : -1023; break; /* column */
  case 9:                                                                        /* top-left 4x4 */
    for (int k = 0; k < 64; k++) if (k / 8 < 4 && k % 8 < 4) b[k] = uniform(-1023, 1023);
    break;
  case 10: b[0] = uniform(-1023, 1023); b[1] = uniform(-1023, 1023); break;      /* DC + one AC */
  default: {                                                                     /* random */
    int density = uniform(1, 64);
    for (int k = 0; k < 64; k++) {
      if (uniform(0, 63) >= density) continue;
      switch (uniform(0, 3)) {
      case 0: b[k] = uniform(0, 1) ? 1023 : -1023; break;
      case 1: b[k] = uniform(-1023, 1023); break;
      case 2: b[k] = uniform(-64, 64); break;
      default: b[k] = uniform(0, 1) ? 512 : -512; break;
      }
    }
  }
  }
}

/*
 * Blocks of damaged files found by the diff-jpeg fuzz target (Fuzz/, FUZZING.md), as libjpeg
 * decodes them (jpeg_read_coefficients); both drive the SIMD kernels to their saturating
 * packs with a quantization table of ones. In the damaged files they hold libjpeg-turbo's
 * stale coefficients: decode_mcu_fast read FF FF 00 in the entropy data as a marker, decoded
 * zero bits (-1 at every position), then decode_mcu_slow decoded the MCU again over them.
 */
static const JCOEF fuzz_blocks[][64] = {
  /* diff-jpeg SOF0 gray 48x48 "bad Huffman code" (-2f45cc856e834252 and three more) */
  { 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, -1,
    1023, 1023, 1023, 1023, 1023, 1023, -1, -1, 1023, 1023, 1023, 1023, 1023, -1, 3, -1,
    1023, 1023, 1023, 1023, -3, -1, -1, 3, 1023, 1023, 1023, -1, -1, -1, -1, 512,
    1023, 1023, -1, -1, -1, -1, -512, -512, -1, -1, -1, -1, -1, -512, -1, -16 },
  /* diff-jpeg SOF1 colour 32x32 "bad Huffman code" (-184baeb009638f9d), luma block 0 */
  { 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023,
    1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1022, -1,
    1023, 1023, 1023, 1023, 1023, 5, -1, -1, 1023, 1023, 1023, 1023, -1, -1, -1, -1,
    1023, 1023, 1023, -1, -1, -1, -1, -15, 1023, 1023, 7, 23, -1, -1, -1, 3 },
};

struct spec {
  const char *name;
  int width, height, components, h0, v0;   /* luma (or gray) sampling factors */
  enum quant_kind q0, q1;                  /* tables of component 0 and of the others */
  unsigned seed;
  const JCOEF (*fixed)[64];                /* first blocks of component 0, if any */
  int nfixed;
};

static void write_file(const char *dir, const struct spec *s) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.jpg", dir, s->name);
  FILE *f = fopen(path, "wb");
  if (!f) { perror(path); exit(1); }
  rng_state = 0x9E3779B97F4A7C15ULL ^ s->seed;

  struct jpeg_compress_struct cinfo;
  struct jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  jpeg_stdio_dest(&cinfo, f);
  cinfo.image_width = s->width;
  cinfo.image_height = s->height;
  cinfo.input_components = s->components;
  cinfo.in_color_space = s->components == 1 ? JCS_GRAYSCALE : JCS_YCbCr;
  jpeg_set_defaults(&cinfo);
  cinfo.comp_info[0].h_samp_factor = s->h0;
  cinfo.comp_info[0].v_samp_factor = s->v0;
  for (int ci = 1; ci < s->components; ci++)
    cinfo.comp_info[ci].h_samp_factor = cinfo.comp_info[ci].v_samp_factor = 1;
  fill_quant(cinfo.quant_tbl_ptrs[0], s->q0);
  if (s->components > 1) fill_quant(cinfo.quant_tbl_ptrs[1], s->q1);

  jvirt_barray_ptr arrays[MAX_COMPONENTS];
  JDIMENSION wblocks[MAX_COMPONENTS], hblocks[MAX_COMPONENTS];
  int hmax = s->h0, vmax = s->v0;
  for (int ci = 0; ci < s->components; ci++) {
    jpeg_component_info *c = &cinfo.comp_info[ci];
    /* Blocks per component as jdinput/jcmaster compute them, padded to whole MCUs. */
    JDIMENSION w = (s->width * c->h_samp_factor + 8 * hmax - 1) / (8 * hmax);
    JDIMENSION h = (s->height * c->v_samp_factor + 8 * vmax - 1) / (8 * vmax);
    wblocks[ci] = (w + c->h_samp_factor - 1) / c->h_samp_factor * c->h_samp_factor;
    hblocks[ci] = (h + c->v_samp_factor - 1) / c->v_samp_factor * c->v_samp_factor;
    arrays[ci] = (*cinfo.mem->request_virt_barray)((j_common_ptr)&cinfo, JPOOL_IMAGE, TRUE,
                                                    wblocks[ci], hblocks[ci], c->v_samp_factor);
  }
  jpeg_write_coefficients(&cinfo, arrays);

  int block = 0;
  for (int ci = 0; ci < s->components; ci++) {
    for (JDIMENSION row = 0; row < hblocks[ci]; row++) {
      JBLOCKARRAY rows = (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[ci], row, 1, TRUE);
      for (JDIMENSION col = 0; col < wblocks[ci]; col++, block++) {
        /* Edge cases cycle through the first blocks of each component, then random blocks. */
        int pattern = block % 40 < 11 ? block % 40 : 11;
        if (ci == 0 && block < s->nfixed)
          memcpy(rows[0][col], s->fixed[block], sizeof(JBLOCK));
        else
          fill_block(rows[0][col], pattern);
      }
    }
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  fclose(f);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  static const struct spec specs[] = {
    { "gray_q1",        48, 48, 1, 1, 1, Q_ONE,    Q_ONE,  1 },
    { "gray_qmax",      40, 40, 1, 1, 1, Q_MAX,    Q_MAX,  2 },
    { "gray_qrand16",   48, 48, 1, 1, 1, Q_RAND16, Q_ONE,  3 },
    { "gray_qmid",      48, 48, 1, 1, 1, Q_MID,    Q_ONE,  4 },
    { "gray_qhigh",     40, 40, 1, 1, 1, Q_HIGH,   Q_ONE,  5 },
    { "color444_mixed", 40, 40, 3, 1, 1, Q_RAND16, Q_ONE,  6 },
    { "color420_mixed", 48, 48, 3, 2, 2, Q_MID,    Q_RAND16, 7 },
    { "color444_q1",    32, 32, 3, 1, 1, Q_ONE,    Q_MID,  8 },
    { "gray_fuzz_blocks", 16, 16, 1, 1, 1, Q_ONE,  Q_ONE,  9, fuzz_blocks, 2 },
  };
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) write_file(dir, &specs[i]);
  return 0;
}
