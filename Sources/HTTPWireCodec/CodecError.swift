// CodecError: every way a message can break the HTTP/1.1 rules, as seen by the codec.
// Codec layer: plain values, no I/O.
//
// A peer's mistake is a thrown CodecError, never a crash. Each case carries what the parser saw (escaped, so
// a hostile peer cannot write control characters to a terminal) and, for limits, the limit and the value
// seen. The client wraps these in HTTPWireError.malformedResponse (curl exit 8), except a body cut short,
// which it reports as bodyTruncated (exit 18).

/// An HTTP/1.1 message, URL or field that the codec refuses, with what it saw.
public enum CodecError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: Building requests

    /// A field name that is not a token (RFC 9110 §5.1).
    case invalidFieldName(String)
    /// A field value with CR, LF, NUL or another forbidden byte (RFC 9110 §5.5). Sending it would let the
    /// caller's data start a second field or a second request: header injection.
    case invalidFieldValue(name: String)
    /// A method that is not a token (RFC 9110 §9.1).
    case invalidMethod(String)
    /// A URL that cannot be used for an HTTP request, with the reason.
    case invalidURL(String, reason: String)
    /// A `Content-Length` or `Transfer-Encoding` field given by the caller. The encoder writes the framing
    /// field from the body it is told about; a second, different one would let the two ends disagree on
    /// where the body stops (RFC 9112 §6.3): request smuggling.
    case framingFieldNotAllowed(name: String)

    // MARK: Message heads

    /// The first line is not `HTTP/1.x SP 3DIGIT [SP reason]` (RFC 9112 §4). The preview shows the first
    /// offending bytes, escaped: a TLS record or an HTTP/2 preface is easy to recognise that way.
    case invalidStatusLine(preview: String)
    /// A request line that is not `method SP target SP HTTP/1.x` (RFC 9112 §3), for the server side.
    case invalidRequestLine(preview: String)
    /// A major version other than 1 (RFC 9112 §2.3).
    case unsupportedVersion(preview: String)
    /// A field line without a colon, with whitespace before the colon, or with forbidden bytes
    /// (RFC 9112 §5, §5.1).
    case invalidFieldLine(preview: String)
    /// A lone CR not followed by LF (RFC 9112 §2.2).
    case bareCarriageReturn
    /// `101 Switching Protocols`: HTTPWire never asks for an upgrade, so it never accepts one.
    case unexpectedUpgrade
    /// The head (start line plus fields) grew past the limit before its end was found.
    case headTooLarge(limit: Int, seen: Int)
    /// More field lines than the limit allows.
    case tooManyFields(limit: Int, seen: Int)
    /// The stream ended inside a head, after `received` bytes of it.
    case truncatedHead(received: Int)
    /// More interim (1xx) responses before the final one than the limit allows.
    case tooManyInformationalResponses(limit: Int)

    // MARK: Framing

    /// A `Content-Length` that is not a non-negative decimal number (RFC 9110 §8.6).
    case invalidContentLength(String)
    /// Several `Content-Length` values that differ (RFC 9112 §6.3 rule 5): a response-splitting signal.
    case conflictingContentLength([String])
    /// Both `Transfer-Encoding` and `Content-Length` (RFC 9112 §6.3 rule 3): refused, the classic request
    /// smuggling shape.
    case contentLengthWithTransferEncoding
    /// A transfer coding other than a final `chunked` that HTTPWire cannot decode.
    case unsupportedTransferCoding(String)

    // MARK: Chunked bodies

    /// A chunk-size line that is not hex digits, optionally followed by extensions (RFC 9112 §7.1).
    case invalidChunkSize(preview: String)
    /// A chunk-size line (size plus extensions) longer than the limit.
    case chunkLineTooLong(limit: Int, seen: Int)
    /// A chunk size that does not fit in 63 bits.
    case chunkSizeOverflow(preview: String)
    /// The CRLF after a chunk's data is missing.
    case missingChunkTerminator(preview: String)
    /// The trailer section grew past the limit.
    case trailersTooLarge(limit: Int, seen: Int)

    // MARK: Ranges

    /// A `Range` field value that is not `bytes=` followed by valid range specs (RFC 9110 §14.1.1, §14.2).
    /// A server may ignore such a field and send the whole representation.
    case invalidRange(preview: String)
    /// A `Content-Range` value that breaks RFC 9110 §14.4: bad syntax, a last position before the first,
    /// or a complete length not beyond the last position. Splicing such a response could corrupt a file.
    case invalidContentRange(preview: String)

    // MARK: Bodies

    /// The stream ended before the body did: `expected` is nil for a chunked body.
    case truncatedBody(expected: Int64?, received: Int64)

    /// One lowercase line naming the rule and the numbers, as the CLI prints it.
    public var description: String {
        switch self {
        case .invalidFieldName(let name):
            return "field name \"\(ByteClasses.escapedPreview(name.utf8))\" is not a token"
        case .invalidFieldValue(let name):
            return "value of field \(ByteClasses.escapedPreview(name.utf8)) contains CR, LF, NUL or a control byte"
        case .framingFieldNotAllowed(let name):
            return
                "field \(ByteClasses.escapedPreview(name.utf8)) is set from the body framing and cannot be given as a field"
        case .invalidMethod(let method):
            return "method \"\(ByteClasses.escapedPreview(method.utf8))\" is not a token"
        case .invalidURL(let url, let reason):
            return "invalid URL \"\(ByteClasses.escapedPreview(url.utf8, limit: 80))\": \(reason)"
        case .invalidStatusLine(let preview):
            return "invalid status line: \"\(preview)\""
        case .invalidRequestLine(let preview):
            return "invalid request line: \"\(preview)\""
        case .unsupportedVersion(let preview):
            return "unsupported HTTP version: \"\(preview)\""
        case .invalidFieldLine(let preview):
            return "invalid field line: \"\(preview)\""
        case .bareCarriageReturn:
            return "bare CR in message head"
        case .unexpectedUpgrade:
            return "server switched protocols (101) but no upgrade was requested"
        case .headTooLarge(let limit, let seen):
            return "response head larger than \(limit) bytes (saw \(seen))"
        case .tooManyFields(let limit, let seen):
            return "more than \(limit) fields in head (saw \(seen))"
        case .truncatedHead(let received):
            return "connection closed inside the response head after \(received) bytes"
        case .invalidContentLength(let value):
            return "invalid content-length \"\(ByteClasses.escapedPreview(value.utf8))\""
        case .conflictingContentLength(let values):
            return
                "conflicting content-length values: \(values.map { ByteClasses.escapedPreview($0.utf8) }.joined(separator: ", "))"
        case .contentLengthWithTransferEncoding:
            return "both transfer-encoding and content-length present"
        case .unsupportedTransferCoding(let coding):
            return "unsupported transfer coding \"\(ByteClasses.escapedPreview(coding.utf8))\""
        case .invalidChunkSize(let preview):
            return "invalid chunk size line: \"\(preview)\""
        case .chunkLineTooLong(let limit, let seen):
            return "chunk size line longer than \(limit) bytes (saw \(seen))"
        case .chunkSizeOverflow(let preview):
            return "chunk size too large: \"\(preview)\""
        case .missingChunkTerminator(let preview):
            return "missing CRLF after chunk data: \"\(preview)\""
        case .trailersTooLarge(let limit, let seen):
            return "trailer section larger than \(limit) bytes (saw \(seen))"
        case .tooManyInformationalResponses(let limit):
            return "more than \(limit) interim (1xx) responses before the final response"
        case .invalidRange(let preview):
            return "invalid range: \"\(preview)\""
        case .invalidContentRange(let preview):
            return "invalid content-range: \"\(preview)\""
        case .truncatedBody(let expected?, let received):
            return "body ended after \(received) of \(expected) bytes"
        case .truncatedBody(nil, let received):
            return "chunked body ended after \(received) bytes without its last chunk"
        }
    }
}
