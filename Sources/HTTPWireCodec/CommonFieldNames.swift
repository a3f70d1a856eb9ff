// CommonFieldNames: the field names nearly every response carries, as ready-made strings.
// Codec layer: a pure lookup over bytes; no I/O, no allocation.
//
// Making a String from received bytes validates them as UTF-8 and builds a new value: ~190 instructions a
// field line, nine times for a typical nginx head, on every response. The names themselves hardly vary:
// `Date`, `Server`, `Content-Type`, `Content-Length`... When the bytes spell one of them exactly (same case;
// the name is kept as received, RFC 9110 §5.1 only makes the comparison case-insensitive), the parser takes
// the literal instead. Anything else, including the same name in another case, is decoded as before.
// The lookup is a switch on the length rather than a table: a table of strings compared with
// `elementsEqual` cost 3,000 instructions per response more than it saved (callgrind).

enum CommonFieldNames {
    /// The literal spelled by `bytes`, or nil when `bytes` is not one of the common names as written here.
    static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch bytes.count {
        case 4:
            if spells(bytes, "Date") { return "Date" }
            if spells(bytes, "ETag") { return "ETag" }
            if spells(bytes, "Vary") { return "Vary" }
        case 6:
            if spells(bytes, "Server") { return "Server" }
        case 7:
            if spells(bytes, "Expires") { return "Expires" }
        case 8:
            if spells(bytes, "Location") { return "Location" }
        case 10:
            if spells(bytes, "Connection") { return "Connection" }
            if spells(bytes, "Set-Cookie") { return "Set-Cookie" }
            if spells(bytes, "Keep-Alive") { return "Keep-Alive" }
        case 12:
            if spells(bytes, "Content-Type") { return "Content-Type" }
        case 13:
            if spells(bytes, "Last-Modified") { return "Last-Modified" }
            if spells(bytes, "Accept-Ranges") { return "Accept-Ranges" }
            if spells(bytes, "Cache-Control") { return "Cache-Control" }
            if spells(bytes, "Content-Range") { return "Content-Range" }
        case 14:
            if spells(bytes, "Content-Length") { return "Content-Length" }
        case 16:
            if spells(bytes, "Content-Encoding") { return "Content-Encoding" }
        case 17:
            if spells(bytes, "Transfer-Encoding") { return "Transfer-Encoding" }
        default:
            break
        }
        return nil
    }

    /// Whether `bytes` are exactly the UTF-8 of `name` (the caller has checked the length).
    @inline(__always)
    private static func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        name.withUTF8Buffer { expected in
            for index in 0..<expected.count where bytes[index] != expected[index] { return false }
            return true
        }
    }
}
