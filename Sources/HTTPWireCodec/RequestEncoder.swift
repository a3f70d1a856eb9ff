// RequestEncoder: a RequestHead and its body framing, written as HTTP/1.1 bytes.
// Codec layer: appends to a caller's byte buffer; no I/O, no String building on the hot path.
//
// RFC 9112 §3 and §5: request-line CRLF, then `name: value` CRLF per field, then CRLF. Everything the caller
// controls is checked before a byte is written, because this is where header injection happens: a value
// holding "\r\n" would end the field early and let caller data start a new field, or a whole second
// request, on a connection other users share (RFC 9110 §5.5, RFC 9112 §2.2). A bad head is a thrown
// CodecError, never a crash and never half a head in the buffer.
//
// The body framing field is the encoder's, not the caller's: it writes `Content-Length` or
// `Transfer-Encoding: chunked` from `RequestBodyFraming` and refuses fields that already carry one, so the
// head can never announce a body length other than the one the body writer produces (RFC 9112 §6.3).

/// How the request body is delimited on the wire (RFC 9112 §6).
public enum RequestBodyFraming: Sendable, Hashable {
    /// No body and no framing field. A `POST` or `PUT` with an empty body should use `.contentLength(0)`
    /// instead, since RFC 9110 §8.6 asks a client to state a zero length for methods that expect content.
    case none
    /// A body of exactly this many bytes: `Content-Length: n` (RFC 9110 §8.6).
    case contentLength(Int64)
    /// A body of unknown length, sent in chunks: `Transfer-Encoding: chunked` (RFC 9112 §7.1). Write the
    /// body with ``ChunkedEncoder``.
    case chunked
}

/// Writes request heads and checks fields, methods and targets before they reach the wire.
///
/// ```swift
/// var bytes: [UInt8] = []
/// let head = RequestHead(method: .post, target: "/upload", fields: ["Host": "example.com"])
/// try RequestEncoder.encodeHead(head, framing: .contentLength(5), into: &bytes)
/// // "POST /upload HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\n"
/// ```
public enum RequestEncoder {
    /// Appends the request line, the fields in the order given, the framing field and the blank line.
    ///
    /// Throws ``CodecError/invalidMethod(_:)`` for a method that is not a token,
    /// ``CodecError/invalidURL(_:reason:)`` for a target with spaces or control bytes,
    /// ``CodecError/invalidFieldName(_:)``, ``CodecError/invalidFieldValue(name:)``,
    /// ``CodecError/framingFieldNotAllowed(name:)`` for a caller-supplied `Content-Length` or
    /// `Transfer-Encoding`, and ``CodecError/invalidContentLength(_:)`` for a negative length.
    /// When it throws, `buffer` is unchanged. Field values with bytes 0x80–0xFF are sent as their UTF-8
    /// bytes (RFC 9110 §5.5 obs-text); the encoder does not transcode them.
    public static func encodeHead(
        _ head: RequestHead, framing: RequestBodyFraming, into buffer: inout [UInt8]
    ) throws(CodecError) {
        try validate(head.method)
        try validateTarget(head.target)
        if case .contentLength(let length) = framing, length < 0 {
            throw .invalidContentLength(String(length))
        }
        // One reservation for the whole head: the line, each field plus ": " and CRLF, the framing field
        // (at most "Transfer-Encoding: chunked\r\n", 28 bytes, or a 19-digit length) and the final CRLF.
        var size = head.method.rawValue.utf8.count + head.target.utf8.count + 16 + 40 + 2
        for field in head.fields {
            try validate(field)
            if isFramingFieldName(field.name) { throw .framingFieldNotAllowed(name: field.name) }
            size += field.name.utf8.count + field.value.utf8.count + 4
        }
        buffer.reserveCapacity(buffer.count + size)

        appendUTF8(head.method.rawValue, into: &buffer)
        buffer.append(ByteClasses.space)
        appendUTF8(head.target, into: &buffer)
        buffer.append(ByteClasses.space)
        appendVersion(head.version, into: &buffer)
        appendCRLF(into: &buffer)
        appendFields(head.fields, into: &buffer)
        switch framing {
        case .none:
            break
        case .contentLength(let length):
            buffer.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(UInt64(length), into: &buffer)
            appendCRLF(into: &buffer)
        case .chunked:
            buffer.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        }
        appendCRLF(into: &buffer)
    }

    // MARK: Validation the client can run early

    /// Checks request fields as ``encodeHead(_:framing:into:)`` will: names are tokens, values hold no
    /// CR, LF, NUL or other control byte, and no field is `Content-Length` or `Transfer-Encoding`.
    /// Call it when a request is built, so a bad field fails at the call that made it, before any
    /// connection is opened.
    public static func validate(_ fields: HTTPFields) throws(CodecError) {
        for field in fields {
            try validate(field)
            if isFramingFieldName(field.name) { throw .framingFieldNotAllowed(name: field.name) }
        }
    }

    /// Checks one field's syntax: the name is a token (RFC 9110 §5.1) and the value is made of VCHAR,
    /// obs-text, SP and HTAB only (RFC 9110 §5.5).
    public static func validate(_ field: HTTPField) throws(CodecError) {
        guard isToken(field.name) else { throw .invalidFieldName(field.name) }
        guard isValidFieldValue(field.value) else { throw .invalidFieldValue(name: field.name) }
    }

