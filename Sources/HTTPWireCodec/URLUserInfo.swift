// URLUserInfo: the `user:password@` part of a URL's authority, taken apart and percent-decoded.
// Codec layer: a value type and a redaction helper over strings; no I/O, no Foundation, no encoding of
// credentials into fields (the client turns them into `Authorization: Basic`, RFC 7617).
//
// RFC 3986 §3.2.1: `userinfo = *( unreserved / pct-encoded / sub-delims / ":" )`, followed by "@" before the
// host. The user name ends at the first ":"; everything after it is the password. RFC 3986 §3.2.1 deprecates
// the password form for URLs that are shown to people, so HTTPWire never shows it: the userinfo is removed
// from the request target and from `Host` (it is not part of either, RFC 9112 §3.2 and RFC 9110 §4.2.4), it is
// absent from ``TargetURL/description``, and an error about the URL prints `[redacted]@` in its place.

/// The user name and password written in a URL (`https://ada:s3cret@api.example.test/`), percent-decoded.
///
/// ```swift
/// let url = try TargetURL("https://ada:p%40ss@api.example.test/v1")
/// url.userInfo?.user       // "ada"
/// url.userInfo?.password   // "p@ss"
/// url.description          // "https://api.example.test/v1": the credentials are never shown
/// ```
///
/// HTTPWire's client sends them as `Authorization: Basic` (RFC 7617) to that URL's origin only.
public struct URLUserInfo: Sendable, Hashable, CustomStringConvertible {
    /// The user name, percent-decoded (`%40` is `@`); possibly empty.
    public var user: String
    /// The password, percent-decoded; nil when the userinfo has no ":" (`https://token@host/`).
    public var password: String?

    /// Credentials from their parts.
    public init(user: String, password: String?) {
        self.user = user
        self.password = password
    }

    /// Always `[redacted]`, so that printing a URL's parts never shows a password.
    public var description: String { "[redacted]" }

    /// Splits and decodes the text between `//` and `@`. RFC 3986 §3.2.1 allows only unreserved bytes,
    /// percent-escapes, sub-delims and ":" there; anything else (a raw "@" in particular, which would make
    /// `http://a@b@c/` mean different hosts to different parsers) throws with `shownURL` in the message.
    static func parse(_ bytes: ArraySlice<UInt8>, shownURL: String) throws(CodecError) -> URLUserInfo {
        for byte in bytes where !isAllowed(byte) {
            let reason =
                byte == UInt8(ascii: "@")
                ? "more than one \"@\" in the authority (write %40 for an \"@\" in a user name or password)"
                : "invalid character \"\(ByteClasses.escapedPreview([byte]))\" in the user name or password"
            throw .invalidURL(shownURL, reason: reason)
        }
        let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        let user = bytes[..<(colon ?? bytes.endIndex)]
        let password = colon.map { bytes[($0 + 1)...] }
        return URLUserInfo(user: decoded(user), password: password.map(decoded))
    }

    /// `url` with the userinfo of its authority replaced by `[redacted]`, for error messages; `url` itself
    /// when it has none.
    static func redacting(_ url: String) -> String {
        // The authority follows "scheme://", or the leading "//" of a scheme-relative reference (RFC 3986 §4.2).
        let authorityStart: String.Index
        if let schemeEnd = url.utf8.firstRange(of: "://".utf8) {
            authorityStart = schemeEnd.upperBound
        } else if url.utf8.starts(with: "//".utf8) {
            authorityStart = url.utf8.index(url.utf8.startIndex, offsetBy: 2)
        } else {
            return url
        }
        let rest = url.utf8[authorityStart...]
        let authorityEnd =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? url.utf8.endIndex
        guard let at = url.utf8[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return url }
        return String(url[..<authorityStart]) + "[redacted]" + String(url[at...])
    }

    /// RFC 3986 §3.2.1: unreserved, "%" (of pct-encoded), sub-delims and ":".
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~%!$&'()*+,;=:".utf8.contains(byte)
        }
    }

    /// Percent-decoded UTF-8 text (RFC 7617 §2.1 names UTF-8 for Basic credentials); an invalid sequence
    /// becomes U+FFFD.
    private static func decoded(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: PercentEncoding.decode(String(decoding: bytes, as: UTF8.self)), as: UTF8.self)
    }
}
