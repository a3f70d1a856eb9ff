// ContentDecoding: whether responses in gzip or deflate are decoded, and the limits that keep a
// decompression bomb from filling memory or disk (compression, inside the client layer).
//
// Plain values, set on ClientConfiguration and overridden per request in RequestOptions. When on, the
// client offers `Accept-Encoding: gzip, deflate` (RFC 9110 §12.5.3) and decodes those codings as they
// arrive (ContentDecoder). Nothing here touches zlib or a connection.

/// Decoding of `Content-Encoding: gzip` and `deflate` response bodies (RFC 9110 §8.4), with its limits.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.contentDecoding = .on                  // Accept-Encoding: gzip, deflate; bodies decoded
/// configuration.contentDecoding.maxDecodedBytes = 256 << 20
/// let client = HTTPClient(configuration: configuration)
/// ```
///
/// Off by default, as in curl (`--compressed` turns it on there and in `wire`): a body is then the exact
/// bytes the server sent, downloads keep their zero-copy path, and no decoder runs on data from the
/// network unless asked for. URLSession decodes by default; one line here does the same.
///
/// When on:
/// - `Accept-Encoding: gzip, deflate` is sent unless the request (or the client's default fields) sets its
///   own `Accept-Encoding`, which then replaces it; never on a request with `Range` (RFC 9110 §14: a range
///   of an encoded representation is not a range of the file), and never by downloads.
/// - `gzip` (and `x-gzip`, RFC 9110 §8.4.1.3) and `deflate` are decoded, whichever was asked for. `deflate`
///   is the zlib format (RFC 1950) by the RFC, but servers send raw deflate (RFC 1951) too: both are
///   accepted, told apart by the zlib header, as curl and browsers do. Concatenated gzip members are
///   decoded one after the other, as gunzip and curl do. Several codings (`gzip, deflate`) are decoded in
///   reverse order, the last applied first, up to ``maxCodings``.
/// - A coding HTTPWire does not know (`br`, `zstd`, `compress`), alone or in the list, leaves the body and
///   its `Content-Encoding` untouched. So does a 206 (a range of an encoded body cannot be decoded alone).
/// - The head the caller sees loses `Content-Encoding` and `Content-Length` (both described the encoded
///   bytes); ``HTTPStreamingResponse/expectedContentLength`` is nil and ``ResponseBody/receivedBytes`` still
///   counts the bytes received on the wire.
public struct ContentDecoding: Sendable, Hashable {
    /// Whether gzip and deflate bodies are asked for and decoded. Default false (see above).
    public var isEnabled: Bool
    /// The most decoded bytes one body may have. Default 1 GiB: the size of the largest body anyone
    /// collects or streams without meaning a download; raise it for large compressed downloads.
    public var maxDecodedBytes: Int64 = 1 << 30
    /// The most decoded bytes per byte received, checked once the decoded body passes
    /// ``ratioGraceBytes``. Default 100: text and JSON compress 3–20 times; zeros compress 1,000 times
    /// in gzip (and more in gzip of gzip), which is what a bomb is made of.
    public var maxRatio: Int = 100

    /// Decoded bytes below which the ratio is not checked (1 MiB): a small, very repetitive body is not a bomb.
    public static let ratioGraceBytes: Int64 = 1 << 20
    /// The most codings decoded in a row (`gzip, deflate` is two); more is refused.
    public static let maxCodings = 3

    /// Decoding on or off, with the default limits.
    public init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// Bodies as the server sent them (the default).
    public static let off = ContentDecoding(isEnabled: false)
    /// gzip and deflate asked for and decoded, with the default limits.
    public static let on = ContentDecoding(isEnabled: true)

    /// Throws when `produced` decoded bytes from `received` bytes off the wire break a limit.
    func check(produced: Int64, received: Int64) throws(ContentDecodingFailure.Stop) {
        if produced > maxDecodedBytes { throw ContentDecodingFailure.Stop(.decodedBytesLimit(maxDecodedBytes)) }
        guard produced > Self.ratioGraceBytes else { return }
        let (allowed, overflow) = received.multipliedReportingOverflow(by: Int64(maxRatio))
        if !overflow && produced > allowed { throw ContentDecodingFailure.Stop(.ratioLimit(maxRatio)) }
    }
}
