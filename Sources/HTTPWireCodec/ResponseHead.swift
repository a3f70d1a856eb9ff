// ResponseHead: the status line and header fields of a response, as decoded.
// Codec layer: a value type, no I/O.
//
// ResponseDecoder hands one of these out for each interim (1xx) response and for the final response. It
// holds what was on the wire; framing (how the body ends) and keep-alive are decided from it by
// BodyFraming and reported by the decoder, not stored here.

/// The head of a response: `HTTP/1.1 200 OK` plus its fields.
///
/// ```swift
/// if case .head(let head) = try decoder.nextEvent() {
///     print(head.status, head.fields["content-type"] ?? "-")
/// }
/// ```
public struct ResponseHead: Sendable, Hashable {
    /// The version on the status line: HTTP/1.1 or HTTP/1.0 (any `1.x` is accepted, RFC 9110 §2.5).
    public var version: HTTPVersion
    /// The status code.
    public var status: Status
    /// The reason phrase as sent, possibly empty. RFC 9112 §4: a client SHOULD ignore it; it is kept for
    /// display only. Bytes 0x80–0xFF (obs-text) are decoded as UTF-8 with replacement characters.
    public var reason: String
    /// The header fields in order, duplicates kept, values trimmed, obs-folds replaced by one space.
    public var fields: HTTPFields

    /// Creates a head from its parts.
    public init(version: HTTPVersion, status: Status, reason: String, fields: HTTPFields) {
        self.version = version
        self.status = status
        self.reason = reason
        self.fields = fields
    }
}
