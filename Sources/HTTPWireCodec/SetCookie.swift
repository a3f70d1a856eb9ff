// SetCookie: one `Set-Cookie` field value read into a name, a value and the attributes RFC 6265 §5.2 knows.
// Codec layer: a pure function over the text of one field value; no clock, no jar, no request URL.
//
// RFC 6265 §4.1 tells servers what to send; §5.2 tells user agents how to read whatever servers actually
// send, and it is lenient by design: split at the first `;` into the name-value pair and the attributes,
// split each at its first `=`, trim the whitespace, match attribute names without regard to case, and
// ignore what is not understood — an unknown attribute, an `Expires` that is not a date, a `Max-Age` that
// is not a number. Only three things drop the whole field: no `=` in the pair, an empty name, and (our
// limits, RFC 6265 §6.1 and draft-ietf-httpbis-rfc6265bis §5.6) control characters or more bytes than the
// limit. What the attributes *mean* — the expiry instant, whether the domain is acceptable for the request
// host, the default path — is the storage model's (§5.3), in the library's `CookieJar`, which knows the
// request's URL and the time.

/// A parsed `Set-Cookie` field value (RFC 6265 §5.2): the cookie's name and value and the attributes as
/// the server wrote them, checked for syntax only.
///
/// ```swift
/// let cookie = SetCookie(parsing: "SID=31d4d96e407aad42; Path=/; Domain=.Example.COM; Secure; HttpOnly")
/// cookie?.name       // "SID"
/// cookie?.domain     // "example.com"   (leading dot dropped, lower-cased: §5.2.3)
/// cookie?.isSecure   // true
/// ```
///
/// When an attribute appears twice the last one counts, as §5.3 reads "the last attribute in the
/// cookie-attribute-list" with each name.
package struct SetCookie: Sendable, Hashable {
    /// The cookie's name, whitespace trimmed; never empty.
    package var name: String
    /// The cookie's value, whitespace trimmed, exactly as sent otherwise (quotes included: §5.2 does not
    /// remove them, and the value goes back to the server as it came).
    package var value: String
    /// `Expires` read by the cookie-date algorithm (§5.1.1), in seconds since the epoch; nil when absent
    /// or not a date.
    package var expires: Int64?
    /// `Max-Age` in seconds (§5.2.2): zero or negative means "expire now". Wins over ``expires`` (§5.3 step
    /// 3). Values beyond `Int64` are clamped.
    package var maxAge: Int64?
    /// `Domain` without a leading dot, lower-cased (§5.2.3); nil when absent or empty (an empty value is
    /// ignored, as §5.2.3 says a user agent SHOULD).
    package var domain: String?
    /// `Path` when it starts with `/` (§5.2.4); nil otherwise, which means the default path (§5.1.4).
    package var path: String?
    /// `Secure` (§5.2.5): send only over a secure channel (https).
    package var isSecure = false
    /// `HttpOnly` (§5.2.6): not for scripts. An HTTP client sends it like any other cookie.
    package var isHTTPOnly = false
    /// `SameSite` as written (`Strict`, `Lax`, `None`), kept for the cookie file and callers; RFC 6265bis
    /// §5.6.7 defines it for browsing contexts, which an HTTP client has none of, so it changes nothing here.
    package var sameSite: String?

    /// The most bytes a `Set-Cookie` value may have to be read at all: RFC 6265 §6.1 asks user agents to
    /// accept at least 4096 bytes per cookie (name, value and attributes), and that minimum is the limit
    /// browsers apply too.
    package static let defaultMaxBytes = 4096

    /// Parses one `Set-Cookie` field value, or returns nil when §5.2 says to ignore it entirely: no `=` in
    /// the name-value pair, an empty name, a control character other than tab (RFC 6265bis §5.6 step 1; a
    /// NUL or bare CR would otherwise travel into a `Cookie` field), or more than `maxBytes` bytes.
    package init?(parsing text: some StringProtocol, maxBytes: Int = SetCookie.defaultMaxBytes) {
        let bytes = Array(text.utf8.prefix(maxBytes + 1))
        guard bytes.count <= maxBytes, !bytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
            return nil
        }
        // §5.2 step 1: the name-value pair ends at the first `;`, the attributes are the rest.
        var sections = bytes.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)[...]
        let pair = sections.removeFirst()
        // Steps 2–5: a pair without `=` or with an empty name is no cookie.
        guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = Self.trimmed(pair[pair.startIndex..<equals])
        guard !name.isEmpty else { return nil }
        self.name = String(decoding: name, as: UTF8.self)
        self.value = String(decoding: Self.trimmed(pair[(equals + 1)...]), as: UTF8.self)
        for section in sections { read(attribute: section) }
    }

    /// §5.2 "parse the unparsed-attributes": one `cookie-av`, split at its first `=`, name matched without
    /// regard to case (§5.2.1–§5.2.6); anything unknown is ignored.
    private mutating func read(attribute section: ArraySlice<UInt8>) {
        let equals = section.firstIndex(of: UInt8(ascii: "="))
        let nameBytes = Self.trimmed(section[section.startIndex..<(equals ?? section.endIndex)])
        let valueBytes = equals.map { Self.trimmed(section[($0 + 1)...]) } ?? []
        let value = String(decoding: valueBytes, as: UTF8.self)
        switch String(decoding: nameBytes, as: UTF8.self).lowercased() {
        case "expires":
            // §5.2.1: a value that is not a cookie-date makes the attribute be ignored.
            if let instant = CookieDate.secondsSinceEpoch(parsing: value) { expires = instant }
        case "max-age":
            if let seconds = Self.deltaSeconds(valueBytes) { maxAge = seconds }
        case "domain":
            // §5.2.3: a leading dot is dropped ("the user agent ignores it"), the rest lower-cased. Only ASCII
            // letters change: a host is ASCII on the wire (an IDN travels as its A-label), so a non-ASCII
            // domain matches no host whatever its case, and bytes keep the answer free of Unicode tables.
            var domain = valueBytes
            if domain.first == UInt8(ascii: ".") { domain.removeFirst() }
            if !domain.isEmpty { self.domain = String(decoding: domain.map(ByteClasses.lowercased), as: UTF8.self) }
        case "path":
            // §5.2.4: an empty path, or one not starting with `/`, is the default path.
            path = valueBytes.first == UInt8(ascii: "/") ? value : nil
        case "secure": isSecure = true
        case "httponly": isHTTPOnly = true
        case "samesite": sameSite = value
        default: break
        }
    }

    /// §5.2.2: the first character a digit or `-`, the rest digits; anything else ignores the attribute.
    /// A number too large for `Int64` is clamped to its limit (it means "a very long time" either way).
    private static func deltaSeconds(_ bytes: ArraySlice<UInt8>) -> Int64? {
        let isNegative = bytes.first == UInt8(ascii: "-")
        let digits = isNegative ? bytes.dropFirst() : bytes
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var magnitude: Int64 = 0
        for digit in digits {
            let (times10, overflowTimes) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times10.addingReportingOverflow(Int64(digit - 0x30))
            if overflowTimes || overflowSum { return isNegative ? Int64.min : Int64.max }
            magnitude = sum
        }
        return isNegative ? -magnitude : magnitude
    }

    /// Without leading and trailing WSP (space and tab: §5.2 steps 4 and "remove any leading or trailing WSP").
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
            let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return [] }
        return bytes[first...last]
    }
}
