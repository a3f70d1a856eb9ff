// HeadScanner: finds where a head (or a trailer section) ends while its bytes arrive in pieces.
// Codec layer: pure bookkeeping over bytes; no I/O, no allocation, no parsing of what it finds.
//
// A head is a start line and field lines, each ended by CRLF, closed by an empty line (RFC 9112 §2.1).
// RFC 9112 §2.2 lets a recipient accept a bare LF as a line end, so the scanner looks for LF bytes only and
// treats a line that is empty, or holds a single CR, as the end. It remembers how far it got, so feeding a
// head one byte at a time costs linear time, not quadratic. Checking what lies between the LFs (bare CRs,
// NULs, colons) is left to HeadParser and FieldLineParser, which see the whole head at once.

/// Where a head ends, once the scanner has found its empty line.
struct HeadBoundary: Sendable, Hashable {
    /// Offset of the LF that ends the first line, or nil when the section has no line before the empty
    /// one (a trailer section without trailers).
    var firstLineEnd: Int?
    /// Offset where the empty line starts: field lines occupy the bytes before it.
    var fieldsEnd: Int
    /// Offset just after the empty line's LF: the head's length, where the body starts.
    var headEnd: Int
    /// Number of non-empty lines before the empty line (start line included, when there is one).
    var lineCount: Int
}

/// Resumable search for the empty line that ends a head.
///
/// Offsets are relative to the first byte of the head; the caller must hand the same bytes again, possibly
/// with more appended, until ``findEnd(in:limit:)`` returns a boundary.
struct HeadScanner: Sendable, Hashable {
    /// Bytes already examined; scanning resumes here.
    private var scannedBytes = 0
    /// Offset where the line being scanned started.
    private var lineStart = 0
    /// LF offset of the first line, once seen.
    private var firstLineEnd: Int?
    /// Complete lines seen so far.
    private var lineCount = 0

    /// A scanner at the start of a head.
    init() {}

    /// Scans `bytes[scannedBytes..<min(bytes.count, limit)]` for the empty line. Returns the boundary once
    /// found; nil means "not within the bytes given and the limit", and the caller decides whether that is
    /// "feed me more" or "too large".
    mutating func findEnd(in bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> HeadBoundary? {
        let upper = min(bytes.count, limit)
        var index = scannedBytes
        while index < upper {
            // Eight bytes at a time to the next LF (ByteSearch.swift).
            index = ByteSearch.firstIndex(of: ByteClasses.lf, in: bytes, from: index, to: upper)
            guard index < upper else { break }
            let length = index - lineStart
            if length == 0 || (length == 1 && bytes[lineStart] == ByteClasses.cr) {
                return HeadBoundary(
                    firstLineEnd: firstLineEnd, fieldsEnd: lineStart, headEnd: index + 1, lineCount: lineCount)
            }
            if firstLineEnd == nil { firstLineEnd = index }
            lineCount += 1
            lineStart = index + 1
            index += 1
        }
        scannedBytes = index
        return nil
    }
}
