// FieldLineParser: turns the field lines of a head or trailer section into HTTPFields.
// Codec layer: a pure function over a complete, already delimited block of bytes; no I/O, no buffering.
//
// Shared by the response head, the request head (server side) and chunked trailers, so one set of rules
// applies everywhere (RFC 9112 §5):
//   field-line = field-name ":" OWS field-value OWS
// Leniencies and strictness, each with its rule:
// - Lines may end in CRLF or a bare LF (RFC 9112 §2.2: a recipient MAY accept LF alone).
// - A CR anywhere else is refused (§2.2: a bare CR MUST be treated as invalid or replaced by SP; we refuse,
//   since a peer that emits one is already mis-framing its lines).
// - NUL in a value is refused (RFC 9110 §5.5: CR, LF and NUL are "invalid and dangerous" and a recipient
//   MUST reject the message or replace them; a C-based hop would truncate the value there). Other control
//   bytes are kept, which §5.5 allows "for the sake of robustness".
// - obs-text (0x80–0xFF) is kept, decoded as UTF-8 with replacement characters.
// - Whitespace between the name and the colon is refused (§5.1 MUST for servers; for responses we choose
//   the same, because a hop that strips it and a hop that keeps it see two different field names: the
//   shape of response splitting and cache poisoning).
// - obs-fold (a line starting with SP or HTAB) is replaced by one SP in responses (§5.2: a user agent MUST
//   replace it) and refused in requests (§5.2 lets a server reject, and a folded line that one hop joins
//   and another does not is a smuggling vector).

/// Field lines parsed from a head, plus the positions of the fields that decide framing and reuse.
struct ParsedFields: Sendable {
    /// Every field in order.
    var fields: HTTPFields
    /// Values of every `Content-Length` field, in order (RFC 9110 §8.6).
    var contentLength = FieldValues()
    /// Values of every `Transfer-Encoding` field, in order (RFC 9112 §6.1).
    var transferEncoding = FieldValues()
    /// Values of every `Connection` field, in order (RFC 9110 §7.6.1).
    var connection = FieldValues()

    /// Collects the value of a framing field.
    mutating func append(_ value: String, to kind: FieldLineParser.FramingName) {
        switch kind {
        case .contentLength: contentLength.append(value)
        case .transferEncoding: transferEncoding.append(value)
        case .connection: connection.append(value)
        }
    }

    /// Replaces the last collected value of `kind` (its line was continued by an obs-fold).
    mutating func replaceLastValue(of kind: FieldLineParser.FramingName, with value: String) {
        switch kind {
        case .contentLength: contentLength.replaceLast(with: value)
        case .transferEncoding: transferEncoding.replaceLast(with: value)
        case .connection: connection.replaceLast(with: value)
        }
    }
}

/// The values of one framing field, in order. Nearly every message has at most one of each, so the first
/// value is stored inline and only a second one allocates: an array per field name would cost an allocation
/// per response for `Content-Length` and another for `Connection`.
struct FieldValues: RandomAccessCollection, Sendable {
    private var first: String?
    private var more: [String] = []

    /// No values.
    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { first == nil ? 0 : 1 + more.count }
    subscript(position: Int) -> String {
        precondition(position >= 0 && position < endIndex, "value \(position) of \(endIndex)")
        return position == 0 ? first! : more[position - 1]
    }

    /// Adds a value at the end.
    mutating func append(_ value: String) {
        if first == nil { first = value } else { more.append(value) }
    }

    /// Replaces the last value; there must be one.
    mutating func replaceLast(with value: String) {
        if more.isEmpty { first = value } else { more[more.count - 1] = value }
    }
}

/// Parses field lines. Stateless: the caller hands it a whole block.
enum FieldLineParser {
    /// The field names the framing decision looks at, recognised while parsing so the decoders never
    /// search the field list again.
    enum FramingName {
        case contentLength, transferEncoding, connection
    }

