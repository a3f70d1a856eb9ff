// TargetURL: an absolute http or https URL, checked and normalised into what a request needs.
// Codec layer: parsing over strings; no I/O, no Foundation, no DNS.
//
// A request needs four things from a URL: the scheme (TLS or not), the host and port to connect to and put
// in `Host`, and the origin-form request target (RFC 9112 §3.2.1: absolute-path [ "?" query ]). TargetURL
// keeps exactly those, normalised so that two spellings of one origin compare equal (the pool keys on them):
// scheme and host lowercased, explicit default ports dropped, IPv6 in canonical form, dot segments removed,
// the fragment dropped (RFC 9110 §7.1: it is never sent). Text people type — spaces, accents, Chinese — is
// percent-encoded as UTF-8 (see PercentEncoding.swift). Relative references (redirects) are resolved in
// URLReferenceResolver.swift. This file must not resolve names or touch sockets.

/// An absolute `http` or `https` URL, ready to be requested.
///
/// ```swift
/// let url = try TargetURL("https://Example.com:443/caf\u{e9} menu?q=1#top")
/// url.host          // "example.com"
/// url.port          // 443
/// url.pathAndQuery  // "/caf%C3%A9%20menu?q=1"
/// url.description   // "https://example.com/caf%C3%A9%20menu?q=1"
/// ```
///
/// User information (`user:password@`, RFC 3986 §3.2.1) is taken out of the authority into ``userInfo``,
/// percent-decoded: it is part of neither the request target nor `Host`, and ``description`` never shows it.
/// Choices where the RFCs leave room: a raw second `@` in the authority is rejected (parsers disagree about
/// which one ends the userinfo, so `http://a@b@c/` could reach a host the reader did not see); non-ASCII host
/// names are rejected because HTTPWire does not implement IDNA (punycode) — write the `xn--` form instead.
public struct TargetURL: Sendable, Hashable, CustomStringConvertible {
    /// The two schemes HTTPWire can request.
    public enum Scheme: String, Sendable, Hashable {
        /// Plain HTTP, default port 80 (RFC 9110 §4.2.1).
        case http
        /// HTTP over TLS, default port 443 (RFC 9110 §4.2.2).
        case https

        /// 80 for http, 443 for https.
        public var defaultPort: Int {
            switch self {
            case .http: return 80
            case .https: return 443
            }
        }
    }

    /// `http` or `https`.
    public var scheme: Scheme
    /// The host to connect to: a lowercased DNS name, a dotted IPv4 address, or an IPv6 address in
    /// canonical form (RFC 5952) without brackets.
    public var host: String
    /// The port to connect to: the one written in the URL, or the scheme's default.
    public var port: Int
    /// The origin-form request target (RFC 9112 §3.2.1): the percent-encoded path, `/` when the URL has
    /// none, followed by `?` and the query when there is one.
    public var pathAndQuery: String
    /// The `user:password@` of the authority, percent-decoded, or nil. Never part of ``description``,
    /// ``hostFieldValue`` or ``pathAndQuery``; the client sends it as `Authorization: Basic` (RFC 7617).
    public var userInfo: URLUserInfo?

    /// Parses an absolute `http` or `https` URL.
    ///
    /// Leading and trailing spaces and control characters are ignored (they come with copy and paste).
    /// Throws ``CodecError/invalidURL(_:reason:)`` with the reason: missing or unsupported scheme, missing
    /// host, a bad character in the user information or the host, a bad IP literal, a port outside 1–65535.
    /// The URL in the error has its user information replaced by `[redacted]`.
    public init(_ string: String) throws(CodecError) {
        // Most URLs are already in the form this parser produces; one scan recognises them
        // (TargetURL+NormalForm.swift). Everything else takes the general path below.
        if let normal = Self.normalForm(string) {
            self = normal
            return
        }
        try self.init(parsingInGeneral: string)
    }

    /// The general parser behind ``init(_:)``: trims, splits, lowercases, removes dot segments and
    /// percent-encodes, whatever the input looks like.
    init(parsingInGeneral string: String) throws(CodecError) {
        let reference = URLReference(parsing: URLReference.trimmed(string))
        // An error names the URL, and a URL with a password must not be printed as it was typed.
        let shown =
            reference.authority?.utf8.contains(UInt8(ascii: "@")) == true ? URLUserInfo.redacting(string) : string
        guard let schemeText = reference.scheme else {
            throw .invalidURL(shown, reason: "missing scheme (expected http:// or https://)")
        }
        guard let scheme = Scheme(rawValue: schemeText.lowercasedASCII()) else {
            throw .invalidURL(shown, reason: "unsupported scheme \"\(schemeText)\" (only http and https)")
        }
        guard let authority = reference.authority else {
            throw .invalidURL(shown, reason: "missing host (expected // after \"\(schemeText):\")")
        }
        try self.init(
            scheme: scheme, authority: authority,
            path: URLReferenceResolver.removeDotSegments(reference.path), query: reference.query, original: shown)
    }

