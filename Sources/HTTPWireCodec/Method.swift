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

    /// `GET`: transfer a current representation of the target resource (RFC 9110 §9.3.1). Safe and idempotent.
    public static let get: Method = "GET"
    /// `HEAD`: like GET, but the response carries no body, whatever its fields announce (RFC 9110 §9.3.2,
    /// RFC 9112 §6.3 rule 1). Safe and idempotent.
    public static let head: Method = "HEAD"
    /// `POST`: have the target resource process the enclosed content (RFC 9110 §9.3.3). Neither safe nor
    /// idempotent, so a failed POST is never retried automatically.
    public static let post: Method = "POST"
    /// `PUT`: replace the target resource with the enclosed content (RFC 9110 §9.3.4). Idempotent.
    public static let put: Method = "PUT"
    /// `DELETE`: remove the association between the target resource and its current state (RFC 9110 §9.3.5).
    /// Idempotent.
    public static let delete: Method = "DELETE"
    /// `OPTIONS`: ask which communication options the target offers (RFC 9110 §9.3.7). Safe and idempotent.
    public static let options: Method = "OPTIONS"
    /// `PATCH`: apply a partial modification to the target resource (RFC 5789). Neither safe nor idempotent.
    public static let patch: Method = "PATCH"
    /// `TRACE`: have the server echo the request it received, for diagnosis (RFC 9110 §9.3.8). Safe and
    /// idempotent.
    public static let trace: Method = "TRACE"
    /// `CONNECT`: open a tunnel to the target's authority, as proxies do for HTTPS (RFC 9110 §9.3.6). A 2xx
    /// answer turns the connection into a tunnel, so the decoder reads no body after it (RFC 9112 §6.3 rule 2).
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

    /// The method token as sent on the wire, `"GET"`.
    public var description: String { rawValue }
}
