// RequestDecoder: the server's side of HTTP/1.1, received bytes in, request events out (sans-IO).
// Codec layer: a state machine; no sockets, no clocks, no Foundation.
//
// The twin of ResponseDecoder, used by the fixture server and by tests that check what the client sent.
// It shares the head scanner, the field-line parser, the framing rules and the body reader, and differs
// where RFC 9112 makes requests differ: a request line instead of a status line (§3), obs-fold refused
// (§5.2), and a body only when Content-Length or Transfer-Encoding announces one (§6.3 rule 6). It must
// not answer requests or touch sockets: the server does that with the events.

/// An event produced by ``RequestDecoder``.
public enum RequestEvent: Sendable, Hashable {
    /// The request head. ``RequestDecoder/framing`` is known from here on.
    case head(RequestHead)
    /// Body bytes: a slice of the fed bytes, not a copy.
    case body(ArraySlice<UInt8>)
    /// The end of the request; trailers are empty unless a chunked body sent some.
    case end(trailers: HTTPFields)
    /// No complete event in the bytes fed so far: feed more (or an empty feed for end of stream).
    case needMoreData
    /// The request is complete; call ``RequestDecoder/prepareForNextRequest()`` before the next one.
    case paused
}

/// Decodes HTTP/1.1 requests from bytes that arrive in pieces (server side).
///
/// ```swift
/// var decoder = RequestDecoder()
/// decoder.feed(received)
/// if case .head(let head) = try decoder.nextEvent() { route(head.method, head.target) }
/// ```
public struct RequestDecoder: Sendable {
    private enum State: Sendable {
        /// Reading a request line and fields. Next: readingBody, failed.
        case readingHead(HeadScanner)
        /// Reading the request body (possibly empty). Next: readingBody, complete, failed.
        case readingBody(BodyDecoder)
        /// The request ended; later bytes wait in `input`. Next: readingHead (prepareForNextRequest()).
        case complete
        /// A peer error was thrown; the connection must be closed. Next: none (the error is thrown again).
        case failed(CodecError)
    }

    private var state = State.readingHead(HeadScanner())
    private let limits: CodecLimits
    /// Received bytes not consumed yet; a slice of the caller's array until a split line forces a copy.
    /// Received bytes not consumed yet, and whether the peer closed.
    private var received = ReceivedBytes()

    /// How the request body is delimited (never `untilClose`); nil until `.head`.
    public private(set) var framing: BodyFraming?
    /// Whether the connection may carry another request after this one (RFC 9112 §9.3). Meaningful after
    /// `.head`; false after any error.
    public private(set) var isKeepAlive = false

    /// A decoder waiting for the first request.
    public init(limits: CodecLimits = CodecLimits()) {
        self.limits = limits
    }

    /// Prepares for the next request on the same connection, after the previous one ended.
    public mutating func prepareForNextRequest() {
        switch state {
        case .readingHead, .complete:
            state = .readingHead(HeadScanner())
            framing = nil
            isKeepAlive = false
        case .failed:
            return  // stays failed: the connection is unusable
        case .readingBody:
            preconditionFailure("prepareForNextRequest() called in the middle of a request (state \(state))")
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

    /// Bytes received after the end of the current request (or not yet decoded).
    public var unconsumedBytes: ArraySlice<UInt8> { received.bytes }

    /// The next event from the bytes fed so far. Throws the peer's mistake as a CodecError; after that
    /// every call throws the same error. A peer that closes between requests shows up as
    /// `truncatedHead(received: 0)`, which a server treats as a normal close.
    public mutating func nextEvent() throws(CodecError) -> RequestEvent {
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

    private mutating func step() throws(CodecError) -> RequestEvent {
        switch state {
        case .readingHead(var scanner):
            guard let (head, fields) = try readHead(&scanner) else {
                state = .readingHead(scanner)
                return .needMoreData
            }
            let framing = try BodyFraming.forRequest(fields: fields)
            self.framing = framing
            isKeepAlive = BodyFraming.isKeepAlive(version: head.version, framing: framing, fields: fields)
            state = .readingBody(BodyDecoder(framing: framing, limits: limits, allowsObsFoldInTrailers: false))
            return .head(head)

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

    /// Finds and parses the next request head in `input`; nil when it is not complete yet.
    private mutating func readHead(_ scanner: inout HeadScanner) throws(CodecError) -> (RequestHead, ParsedFields)? {
        if skipLeadingEmptyLines() { scanner = HeadScanner() }  // offsets moved: scan again from the start
        if received.bytes.isEmpty {
            if received.isEndOfStream { throw .truncatedHead(received: 0) }
            return nil
        }
        let limits = self.limits
        let isEndOfStream = received.isEndOfStream
        let parsed = try received.bytes.withUnsafeBufferPointer {
            (bytes) throws(CodecError) -> (head: RequestHead, fields: ParsedFields, length: Int)? in
            guard let boundary = scanner.findEnd(in: bytes, limit: limits.maxHeadBytes) else {
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

    /// RFC 9112 §2.2: a server SHOULD ignore at least one empty line before a request line (clients
    /// that end a POST body with an extra CRLF). Every leading CRLF or LF is dropped as it arrives, so
    /// this costs no memory. Returns true when bytes were dropped.
    private mutating func skipLeadingEmptyLines() -> Bool {
        var dropped = false
        while let first = received.bytes.first {
            if first == ByteClasses.lf {
                received.bytes = received.bytes.dropFirst()
            } else if first == ByteClasses.cr, received.bytes.count >= 2,
                received.bytes[received.bytes.startIndex + 1] == ByteClasses.lf
            {
                received.bytes = received.bytes.dropFirst(2)
            } else {
                break
            }
            dropped = true
        }
        return dropped
    }

    /// Parses a complete request head: the request line, then the field lines.
    private static func parseHead(
        _ bytes: UnsafeBufferPointer<UInt8>, _ boundary: HeadBoundary, _ limits: CodecLimits
    ) throws(CodecError) -> (head: RequestHead, fields: ParsedFields, length: Int) {
        guard let firstLineEnd = boundary.firstLineEnd else {
            throw .invalidRequestLine(preview: ByteClasses.escapedPreview(bytes.prefix(boundary.headEnd)))
        }
        var lineEnd = firstLineEnd
        if lineEnd > 0 && bytes[lineEnd - 1] == ByteClasses.cr { lineEnd -= 1 }
        let line = UnsafeBufferPointer(rebasing: bytes[0..<lineEnd])
        // RFC 9112 §2.2: a bare CR is invalid anywhere in the head, the request line included.
        if line.contains(ByteClasses.cr) { throw .bareCarriageReturn }
        let (method, target, version) = try HeadParser.parseRequestLine(line)
        let fields = try FieldLineParser.parse(
            UnsafeBufferPointer(rebasing: bytes[(firstLineEnd + 1)..<boundary.fieldsEnd]),
            lineCount: boundary.lineCount - 1, allowsObsFold: false, maxFieldCount: limits.maxFieldCount)
        let head = RequestHead(method: method, target: target, version: version, fields: fields.fields)
        return (head, fields, boundary.headEnd)
    }
}
