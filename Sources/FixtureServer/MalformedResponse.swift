// MalformedResponse: the broken responses `/malformed/{kind}` sends, byte for byte (edge layer, fixture server).
//
// Each kind breaks one rule of RFC 9112 the client's decoder must enforce, most of them because accepting
// the message would let two parties disagree about where it ends (response splitting, request smuggling),
// the rest because the bytes are not HTTP/1.1 at all (an HTTP/2 preface, a TLS record on a plain port).
// The server writes the bytes raw, bypassing the encoder that would refuse them, then closes. Which
// `CodecError` each kind must produce is stated by the tests, not here: this file only holds the bytes.

/// A response that breaks the HTTP/1.1 rules in one specific way.
///
/// ```swift
/// // GET /malformed/conflicting-content-length → "Content-Length: 5" and "Content-Length: 6"
/// let bytes = MalformedResponse.conflictingContentLength.bytes
/// ```
public enum MalformedResponse: String, CaseIterable, Sendable {
    /// A status line without a status code (RFC 9112 §4).
    case badStatusLine = "bad-status-line"
    /// `HTTP/2.0` in an HTTP/1.1 status line (RFC 9112 §2.3).
    case badVersion = "bad-version"
    /// Two different Content-Length values (RFC 9112 §6.3 rule 5).
    case conflictingContentLength = "conflicting-content-length"
    /// Content-Length together with Transfer-Encoding: chunked (RFC 9112 §6.3 rule 3).
    case contentLengthWithTransferEncoding = "content-length-with-transfer-encoding"
    /// A Content-Length that is not a number (RFC 9110 §8.6).
    case invalidContentLength = "invalid-content-length"
    /// A chunk size that is not hexadecimal (RFC 9112 §7.1).
    case badChunkSize = "bad-chunk-size"
    /// A chunk size beyond 64 bits.
    case chunkSizeOverflow = "chunk-size-overflow"
    /// Chunk data not followed by CRLF.
    case missingChunkTerminator = "missing-chunk-terminator"
    /// A bare CR inside a field value, the shape of header injection (RFC 9112 §2.2).
    case headerInjection = "header-injection"
    /// A field line without a colon (RFC 9112 §5).
    case fieldWithoutColon = "field-without-colon"
    /// Whitespace between a field name and its colon (RFC 9112 §5.1: must be rejected).
    case spaceBeforeColon = "space-before-colon"
    /// The HTTP/2 connection preface where a status line should be (RFC 9113 §3.4).
    case http2Preface = "http2-preface"
    /// A TLS alert record, what an HTTPS-only port answers to plain HTTP.
    case tlsRecord = "tls-record"
    /// `101 Switching Protocols` although no upgrade was asked for (RFC 9110 §15.2.2).
    case switchingProtocols = "switching-protocols"
    /// A head of 70 000 bytes, past the decoder's 64 KiB limit.
    case hugeHead = "huge-head"
    /// 300 field lines, past the decoder's 256-field limit.
    case tooManyFields = "too-many-fields"
    /// The connection closes in the middle of the head.
    case truncatedHead = "truncated-head"

    /// The bytes sent for this kind; the server closes the connection after them.
    public var bytes: [UInt8] {
        let ok = "HTTP/1.1 200 OK\r\n"
        switch self {
        case .badStatusLine:
            return Array("HTTP/1.1 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        case .badVersion:
            return Array("HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        case .conflictingContentLength:
            return Array((ok + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!").utf8)
        case .contentLengthWithTransferEncoding:
            return Array((ok + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n").utf8)
        case .invalidContentLength:
            return Array((ok + "Content-Length: 12abc\r\n\r\nhello").utf8)
        case .badChunkSize:
            return Array((ok + "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n").utf8)
        case .chunkSizeOverflow:
            return Array((ok + "Transfer-Encoding: chunked\r\n\r\n1ffffffffffffffff\r\nhello\r\n0\r\n\r\n").utf8)
        case .missingChunkTerminator:
            return Array((ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n").utf8)
        case .headerInjection:
            return Array((ok + "X-Injected: a\rSet-Cookie: stolen=1\r\nContent-Length: 0\r\n\r\n").utf8)
        case .fieldWithoutColon:
            return Array((ok + "This line has no colon\r\nContent-Length: 0\r\n\r\n").utf8)
        case .spaceBeforeColon:
            return Array((ok + "Content-Length : 0\r\n\r\n").utf8)
        case .http2Preface:
            return Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        case .tlsRecord:
            // ContentType alert (21), TLS 1.2, length 2, fatal (2), protocol_version (70).
            return [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46]
        case .switchingProtocols:
            return Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n".utf8)
        case .hugeHead:
            return Array(
                (ok + "X-Big: " + String(repeating: "a", count: 70_000) + "\r\nContent-Length: 0\r\n\r\n").utf8)
        case .tooManyFields:
            let fields = (0..<300).map { "X-Field-\($0): \($0)\r\n" }.joined()
            return Array((ok + fields + "Content-Length: 0\r\n\r\n").utf8)
        case .truncatedHead:
            return Array((ok + "Content-Type: text/pl").utf8)
        }
    }
}
