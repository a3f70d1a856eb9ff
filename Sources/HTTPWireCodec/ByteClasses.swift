// ByteClasses: the character classes of the HTTP grammar as lookup tables.
// Codec layer: pure functions over bytes; no I/O, no Foundation.
//
// RFC 9110 §5.6.2 defines `token` (field names, methods, transfer codings) and RFC 9110 §5.5 the bytes a
// field value may hold. A 256-entry table answers "is this byte allowed here?" with one load, which keeps
// the hot parsing loops branch-light.

/// Byte constants and character-class tests used by the parsers and encoders.
///
/// Every test is a table lookup, so callers can run them on each byte of a head without measurable cost.
public enum ByteClasses {
    /// Carriage return, `\r`.
    public static let cr: UInt8 = 0x0D
    /// Line feed, `\n`.
    public static let lf: UInt8 = 0x0A
    /// Space.
    public static let space: UInt8 = 0x20
    /// Horizontal tab.
    public static let tab: UInt8 = 0x09
    /// `:` separates a field name from its value (RFC 9112 §5).
    public static let colon: UInt8 = 0x3A

    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`"
    /// / "|" / "~" / DIGIT / ALPHA.
    private static let tokenTable: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
        for scalar in "!#$%&'*+-.^_`|~".utf8 { table[Int(scalar)] = true }
        return table
    }()

    /// RFC 9110 §5.5: field-value bytes are VCHAR, obs-text (0x80–0xFF), SP and HTAB. CR, LF and NUL are
    /// never allowed: accepting them is how header injection and response splitting start.
    private static let fieldValueTable: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in 0x21...0xFF { table[byte] = true }
        table[0x7F] = false  // DEL is not VCHAR
        table[Int(space)] = true
        table[Int(tab)] = true
        return table
    }()

    /// True when `byte` may appear in a token (field names, methods, codings).
    @inline(__always)
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        tokenTable.withUnsafeBufferPointer { $0[Int(byte)] }
    }

    /// True when `byte` may appear inside a field value.
    @inline(__always)
    public static func isFieldValueByte(_ byte: UInt8) -> Bool {
        fieldValueTable.withUnsafeBufferPointer { $0[Int(byte)] }
    }

    /// True for SP and HTAB, the optional whitespace (OWS) of RFC 9110 §5.6.3.
    @inline(__always)
    public static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// True when every byte of `text` is a token byte and `text` is not empty.
    public static func isToken(_ text: some StringProtocol) -> Bool {
        var sawByte = false
        for byte in text.utf8 {
            guard isTokenByte(byte) else { return false }
            sawByte = true
        }
        return sawByte
    }

    /// ASCII lowercase of one byte; other bytes are returned unchanged.
    @inline(__always)
    public static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    /// The value of a hexadecimal digit, or nil.
    @inline(__always)
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte &- 0x30
        case 0x41...0x46: return byte &- 0x41 &+ 10
        case 0x61...0x66: return byte &- 0x61 &+ 10
        default: return nil
        }
    }

    /// Renders up to `limit` bytes for an error message: printable ASCII as is, everything else escaped
    /// (`\r`, `\n`, `\x16`), so a hostile peer cannot put control characters on the user's terminal.
    public static func escapedPreview(_ bytes: some Sequence<UInt8>, limit: Int = 32) -> String {
        var text = ""
        var count = 0
        for byte in bytes {
            if count == limit {
                text += "..."
                break
            }
            count += 1
            switch byte {
            case cr: text += "\\r"
            case lf: text += "\\n"
            case tab: text += "\\t"
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789abcdef".utf8)
                text += "\\x"
                text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
                text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0F)]))
            }
        }
        return text
    }
}
