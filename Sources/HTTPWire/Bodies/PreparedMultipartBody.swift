// PreparedMultipartBody: a multipart/form-data body whose boundary is chosen, whose files are measured and
// whose exact length is known, ready to be sent any number of times.
// Features layer: a value that lays out segments; the bytes of files stay on disk until a reader reaches
// them, and nothing here writes to a socket.
//
// Knowing the length up front means the request can carry Content-Length (RFC 9112 §6.2) instead of
// chunked transfer coding: every HTTP/1.1 server accepts it, many upload handlers require it, and it lets
// the server refuse an oversized upload before the body starts. The price is that files must not change
// size between `prepare()` and the end of the upload; FileRegionReader enforces that.

/// The output of `MultipartForm.prepare()`: the request's Content-Type and Content-Length, and a factory
/// for readers that produce the body.
///
/// ```swift
/// let body = try form.prepare()                      // stats the files now
/// head.fields.append(name: "Content-Type", value: body.contentType)
/// // framing: .contentLength(body.contentLength)
/// var reader = body.makeReader()                      // a fresh one again for a 307/308 or a retry
/// ```
struct PreparedMultipartBody: Sendable {
    /// The boundary string (RFC 2046 §5.1.1: 1–70 characters, here 40 letters and digits), which never
    /// occurs in any in-memory part or part head of this body.
    let boundary: String
    /// The body's exact size in bytes: delimiters, heads, in-memory contents and the file sizes measured
    /// when the body was prepared. Send it as Content-Length.
    let contentLength: Int64
    /// The laid-out body, in wire order.
    let segments: [MultipartBodyReader.Segment]

    /// A body made of `segments` delimited by `boundary`; the length is their sum, so it always equals the
    /// number of bytes a reader produces.
    init(boundary: String, segments: [MultipartBodyReader.Segment]) {
        self.boundary = boundary
        self.segments = segments
        self.contentLength = segments.reduce(0) { $0 + $1.byteCount }
    }

    /// The request's Content-Type field value, `multipart/form-data; boundary=…` (RFC 7578 §4.1: the
    /// boundary parameter is required). The boundary holds only letters and digits, so it needs no quotes.
    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The files the body will read while sending, in order, for callers that want to check or lock them.
    var fileRegions: [FileRegion] {
        segments.compactMap { segment in
            if case .file(let region) = segment { return region }
            return nil
        }
    }

    /// A new reader positioned at the start of the body. Each attempt to send the request needs its own;
    /// the body can be replayed because it refers to files and bytes, not to a one-shot stream.
    func makeReader() -> MultipartBodyReader {
        MultipartBodyReader(segments: segments)
    }
}
