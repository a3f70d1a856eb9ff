// ContentDecodingFailure: why a gzip or deflate body could not be decoded — the reason carried by
// `HTTPWireError.badContentEncoding` (compression, inside the client layer).
//
// Each case is a way a peer (or an attacker) can make a decoded body wrong: cut short, damaged, or far
// larger than it looks. None of them may end as a crash or as a body that is silently shorter than the
// one sent: the caller always learns which. Plain values; no zlib here.

/// The reason a content-coded body was refused; the CLI reports every case as curl's exit 61.
///
/// ```swift
/// do {
///     _ = try await client.get("https://example.test/logs.gz")
/// } catch HTTPWireError.badContentEncoding(_, .decodedBytesLimit(let limit)) {
///     print("more than \(limit) bytes once decoded: refused")
/// }
/// ```
public enum ContentDecodingFailure: Sendable, Hashable, CustomStringConvertible {
    /// The body ended before its coding did: no gzip trailer (RFC 1952 §2.2: CRC-32 and length), no zlib
    /// checksum (RFC 1950 §2.2), no final deflate block. The decoded bytes so far are not the whole body.
    case truncated
    /// The bytes are not valid for the coding: a bad header, an invalid block, a wrong CRC-32 or Adler-32,
    /// or data after the end of a deflate stream. Carries zlib's own words ("incorrect data check").
    case corrupt(String)
    /// More decoded bytes than ``ContentDecoding/maxDecodedBytes`` allows (a decompression bomb).
    case decodedBytesLimit(Int64)
    /// More decoded bytes per received byte than ``ContentDecoding/maxRatio`` allows (a decompression bomb:
    /// 1 MiB of gzip can hold 1 GiB of zeros).
    case ratioLimit(Int)
    /// More codings listed in `Content-Encoding` than HTTPWire decodes in a row (``ContentDecoding/maxCodings``).
    case tooManyCodings(Int)

    /// A failure as thrown inside the decoder, before ContentDecoder wraps it in
    /// ``HTTPWireError/badContentEncoding(coding:_:)`` with the coding's name: the reason itself is a value,
    /// not a second public error type.
    struct Stop: Error {
        let failure: ContentDecodingFailure

        init(_ failure: ContentDecodingFailure) {
            self.failure = failure
        }
    }

    /// One lowercase line, the end of `HTTPWireError`'s description.
    public var description: String {
        switch self {
        case .truncated: return "the body ended before the end of the compressed stream"
        case .corrupt(let reason): return "corrupt compressed data: \(reason)"
        case .decodedBytesLimit(let limit): return "decoded body larger than the \(limit)-byte limit"
        case .ratioLimit(let ratio): return "decoded body more than \(ratio) times larger than the bytes received"
        case .tooManyCodings(let count):
            return "\(count) content codings in a row (at most \(ContentDecoding.maxCodings))"
        }
    }
}
