// BodyFraming: how the end of a message body is found, decided once per head (RFC 9112 §6.3).
// Codec layer: pure decisions over parsed fields; no I/O, no body bytes.
//
// Getting this wrong is how request smuggling and response splitting work: two parties that disagree about
// where a body ends disagree about where the next message starts. So the rules of RFC 9112 §6.3 are applied
// in their order, in one place, and every ambiguous case is an error rather than a guess. The same place
// decides whether the connection may carry another message afterwards (RFC 9112 §9.3).

/// How the body of a message is delimited.
public enum BodyFraming: Sendable, Hashable {
    /// No body at all: responses to HEAD, 1xx, 204 and 304 (RFC 9112 §6.3 rule 1), and requests without
    /// `Content-Length` or `Transfer-Encoding` (rule 6).
    case none
    /// Exactly this many bytes follow the head (RFC 9112 §6.3 rule 5).
    case contentLength(Int64)
    /// Chunked transfer coding (RFC 9112 §7.1), ended by a zero-size chunk and optional trailers.
    case chunked
    /// The body runs until the server closes the connection (RFC 9112 §6.3 rule 7, responses only). The
    /// connection can never be reused, and a cut connection cannot be told apart from the end.
    case untilClose
}

extension BodyFraming {
    /// The framing of a final (non-1xx) response to a request with the given method, per RFC 9112 §6.3.
    static func forResponse(
        status: Status, version: HTTPVersion, isHeadRequest: Bool, isConnectRequest: Bool, fields: ParsedFields
    ) throws(CodecError) -> BodyFraming {
        // Rule 1: whatever the fields say, these responses end at the empty line.
        if isHeadRequest || status.isInformational || status.rawValue == 204 || status.rawValue == 304 {
            return .none
        }
        // Rule 2: a 2xx answer to CONNECT turns the connection into a tunnel; what follows is not HTTP.
        if isConnectRequest && status.kind == .successful { return .none }
        if let framing = try framingFromTransferEncoding(fields, isRequest: false) { return framing }
        if let length = try contentLength(fields.contentLength) { return .contentLength(length) }
        // Rule 7: no length information; the body is whatever arrives before the server closes.
        return .untilClose
    }

    /// The framing of a request, per RFC 9112 §6.3 (server side, used by the fixture server).
    static func forRequest(fields: ParsedFields) throws(CodecError) -> BodyFraming {
        if let framing = try framingFromTransferEncoding(fields, isRequest: true) { return framing }
        if let length = try contentLength(fields.contentLength) { return .contentLength(length) }
        // Rule 6: a request without either has no body.
        return .none
    }

    /// Whether the connection may carry another message after this one (RFC 9112 §9.3): HTTP/1.1 persists
    /// unless a `Connection: close` is present; HTTP/1.0 only with `Connection: keep-alive`. A body that
    /// runs until close ends the connection by definition, and an HTTP/1.0 message with Transfer-Encoding
    /// is treated as faulty framing, closed after use (RFC 9112 §6.1).
    static func isKeepAlive(version: HTTPVersion, framing: BodyFraming, fields: ParsedFields) -> Bool {
        if framing == .untilClose { return false }
        let isHTTP11OrLater = version.major > 1 || version.minor >= 1
        if !isHTTP11OrLater && !fields.transferEncoding.isEmpty { return false }
        var sawClose = false
        var sawKeepAlive = false
        for value in fields.connection {
            forEachElement(of: value) { element in
                if equalsIgnoringCase(element, "close") { sawClose = true }
                if equalsIgnoringCase(element, "keep-alive") { sawKeepAlive = true }
            }
        }
        if sawClose { return false }
        return isHTTP11OrLater || sawKeepAlive
    }

