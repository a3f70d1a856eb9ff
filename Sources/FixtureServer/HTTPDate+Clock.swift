// HTTPDate+Clock: the fixture server's one use of the wall clock for dates (edge layer, fixture server).
//
// Formatting and parsing HTTP-dates live in the codec (`HTTPWireCodec.HTTPDate`, RFC 9110 §5.6.7); the
// codec must not read a clock, so "now as an IMF-fixdate" — the Last-Modified of a file served from memory —
// is added here. The server compares an If-Range date with its own Last-Modified text byte for byte, so the
// exact text matters, and the codec writes exactly one form.

import HTTPWireCodec

#if canImport(Glibc)
    import Glibc
#endif

extension HTTPDate {
    /// The current time as an IMF-fixdate (the wall clock, as a server's Last-Modified is).
    static func now() -> String {
        imfFixdate(secondsSinceEpoch: Int64(time(nil)))
    }
}
