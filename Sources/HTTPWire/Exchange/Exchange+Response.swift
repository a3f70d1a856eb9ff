// Exchange+Response: reading the response body, and what a failure on the way means (exchange layer).
//
// Backpressure is the calling pattern itself: the socket is read only when the consumer asks for the next
// piece, so a slow consumer leaves bytes in the kernel's buffer and TCP flow control slows the server. At the
// end of the body the machine decides the connection's fate with the decoder's verdict. Two fast paths skip
// user space for a plain-HTTP body with a Content-Length: splice(2) into a download's file, and recv(2) with
// MSG_TRUNC to drop a body nobody wants; a third reads such a body, over TLS too, straight into memory the
// caller lends (a download's write block), past the receive buffer, and decodes a chunked body there, the
// chunk data left in place between the framing. Every failure — while sending, waiting for the head or
// reading the body — is turned into what the caller sees in one place, `failure(_:phase:responseBytes:)`,
// which also asks the machine whether the request is sent again on a new connection.

import HTTPWireCodec
import HTTPWireTransport

extension Exchange {
    /// What the bytes already received give, without reading from the socket.
    enum ReceivedBodyPiece {
        /// A piece of the body (a slice of the connection's receive buffer).
        case piece(ArraySlice<UInt8>)
        /// The body has ended; the machine has been told.
        case end
        /// More bytes must be read first.
        case needsRead
    }

    /// The next piece of the body from what is already received, the end, or `.needsRead`. Never waits:
    /// a small body usually arrives with its head, and taking it here costs no suspension.
    func nextReceivedBodyPiece() throws -> ReceivedBodyPiece {
        guard !isResponseFinished else { return .end }
        let event: ResponseEvent
        do {
            event = try decoder.nextEvent()
        } catch {
            throw bodyFailure(error)
        }
        switch event {
        case .body(let bytes):
            receivedBytes += Int64(bytes.count)
            return .piece(bytes)
        case .end(let trailers):
            self.trailers = trailers
            isResponseFinished = true
            endNanoseconds = Deadline.nowNanoseconds()
            report(
                .responseEnded(hasUnconsumedBytes: !decoder.unconsumedBytes.isEmpty, isKeepAlive: decoder.isKeepAlive))
            return .end
        case .needMoreData:
            return .needsRead
        case .head, .informational, .paused:
            preconditionFailure("decoder event \(event) inside a response body")
        }
    }

    /// The next piece of the body (a slice of the connection's receive buffer), or nil at its end.
    func nextBodyPiece() async throws -> ArraySlice<UInt8>? {
        while true {
            switch try nextReceivedBodyPiece() {
            case .piece(let bytes):
                return bytes
            case .end:
                return nil
            case .needsRead:
                do {
                    _ = try await receive(deadline: deadlines.nextWait())
                } catch {
                    throw bodyFailure(error)
                }
            }
        }
    }

    /// Moves up to `maxBytes` of a Content-Length body straight from the socket into `file` at `offset` with
    /// splice(2), when the connection is plain TCP and no body byte is buffered. Returns nil when the fast
    /// path does not apply (use ``nextBodyPiece()``), else the bytes moved.
    func spliceBody(into file: DiskFile, offset: Int64, maxBytes: Int64) async throws -> Int64? {
        guard let remaining = outOfBandBytesRemaining else { return nil }
        let moved: Int64
        do {
            moved = try await connection.socket.spliceToFile(
                file, offset: offset, maxBytes: min(remaining, maxBytes), deadline: deadlines.nextWait())
        } catch {
            throw bodyFailure(error)
        }
        return bodyBytesMovedOutOfBand(moved)
    }

    /// Reads the next body bytes straight onto the end of `buffer` — TLS records decrypted where the caller
    /// wants the bytes, no receive buffer and no copy out of it — and adds the ranges of `buffer` that are
    /// body to `pieces`; at most `maxBytes`, which must fit in `buffer`'s spare capacity. A Content-Length body
    /// gives one range. A chunked body is decoded where it landed: its chunk data are ranges between the
    /// framing (RFC 9112 §7.1), which stays behind, uncopied. Returns the body bytes read (0 when the read
    /// held only framing), or nil when this does not apply (use ``nextBodyPiece()``): another framing, body
    /// bytes already buffered (those go first), or the body's end.
    func readBody(appendingTo buffer: inout [UInt8], maxBytes: Int, pieces: inout [Range<Int>]) async throws -> Int? {
        guard canReadBodyInPlace, maxBytes > 0 else { return nil }
        if let remaining = unbufferedBodyBytesRemaining {
            let start = buffer.count
            let count = try await readStream(appendingTo: &buffer, maxBytes: Int(min(remaining, Int64(maxBytes))))
            guard let moved = bodyBytesMovedOutOfBand(Int64(count)) else { return nil }
            pieces.append(start..<(start + Int(moved)))
            return Int(moved)
        }
        let start = buffer.count
        let count = try await readStream(appendingTo: &buffer, maxBytes: maxBytes)
        // Fed by reference (nothing was waiting): every piece the decoder hands out is a slice of `buffer`.
        decoder.feed(count == 0 ? [] : buffer[start...])
        // A size line the read ended in stays with the decoder, in its own storage, so `buffer` is not shared
        // when the next read appends to it.
        defer { decoder.detachUnconsumedBytes() }
        var bodyBytes = 0
        while case .piece(let piece) = try nextReceivedBodyPiece() {
            let isInBuffer = piece.withUnsafeBufferPointer { slice in
                buffer.withUnsafeBufferPointer { slice.baseAddress == $0.baseAddress.map { $0 + piece.startIndex } }
            }
            precondition(isInBuffer, "a chunk decoded from bytes fed by reference is not a slice of them")
            pieces.append(piece.startIndex..<piece.endIndex)
            bodyBytes += piece.count
        }
        return bodyBytes
    }

