// SetCookie: the libFuzzer target for `Set-Cookie` parsing (RFC 6265 §5.2) and the cookie-date algorithm
// (§5.1.1) it uses for `Expires`. Test tooling for the codec layer, built by Tests/Fuzz/fuzz.sh against
// HTTPWireCodec; not a SwiftPM target.
//
// An input is one `Set-Cookie` field value, as a server controls it completely. Properties:
// - more bytes than the limit is never a cookie; a parsed cookie has a non-empty name without `=`, and no
//   name, value, domain or path holds a control character other than tab or a `;` (either would let a
//   server smuggle a second cookie or a header line into the `Cookie` field the jar sends back);
// - names and values are trimmed of spaces and tabs; a domain has no ASCII upper-case letter and one leading
//   dot removed (§5.2.3 removes one: `Domain=..a` gives ".a", which no host domain-matches); a path's first
//   byte is `/`;
// - `name=value` alone parses back to the same name and value (the pair is what goes back to the server);
// - the whole input read as a cookie date is an instant from 1601 to 9999, or nothing.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/SetCookie
// fuzz-max-len: 4200

@testable import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSetCookie(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let text = input.text
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        FuzzCheck.expect(condition, "\(text.prefix(200).debugDescription): \(message())")
    }
    if let instant = CookieDate.secondsSinceEpoch(parsing: text) {
        expect((-11_644_473_600...253_402_300_799).contains(instant), "a cookie date at \(instant)")
    }
    guard let cookie = SetCookie(parsing: text) else { return 0 }
    expect(text.utf8.count <= SetCookie.defaultMaxBytes, "a cookie of \(text.utf8.count) bytes")
    expect(!cookie.name.isEmpty && !cookie.name.contains("="), "the name \(cookie.name.debugDescription)")
    for part in [cookie.name, cookie.value, cookie.domain ?? "", cookie.path ?? ""] {
        expect(SetCookieFuzz.isClean(part), "a control character or ; in \(part.debugDescription)")
    }
    for part in [cookie.name, cookie.value] {
        expect(SetCookieFuzz.isTrimmed(part), "untrimmed \(part.debugDescription)")
    }
    // Byte-wise, as the RFC's "characters" are: `hasPrefix` compares Characters, and "/" followed by a
    // combining mark is one Character that is not "/" (a fuzzer finding, seed fuzz-path-slash-combining-mark).
    if let domain = cookie.domain {
        let bytes = Array(domain.utf8)
        let keptDot =
            bytes.first != UInt8(ascii: ".")
            || SetCookieFuzz.bytes(SetCookieFuzz.asciiLowercased(text), contain: Array(("." + domain).utf8))
        let isLower = !bytes.contains { (0x41...0x5A).contains($0) }
        expect(keptDot && isLower, "the domain \(domain.debugDescription)")
    }
    if let path = cookie.path { expect(path.utf8.first == UInt8(ascii: "/"), "the path \(path.debugDescription)") }
    let pair = SetCookie(parsing: cookie.name + "=" + cookie.value)
    expect(pair?.name == cookie.name && pair?.value == cookie.value, "name=value did not parse back")
    return 0
}

/// The string checks behind the entry point.
enum SetCookieFuzz {
    /// No control character but tab, no DEL, no `;`.
    static func isClean(_ text: String) -> Bool {
        !text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F || $0 == UInt8(ascii: ";") }
    }

    /// The text with ASCII letters lower-cased and every other byte as it was (the parser's rule for a domain).
    static func asciiLowercased(_ text: String) -> [UInt8] {
        text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// Whether `needle` occurs in `haystack` as consecutive bytes.
    static func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    /// No space or tab at either end.
    static func isTrimmed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        return !(bytes.first.map(isWhitespace) ?? false) && !(bytes.last.map(isWhitespace) ?? false)
    }
}
