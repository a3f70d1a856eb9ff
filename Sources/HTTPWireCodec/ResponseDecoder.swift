// ResponseDecoder: the client's side of HTTP/1.1, received bytes in, response events out (sans-IO).
// Codec layer: a state machine; no sockets, no clocks, no Foundation.
//
// The owner (a connection) feeds whatever bytes arrive, split anywhere, and asks for events until the
// decoder says `needMoreData`; an empty feed means the peer closed. The decoder finds the head (status line
// and fields, RFC 9112 §4–§5), decides the body framing (RFC 9112 §6.3), and hands the body out as slices of
// the bytes it was given. The events are the same for any split of the input. After the end of a response
// it stops (`paused`) and leaves later bytes alone, so a pipelined or stray byte is never read as part of
// this response. It must not perform I/O or decide policy (redirects, retries): that is the client's.

/// An event produced by ``ResponseDecoder``.
public enum ResponseEvent: Sendable, Hashable {
    /// An interim 1xx response (100 Continue, 102 Processing, 103 Early Hints): RFC 9110 §15.2 says a
    /// client MUST be able to parse them and MAY ignore them. The final response follows.
    case informational(ResponseHead)
    /// The final response head. ``ResponseDecoder/framing`` is known from here on.
    case head(ResponseHead)
    /// Body bytes: a slice of the fed bytes, not a copy. Valid as long as the caller keeps it.
    case body(ArraySlice<UInt8>)
    /// The end of the message; trailers are empty unless a chunked body sent some (RFC 9112 §7.1.2).
    case end(trailers: HTTPFields)
    /// No complete event in the bytes fed so far: feed more (or an empty feed for end of stream).
    case needMoreData
    /// The response is complete; call ``ResponseDecoder/expectResponse(to:)`` before the next one.
    case paused
}

/// Decodes HTTP/1.1 responses from bytes that arrive in pieces.
///
/// ```swift
/// var decoder = ResponseDecoder()
/// decoder.expectResponse(to: .get)
/// decoder.feed(received)                    // bytes from the socket; [] when it closed
/// loop: while true {
///     switch try decoder.nextEvent() {
///     case .informational: continue
///     case .head(let head): print(head.status)
///     case .body(let bytes): write(bytes)
///     case .end: break loop                 // decoder.isKeepAlive: may the connection be reused?
///     case .needMoreData: decoder.feed(try read())
///     case .paused: break loop
///     }
/// }
/// ```
public struct ResponseDecoder: Sendable {
    private enum State: Sendable {
        /// Reading a status line and fields. Next: readingHead (after a 1xx), readingBody, failed.
        case readingHead(HeadScanner)
        /// Reading the final response's body. Next: readingBody, complete, failed.
        case readingBody(BodyDecoder)
        /// The response ended; later bytes wait in `input`. Next: readingHead (expectResponse(to:)).
        case complete
        /// A peer error was thrown; the connection must be closed. Next: none (the error is thrown again).
        case failed(CodecError)
    }

    private var state = State.readingHead(HeadScanner())
    private let limits: CodecLimits
    /// Received bytes not consumed yet, and whether the peer closed.
    private var received = ReceivedBytes()
    /// RFC 9112 §6.3 rule 1: a response to HEAD has no body, whatever its fields say.
    private var isHeadRequest = false
    /// RFC 9112 §6.3 rule 2: a 2xx response to CONNECT starts a tunnel.
    private var isConnectRequest = false
    /// Interim (1xx) heads seen since the request was sent; bounded by `limits.maxInformationalResponses`.
    private var informationalCount = 0

    /// How the final response's body is delimited; nil until `.head`.
    public private(set) var framing: BodyFraming?
    /// Whether the connection may carry another request after this response (RFC 9112 §9.3). Meaningful
    /// after `.end`; false after any error.
    public private(set) var isKeepAlive = false

    /// A decoder expecting a response to a request whose method allows a body (as for GET); call
    /// ``expectResponse(to:)`` first when that request was HEAD or CONNECT.
    public init(limits: CodecLimits = CodecLimits()) {
        self.limits = limits
    }

