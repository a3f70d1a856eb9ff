// ChunkedEncoder: a body of unknown length, written as HTTP/1.1 chunks (RFC 9112 §7.1).
// Codec layer: appends bytes to a caller's buffer; no I/O. Deciding *when* to send chunked is the client's.
//
//   chunked-body = *chunk last-chunk trailer-section CRLF
//   chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF      (chunk-size in hex, > 0)
//   last-chunk   = 1*("0") [ chunk-ext ] CRLF
//
// A chunk of size zero *is* the last chunk, so an empty piece of data must never be written as a chunk:
// the server would take it as the end of the body and read the rest as the next request. encodeChunk skips
// empty input for that reason. For zero-copy senders (a file region, a large buffer written straight to the
// socket) chunkHeader(size:) gives only the framing before the data, and chunkDataTerminator the CRLF after.

/// Writes chunked transfer coding.
///
/// ```swift
/// var bytes: [UInt8] = []
/// ChunkedEncoder.encodeChunk(Array("hello".utf8), into: &bytes)      // "5\r\nhello\r\n"
/// try ChunkedEncoder.encodeLastChunk(into: &bytes)                    // "0\r\n\r\n"
/// ```
public enum ChunkedEncoder {
    /// The CRLF that ends each chunk's data. Write it after the data when using ``chunkHeader(size:)``.
    public static let chunkDataTerminator: [UInt8] = [ByteClasses.cr, ByteClasses.lf]

    private static let lowerHexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends one chunk: the size in hex, CRLF, the bytes, CRLF. Empty input writes nothing, because a
    /// zero-size chunk would end the body (RFC 9112 §7.1).
    public static func encodeChunk(_ bytes: some Collection<UInt8>, into buffer: inout [UInt8]) {
        let count = bytes.count
        guard count > 0 else { return }
        buffer.reserveCapacity(buffer.count + count + 20)
        appendChunkHeader(size: count, into: &buffer)
        buffer.append(contentsOf: bytes)
        buffer.append(contentsOf: chunkDataTerminator)
    }

    /// The bytes that go before `size` bytes of chunk data: the size in lowercase hex and CRLF. The caller
    /// writes the data itself, then ``chunkDataTerminator``.
    ///
    /// `size` must be positive: a zero size is the last chunk, which ``encodeLastChunk(trailers:into:)``
    /// writes. Passing zero is a bug in the calling code, so it stops the program rather than corrupt the
    /// stream.
    public static func chunkHeader(size: Int) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(18)
        appendChunkHeader(size: size, into: &header)
        return header
    }

    /// Appends the header of a chunk of `size` bytes (see ``chunkHeader(size:)``).
    public static func appendChunkHeader(size: Int, into buffer: inout [UInt8]) {
        precondition(size > 0, "chunk size must be positive, got \(size): a zero-size chunk ends the body")
        var digitCount = 1
        while size >> (4 * digitCount) > 0, digitCount < 16 { digitCount += 1 }
        var shift = 4 * (digitCount - 1)
        while shift >= 0 {
            buffer.append(lowerHexDigits[(size >> shift) & 0x0F])
            shift -= 4
        }
        buffer.append(contentsOf: chunkDataTerminator)
    }

    /// Appends the last chunk, `0` CRLF, then the trailer fields, then the final CRLF.
    ///
    /// Trailers are checked like request fields: names must be tokens, values free of CR, LF and NUL, and
    /// `Content-Length` or `Transfer-Encoding` are refused (RFC 9110 §6.5.1: framing fields are not allowed
    /// in trailers). When it throws, `buffer` is unchanged.
    public static func encodeLastChunk(
        trailers: HTTPFields = HTTPFields(), into buffer: inout [UInt8]
    ) throws(CodecError) {
        try RequestEncoder.validate(trailers)
        buffer.append(UInt8(ascii: "0"))
        buffer.append(contentsOf: chunkDataTerminator)
        RequestEncoder.appendFields(trailers, into: &buffer)
        buffer.append(contentsOf: chunkDataTerminator)
    }
}
