// CodecLimits: the sizes the codec refuses to exceed, each with its reason.
// Codec layer: a value type, no I/O.
//
// A server (or anything pretending to be one) controls every byte the decoder sees. Without limits a
// never-ending head or chunk-size line would grow memory until the process dies: a header bomb. Every limit
// here bounds a buffer, and exceeding one is a CodecError that names the limit and the value seen.

/// Upper bounds on what the decoders accept.
public struct CodecLimits: Sendable, Hashable {
    /// Maximum bytes of a head (start line, fields, blank line). Default 64 KiB: room for ~100 ordinary
    /// fields plus a 16 KiB cookie, as browsers and nginx (large_client_header_buffers) accept, and still
    /// small enough that a hostile head cannot matter.
    public var maxHeadBytes: Int = 64 * 1024
    /// Maximum number of field lines in a head or trailer section. Default 256: real servers send 10–40.
    public var maxFieldCount: Int = 256
    /// Maximum bytes of a chunk-size line including extensions. Default 4 KiB: the size itself is at most
    /// 16 hex digits; extensions are almost never used and are skipped, but must be bounded.
    public var maxChunkLineBytes: Int = 4 * 1024
    /// Maximum bytes of a trailer section. Default 16 KiB: trailers carry checksums and timings.
    public var maxTrailerBytes: Int = 16 * 1024
    /// Maximum number of interim (1xx) responses before one final response. Default 16: real servers send
    /// one or two (100 Continue, 103 Early Hints); RFC 9110 §15.2 sets no bound, and without one a server
    /// could keep a request waiting forever on a drip of tiny 1xx heads, each one kept for the caller.
    public var maxInformationalResponses: Int = 16

    /// The defaults described on each property.
    public init() {}
}
