// PercentEncoding: turning typed text into the bytes a URL may carry, and back (RFC 3986 §2).
// Codec layer: pure functions over strings and bytes; no I/O, no Foundation.
//
// A URL on the wire is ASCII. People type spaces, accents and Chinese into address bars, and the old
// Objective-C utilities failed on them (or double-encoded the `%` of an escape that was already there).
// The rule here is the one browsers follow: every byte of the UTF-8 form that the component may not carry
// becomes `%XX`; a `%` that already starts a valid escape is kept, and a lone `%` becomes `%25`.
//
// Three contexts, from RFC 3986 §3.3 and §3.4, and one from the WHATWG URL standard:
//   path       pchar / "/"          pchar = unreserved / pct-encoded / sub-delims / ":" / "@"
//   query      pchar / "/" / "?"
//   component  unreserved only      (a query item's name or value: the text is data, never syntax)
//   form       unreserved only, and a space is "+" (application/x-www-form-urlencoded, a request body)

/// Percent-encoding and decoding for the parts of an HTTP URL, and for form bodies.
package enum PercentEncoding {
    /// Which part of a URL the text is for; each allows a different set of raw bytes.
    package enum Context {
        /// A path: `/` separates segments and stays raw.
        case path
        /// A query: `?` and `/` may stay raw as well (RFC 3986 §3.4).
        case query
        /// One name or value inside a query: everything but unreserved bytes is escaped, including `%`,
        /// so the server decodes exactly the text the caller gave.
        case component
        /// One name or value of an `application/x-www-form-urlencoded` body: like `component`, but a space
        /// is written `+` (WHATWG URL §5.2, the urlencoded serializer). The bytes left raw are RFC 3986's
        /// unreserved set, not WHATWG's: `~` stays raw and `*` becomes `%2A` (WHATWG does the opposite).
        /// Every form decoder reads both spellings alike, and one raw set for queries and forms is one
        /// rule less to learn.
        case form
    }

    /// RFC 3986 §2.3: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~".
    private static let unreservedTable: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
        for byte in "-._~".utf8 { table[Int(byte)] = true }
        return table
    }()

    /// RFC 3986 §3.3: pchar plus "/". Sub-delims are "!$&'()*+,;=".
    static let pathTable: [Bool] = {
        var table = unreservedTable
        for byte in "!$&'()*+,;=:@/".utf8 { table[Int(byte)] = true }
        return table
    }()

    /// RFC 3986 §3.4: query = *( pchar / "/" / "?" ).
    static let queryTable: [Bool] = {
        var table = pathTable
        table[Int(UInt8(ascii: "?"))] = true
        return table
    }()

    private static let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Returns `text` with every byte its context does not allow written as `%XX` (uppercase hex, RFC 3986
    /// §2.1) over the UTF-8 form.
    ///
    /// In the path and query contexts a `%` followed by two hex digits is an escape the caller already
    /// made and is kept as it is: encoding it again would change `%20` into `%2520`, a different URL.
    /// A `%` not followed by two hex digits cannot be an escape and is sent as `%25`.
    package static func encode(_ text: some StringProtocol, for context: Context) -> String {
        let table: [Bool]
        switch context {
        case .path: table = pathTable
        case .query: table = queryTable
        case .component, .form: table = unreservedTable
        }
        let keepsEscapes = context == .path || context == .query
        let spaceIsPlus = context == .form
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 2)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if table[Int(byte)] {
                output.append(byte)
            } else if spaceIsPlus, byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else if keepsEscapes, byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                ByteClasses.hexValue(bytes[index + 1]) != nil, ByteClasses.hexValue(bytes[index + 2]) != nil
            {
                output.append(contentsOf: bytes[index...(index + 2)])
                index += 3
                continue
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(upperHexDigits[Int(byte >> 4)])
                output.append(upperHexDigits[Int(byte & 0x0F)])
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` stands for: each valid `%XX` becomes one byte, anything else is copied. Used for
    /// file names taken from a URL, never for building a request target.
    package static func decode(_ text: some StringProtocol) -> [UInt8] {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = ByteClasses.hexValue(bytes[index + 1]), let low = ByteClasses.hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }
}
