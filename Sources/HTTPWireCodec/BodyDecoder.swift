// BodyDecoder: reads one message body according to its BodyFraming, for both decoders.
// Codec layer: a state machine over bytes; no I/O, no copies of body bytes.
//
// ResponseDecoder and RequestDecoder differ in their start lines and framing rules, but once the framing
// is known a body is a body: count down a Content-Length, decode chunks, or pass everything through until
// the stream ends. Body bytes leave as slices of the receive buffer. This type must not look at heads.

/// Reads one body, given its framing.
struct BodyDecoder: Sendable {
    /// What one call to ``next(from:isEndOfStream:)`` produced.
    enum Step: Sendable, Hashable {
        /// Body bytes: a slice of the input.
        case body(ArraySlice<UInt8>)
        /// The body is complete; trailers are empty unless a chunked body sent some.
        case end(trailers: HTTPFields)
        /// Nothing to hand out until more bytes arrive.
        case needMoreData
    }

    private enum State: Sendable {
        /// Counting down a Content-Length (also `none`, as a length of 0). Next: contentLength, finished.
        case contentLength(remaining: Int64, received: Int64)
        /// Decoding chunks. Next: chunked, finished.
        case chunked(ChunkedDecoder)
        /// Passing bytes through until the stream ends (RFC 9112 §6.3 rule 7). Next: untilClose, finished.
        case untilClose
        /// The end was reported. Next: none.
        case finished
    }

    private var state: State

    /// A reader for a body with the given framing.
    init(framing: BodyFraming, limits: CodecLimits, allowsObsFoldInTrailers: Bool) {
        switch framing {
        case .none: state = .contentLength(remaining: 0, received: 0)
        case .contentLength(let length): state = .contentLength(remaining: length, received: 0)
        case .chunked: state = .chunked(ChunkedDecoder(limits: limits, allowsObsFold: allowsObsFoldInTrailers))
        case .untilClose: state = .untilClose
        }
    }

    /// Bytes of a Content-Length body still to come, when there are some; nil for other framings.
    var identityBytesRemaining: Int64? {
        switch state {
        case .contentLength(let remaining, _): return remaining > 0 ? remaining : nil
        case .chunked, .untilClose, .finished: return nil
        }
    }

    /// Records that the owner moved `count` body bytes itself (socket to file), bypassing the buffer.
    mutating func bytesMovedOutOfBand(_ count: Int64) {
        guard case .contentLength(let remaining, let received) = state, count > 0, count <= remaining else {
            preconditionFailure("\(count) body bytes moved out of band in state \(state)")
        }
        state = .contentLength(remaining: remaining - count, received: received + count)
    }

    /// Consumes bytes from the front of `input` and returns the next step.
    mutating func next(from input: inout ArraySlice<UInt8>, isEndOfStream: Bool) throws(CodecError) -> Step {
        switch state {
        case .contentLength(let remaining, let received):
            if remaining == 0 {
                state = .finished
                return .end(trailers: HTTPFields())
            }
            if input.isEmpty {
                // RFC 9112 §8: a message whose body is shorter than its Content-Length is incomplete.
                if isEndOfStream { throw .truncatedBody(expected: remaining + received, received: received) }
                return .needMoreData
            }
            let taken = Int(min(remaining, Int64(input.count)))
            let split = input.startIndex + taken
            let body = input[..<split]
            input = input[split...]
            state = .contentLength(remaining: remaining - Int64(taken), received: received + Int64(taken))
            return .body(body)

        case .chunked(var chunked):
            let step = try chunked.decode(&input, isEndOfStream: isEndOfStream)
            switch step {
            case .data(let bytes):
                state = .chunked(chunked)
                return .body(bytes)
            case .end(let trailers):
                state = .finished
                return .end(trailers: trailers)
            case .needMoreData:
                state = .chunked(chunked)
                return .needMoreData
            }

        case .untilClose:
            if !input.isEmpty {
                let body = input
                input = input[input.endIndex...]
                return .body(body)
            }
            if isEndOfStream {
                state = .finished
                return .end(trailers: HTTPFields())
            }
            return .needMoreData

        case .finished:
            preconditionFailure("BodyDecoder.next called after the end of the body (state \(state))")
        }
    }
}
