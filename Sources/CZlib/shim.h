// CZlib: the system zlib (zlib1g-dev, installed by `make`) for the content decoder (RFC 9110 §8.4.1) and the
// fixture server's encoder. The module map links libz directly, so the build needs no pkg-config.
// inflateInit2 and deflateInit2 are C macros (they pass ZLIB_VERSION and sizeof(z_stream) so the library can
// check the caller was compiled against the same header): Swift cannot see macros, so they are wrapped here
// as static inline functions. Everything else in zlib.h is a real function Swift calls directly.
#ifndef HTTPWIRE_CZLIB_SHIM_H
#define HTTPWIRE_CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit2(strm, windowBits): 15 for the zlib format (RFC 1950), -15 for raw deflate (RFC 1951),
/// 15 + 16 for gzip (RFC 1952).
static inline int httpwire_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

/// deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel 8, Z_DEFAULT_STRATEGY), with windowBits
/// as for httpwire_inflateInit2.
static inline int httpwire_deflateInit2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
