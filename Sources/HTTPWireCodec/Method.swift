// Method: the request method (RFC 9110 §9).
// Codec layer: a value type, no I/O.

/// A request method such as `GET` or `POST`.
///
/// Methods are case-sensitive tokens (RFC 9110 §9.1). Two properties matter to a client:
/// whether a method is *idempotent* (§9.2.2: repeating it has the same effect, so a request that failed
/// before any response byte may be retried), and whether the response can have a body (a response to
/// `HEAD` never does, whatever its fields say, RFC 9112 §6.3).
public struct Method: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token as sent on the wire.
    public var rawValue: String

    /// Wraps a method token. Validity (a token) is checked when the request is encoded.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a method token written as a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    public static let get: Method = "GET"
    public static let head: Method = "HEAD"
    public static let post: Method = "POST"
    public static let put: Method = "PUT"
    public static let delete: Method = "DELETE"
    public static let options: Method = "OPTIONS"
    public static let patch: Method = "PATCH"
    public static let trace: Method = "TRACE"
    public static let connect: Method = "CONNECT"

    /// RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT and DELETE are idempotent.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": return true
        default: return false
        }
    }

    /// RFC 9110 §9.2.1: GET, HEAD, OPTIONS and TRACE are safe (read-only).
    public var isSafe: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE": return true
        default: return false
        }
    }

    public var description: String { rawValue }
}
