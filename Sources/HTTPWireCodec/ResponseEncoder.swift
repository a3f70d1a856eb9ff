// ResponseEncoder: a status line and fields, written as HTTP/1.1 bytes, for the server side.
// Codec layer: appends bytes to a caller's buffer; no I/O. Used by the FixtureServer and by tests that
// need exact responses; the client never sends a response.
//
// RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ] CRLF, then fields as in a
// request. The same injection checks apply: a reason or value with CR or LF would let a handler's data
// start a second response (response splitting). Unlike requests, the framing fields are the server's own
// to write, since only it knows how it sends the body; only the smuggling shape (both at once) is refused.

/// Writes response heads.
///
/// ```swift
/// var bytes: [UInt8] = []
/// try ResponseEncoder.encodeHead(
///     version: .http1_1, status: 404, reason: "Not Found", fields: ["Content-Length": "0"], into: &bytes)
/// // "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
/// ```
public enum ResponseEncoder {
    /// Appends the status line, the fields in order, and the blank line.
    ///
    /// Throws ``CodecError/invalidStatusLine(preview:)`` for a status outside 100–999 or a reason with
    /// control bytes, ``CodecError/invalidFieldName(_:)`` and ``CodecError/invalidFieldValue(name:)`` for bad
    /// fields, and ``CodecError/contentLengthWithTransferEncoding`` when both framing fields are present
    /// (RFC 9112 §6.1: a server must not send both). When it throws, `buffer` is unchanged.
    public static func encodeHead(
        version: HTTPVersion, status: Int, reason: String, fields: HTTPFields, into buffer: inout [UInt8]
    ) throws(CodecError) {
        // RFC 9110 §15: status-code = 3DIGIT.
        guard (100...999).contains(status) else { throw .invalidStatusLine(preview: "status \(status)") }
        // RFC 9112 §4: reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ), the field-value bytes.
        guard RequestEncoder.isValidFieldValue(reason) else {
            throw .invalidStatusLine(preview: ByteClasses.escapedPreview(reason.utf8))
        }
        try RequestEncoder.validateSyntax(fields)
        if fields.contains("Content-Length"), fields.contains("Transfer-Encoding") {
            throw .contentLengthWithTransferEncoding
        }

        var size = reason.utf8.count + 16
        for field in fields { size += field.name.utf8.count + field.value.utf8.count + 4 }
        buffer.reserveCapacity(buffer.count + size)

        RequestEncoder.appendVersion(version, into: &buffer)
        buffer.append(ByteClasses.space)
        RequestEncoder.appendDecimal(UInt64(status), into: &buffer)
        // The SP before the reason is required even when the reason is empty (RFC 9112 §4).
        buffer.append(ByteClasses.space)
        buffer.append(contentsOf: reason.utf8)
        RequestEncoder.appendCRLF(into: &buffer)
        RequestEncoder.appendFields(fields, into: &buffer)
        RequestEncoder.appendCRLF(into: &buffer)
    }
}
