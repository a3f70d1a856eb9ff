// ResponseBodyReader: pulls a response body off its connection, one piece per call (client layer).
//
// Backpressure is the calling pattern itself: the socket is read only when the consumer asks for the next
// piece, so a slow consumer leaves bytes in the kernel's buffer and TCP flow control slows the server. At the
// end of the body the exchange machine decides the connection's fate (back to the pool, or closed); a reader
// dropped before the end closes the connection, since the rest of the body would otherwise be read as the
// next response. It never writes to the connection.

import HTTPWireCodec

/// Reads the body of one response. Used by one task at a time (the consumer of the body).
final class ResponseBodyReader {
    private let control: ExchangeControl
    private let deadlines: RequestDeadlines
    private let writer: Task<Void, Never>?
    private var isFinished = false
    /// Body bytes handed out so far.
    private(set) var receivedBytes: Int64 = 0
    /// The trailer fields, once the body has ended.
    private(set) var trailers = HTTPFields()
    /// The announced length of the body: its Content-Length, 0 when the response has no body (HEAD, 204,
    /// 304), nil when it is chunked or delimited by the close. Read from the decoder when the head arrived,
    /// because once the body ends the connection (and its decoder) may already serve another request.
    let expectedBytes: Int64?

    init(control: ExchangeControl, deadlines: RequestDeadlines, writer: Task<Void, Never>?) {
        self.control = control
        self.deadlines = deadlines
        self.writer = writer
        switch control.lease.connection.decoder.framing {
        case .contentLength(let length)?: expectedBytes = length
        case BodyFraming.none?: expectedBytes = 0
        case .chunked?, .untilClose?, nil: expectedBytes = nil
        }
    }

    deinit {
        if !isFinished {
            writer?.cancel()
            control.abandon()
        }
    }

    private var connection: PooledConnection { control.lease.connection }

    /// The next piece of the body (a slice of the receive buffer), or nil at its end.
    func next() async throws -> ArraySlice<UInt8>? {
        guard !isFinished else { return nil }
        while true {
            let event: ResponseEvent
            do {
                event = try connection.decoder.nextEvent()
            } catch {
                throw fail(error)
            }
            switch event {
            case .body(let bytes):
                receivedBytes += Int64(bytes.count)
                return bytes
            case .end(let trailers):
                self.trailers = trailers
                isFinished = true
                let decoder = connection.decoder
                control.handle {
                    $0.responseEnded(
                        hasUnconsumedBytes: !decoder.unconsumedBytes.isEmpty, isKeepAlive: decoder.isKeepAlive)
                }
                return nil
            case .needMoreData:
                do {
                    _ = try await connection.receive(deadline: deadlines.forPhase(.body))
                } catch {
                    throw fail(error)
                }
            case .head, .informational, .paused:
                preconditionFailure("decoder event \(event) inside a response body")
            }
        }
    }

    /// Moves up to `maxBytes` of a Content-Length body straight from the socket into `file` at `offset` with
    /// splice(2), when the connection is plain TCP and no body byte is buffered. Returns nil when the fast
    /// path does not apply (use ``next()``), else the bytes moved (0 at the end of the body).
    func spliceBody(toFile file: Int32, offset: Int64, maxBytes: Int64) async throws -> Int64? {
        guard !isFinished, connection.isPlainTCP, let remaining = connection.decoder.identityBodyBytesRemaining
        else { return nil }
        if remaining == 0 { return nil }
        let moved: Int64
        do {
            moved = try await connection.socket.spliceToFile(
                file, offset: offset, maxBytes: min(remaining, maxBytes), deadline: deadlines.forPhase(.body))
        } catch {
            throw fail(error)
        }
        if moved == 0 {
            connection.decoder.feed([])  // the peer closed early: the decoder reports the truncation
            return nil
        }
        connection.decoder.bodyBytesMovedOutOfBand(moved)
        receivedBytes += moved
        return moved
    }

    /// Drops up to `maxBytes` of a Content-Length body inside the kernel (recv(2) with MSG_TRUNC: nothing is
    /// copied), when the connection is plain TCP and no body byte is buffered. Nil when that does not apply
    /// (use ``next()``), else the bytes dropped. The same bookkeeping as ``spliceBody(toFile:offset:maxBytes:)``.
    func discardBody(maxBytes: Int64) async throws -> Int64? {
        guard !isFinished, connection.isPlainTCP, let remaining = connection.decoder.identityBodyBytesRemaining
        else { return nil }
        if remaining == 0 { return nil }
        let dropped: Int64
        do {
            dropped = try await connection.socket.discard(
                maxBytes: min(remaining, maxBytes), deadline: deadlines.forPhase(.body))
        } catch {
            throw fail(error)
        }
        if dropped == 0 {
            connection.decoder.feed([])  // the peer closed early: the decoder reports the truncation
            return nil
        }
        connection.decoder.bodyBytesMovedOutOfBand(dropped)
        receivedBytes += dropped
        return dropped
    }

    /// Maps a failure while reading the body and tells the machine (the connection is closed).
    private func fail(_ error: any Error) -> any Error {
        isFinished = true
        writer?.cancel()
        if Task.isCancelled || (error is CancellationError && control.writerError == nil) {
            control.handle { $0.cancelled() }
            return CancellationError()
        }
        let cause: HTTPWireError
        switch error {
        case CodecError.truncatedBody(let expected, let received):
            cause = .bodyTruncated(expected: expected, received: received)
        case let codec as CodecError:
            cause = .malformedResponse(codec)
        case let wire as HTTPWireError:
            cause = wire
        default:
            cause = (control.writerError as? HTTPWireError) ?? .receiveFailed(errno: 0)
        }
        if case .fail(let reported) = control.handle({ $0.connectionFailed(cause, beforeAnyResponseByte: false) }) {
            return reported
        }
        return cause
    }

    /// Waits for a writer still sending after an early 2xx; the exchange releases the connection when both
    /// sides are done.
    func waitForWriter() async {
        await writer?.value
    }
}