    /// Checks that a method is a token (RFC 9110 §9.1): `GET`, `PROPFIND`, never `GET /x` or `GET\r\n`.
    public static func validate(_ method: Method) throws(CodecError) {
        guard isToken(method.rawValue) else { throw .invalidMethod(method.rawValue) }
    }

    /// RFC 9112 §3.2: every request-target form is visible ASCII without spaces. A space would split the
    /// request line; TargetURL percent-encodes paths so that this never fires for targets it made.
    static func validateTarget(_ target: String) throws(CodecError) {
        guard !target.isEmpty, allBytes(of: target, satisfy: { $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidURL(target, reason: "request target must be visible ASCII without spaces")
        }
    }

    // MARK: Byte scans
    //
    // The encoder checks every byte of every head it writes, so these scans must cost next to nothing. They
    // are the branch-only forms of ByteClasses' tables (a test checks that they agree on every ASCII byte): a table behind a
    // lazily initialised global costs a `swift_once` call per byte, which dominated encoding time.

    /// True when `text` is a non-empty token (RFC 9110 §5.6.2).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && allBytes(of: text, satisfy: isTokenByte)
    }

    /// True when every byte may appear in a field value (RFC 9110 §5.5).
    static func isValidFieldValue(_ value: String) -> Bool {
        allBytes(of: value, satisfy: isFieldValueByte)
    }

    /// tchar as a 128-bit set split over two words: bit `n` is set when byte `n` is a tchar. The low word
    /// holds digits and ! # $ % & ' * + - . ; the high word letters and ^ _ ` | ~.
    private static var tokenBitsLow: UInt64 { 0x03FF_6CFA_0000_0000 }
    private static var tokenBitsHigh: UInt64 { 0x57FF_FFFF_C7FF_FFFE }

    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        if byte < 64 { return (tokenBitsLow >> byte) & 1 == 1 }
        if byte < 128 { return (tokenBitsHigh >> (byte - 64)) & 1 == 1 }
        return false
    }

    /// VCHAR, obs-text (0x80–0xFF), SP and HTAB; never CR, LF, NUL, other controls or DEL.
    @inline(__always)
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F : byte == ByteClasses.tab
    }

    /// True when `predicate` holds for every UTF-8 byte of `text`, scanning the string's contiguous storage
    /// directly (native Swift strings always have it) instead of stepping a generic UTF8View iterator.
    @inline(__always)
    static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        let scanned = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !predicate(byte) { return false }
            return true
        }
        return scanned ?? Array(text.utf8).allSatisfy(predicate)
    }

    /// True for `Content-Length` and `Transfer-Encoding` in any case. The length test first keeps the
    /// common case (any other name) to one comparison.
    static func isFramingFieldName(_ name: String) -> Bool {
        switch name.utf8.count {
        case 14: return HTTPFields.namesMatch(name, "Content-Length")
        case 17: return HTTPFields.namesMatch(name, "Transfer-Encoding")
        default: return false
        }
    }

    /// Checks names and values only; for heads where framing fields are the caller's to write (the
    /// server side, which knows its own body).
    package static func validateSyntax(_ fields: HTTPFields) throws(CodecError) {
        for field in fields { try validate(field) }
    }

    // MARK: Byte writers shared with ResponseEncoder and ChunkedEncoder

    /// Appends `name: value` CRLF for each field. The fields must already be validated.
    static func appendFields(_ fields: HTTPFields, into buffer: inout [UInt8]) {
        for field in fields {
            appendUTF8(field.name, into: &buffer)
            buffer.append(ByteClasses.colon)
            buffer.append(ByteClasses.space)
            appendUTF8(field.value, into: &buffer)
            appendCRLF(into: &buffer)
        }
    }

    /// Appends `HTTP/<major>.<minor>`.
    static func appendVersion(_ version: HTTPVersion, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: "HTTP/".utf8)
        appendDecimal(UInt64(version.major), into: &buffer)
        buffer.append(UInt8(ascii: "."))
        appendDecimal(UInt64(version.minor), into: &buffer)
    }

    /// Appends a string's UTF-8 bytes in one copy. `append(contentsOf: text.utf8)` takes the generic
    /// sequence path, byte by byte, for a string short enough to be stored inline (up to 15 bytes: most
    /// methods, field names and values), where `withUTF8` hands over contiguous bytes for every string.
    @inline(__always)
    static func appendUTF8(_ text: String, into buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// Appends CR LF.
    @inline(__always)
    static func appendCRLF(into buffer: inout [UInt8]) {
        buffer.append(ByteClasses.cr)
        buffer.append(ByteClasses.lf)
    }

    /// Appends `value` in decimal ASCII digits, written in place: no String is made.
    static func appendDecimal(_ value: UInt64, into buffer: inout [UInt8]) {
        var digitCount = 1
        var rest = value / 10
        while rest > 0 {
            digitCount += 1
            rest /= 10
        }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digitCount))
        var remaining = value
        var position = start + digitCount - 1
        while position >= start {
            buffer[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            position -= 1
        }
    }
}
