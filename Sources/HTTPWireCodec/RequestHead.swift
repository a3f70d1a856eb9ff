// RequestHead: the request line and header fields of a request.
// Codec layer: a value type, no I/O.
//
// The client builds one and RequestEncoder writes it; the server side (RequestDecoder, used by the
// fixture server) produces one from received bytes. Validation happens in the encoder and decoder, never
// here.

/// The head of a request: `GET /path HTTP/1.1` plus its fields.
public struct RequestHead: Sendable, Hashable {
    /// The request method.
    public var method: Method
    /// The request target as it appears on the request line, usually origin-form (`/path?query`,
    /// RFC 9112 §3.2.1).
    public var target: String
    /// The protocol version on the request line.
    public var version: HTTPVersion
    /// The header fields in order, duplicates kept.
    public var fields: HTTPFields

    /// Creates a head from its parts.
    public init(method: Method, target: String, version: HTTPVersion, fields: HTTPFields) {
        self.method = method
        self.target = target
        self.version = version
        self.fields = fields
    }
}