    /// Builds a URL from an authority still to be checked, and a path and query still to be encoded.
    init(scheme: Scheme, authority: Substring, path: String, query: Substring?, original: String) throws(CodecError) {
        var hostAndPort = Array(authority.utf8)[...]
        var userInfo: URLUserInfo?
        if let at = hostAndPort.lastIndex(of: UInt8(ascii: "@")) {
            // RFC 3986 §3.2: authority = [ userinfo "@" ] host [ ":" port ].
            let shown = URLUserInfo.redacting(original)
            userInfo = try URLUserInfo.parse(hostAndPort[..<at], shownURL: shown)
            hostAndPort = hostAndPort[(at + 1)...]
            let (host, port) = try Self.parseAuthority(hostAndPort, scheme: scheme, original: shown)
            self.init(scheme: scheme, host: host, port: port, path: path, query: query)
        } else {
            let (host, port) = try Self.parseAuthority(hostAndPort, scheme: scheme, original: original)
            self.init(scheme: scheme, host: host, port: port, path: path, query: query)
        }
        self.userInfo = userInfo
    }

    /// Builds a URL from a checked host and port; the path and query are percent-encoded here.
    init(scheme: Scheme, host: String, port: Int, path: String, query: Substring?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        var target = PercentEncoding.encode(path, for: .path)
        // RFC 9112 §3.2.1: an empty path is sent as "/".
        if target.isEmpty { target = "/" }
        if let query { target += "?" + PercentEncoding.encode(query, for: .query) }
        self.pathAndQuery = target
    }

