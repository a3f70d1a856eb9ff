// ChunkedDecoder: the chunked transfer coding (RFC 9112 §7.1), decoded incrementally.
// Codec layer: a state machine over bytes; no I/O, no copies of chunk data.
//
//   chunked-body = *chunk last-chunk trailer-section CRLF
//   chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//   last-chunk   = 1*("0") [ chunk-ext ] CRLF
// Chunk data is handed out as slices of the caller's buffer, never copied. Every line the decoder has to
// hold whole is bounded by a CodecLimits value, so a peer cannot make it buffer without limit. The framing
// lines (chunk-size line, CRLF after data) must end in CRLF: the bare-LF leniency of RFC 9112 §2.2 covers
// the start line and fields only, and lines that delimit a body are where hops that disagree get smuggled
// past. Trailer fields go through FieldLineParser like any other fields (RFC 9112 §7.1.2).

/// Decodes a chunked body from bytes that arrive in pieces.
///
/// ```swift
/// var chunked = ChunkedDecoder()
/// var input: ArraySlice<UInt8> = ArraySlice("5\r\nhello\r\n0\r\n\r\n".utf8)
/// while true {
///     switch try chunked.decode(&input, isEndOfStream: false) {
///     case .data(let bytes): consume(bytes)
///     case .end(let trailers): finish(trailers); return
///     case .needMoreData: return  // append more bytes to input, call again
///     }
/// }
/// ```
public struct ChunkedDecoder: Sendable {
    /// What one call to ``decode(_:isEndOfStream:)`` produced.
    public enum Step: Sendable, Hashable {
        /// Chunk data: a slice of the input, not a copy.
        case data(ArraySlice<UInt8>)
        /// The last chunk and the trailer section were read; the input now starts after the body.
        case end(trailers: HTTPFields)
        /// The input holds no complete next step; append bytes and call again.
        case needMoreData
    }

    private enum State: Sendable {
        /// Expecting `chunk-size [chunk-ext] CRLF`; the first `scannedBytes` bytes of the line hold no LF.
        /// Next: sizeLine (more bytes scanned), data (size > 0), trailers (size 0).
        case sizeLine(scannedBytes: Int)
        /// Inside chunk data with `remaining` bytes to go. Next: data (fewer bytes), dataTerminator.
        case data(remaining: Int64)
        /// Expecting the CRLF that closes chunk data. Next: sizeLine.
        case dataTerminator
        /// After the last chunk: trailer field lines up to an empty line. Next: trailers (more bytes
        /// scanned), finished.
        case trailers(HeadScanner)
        /// The body is complete; decode must not be called again. Next: none.
        case finished
    }

    private var state = State.sizeLine(scannedBytes: 0)
    private let limits: CodecLimits
    /// Whether an obs-fold in a trailer is joined (responses) or refused (requests); see FieldLineParser.
    private let allowsObsFold: Bool
    /// Chunk-data bytes decoded so far (the body length without framing), for truncation errors.
    public private(set) var receivedBytes: Int64 = 0

    /// A decoder positioned before the first chunk-size line.
    public init(limits: CodecLimits = CodecLimits()) {
        self.init(limits: limits, allowsObsFold: true)
    }

    /// A decoder for a request body (server side) refuses obs-fold in trailers, as in the head.
    init(limits: CodecLimits, allowsObsFold: Bool) {
        self.limits = limits
        self.allowsObsFold = allowsObsFold
    }

    /// Consumes bytes from the front of `input` and returns the next step. `isEndOfStream` says no bytes
    /// will follow those in `input`: a body that is not complete by then is truncatedBody.
    public mutating func decode(_ input: inout ArraySlice<UInt8>, isEndOfStream: Bool) throws(CodecError) -> Step {
        while true {
            switch state {
            case .sizeLine(let scannedBytes):
                guard let (size, lineLength) = try readSizeLine(input, scannedBytes: scannedBytes) else {
                    state = .sizeLine(scannedBytes: min(input.count, limits.maxChunkLineBytes))
                    return try needMoreData(isEndOfStream)
                }
                input = input[(input.startIndex + lineLength)...]
                state = size == 0 ? .trailers(HeadScanner()) : .data(remaining: size)

            case .data(let remaining):
                if input.isEmpty { return try needMoreData(isEndOfStream) }
                let taken = Int(min(remaining, Int64(input.count)))
                let split = input.startIndex + taken
                let data = input[..<split]
                input = input[split...]
                receivedBytes += Int64(taken)
                state = taken == remaining ? .dataTerminator : .data(remaining: remaining - Int64(taken))
                return .data(data)

            case .dataTerminator:
                // Decided on exactly two bytes (one at end of stream), so the error is the same for any split.
                guard input.count >= 2 || (isEndOfStream && !input.isEmpty) else {
                    return try needMoreData(isEndOfStream)
                }
                let first = input[input.startIndex]
                if input.count >= 2, first == ByteClasses.cr, input[input.startIndex + 1] == ByteClasses.lf {
                    input = input[(input.startIndex + 2)...]
                    state = .sizeLine(scannedBytes: 0)
                } else if input.count == 1 && first == ByteClasses.cr {
                    return try needMoreData(isEndOfStream)  // a CR, then the stream ended
                } else {
                    throw .missingChunkTerminator(preview: ByteClasses.escapedPreview(input.prefix(2)))
                }

            case .trailers(var scanner):
                let result = try readTrailers(input, scanner: &scanner, isEndOfStream: isEndOfStream)
                guard let (trailers, length) = result else {
                    state = .trailers(scanner)
                    return try needMoreData(isEndOfStream)
                }
                input = input[(input.startIndex + length)...]
                state = .finished
                return .end(trailers: trailers)

            case .finished:
                preconditionFailure("ChunkedDecoder.decode called after the end of the body (state \(state))")
            }
        }
    }

