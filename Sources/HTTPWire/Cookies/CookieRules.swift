// CookieRules: the matching rules of RFC 6265 §5.1.3 (domain-match) and §5.1.4 (default-path, path-match),
// and the refusals of a `Domain` attribute that has no public-suffix list to lean on (client layer; pure
// functions over strings, no jar, no clock).
//
// Domain matching is what keeps a cookie set by `shop.example.com` away from `evil.com`: a host gets a
// domain cookie only when the cookie's domain is the host or a parent of it, on a label boundary
// (`example.com` matches `www.example.com`, never `badexample.com`), and never by suffix for an IP address
// (`1.2.3.4` is not "in" `2.3.4`). Browsers also refuse `Domain=co.uk` with the Public Suffix List; HTTPWire
// carries no such list, so it refuses only what it can see without one: an IP address, and a single label
// (`Domain=com`). `Domain=example.co.uk` from `a.example.co.uk` is accepted — as curl built without libpsl
// does.

/// The matching rules of RFC 6265 §5.1.3 and §5.1.4.
enum CookieRules {
    /// §5.1.3: `host` domain-matches `domain` when they are identical, or when `host` ends with `.domain`
    /// and is a host name, not an IP address. Both are lower-case.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain), !isIPAddress(host) else { return false }
        return true
    }

    /// A dotted IPv4 address (four decimal numbers 0–255) or an IPv6 one (it has a colon, which no host
    /// name has).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }

    /// §5.1.4 default-path: the directory of the request path — up to, not including, its right-most `/`,
    /// and `/` when the path is empty, does not start with `/`, or has only the one leading `/`. The query
    /// is not part of the path.
    static func defaultPath(ofTarget pathAndQuery: String) -> String {
        let path = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard path.first == "/", let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// §5.1.4 path-match: the request path equals the cookie path, or starts with it where the cookie path
    /// ends in `/` or the next request character is `/` (`/docs` matches `/docs/a`, never `/docsearch`).
    static func pathMatches(requestTarget pathAndQuery: String, cookiePath: String) -> Bool {
        let path = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if path == cookiePath { return true }
        guard path.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return path.dropFirst(cookiePath.count).first == "/"
    }

    /// Why a `Domain` attribute is refused for `host`, or nil when it is accepted (§5.3 steps 5–6). A domain
    /// identical to the host is always accepted (an IP address or a single label then makes a host-only
    /// cookie, as browsers do); otherwise an IP address, a single label (no public-suffix list: the one
    /// public suffix recognisable without one), or a domain the host does not domain-match is refused.
    static func refusal(ofDomain domain: String, forHost host: String) -> String? {
        if domain == host { return nil }
        if isIPAddress(domain) { return "Domain=\(domain) is an IP address" }
        if !domain.contains(".") { return "Domain=\(domain) is a single label (a top-level domain)" }
        if !domainMatches(host: host, domain: domain) { return "Domain=\(domain) does not match host \(host)" }
        return nil
    }
}