    /// Whether ``readBody(appendingTo:maxBytes:pieces:)`` applies now: a Content-Length body none of whose
    /// bytes are buffered, or a chunked one with nothing waiting in the decoder (not even part of a size
    /// line). Lets a download lend its block only to a read that will fill it.
    var canReadBodyInPlace: Bool {
        guard !isResponseFinished else { return false }
        if unbufferedBodyBytesRemaining != nil { return true }
        guard case .chunked? = decoder.framing else { return false }
        return decoder.unconsumedBytes.isEmpty
    }

    /// One read appending to `buffer`, its failure turned into what the caller sees.
    private func readStream(appendingTo buffer: inout [UInt8], maxBytes: Int) async throws -> Int {
        do {
            return try await connection.stream.read(into: &buffer, maxBytes: maxBytes, deadline: deadlines.nextWait())
        } catch {
            throw bodyFailure(error)
        }
    }

    /// Drops up to `maxBytes` of a Content-Length body inside the kernel (recv(2) with MSG_TRUNC: nothing is
    /// copied), when the connection is plain TCP and no body byte is buffered. Nil when that does not apply
    /// (use ``nextBodyPiece()``), else the bytes dropped.
    func discardBody(maxBytes: Int64) async throws -> Int64? {
        guard let remaining = outOfBandBytesRemaining else { return nil }
        let dropped: Int64
        do {
            dropped = try await connection.socket.discard(
                maxBytes: min(remaining, maxBytes), deadline: deadlines.nextWait())
        } catch {
            throw bodyFailure(error)
        }
        return bodyBytesMovedOutOfBand(dropped)
    }

    /// Body bytes that may move past the decoder now: plain TCP, a Content-Length body, nothing buffered.
    private var outOfBandBytesRemaining: Int64? {
        connection.isPlainTCP ? unbufferedBodyBytesRemaining : nil
    }

    /// What is left of a Content-Length body none of whose bytes are buffered; nil otherwise or at its end.
    private var unbufferedBodyBytesRemaining: Int64? {
        guard !isResponseFinished, let remaining = decoder.identityBodyBytesRemaining, remaining > 0 else {
            return nil
        }
        return remaining
    }

    /// Books `count` bytes moved by splice, discard or a direct read with the decoder; 0 means the peer closed
    /// early, which the decoder, fed the end of stream, reports as a truncation on the next
    /// ``nextBodyPiece()``.
    private func bodyBytesMovedOutOfBand(_ count: Int64) -> Int64? {
        if count == 0 {
            decoder.feed([])
            return nil
        }
        decoder.bodyBytesMovedOutOfBand(count)
        receivedBytes += count
        return count
    }

    // MARK: Failures

    /// A failure while reading the body: it ends the response and the exchange (the connection is closed).
    private func bodyFailure(_ error: any Error) -> any Error {
        isResponseFinished = true
        shared.withLock { $0.writer }?.cancel()
        return failure(error, phase: .body, responseBytes: 1)
    }

    /// Turns a failure while sending, waiting for the head or reading the body into what the caller sees,
    /// and tells the machine; `responseBytes` is how many response bytes had arrived (0 allows a resend).
    func failure(_ error: any Error, phase: HTTPWireError.Phase, responseBytes: Int) -> any Error {
        let recorded = shared.withLock { $0.recordedFailure }
        if Task.isCancelled || (error is CancellationError && recorded == nil) {
            report(.cancelled)
            return CancellationError()
        }
        var cause: HTTPWireError
        if error is CancellationError, let recorded {
            // The writer or a timer closed the connection under this wait: its failure is the story.
            guard let wire = recorded as? HTTPWireError else {
                report(.cancelled)
                return recorded  // the caller's own body stream threw: passed on as it is
            }
            cause = wire
        } else {
            switch error {
            case CodecError.truncatedHead(received: 0):
                cause = .emptyReply  // closed before any byte: curl's "empty reply from server" (exit 52)
            case CodecError.truncatedBody(let expected, let received):
                cause = .bodyTruncated(expected: expected, received: received)
            case let codec as CodecError:
                cause = .malformedResponse(codec)
            case let transport as TransportError:
                cause = HTTPWireError(transport, phase: deadlines.phaseOfExpiry(phase))
            case let wire as HTTPWireError:
                cause = wire
            default:
                report(.cancelled)
                return error
            }
            // Before the head, the writer's failure explains a closed connection better than the read that
            // noticed it — except that a refused write next to a malformed response is the response's fault.
            if phase != .body, let recorded {
                guard let wire = recorded as? HTTPWireError else {
                    report(.cancelled)
                    return recorded
                }
                if case .sendFailed = wire, case .malformedResponse = cause {
                } else {
                    cause = wire
                }
            }
        }
        let action: ExchangeStateMachine.Action
        if case .emptyReply = cause {
            action = report(.peerClosedBeforeResponse)
        } else {
            action = report(.connectionFailed(cause, beforeAnyResponseByte: responseBytes == 0))
        }
        switch action {
        case .resendOnNewConnection: return ResendOnNewConnection(cause: cause)
        case .fail(let reported): return reported
        case .failCancelled: return CancellationError()
        case .sendHead, .sendBody, .scheduleContinueTimeout, .stopSendingBody, .wait, .returnToPool,
            .closeConnection:
            return cause
        }
    }
}