    /// `.needMoreData`, or truncatedBody when no more data will come.
    private func needMoreData(_ isEndOfStream: Bool) throws(CodecError) -> Step {
        if isEndOfStream { throw .truncatedBody(expected: nil, received: receivedBytes) }
        return .needMoreData
    }

    /// Reads `chunk-size [chunk-ext] CRLF`. Returns the size and the line's length, or nil when the line is
    /// not complete yet.
    ///
    /// The search for the LF resumes after the `scannedBytes` already searched, as HeadScanner does for a
    /// head. Searching from the start of the line on every call cost `maxChunkLineBytes`² / 2 byte tests for
    /// a line that arrives one byte per read: 8 million for a 4 KiB line, some 2,000 per byte received. RFC
    /// 9112 §7.1.1 lets a server send chunk extensions, which the client must skip, so a server could repeat
    /// such lines to make a slow drip cost the client far more CPU than it costs the server. Found by
    /// profiling the response decoder's fuzz target, whose slowest inputs were long chunk-size lines.
    private func readSizeLine(
        _ input: ArraySlice<UInt8>, scannedBytes: Int
    ) throws(CodecError) -> (size: Int64, lineLength: Int)? {
        let limit = limits.maxChunkLineBytes
        return try input.withUnsafeBufferPointer { (bytes) throws(CodecError) -> (Int64, Int)? in
            let upper = min(bytes.count, limit)
            var lineFeed = scannedBytes
            while lineFeed < upper && bytes[lineFeed] != ByteClasses.lf { lineFeed += 1 }
            guard lineFeed < upper else {
                // The line cannot end within the limit: refuse it once limit + 1 bytes are here, a point
                // that does not depend on how the bytes were split.
                if bytes.count > limit { throw .chunkLineTooLong(limit: limit, seen: limit + 1) }
                return nil
            }
            let line = UnsafeBufferPointer(rebasing: bytes[0..<lineFeed])
            return (try parseSizeLine(line), lineFeed + 1)
        }
    }

    /// Parses a complete size line (without its LF, with its CR): hex digits, optional extensions, CR.
    private func parseSizeLine(_ line: UnsafeBufferPointer<UInt8>) throws(CodecError) -> Int64 {
        // Built only when needed: escaping is far slower than parsing.
        func invalid() -> CodecError { .invalidChunkSize(preview: ByteClasses.escapedPreview(line)) }
        guard let last = line.last, last == ByteClasses.cr else { throw invalid() }
        let end = line.count - 1
        var size: Int64 = 0
        var index = 0
        while index < end, let digit = ByteClasses.hexValue(line[index]) {
            // 63 bits at most: one more hex digit would shift a bit into the sign.
            if size > Int64.max >> 4 { throw .chunkSizeOverflow(preview: ByteClasses.escapedPreview(line)) }
            size = size << 4 | Int64(digit)
            index += 1
        }
        guard index > 0 else { throw invalid() }
        // RFC 9112 §7.1.1: chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ).
        // Extensions carry nothing HTTPWire uses, so after the BWS and ";" they are skipped, but only over
        // field-value bytes: a NUL, a bare CR or another control byte is refused. Trailing BWS without an
        // extension ("5 \r\n", sent by some old servers) is accepted; it cannot change the size.
        while index < end && ByteClasses.isWhitespace(line[index]) { index += 1 }
        if index < end {
            guard line[index] == UInt8(ascii: ";") else { throw invalid() }
            while index < end {
                guard ByteClasses.isFieldValueByte(line[index]) else { throw invalid() }
                index += 1
            }
        }
        return size
    }

    /// Reads the trailer section up to its empty line, bounded by maxTrailerBytes. Returns the trailers and
    /// the section's length, or nil when the empty line has not arrived.
    private func readTrailers(
        _ input: ArraySlice<UInt8>, scanner: inout HeadScanner, isEndOfStream: Bool
    ) throws(CodecError) -> (HTTPFields, Int)? {
        let limit = limits.maxTrailerBytes
        let maxFieldCount = limits.maxFieldCount
        let allowsObsFold = allowsObsFold
        return try input.withUnsafeBufferPointer { (bytes) throws(CodecError) -> (HTTPFields, Int)? in
            guard let boundary = scanner.findEnd(in: bytes, limit: limit) else {
                if bytes.count > limit { throw .trailersTooLarge(limit: limit, seen: limit + 1) }
                return nil
            }
            if boundary.fieldsEnd == 0 { return (HTTPFields(), boundary.headEnd) }
            // RFC 9110 §6.5.1: trailers must not carry framing or routing fields; they are handed out as
            // received and never consulted for framing, so a Content-Length in them changes nothing.
            let parsed = try FieldLineParser.parse(
                UnsafeBufferPointer(rebasing: bytes[0..<boundary.fieldsEnd]), lineCount: boundary.lineCount,
                allowsObsFold: allowsObsFold, maxFieldCount: maxFieldCount)
            return (parsed.fields, boundary.headEnd)
        }
    }
}
