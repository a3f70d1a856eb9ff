// MultipartBodyReader: walks a prepared multipart/form-data body from its first delimiter to its close
// delimiter, one segment at a time.
// Features layer: it hands out byte arrays and file regions; it never opens a file or touches a socket —
// the client decides how each segment reaches the wire.
//
// A segment is either bytes (delimiters, part heads, in-memory content) or a region of a file. Keeping the
// two apart is what lets the client send each its own way: bytes are written as they are, file regions go
// out with sendfile(2) on plain HTTP and are read through FileRegionReader in 256 KiB blocks over TLS.
// Either way no file is ever held in memory whole.

/// An iterator over the segments of a `PreparedMultipartBody`, in wire order.
///
/// Readers are cheap: the segments were laid out once by `MultipartForm.prepare()`, and a reader only
/// holds a position. Make a new one with `PreparedMultipartBody.makeReader()` for each attempt — the
/// first send, a 307/308 redirect (RFC 9110 §15.4.8–9 resend the same body), a retry on a fresh connection.
///
/// ```swift
/// var reader = prepared.makeReader()
/// while let segment = reader.next() {
///     switch segment {
///     case .bytes(let bytes): try await connection.write(bytes)
///     case .file(let region): try await connection.sendFile(region)  // sendfile(2) or FileRegionReader
///     }
/// }
/// ```
struct MultipartBodyReader: Sendable, IteratorProtocol {
    /// One contiguous piece of the body.
    enum Segment: Sendable, Hashable {
        /// Bytes to write as they are: delimiters, part heads, text fields and in-memory data.
        case bytes([UInt8])
        /// The contents of a file part, to read from disk while sending. Its size was measured when the body
        /// was prepared and is part of the Content-Length; `FileRegionReader` checks it still holds.
        case file(FileRegion)

        /// How many bytes of the body this segment is.
        var byteCount: Int64 {
            switch self {
            case .bytes(let bytes): return Int64(bytes.count)
            case .file(let region): return region.length
            }
        }
    }

    /// The body's segments, shared with the prepared body (arrays are copy-on-write, so no bytes move).
    private let segments: [Segment]
    /// Index of the next segment to hand out.
    private var nextIndex = 0
    /// Bytes of the body in the segments handed out so far, for progress reporting.
    private(set) var bytesProduced: Int64 = 0

    /// A reader positioned before the first segment of `segments`.
    init(segments: [Segment]) {
        self.segments = segments
    }

    /// The next segment of the body, or nil after the close delimiter has been handed out.
    mutating func next() -> Segment? {
        guard nextIndex < segments.count else { return nil }
        let segment = segments[nextIndex]
        nextIndex += 1
        bytesProduced += segment.byteCount
        return segment
    }
}
