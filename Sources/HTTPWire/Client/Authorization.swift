// Authorization: credentials a request carries in its `Authorization` field — Basic (RFC 7617) and Bearer
// (RFC 6750) — and how they are written (client layer).
//
// Credentials come from three places, and the most specific wins: an `Authorization` field the request sets
// itself, then `user:password@` in the request's URL, then `RequestOptions.authorization`, then the client's
// `ClientConfiguration.authorization`. Wherever they come from, they are sent to the request's own origin
// only: `RedirectPolicy` drops the field when a redirect leaves the origin (RFC 9110 §15.4), and the field's
// value never reaches a log (`HTTPLogEvent` redacts it). Values only; nothing here sends anything.

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Credentials for the `Authorization` field (RFC 9110 §11.6.2).
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.authorization = .bearer("eyJhbGciOi...")        // every request of this client
/// var request = HTTPRequest(url: "https://legacy.example.test/report")
/// request.options.authorization = .basic(user: "ada", password: "s3cret")   // this one only
/// ```
///
/// `description` never shows the secret. For a token that expires, use ``BearerTokenMiddleware``, which
/// refreshes it and sends the request once more after a 401.
public enum Authorization: Sendable, Hashable, CustomStringConvertible {
    /// RFC 7617 Basic: `base64(user ":" password)` of the UTF-8 bytes (the `charset="UTF-8"` of §2.1, the
    /// only encoding HTTPWire sends). A user name cannot contain ":" (§2: the first colon ends it), so one
    /// that does fails the request with ``HTTPWireError/invalidRequest(_:)``.
    case basic(user: String, password: String)
    /// RFC 6750 Bearer: the token as given, `Authorization: Bearer <token>` (§2.1).
    case bearer(String)

    /// The field value: `Basic YWRhOnMzY3JldA==` or `Bearer <token>`.
    ///
    /// Throws ``HTTPWireError/invalidRequest(_:)`` for a Basic user name with ":" or a Bearer token outside
    /// RFC 6750's b64token characters (`A-Z a-z 0-9 - . _ ~ + /` and trailing `=`), which also keeps CR and
    /// LF out of the head.
    public func fieldValue() throws(HTTPWireError) -> String {
        switch self {
        case .basic(let user, let password):
            guard !user.utf8.contains(UInt8(ascii: ":")) else {
                throw .invalidRequest("a Basic user name cannot contain \":\" (RFC 7617 §2)")
            }
            return "Basic " + Data((user + ":" + password).utf8).base64EncodedString()
        case .bearer(let token):
            guard Self.isBearerToken(token) else {
                throw .invalidRequest("a Bearer token must be b64token characters (RFC 6750 §2.1)")
            }
            return "Bearer " + token
        }
    }

    /// The scheme and `[redacted]`: `Basic [redacted]`, safe to print.
    public var description: String {
        switch self {
        case .basic: return "Basic [redacted]"
        case .bearer: return "Bearer [redacted]"
        }
    }

    /// RFC 6750 §2.1: `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
    private static func isBearerToken(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        let body = bytes.reversed().drop { $0 == UInt8(ascii: "=") }
        guard !body.isEmpty else { return false }
        return body.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-._~+/".utf8.contains(byte)
            }
        }
    }
}
