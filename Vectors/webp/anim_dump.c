// Test-only reference harness (compiled by make_vectors.py with gcc against libwebp-dev):
// writes libwebp's WebPAnimDecoder composited canvases (RGBA) as one PAM whose height is
// canvas height x frame count, and prints the demuxer's view of the file as one TSV line:
// canvas_w canvas_h loop bgcolor frames then per frame x,y,w,h,duration,dispose,blend,has_alpha.
#include <stdio.h>
#include <stdlib.h>
#include <webp/demux.h>

int main(int argc, char** argv) {
  if (argc != 3) { fprintf(stderr, "usage: anim_dump in.webp out.pam\n"); return 2; }
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END); long size = ftell(f); fseek(f, 0, SEEK_SET);
  uint8_t* buf = malloc(size);
  if (fread(buf, 1, size, f) != (size_t)size) return 2;
  fclose(f);
  WebPData data = { buf, (size_t)size };
  WebPDemuxer* demux = WebPDemux(&data);
  if (!demux) { fprintf(stderr, "demux failed\n"); return 1; }
  uint32_t cw = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH), ch = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
  uint32_t n = WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
  printf("%u\t%u\t%u\t%08x\t%u", cw, ch, WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT),
         WebPDemuxGetI(demux, WEBP_FF_BACKGROUND_COLOR), n);
  WebPIterator it;
  if (WebPDemuxGetFrame(demux, 1, &it)) {
    do {
      printf("\t%d,%d,%d,%d,%d,%d,%d,%d", it.x_offset, it.y_offset, it.width, it.height, it.duration,
             it.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND, it.blend_method == WEBP_MUX_BLEND, it.has_alpha);
    } while (WebPDemuxNextFrame(&it));
    WebPDemuxReleaseIterator(&it);
  }
  printf("\n");
  WebPDemuxDelete(demux);

  WebPAnimDecoderOptions opt;
  WebPAnimDecoderOptionsInit(&opt);
  opt.color_mode = MODE_RGBA;
  opt.use_threads = 0;
  WebPAnimDecoder* dec = WebPAnimDecoderNew(&data, &opt);
  if (!dec) { fprintf(stderr, "anim decoder failed\n"); return 1; }
  FILE* out = fopen(argv[2], "wb");
  fprintf(out, "P7\nWIDTH %u\nHEIGHT %u\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", cw, ch * n);
  uint32_t count = 0;
  while (WebPAnimDecoderHasMoreFrames(dec)) {
    uint8_t* pix; int ts;
    if (!WebPAnimDecoderGetNext(dec, &pix, &ts)) { fprintf(stderr, "frame failed\n"); return 1; }
    fwrite(pix, 1, (size_t)cw * ch * 4, out);
    ++count;
  }
  fclose(out);
  WebPAnimDecoderDelete(dec);
  free(buf);
  return count == n ? 0 : 1;
}