    /// Parses `bytes`, a run of field lines each ended by LF (with or without CR), without the empty line
    /// that closes the section. `lineCount` is the number of lines (a capacity hint and a cheap first test
    /// of the field-count limit).
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, lineCount: Int, allowsObsFold: Bool, maxFieldCount: Int
    ) throws(CodecError) -> ParsedFields {
        if lineCount > maxFieldCount {
            let seen = countFieldLines(bytes)
            if seen > maxFieldCount { throw .tooManyFields(limit: maxFieldCount, seen: seen) }
        }
        var list: [HTTPField] = []
        list.reserveCapacity(lineCount)
        var parsed = ParsedFields(fields: HTTPFields())
        // The framing fields' values are collected as the lines go by (no second search, no list of
        // indices to allocate); `lastFraming` says which of them the latest line was, so an obs-fold
        // continuation of that line reaches its collected value too.
        var lastFraming: FramingName?
        var lineStart = 0
        while lineStart < bytes.count {
            let lineFeed = ByteSearch.firstIndex(of: ByteClasses.lf, in: bytes, from: lineStart, to: bytes.count)
            var lineEnd = lineFeed
            if lineEnd > lineStart && bytes[lineEnd - 1] == ByteClasses.cr { lineEnd -= 1 }
            try checkLineBytes(bytes, lineStart, lineEnd)

            if ByteClasses.isWhitespace(bytes[lineStart]) {
                // RFC 9112 §5.2 obs-fold; RFC 9112 §2.2: whitespace before the first field line is refused too.
                guard allowsObsFold, !list.isEmpty else {
                    throw .invalidFieldLine(preview: preview(bytes, lineStart, lineEnd))
                }
                let continuation = trimmedString(bytes, lineStart, lineEnd)
                if !continuation.isEmpty {
                    let last = list.count - 1
                    list[last].value = list[last].value.isEmpty ? continuation : list[last].value + " " + continuation
                    if let kind = lastFraming { parsed.replaceLastValue(of: kind, with: list[last].value) }
                }
            } else {
                let field = try parseLine(bytes, lineStart, lineEnd)
                lastFraming = framingName(bytes, lineStart, field.nameEnd)
                if let kind = lastFraming { parsed.append(field.field.value, to: kind) }
                list.append(field.field)
            }
            lineStart = lineFeed + 1
        }
        parsed.fields = HTTPFields(list)
        return parsed
    }

    /// Refuses a bare CR or a NUL anywhere in a line (see the file comment for the rules).
    @inline(__always)
    private static func checkLineBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) throws(CodecError)
    {
        // The first CR or NUL decides the error, as a byte-by-byte scan would.
        let found = ByteSearch.firstIndex(of: ByteClasses.cr, or: 0, in: bytes, from: start, to: end)
        guard found == end else {
            if bytes[found] == ByteClasses.cr { throw .bareCarriageReturn }
            throw .invalidFieldLine(preview: preview(bytes, start, end))
        }
    }

    /// One `name: value` line: the name must be a non-empty token directly followed by the colon.
    private static func parseLine(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int
    ) throws(CodecError) -> (field: HTTPField, nameEnd: Int) {
        var colon = start
        while colon < end && isNameByte(bytes[colon]) { colon += 1 }
        // No colon, an empty name, or a non-token byte (including SP/HTAB before the colon, RFC 9112 §5.1).
        guard colon < end, colon > start, bytes[colon] == ByteClasses.colon else {
            throw .invalidFieldLine(preview: preview(bytes, start, end))
        }
        let nameBytes = UnsafeBufferPointer(rebasing: bytes[start..<colon])
        let name = CommonFieldNames.name(nameBytes) ?? String(decoding: nameBytes, as: UTF8.self)
        let value = trimmedString(bytes, colon + 1, end)
        return (HTTPField(name: name, value: value), colon)
    }

    /// A token byte (RFC 9110 §5.6.2), with letters, digits and "-" answered without the table lookup:
    /// they are nearly every byte of a real field name.
    @inline(__always)
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return ByteClasses.isTokenByte(byte)
        }
    }

    /// The bytes between `start` and `end` without leading and trailing OWS, as a String (obs-text decoded
    /// with replacement characters).
    @inline(__always)
    static func trimmedString(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var low = start
        var high = end
        while low < high && ByteClasses.isWhitespace(bytes[low]) { low += 1 }
        while high > low && ByteClasses.isWhitespace(bytes[high - 1]) { high -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[low..<high]), as: UTF8.self)
    }

    /// Recognises Content-Length, Transfer-Encoding and Connection by length first, then bytes.
    @inline(__always)
    private static func framingName(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> FramingName? {
        switch end - start {
        case 10: return matches(bytes, start, "connection") ? .connection : nil
        case 14: return matches(bytes, start, "content-length") ? .contentLength : nil
        case 17: return matches(bytes, start, "transfer-encoding") ? .transferEncoding : nil
        default: return nil
        }
    }

    /// ASCII case-insensitive comparison of the bytes at `start` with a lowercase name (RFC 9110 §5.1).
    @inline(__always)
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ name: StaticString) -> Bool {
        name.withUTF8Buffer { expected in
            for offset in 0..<expected.count where ByteClasses.lowercased(bytes[start + offset]) != expected[offset] {
                return false
            }
            return true
        }
    }

    /// Field lines in `bytes` that are not obs-fold continuations, for the tooManyFields error.
    private static func countFieldLines(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        var atLineStart = true
        for byte in bytes {
            if atLineStart && !ByteClasses.isWhitespace(byte) { count += 1 }
            atLineStart = byte == ByteClasses.lf
        }
        return count
    }

    /// An escaped preview of one line for an error message.
    static func preview(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        ByteClasses.escapedPreview(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }
}
