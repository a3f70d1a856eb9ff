// RequestHead: the start line and fields of a request, as a value.
// Codec layer: a plain value type; no I/O, no validation (RequestEncoder validates when it writes, and the
// server-side RequestDecoder produces these from bytes it has already checked).
//
// RFC 9112 §3: request-line = method SP request-target SP HTTP-version. The client sends the origin-form
// target (`/path?query`, RFC 9112 §3.2.1) taken from TargetURL.pathAndQuery, and puts the authority in the
// `Host` field (RFC 9110 §7.2) taken from TargetURL.hostFieldValue.

/// The head of an HTTP request: method, request target, version and fields.
///
/// ```swift
/// let url = try TargetURL("http://example.com/search?q=swift")
/// let head = RequestHead(method: .get, target: url.pathAndQuery, fields: ["Host": url.hostFieldValue])
/// var bytes: [UInt8] = []
/// try RequestEncoder.encodeHead(head, framing: .none, into: &bytes)
/// // "GET /search?q=swift HTTP/1.1\r\nHost: example.com\r\n\r\n"
/// ```
public struct RequestHead: Sendable, Hashable {
    /// The method token, for example `GET` (RFC 9110 §9).
    public var method: Method
    /// The request target as sent: origin-form (`/a?b`) for ordinary requests, absolute-form through a
    /// proxy, authority-form for `CONNECT`, `*` for a server-wide `OPTIONS` (RFC 9112 §3.2).
    public var target: String
    /// The protocol version; HTTPWire sends HTTP/1.1.
    public var version: HTTPVersion
    /// The header fields in the order they are sent. The encoder adds the framing field itself
    /// (`Content-Length` or `Transfer-Encoding`), so these must not contain one.
    public var fields: HTTPFields

    /// Creates a request head. Nothing is checked until the head is encoded.
    public init(method: Method, target: String, version: HTTPVersion = .http1_1, fields: HTTPFields = HTTPFields()) {
        self.method = method
        self.target = target
        self.version = version
        self.fields = fields
    }
}
