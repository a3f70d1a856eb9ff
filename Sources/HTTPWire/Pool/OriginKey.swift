// OriginKey: the identity under which the pool files connections — scheme, host and port, and the proxy.
// Pool layer: a value type, no I/O. It must not resolve names or look at addresses: two spellings of the
// same server that differ after lowercasing ("localhost" and "127.0.0.1") are two origins, as in a browser.
//
// RFC 9110 §4.3.1 calls (scheme, host, port) the *origin* of a resource. A connection is only ever reused for
// the origin it was opened to: an `https` connection has verified one host name's certificate, and an
// `http` one to the same host and port is a different conversation altogether. The route is part of the
// identity too: a connection through a proxy (or a tunnel through it, opened with given credentials) is
// never handed to a request that goes direct or through another proxy, and the other way round.

import HTTPWireCodec

/// The origin a pooled connection belongs to: scheme, lowercased host and port (RFC 9110 §4.3.1).
///
/// ```swift
/// let origin = OriginKey(scheme: .https, host: "Example.TEST", port: 443)
/// origin.description   // "https://example.test:443"
/// ```
///
/// The port is always explicit, so `http://a/` and `http://a:80/` share connections. Host names are compared
/// after ASCII lowercasing (RFC 9110 §4.2.3: the host is case-insensitive); nothing else is normalised.
package struct OriginKey: Sendable, Hashable, CustomStringConvertible {
    /// The parts, in one immutable object: the pool copies and compares a key several times per request
    /// (a dictionary lookup copies the stored key to compare it), and copying one reference is cheaper than
    /// copying a host name and a proxy description with its credentials (measured with callgrind: ~450
    /// instructions per lookup before, docs/benchmarks.md).
    private final class Parts: Sendable {
        let scheme: TargetURL.Scheme
        let host: String
        let port: Int
        let proxy: ProxyEndpoint?
        /// Worked out once, for the same reason.
        let hashCode: Int
        /// `proxy == nil`, kept apart so that comparing two direct routes reads no `ProxyEndpoint`: reading
        /// one out of the object copies its strings and credentials (two copies and a destroy per compare,
        /// ~250 instructions, 2% of a GET by callgrind).
        let isDirect: Bool

        init(scheme: TargetURL.Scheme, host: String, port: Int, proxy: ProxyEndpoint?) {
            self.scheme = scheme
            self.host = host
            self.port = port
            self.proxy = proxy
            self.isDirect = proxy == nil
            var hasher = Hasher()
            hasher.combine(scheme)
            hasher.combine(host)
            hasher.combine(port)
            hasher.combine(proxy)
            self.hashCode = hasher.finalize()
        }
    }

    private let parts: Parts

    /// `http` or `https` (the URL's scheme). They never share a connection, even on the same host and port:
    /// an `https` connection has verified `host`'s certificate.
    package var scheme: TargetURL.Scheme { parts.scheme }
    /// The host name lowercased, an IPv4 address, or an IPv6 address without brackets.
    package var host: String { parts.host }
    /// The TCP port, explicit even when it is the scheme's default.
    package var port: Int { parts.port }
    /// The proxy the connection goes through (with its credentials), or nil for a direct connection.
    package var proxy: ProxyEndpoint? { parts.proxy }

    /// Makes the key for a scheme, host and port, reached through `proxy` (nil: directly); the host is
    /// lowercased (RFC 9110 §4.2.3).
    ///
    /// Nothing is validated: the URL parser has already refused bad hosts and ports outside 1...65535, and a
    /// key is only a name for a set of connections.
    package init(scheme: TargetURL.Scheme, host: String, port: Int, proxy: ProxyEndpoint? = nil) {
        parts = Parts(scheme: scheme, host: Self.asciiLowercased(host), port: port, proxy: proxy)
    }

    /// Equal keys have equal parts; the stored hashes differ for most unequal ones, which settles those at once.
    package static func == (left: OriginKey, right: OriginKey) -> Bool {
        let left = left.parts
        let right = right.parts
        if left === right { return true }
        guard
            left.hashCode == right.hashCode && left.scheme == right.scheme && left.port == right.port
                && left.host == right.host && left.isDirect == right.isDirect
        else { return false }
        return left.isDirect || left.proxy == right.proxy
    }

    /// Whether this key is the one `init(scheme:host:port:proxy:)` would make from these parts, for a host
    /// already in lowercase (a `TargetURL`'s): lets the client reuse a key instead of making and hashing a
    /// new one per request.
    package func matches(scheme: TargetURL.Scheme, host: String, port: Int, proxy: ProxyEndpoint?) -> Bool {
        let parts = self.parts
        guard parts.scheme == scheme, parts.port == port, parts.host == host else { return false }
        guard let proxy else { return parts.isDirect }
        return !parts.isDirect && parts.proxy == proxy
    }

    /// Feeds the stored hash.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(parts.hashCode)
    }

    /// Makes the key for a scheme and host on the scheme's default port.
    package init(scheme: TargetURL.Scheme, host: String) {
        self.init(scheme: scheme, host: host, port: scheme.defaultPort)
    }

    /// `"https://host:port"`, with an IPv6 address in brackets (`"http://[::1]:8080"`, RFC 3986 §3.2.2), and
    /// the route when there is a proxy: `"https://host:443 via http://proxy:3128"` (never its password).
    package var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let route = proxy.map { " via \($0)" } ?? ""
        return "\(scheme.rawValue)://\(hostPart):\(port)\(route)"
    }

    /// `host:port` as a CONNECT names it (RFC 9110 §9.3.6, the authority-form of RFC 9112 §3.2.3).
    package var authority: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(hostPart):\(port)"
    }

    /// Lowercases A–Z only. Host names are ASCII on the wire (internationalised names travel as punycode,
    /// RFC 5890), so a locale-aware lowercasing could only do harm — the Turkish dotless i, for one.
    private static func asciiLowercased(_ text: String) -> String {
        // The common case (a TargetURL's host is lowercased already) keeps the string as it is, uncopied.
        guard text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return text }
        var bytes = Array(text.utf8)
        for index in bytes.indices where bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") {
            bytes[index] += 0x20
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