    /// Prepares for the response to a request sent with `method`, after the previous response ended.
    public mutating func expectResponse(to method: Method) {
        switch state {
        case .readingHead, .complete:
            state = .readingHead(HeadScanner())
            isHeadRequest = method == .head
            isConnectRequest = method == .connect
            informationalCount = 0
            framing = nil
            isKeepAlive = false
        case .failed:
            return  // stays failed: the connection is unusable
        case .readingBody:
            preconditionFailure("expectResponse(to:) called in the middle of a response (state \(state))")
        }
    }

    /// Hands the decoder received bytes; an empty slice means the peer closed (end of stream). The bytes
    /// are kept by reference, not copied, unless earlier bytes are still waiting. Feeding bytes after the
    /// end of stream is a programming error.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) {
        if case .failed = state, !bytes.isEmpty { return }
        received.feed(bytes)
    }

    /// Hands the decoder received bytes; an empty array means the peer closed (end of stream).
    public mutating func feed(_ bytes: [UInt8]) {
        feed(bytes[...])
    }

    /// Copies the bytes not decoded yet (a chunk-size line a read ended in, say) into storage of the
    /// decoder's own, so the buffer they were fed from may be refilled in place: for a reader that feeds
    /// slices of one block it reuses, and keeps the body events' ranges of it instead of copying them (a
    /// download's write block). What the decoder produces does not change.
    package mutating func detachUnconsumedBytes() {
        received.detach()
    }

    /// Bytes received after the end of the current response (or not yet decoded).
    public var unconsumedBytes: ArraySlice<UInt8> { received.bytes }

    /// Bytes of a Content-Length body still to come, when none of them are buffered: the owner may then
    /// move up to this many bytes from the socket to a file itself (splice(2)) and report them with
    /// ``bodyBytesMovedOutOfBand(_:)``. Nil in every other situation.
    public var identityBodyBytesRemaining: Int64? {
        guard case .readingBody(let body) = state, received.bytes.isEmpty else { return nil }
        return body.identityBytesRemaining
    }

    /// Records that the owner moved `count` bytes of a Content-Length body past the decoder. Only valid
    /// while ``identityBodyBytesRemaining`` is at least `count`.
    public mutating func bodyBytesMovedOutOfBand(_ count: Int64) {
        guard case .readingBody(var body) = state, received.bytes.isEmpty else {
            preconditionFailure("bodyBytesMovedOutOfBand(\(count)) with buffered bytes or in state \(state)")
        }
        body.bytesMovedOutOfBand(count)
        state = .readingBody(body)
    }

    /// The next event from the bytes fed so far. Throws the peer's mistake as a CodecError; after that
    /// every call throws the same error.
    public mutating func nextEvent() throws(CodecError) -> ResponseEvent {
        do {
            let event = try step()
            received.releaseIfConsumed()
            return event
        } catch {
            state = .failed(error)
            isKeepAlive = false
            throw error
        }
    }

    private mutating func step() throws(CodecError) -> ResponseEvent {
        switch state {
        case .readingHead(var scanner):
            guard let head = try readHead(&scanner) else {
                state = .readingHead(scanner)
                return .needMoreData
            }
            return try headReceived(head)

        case .readingBody(var body):
            switch try body.next(from: &received.bytes, isEndOfStream: received.isEndOfStream) {
            case .body(let bytes):
                state = .readingBody(body)
                return .body(bytes)
            case .end(let trailers):
                state = .complete
                return .end(trailers: trailers)
            case .needMoreData:
                state = .readingBody(body)
                return .needMoreData
            }

        case .complete:
            return .paused

        case .failed(let error):
            throw error
        }
    }

    /// Classifies a complete head: interim, refused upgrade, or the final response with its framing.
    private mutating func headReceived(_ parsed: (head: ResponseHead, fields: ParsedFields)) throws(CodecError)
        -> ResponseEvent
    {
        let head = parsed.head
        // HTTPWire never sends Upgrade, so a 101 is a server speaking another protocol (RFC 9110 §15.2.2).
        if head.status == .switchingProtocols { throw .unexpectedUpgrade }
        if head.status.isInformational {
            informationalCount += 1
            guard informationalCount <= limits.maxInformationalResponses else {
                throw .tooManyInformationalResponses(limit: limits.maxInformationalResponses)
            }
            state = .readingHead(HeadScanner())  // RFC 9110 §15.2: the final response follows
            return .informational(head)
        }
        let framing = try BodyFraming.forResponse(
            status: head.status, version: head.version, isHeadRequest: isHeadRequest,
            isConnectRequest: isConnectRequest, fields: parsed.fields)
        self.framing = framing
        // A 2xx to CONNECT is a tunnel now, not an HTTP connection to reuse.
        let isTunnel = isConnectRequest && head.status.kind == .successful
        isKeepAlive =
            !isTunnel && BodyFraming.isKeepAlive(version: head.version, framing: framing, fields: parsed.fields)
        state = .readingBody(BodyDecoder(framing: framing, limits: limits, allowsObsFoldInTrailers: true))
        return .head(head)
    }

    /// Finds and parses the next head in `input`; nil when it is not complete yet.
    private mutating func readHead(
        _ scanner: inout HeadScanner
    ) throws(CodecError) -> (head: ResponseHead, fields: ParsedFields)? {
        if received.bytes.isEmpty {
            // Closed before a single byte of this response: the client reports an empty reply.
            if received.isEndOfStream { throw .truncatedHead(received: 0) }
            return nil
        }
        let limits = self.limits
        let isEndOfStream = received.isEndOfStream
        let parsed = try received.bytes.withUnsafeBufferPointer {
            (bytes) throws(CodecError) -> (head: ResponseHead, fields: ParsedFields, length: Int)? in
            // No head is shorter than the early check ("HTTP/1.1 200\n\n" has 14 bytes): waiting for those
            // bytes keeps a short malformed head from failing differently depending on the split.
            if bytes.count < HeadParser.earlyCheckLength && !isEndOfStream { return nil }
            try HeadParser.checkStatusLineStart(bytes, isEndOfStream: isEndOfStream)
            guard let boundary = scanner.findEnd(in: bytes, limit: limits.maxHeadBytes) else {
                // Refused once limit + 1 bytes are buffered without the empty line: memory stays bounded
                // and the point of refusal does not depend on how the bytes were split.
                if bytes.count > limits.maxHeadBytes {
                    throw .headTooLarge(limit: limits.maxHeadBytes, seen: limits.maxHeadBytes + 1)
                }
                if isEndOfStream { throw .truncatedHead(received: bytes.count) }
                return nil
            }
            return try Self.parseHead(bytes, boundary, limits)
        }
        guard let parsed else { return nil }
        received.bytes = received.bytes[(received.bytes.startIndex + parsed.length)...]
        return (parsed.head, parsed.fields)
    }

    /// Parses a complete head: the status line, then the field lines.
    private static func parseHead(
        _ bytes: UnsafeBufferPointer<UInt8>, _ boundary: HeadBoundary, _ limits: CodecLimits
    ) throws(CodecError) -> (head: ResponseHead, fields: ParsedFields, length: Int) {
        guard let firstLineEnd = boundary.firstLineEnd else {
            throw .invalidStatusLine(preview: ByteClasses.escapedPreview(bytes.prefix(boundary.headEnd)))
        }
        var lineEnd = firstLineEnd
        if lineEnd > 0 && bytes[lineEnd - 1] == ByteClasses.cr { lineEnd -= 1 }
        let line = UnsafeBufferPointer(rebasing: bytes[0..<lineEnd])
        // RFC 9112 §2.2: a bare CR is invalid anywhere in the head, the start line included.
        if line.contains(ByteClasses.cr) { throw .bareCarriageReturn }
        if line.contains(0) { throw .invalidStatusLine(preview: ByteClasses.escapedPreview(line)) }
        let (version, status, reason) = try HeadParser.parseStatusLine(line)
        let fields = try FieldLineParser.parse(
            UnsafeBufferPointer(rebasing: bytes[(firstLineEnd + 1)..<boundary.fieldsEnd]),
            lineCount: boundary.lineCount - 1, allowsObsFold: true, maxFieldCount: limits.maxFieldCount)
        let head = ResponseHead(version: version, status: status, reason: reason, fields: fields.fields)
        return (head, fields, boundary.headEnd)
    }
}
