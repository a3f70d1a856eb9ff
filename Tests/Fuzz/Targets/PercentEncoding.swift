// PercentEncoding: the libFuzzer target for percent-encoding and decoding (RFC 3986 §2.1, §3.3, §3.4).
// Test tooling for the codec layer, built by Tests/Fuzz/fuzz.sh against HTTPWireCodec; not a SwiftPM target.
//
// An input is any text (invalid UTF-8 arrives as U+FFFD, as in a String the client was given). For each of
// the three contexts the encoded form must be plain URL text — printable ASCII where every byte is one the
// context allows raw or part of a `%XX` escape — and encoding must round-trip:
// - a query item's name or value (component) decodes back to exactly the text's UTF-8 bytes;
// - a path or query keeps the escapes the caller already made, so encoding twice changes nothing and the
//   encoded form decodes to what the text itself decodes to (`%20` stays a space, never `%2520`).
// Decoding never makes bytes out of nothing: it is at most as long as its input.
//
// fuzz-module: HTTPWireCodec
// fuzz-seeds: Fixtures/fuzz/PercentEncoding
// fuzz-max-len: 512

@testable import HTTPWireCodec

/// libFuzzer calls this once per generated input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPercentEncoding(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = FuzzInput(data, size).text
    let decoded = PercentEncoding.decode(text)
    FuzzCheck.expect(decoded.count <= text.utf8.count, "decoding \(text.debugDescription) made bytes")
    for context in [PercentEncoding.Context.path, .query, .component, .form] {
        let encoded = PercentEncoding.encode(text, for: context)
        PercentEncodingFuzz.checkShape(encoded, context: context, text: text)
        if context == .form {
            // A form writes a space as `+` and every other byte outside unreserved as an escape (a `+` of the
            // text itself is `%2B`), so reading `+` back as a space gives the text again.
            let spaces = encoded.split(separator: "+", omittingEmptySubsequences: false).joined(separator: "%20")
            FuzzCheck.expect(
                PercentEncoding.decode(spaces) == Array(text.utf8), "form round trip of \(text.debugDescription)")
        } else if context == .component {
            FuzzCheck.expect(
                PercentEncoding.decode(encoded) == Array(text.utf8), "\(context) round trip of \(text.debugDescription)"
            )
        } else {
            FuzzCheck.expect(
                PercentEncoding.encode(encoded, for: context) == encoded, "\(context) encoding twice: \(encoded)")
            FuzzCheck.expect(
                PercentEncoding.decode(encoded) == decoded, "\(context) encoding changed what \(text) stands for")
        }
    }
    return 0
}

/// The byte classes of RFC 3986, written out again here so the check does not trust the encoder's tables.
enum PercentEncodingFuzz {
    /// unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" (§2.3).
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// The bytes `context` may carry unescaped: pchar and "/" for a path (§3.3), "?" too for a query (§3.4), and
    /// "+" (a space) for a form (WHATWG URL §5.2).
    static func isAllowedRaw(_ byte: UInt8, in context: PercentEncoding.Context) -> Bool {
        if isUnreserved(byte) { return true }
        switch context {
        case .component: return false
        case .form: return byte == UInt8(ascii: "+")
        case .path: return "!$&'()*+,;=:@/".utf8.contains(byte)
        case .query: return "!$&'()*+,;=:@/?".utf8.contains(byte)
        }
    }

    /// Fails unless every byte of `encoded` is allowed raw in `context` or belongs to a `%XX` escape.
    static func checkShape(_ encoded: String, context: PercentEncoding.Context, text: String) {
        let bytes = Array(encoded.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                FuzzCheck.expect(
                    index + 2 < bytes.count && ByteClasses.hexValue(bytes[index + 1]) != nil
                        && ByteClasses.hexValue(bytes[index + 2]) != nil,
                    "\(context): a % that is not an escape in \(encoded) (from \(text.debugDescription))")
                index += 3
            } else {
                FuzzCheck.expect(
                    isAllowedRaw(bytes[index], in: context),
                    "\(context): raw byte \(bytes[index]) in \(encoded) (from \(text.debugDescription))")
                index += 1
            }
        }
    }
}