    /// The value of the `Host` field (RFC 9110 §7.2): the host, in brackets when it is IPv6, followed by
    /// `:port` only when the port is not the scheme's default.
    public var hostFieldValue: String {
        let isIPv6 = host.utf8.contains(UInt8(ascii: ":"))
        let showsPort = port != scheme.defaultPort
        if !isIPv6 && !showsPort { return host }
        // Built as bytes: it is made for every request, and string interpolation of the host and the port
        // cost about a thousand instructions (callgrind).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(host.utf8.count + 8)
        if isIPv6 { bytes.append(UInt8(ascii: "[")) }
        RequestEncoder.appendUTF8(host, into: &bytes)
        if isIPv6 { bytes.append(UInt8(ascii: "]")) }
        if showsPort {
            bytes.append(ByteClasses.colon)
            RequestEncoder.appendDecimal(UInt64(port), into: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// True when the host is an IPv4 or IPv6 address rather than a name. TLS then checks the certificate's
    /// IP address instead of sending SNI (RFC 6066 §3 forbids literal addresses in SNI).
    public var isIPAddress: Bool {
        host.utf8.contains(UInt8(ascii: ":")) || IPAddressText.ipv4Address(host.utf8) != nil
    }

    /// The last path segment, percent-decoded, for naming a downloaded file: `"r\u{e9}sum\u{e9}.pdf"` for
    /// `/docs/r%C3%A9sum%C3%A9.pdf`. Nil when the path ends with `/`, and nil when the decoded text is
    /// `.` or `..` or contains `/` or NUL: a server must not be able to pick `../../.bashrc` as a file name.
    public var lastPathSegment: String? {
        let path = pathAndQuery.utf8.split(separator: UInt8(ascii: "?"), omittingEmptySubsequences: false)[0]
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let decoded = PercentEncoding.decode(Substring(path[path.index(after: slash)...]))
        let dot = UInt8(ascii: ".")
        if decoded.isEmpty || decoded == [dot] || decoded == [dot, dot] { return nil }
        if decoded.contains(UInt8(ascii: "/")) || decoded.contains(0) { return nil }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Returns the URL with query items added after any existing query, as `name=value` joined by `&`.
    ///
    /// Names and values are text, not syntax: every byte but the unreserved ones is escaped, so `+`
    /// becomes `%2B` (many servers read a raw `+` as a space), a space `%20`, and `&`, `=`, `#` and `%`
    /// are escaped too. The server decodes exactly the strings given.
    ///
    /// ```swift
    /// try TargetURL("http://h/s").appendingQueryItems([("q", "a+b & c")]).pathAndQuery
    /// // "/s?q=a%2Bb%20%26%20c"
    /// ```
    public func appendingQueryItems(_ items: [(name: String, value: String)]) -> TargetURL {
        guard !items.isEmpty else { return self }
        var result = self
        var target = pathAndQuery
        if let last = target.utf8.last, last == UInt8(ascii: "?") || last == UInt8(ascii: "&") {
            // Already ends with a separator: append directly.
        } else {
            target += target.utf8.contains(UInt8(ascii: "?")) ? "&" : "?"
        }
        for (offset, item) in items.enumerated() {
            if offset > 0 { target += "&" }
            target += PercentEncoding.encode(item.name, for: .component)
            target += "="
            target += PercentEncoding.encode(item.value, for: .component)
        }
        result.pathAndQuery = target
        return result
    }

    /// `scheme://host[:port]/path?query`, the normalised form.
    public var description: String {
        "\(scheme.rawValue)://\(hostFieldValue)\(pathAndQuery)"
    }

    // MARK: Authority

    /// Splits `authority` (RFC 3986 §3.2) into a checked host and port.
    private static func parseAuthority(
        _ bytes: ArraySlice<UInt8>, scheme: Scheme, original: String
    ) throws(CodecError) -> (host: String, port: Int) {
        let host: String
        let portBytes: ArraySlice<UInt8>?
        if bytes.first == UInt8(ascii: "[") {
            // RFC 3986 §3.2.2: IP-literal = "[" ( IPv6address / IPvFuture ) "]".
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else {
                throw .invalidURL(original, reason: "IPv6 address without closing \"]\"")
            }
            let literal = bytes[(bytes.startIndex + 1)..<close]
            if literal.contains(UInt8(ascii: "%")) {
                throw .invalidURL(original, reason: "IPv6 zone identifiers are not supported")
            }
            guard let groups = IPAddressText.parseIPv6(literal) else {
                throw .invalidURL(original, reason: "invalid IPv6 address")
            }
            host = IPAddressText.canonicalIPv6(groups)
            let rest = bytes[(close + 1)...]
            if rest.isEmpty {
                portBytes = nil
            } else if rest.first == UInt8(ascii: ":") {
                portBytes = rest.dropFirst()
            } else {
                throw .invalidURL(original, reason: "unexpected text after IPv6 address")
            }
        } else {
            let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
            let name = bytes[..<(colon ?? bytes.endIndex)]
            portBytes = colon.map { bytes[($0 + 1)...] }
            host = try parseHostName(name, original: original)
        }
        return (host, try parsePort(portBytes, scheme: scheme, original: original))
    }

    /// Checks a registered name or IPv4 address and lowercases it.
    ///
    /// Stricter than RFC 3986's reg-name on purpose: only letters, digits, `-`, `_` and `.` reach DNS.
    /// Sub-delimiters and percent-escapes are legal URL syntax but never valid host names, and rejecting
    /// them here gives a clear message instead of a confusing resolver error.
    private static func parseHostName(_ name: ArraySlice<UInt8>, original: String) throws(CodecError) -> String {
        guard !name.isEmpty else { throw .invalidURL(original, reason: "missing host") }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(name.count)
        for byte in name {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                lowered.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                lowered.append(byte | 0x20)
            case 0x80...0xFF:
                // No IDNA here: mapping Unicode names to punycode needs the UTS #46 tables, which the
                // standard library does not carry. The user can write the xn-- form instead.
                throw .invalidURL(
                    original, reason: "non-ASCII host names are not supported (no IDNA); use the xn-- form")
            default:
                let shown = ByteClasses.escapedPreview([byte])
                throw .invalidURL(original, reason: "invalid character \"\(shown)\" in host")
            }
        }
        // WHATWG URL "ends in a number": a name whose last label is numeric is meant as an IPv4 address.
        // Such a host must be plain dotted decimal; `127.1`, `0x7f.0.0.1` or `010.0.0.1` (octal to
        // inet_aton) would otherwise reach a different address than the one the user reads.
        var labels = lowered.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        if let last = labels.last, IPAddressText.isNumericLabel(last) {
            let dotted = Array(labels.joined(separator: [UInt8(ascii: ".")]))
            guard IPAddressText.ipv4Address(dotted) != nil else {
                throw .invalidURL(original, reason: "invalid IPv4 address (expected four decimal numbers 0-255)")
            }
            return String(decoding: dotted, as: UTF8.self)
        }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// RFC 3986 §3.2.3: port = *DIGIT; empty means the default. HTTP needs 1–65535.
    private static func parsePort(
        _ bytes: ArraySlice<UInt8>?, scheme: Scheme, original: String
    ) throws(CodecError) -> Int {
        guard let bytes, !bytes.isEmpty else { return scheme.defaultPort }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw .invalidURL(original, reason: "invalid port \"\(ByteClasses.escapedPreview(bytes))\"")
            }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            if value > 65535 { break }
        }
        guard (1...65535).contains(value) else {
            throw .invalidURL(original, reason: "port \(ByteClasses.escapedPreview(bytes)) out of range 1-65535")
        }
        return value
    }
}

extension TargetURL {
    /// Reading and writing IP address literals: the URL parser's, and the client's `no_proxy` address ranges.
    package enum IPAddressText {
        /// WHATWG URL's "ends in a number" test for a host's last label: all decimal digits, or a `0x` hex
        /// prefix. A host whose last label passes is meant as an IPv4 address and must be exactly one.
        static func isNumericLabel<Bytes: Collection<UInt8>>(_ label: Bytes) -> Bool {
            !label.isEmpty
                && (label.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                    || label.starts(with: "0x".utf8))
        }

        /// RFC 3986 §3.2.2 IPv4address: four decimal numbers 0–255, no leading zeros (`010` means 8 to
        /// inet_aton and 10 to a reader, so it is refused). The address as one 32-bit number, or nil; one
        /// pass, nothing allocated (the URL fast path and `isIPAddress` ask this of every host).
        static func ipv4Address<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt32? {
            var address: UInt32 = 0
            var dots = 0
            var value: UInt32 = 0
            var digits = 0
            for byte in bytes {
                if byte == UInt8(ascii: ".") {
                    guard digits > 0, dots < 3 else { return nil }
                    address = address << 8 | value
                    dots += 1
                    value = 0
                    digits = 0
                } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    // A second digit after a leading 0 is a leading zero; four digits are too many.
                    guard digits == 0 || value != 0, digits < 3 else { return nil }
                    value = value * 10 + UInt32(byte - UInt8(ascii: "0"))
                    guard value <= 255 else { return nil }
                    digits += 1
                } else {
                    return nil
                }
            }
            guard digits > 0, dots == 3 else { return nil }
            return address << 8 | value
        }

        /// The four octets of a dotted IPv4 address (see ``ipv4Address(_:)``), or nil.
        package static func parseIPv4(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
            guard let address = ipv4Address(bytes) else { return nil }
            return [
                UInt8(address >> 24), UInt8(address >> 16 & 0xFF), UInt8(address >> 8 & 0xFF), UInt8(address & 0xFF),
            ]
        }

        /// RFC 4291 §2.2 text forms: eight groups of 1–4 hex digits, one `::` standing for one or more zero
        /// groups, and optionally a dotted IPv4 address as the last 32 bits. Returns the eight groups.
        package static func parseIPv6(_ bytes: ArraySlice<UInt8>) -> [UInt16]? {
            let text = Array(bytes)
            let colon = UInt8(ascii: ":")
            var groups: [UInt16] = []
            var compressedAt: Int?
            var index = 0
            if text.starts(with: [colon, colon]) {
                compressedAt = 0
                index = 2
            } else if text.first == colon {
                return nil
            }
            while index < text.count {
                let start = index
                var value = 0
                while index < text.count, let digit = ByteClasses.hexValue(text[index]) {
                    value = value * 16 + Int(digit)
                    index += 1
                    guard index - start <= 4 else { return nil }
                }
                if index < text.count, text[index] == UInt8(ascii: ".") {
                    // Embedded IPv4 (e.g. ::ffff:192.0.2.1): the last two groups, and the end of the text.
                    guard groups.count <= 6, let octets = parseIPv4(text[start...]) else { return nil }
                    groups.append(UInt16(octets[0]) << 8 | UInt16(octets[1]))
                    groups.append(UInt16(octets[2]) << 8 | UInt16(octets[3]))
                    index = text.count
                    break
                }
                guard index > start else { return nil }
                groups.append(UInt16(value))
                guard index < text.count else { break }
                guard text[index] == colon else { return nil }
                index += 1
                if index < text.count, text[index] == colon {
                    guard compressedAt == nil else { return nil }
                    compressedAt = groups.count
                    index += 1
                } else if index == text.count {
                    return nil  // a single trailing colon
                }
            }
            if let compressedAt {
                guard groups.count <= 7 else { return nil }
                groups.insert(contentsOf: repeatElement(0, count: 8 - groups.count), at: compressedAt)
            }
            return groups.count == 8 ? groups : nil
        }

        /// RFC 5952 §4 canonical text: lowercase hex without leading zeros, the longest run of two or more
        /// zero groups (the first on a tie) written as `::`. One spelling per address, so `[0:0::1]` and
        /// `[::1]` name the same origin.
        static func canonicalIPv6(_ groups: [UInt16]) -> String {
            var bestStart = -1
            var bestLength = 1
            var runStart = -1
            for (index, group) in groups.enumerated() {
                if group == 0 {
                    if runStart < 0 { runStart = index }
                    if index - runStart + 1 > bestLength {
                        bestStart = runStart
                        bestLength = index - runStart + 1
                    }
                } else {
                    runStart = -1
                }
            }
            var text = ""
            var index = 0
            while index < groups.count {
                if index == bestStart {
                    text += "::"
                    index += bestLength
                    continue
                }
                if !text.isEmpty, !text.hasSuffix(":") { text += ":" }
                text += String(groups[index], radix: 16)
                index += 1
            }
            return text
        }
    }
}
