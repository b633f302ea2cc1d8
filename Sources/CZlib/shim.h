// The system zlib: the package's one native dependency (inflate/deflate for PNG).
#include <zlib.h>
