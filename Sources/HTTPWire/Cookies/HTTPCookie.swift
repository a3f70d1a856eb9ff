// HTTPCookie: one cookie as a jar stores it — the record of RFC 6265 §5.3 (client layer, a plain value).
//
// `Set-Cookie` says what a server *asked for*; this is what the storage model made of it for one request
// URL: a domain that is either the request host (host-only) or a domain the host belongs to, a path that is
// either the attribute or the default path, and an expiry instant or none (a session cookie). Nothing here
// decides; `CookieJar` fills these fields in and `CookieRules` holds the matching rules.

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A stored cookie (RFC 6265 §5.3), as ``CookieJar/cookies`` lists it and the Netscape cookie file holds it.
///
/// ```swift
/// let jar = CookieJar()
/// jar.add(HTTPCookie(name: "session", value: "abc123", domain: "api.example.test"))
/// jar.cookies.first?.isHostOnly   // true: sent to api.example.test only, not to its subdomains
/// ```
public struct HTTPCookie: Sendable, Hashable {
    /// The cookie's name; with ``domain`` and ``path`` it identifies the cookie (a new one with the same
    /// three replaces the old one, §5.3 step 11).
    public var name: String
    /// The value, sent back exactly as received.
    public var value: String
    /// The host (``isHostOnly``) or the domain whose hosts get the cookie, lower-cased, without a leading dot.
    public var domain: String
    /// Sent with requests whose path is this path or below it (§5.1.4 path-match).
    public var path: String
    /// When the cookie expires, or nil for a session cookie (kept until the jar is dropped; the cookie file
    /// writes it with expiry 0, as curl does).
    public var expires: Date?
    /// True when the cookie came without a `Domain` attribute: sent to exactly ``domain``, never to its
    /// subdomains (§5.3 step 6).
    public var isHostOnly: Bool
    /// `Secure`: sent only over https (§5.4 step 1).
    public var isSecure: Bool
    /// `HttpOnly`: kept for the cookie file (curl's `#HttpOnly_` prefix); an HTTP client sends it as any other.
    public var isHTTPOnly: Bool
    /// `SameSite` as the server wrote it, or nil. Kept, not enforced: RFC 6265bis defines it against a
    /// browsing context ("the site the user is on"), which an HTTP client does not have.
    public var sameSite: String?
    /// When the cookie was first stored; a replacement keeps the original's (§5.3 step 11.3). Orders the
    /// `Cookie` field (§5.4 step 2).
    public var created: Date

    /// A cookie for `domain` (a host, or with `isHostOnly: false` a domain and its subdomains) and `path`.
    public init(
        name: String, value: String, domain: String, path: String = "/", expires: Date? = nil,
        isHostOnly: Bool = true, isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: String? = nil,
        created: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.path = path
        self.expires = expires
        self.isHostOnly = isHostOnly
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.created = created
    }

    /// True when the cookie has an expiry at or before `now` (§5.3: "the cookie's expiry-time is in the past").
    public func isExpired(at now: Date = Date()) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// The bytes the cookie counts against ``CookieJar/Limits/maxBytesPerCookie``: name, value, domain and
    /// path (RFC 6265 §6.1 counts "the cookie's name, value, and attributes").
    var byteCount: Int { name.utf8.count + value.utf8.count + domain.utf8.count + path.utf8.count }

    /// The three fields that identify a cookie in a jar (§5.3 step 11).
    var identity: Identity { Identity(name: name, domain: domain, path: path) }

    /// Name, domain and path: two cookies with the same identity are the same cookie.
    struct Identity: Hashable {
        var name: String
        var domain: String
        var path: String
    }
}