    /// RFC 9112 §6.3 rules 3 and 4. Returns nil when there is no Transfer-Encoding field.
    private static func framingFromTransferEncoding(
        _ fields: ParsedFields, isRequest: Bool
    ) throws(CodecError) -> BodyFraming? {
        if fields.transferEncoding.isEmpty { return nil }
        // Rule 3: both present. RFC 9112 says Transfer-Encoding wins but "ought to be handled as an error";
        // accepting it is exactly the smuggling shape (one hop counts bytes, the other reads chunks).
        if !fields.contentLength.isEmpty { throw .contentLengthWithTransferEncoding }
        var codings: [Substring] = []
        for value in fields.transferEncoding {
            for element in value.split(separator: ",") {
                // A coding may carry parameters (RFC 9112 §7: transfer-coding = token *( OWS ";" ... )).
                let name = element.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
                let trimmed = name.trimmingWhitespace().lowercasedASCII()
                // "identity" was removed from the registry (RFC 9112 §7) but old servers still send it; it
                // means "no coding", so it is dropped rather than refused.
                if trimmed.isEmpty || trimmed == "identity" { continue }
                codings.append(Substring(trimmed))
            }
        }
        // Codings HTTPWire cannot undo (gzip, deflate, compress) are refused rather than handed out encoded.
        if let other = codings.first(where: { $0 != "chunked" }) { throw .unsupportedTransferCoding(String(other)) }
        // RFC 9112 §6.1: chunked MUST NOT be applied more than once.
        if codings.count > 1 { throw .unsupportedTransferCoding(fields.transferEncoding.joined(separator: ", ")) }
        if codings.count == 1 { return .chunked }
        // Only "identity" (or an empty value): rule 4 — chunked is not final. A response is then read until
        // close; a request's length "cannot be determined reliably" and the server MUST answer 400.
        if isRequest { throw .unsupportedTransferCoding(fields.transferEncoding.joined(separator: ", ")) }
        return .untilClose
    }

    /// RFC 9112 §6.3 rule 5 with RFC 9110 §8.6: every Content-Length value (a field may hold a list such
    /// as "5, 5" after a hop combined duplicates) must be decimal digits and all must be the same number.
    /// Leading zeros are accepted ("007" is 7). Returns nil when there is no Content-Length field.
    static func contentLength(_ values: some Collection<String>) throws(CodecError) -> Int64? {
        guard !values.isEmpty else { return nil }
        var agreed: Int64?
        var isConflicting = false
        for value in values {
            var isValid = true
            forEachElement(of: value) { element in
                guard let length = decimalValue(element) else {
                    isValid = false
                    return
                }
                if let agreed, agreed != length { isConflicting = true }
                agreed = length
            }
            // A value that is not a number is reported before a disagreement between numbers.
            if !isValid { throw .invalidContentLength(value) }
        }
        if isConflicting { throw .conflictingContentLength(Array(values)) }
        return agreed
    }

    /// Calls `body` with each comma-separated element of a list value (RFC 9110 §5.6.1), OWS trimmed, empty
    /// elements included. Works on the string's UTF-8 storage directly: no arrays, no substrings.
    private static func forEachElement(of value: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var value = value
        value.withUTF8 { bytes in
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: ",") { end += 1 }
                var low = start
                var high = end
                while low < high && ByteClasses.isWhitespace(bytes[low]) { low += 1 }
                while high > low && ByteClasses.isWhitespace(bytes[high - 1]) { high -= 1 }
                body(UnsafeBufferPointer(rebasing: bytes[low..<high]))
                start = end + 1
            }
        }
    }

    /// Decimal digits only, or nil when the element is empty, holds anything else, or does not fit in an
    /// Int64 (a length nobody can send, and an overflow would wrap to a small one).
    private static func decimalValue(_ element: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !element.isEmpty else { return nil }
        var result: Int64 = 0
        for byte in element {
            guard HeadParser.isDigit(byte) else { return nil }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte &- 0x30))
            if overflow1 || overflow2 { return nil }
            result = sum
        }
        return result
    }

    /// ASCII case-insensitive comparison of a list element with a lowercase token.
    private static func equalsIgnoringCase(_ element: UnsafeBufferPointer<UInt8>, _ token: StaticString) -> Bool {
        token.withUTF8Buffer { expected in
            guard element.count == expected.count else { return false }
            for index in 0..<expected.count where ByteClasses.lowercased(element[index]) != expected[index] {
                return false
            }
            return true
        }
    }
}
