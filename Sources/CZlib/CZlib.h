#ifndef CZLIB_H
#define CZLIB_H

#include <zlib.h>

// zlib's init entry points are macros (they pass ZLIB_VERSION and sizeof(z_stream)), which Swift
// cannot import; these inline wrappers expose the raw-deflate (no zlib header, windowBits -15)
// variants that ZIP archives use.

/// Starts a raw inflate stream (ZIP method 8) on `stream`; returns a zlib status code.
static inline int czlib_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -15);
}

/// Starts a raw deflate stream at `level` on `stream`; returns a zlib status code.
static inline int czlib_deflate_init_raw(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

#endif
