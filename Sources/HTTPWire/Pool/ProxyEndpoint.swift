// ProxyEndpoint: one proxy a connection goes through — its kind, address and credentials (pool layer).
//
// A proxy is named by a URL in curl's spelling, `[scheme://][user[:password]@]host[:port][/]`: `http://`
// (the default when no scheme is given) for an HTTP proxy, `socks5://` for SOCKS5 with names resolved here,
// `socks5h://` for SOCKS5 with names resolved by the proxy, `socks4://` and `socks4a://` likewise for SOCKS4
// (which has no IPv6 and no password: the user name goes as its user ID). The port defaults to 1080, as in
// curl, for every kind. This file parses that URL with a parser of its own — the origin URL parser has no
// business knowing proxies — and holds the result; it opens nothing. The pool files connections under a key
// that includes the endpoint (`OriginKey.proxy`), credentials included, so two users of one proxy never
// share a tunnel.

import HTTPWireCodec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A parsed proxy URL.
///
/// ```swift
/// let proxy = try ProxyEndpoint(parsing: "http://alice:s%40fe@proxy.test:3128")
/// proxy.kind          // .http
/// proxy.description   // "http://alice@proxy.test:3128" (never the password)
/// ```
package struct ProxyEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// How the proxy is spoken to.
    package enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy: absolute-form requests for `http://` URLs (RFC 9112 §3.2.2), a CONNECT tunnel for
        /// `https://` ones (RFC 9110 §9.3.6).
        case http
        /// SOCKS5 (RFC 1928), destination names resolved by the client.
        case socks5
        /// SOCKS5, destination names sent to the proxy to resolve (curl's `socks5h://`).
        case socks5h
        /// SOCKS4: IPv4 destinations only, names resolved by the client; the user name goes as the user ID.
        case socks4
        /// SOCKS4a: SOCKS4 with destination names sent to the proxy to resolve (curl's `socks4a://`).
        case socks4a
    }

    /// A user name and password: `Proxy-Authorization: Basic` for an HTTP proxy (RFC 7617), RFC 1929 for SOCKS5.
    package struct Credentials: Sendable, Hashable {
        /// The user name, percent-decoded.
        package var user: String
        /// The password, percent-decoded (may be empty).
        package var password: String

        /// Credentials from their two parts.
        package init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// The kind of proxy.
    package let kind: Kind
    /// The proxy's host: a lowercased name, an IPv4 address, or an IPv6 address without brackets.
    package let host: String
    /// The proxy's port.
    package let port: Int
    /// The credentials from the URL (or given separately), if any.
    package let credentials: Credentials?

    /// curl's default proxy port, for every kind of proxy.
    package static let defaultPort = 1080

    /// An endpoint from its parts.
    package init(kind: Kind, host: String, port: Int, credentials: Credentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Parses a proxy URL in curl's spelling (see the file comment). Throws `HTTPWireError.invalidURL` for
    /// an unsupported scheme (`https://` proxies), a path, or a bad host or port; the message never
    /// repeats the password.
    package init(parsing text: String) throws(HTTPWireError) {
        var rest = Substring(text)
        var kind = Kind.http
        if let separator = Self.schemeSeparator(in: rest) {
            let scheme = rest[..<separator.lowerBound].lowercased()
            switch scheme {
            case "http": kind = .http
            case "socks5": kind = .socks5
            case "socks5h": kind = .socks5h
            case "socks4": kind = .socks4
            case "socks4a": kind = .socks4a
            case "https": throw .invalidURL("https:// proxies are not supported (use an http:// proxy)")
            default:
                throw .invalidURL("unsupported proxy scheme \"\(scheme)\" (http, socks5, socks5h, socks4, socks4a)")
            }
            rest = rest[separator.upperBound...]
        }
        // RFC 3986 §3.2: the authority ends at the first "/", "?" or "#"; a proxy URL has nothing after it.
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            guard rest[end...] == "/" else { throw .invalidURL("a proxy URL has no path, query or fragment") }
            rest = rest[..<end]
        }
        var credentials: Credentials?
        // RFC 3986 §3.2.1: userinfo ends at the last "@" (a password may hold an unencoded "@" in practice).
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            let colon = userinfo.firstIndex(of: ":") ?? userinfo.endIndex
            let user = Self.percentDecoded(userinfo[..<colon])
            let password =
                colon == userinfo.endIndex ? "" : Self.percentDecoded(userinfo[userinfo.index(after: colon)...])
            credentials = Credentials(user: user, password: password)
            rest = rest[rest.index(after: at)...]
        }
        let (host, port) = try Self.hostAndPort(rest)
        self.init(kind: kind, host: host, port: port, credentials: credentials)
    }

    /// The same endpoint with other credentials (curl's `-U` overrides those in the URL).
    package func replacingCredentials(_ credentials: Credentials?) -> ProxyEndpoint {
        ProxyEndpoint(kind: kind, host: host, port: port, credentials: credentials)
    }

    /// `Basic base64(user:password)` (RFC 7617 §2, UTF-8 as §2.1 asks), nil without credentials.
    package var basicAuthorization: String? {
        guard let credentials else { return nil }
        return "Basic " + Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
    }

    /// `"http://proxy.test:3128"`, with the user name but never the password.
    package var description: String {
        let user = credentials.map { "\($0.user)@" } ?? ""
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(kind.rawValue)://\(user)\(hostPart):\(port)"
    }

    /// Where `://` is in `text`, if anywhere (FoundationEssentials has no `range(of:)` on Substring).
    private static func schemeSeparator(in text: Substring) -> Range<Substring.Index>? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") { return index..<text.index(index, offsetBy: 3) }
            index = text.index(after: index)
        }
        return nil
    }

    /// Splits `host[:port]` (IPv6 in brackets) and checks the host with the URL parser's own rules.
    private static func hostAndPort(_ authority: Substring) throws(HTTPWireError) -> (String, Int) {
        var hostPart = authority
        var port = defaultPort
        let portStart: Substring.Index?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("proxy host has no closing ]") }
            let after = authority.index(after: close)
            guard after == authority.endIndex || authority[after] == ":" else {
                throw .invalidURL("unexpected text after the proxy's ipv6 address")
            }
            portStart = after == authority.endIndex ? nil : after
        } else {
            portStart = authority.lastIndex(of: ":")
        }
        if let portStart {
            let digits = authority[authority.index(after: portStart)...]
            guard let number = Int(digits), (1...65535).contains(number), digits.allSatisfy(\.isASCII) else {
                throw .invalidURL("proxy port \"\(digits)\" is not a number from 1 to 65535")
            }
            port = number
            hostPart = authority[..<portStart]
        }
        guard !hostPart.isEmpty else { throw .invalidURL("the proxy URL has no host") }
        // The origin parser's host rules (lowercasing, IPv4/IPv6 literals, no stray bytes) apply as they are.
        do {
            let checked = try TargetURL("http://\(hostPart):\(port)/")
            return (checked.host, port)
        } catch {
            throw .invalidURL("invalid proxy host: \(error)")
        }
    }

    /// RFC 3986 §2.1 percent-decoding of a user name or password (curl decodes both); an invalid escape is
    /// kept as it is, and bytes that are not UTF-8 are replaced.
    private static func percentDecoded(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
