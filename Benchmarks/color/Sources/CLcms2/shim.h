// Debian's liblcms2-dev (the benchmark's side-by-side reference; never linked by the library).
#include <lcms2.h>
