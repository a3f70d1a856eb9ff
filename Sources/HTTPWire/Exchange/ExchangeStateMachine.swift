// ExchangeStateMachine: one HTTP/1.1 request and its response on one connection, and what becomes of the
// connection afterwards. Exchange layer, sans-IO: `Exchange` writes, reads and runs the decoder, reports what
// happened as an `Event`, and performs the action returned. This file must not touch bytes, sockets or clocks.
//
// Sending and receiving overlap. The driver keeps reading while it writes the body, because a server may
// answer before it has read the whole request (RFC 9112 §9.5) — a 413 or 401 for an upload it will not take.
// The rules this machine encodes:
// - A final response with status 300 or more, or one that says `Connection: close`, arriving while the body is
//   still being sent stops the body (`.stopSendingBody`); the response is still read and reported, and the
//   connection is closed afterwards: the server's view of where our request ends is unknowable.
// - A 2xx with keep-alive arriving early does not stop the body: the server is consuming it as a stream (an
//   echo, or nginx discarding it). The exchange ends when both directions are done, as in AsyncHTTPClient.
// - `Expect: 100-continue` (RFC 9110 §10.1.1): after the head, wait for `100`, a final response or a short
//   timer. `100` or the timer sends the body (the RFC lets a client stop waiting at any time). A final
//   response instead means the server answered the head alone: the body is not sent and, since the server may
//   still expect the announced body bytes, the connection is closed after the response.
// - The connection goes back to the pool only if the request was sent in full, the response ended, both sides
//   keep the connection alive (RFC 9112 §9.3) and no byte follows the response.
// - A lost connection (end of stream, reset, failed write) before any response byte on a reused connection is
//   sent again, once, on a new connection, when the method is idempotent (RFC 9110 §9.2.2) and the body can be
//   sent again (RFC 9112 §9.3.1; Go's `checkTransportResend`): the server probably closed the idle connection
//   as we wrote. On a fresh connection it is an error: an end of stream there is curl's "empty reply from
//   server" (exit 52). (A *retry* is something else: the client's retry policy sending a request again after
//   a failure or a 503; a resend is this one silent repair of a stale connection.)

import HTTPWireCodec

/// The life of one request/response exchange on one connection, as events in and actions out.
///
/// ```swift
/// var exchange = ExchangeStateMachine(method: .get, body: .empty, isReusedConnection: lease.isReused)
/// exchange.start()                                           // .sendHead
/// exchange.headSent()                                        // .wait (read the response)
/// exchange.responseHeadReceived(status: 200, isKeepAlive: true)    // .wait
/// exchange.responseEnded(hasUnconsumedBytes: false, isKeepAlive: true)   // .returnToPool
/// ```
package struct ExchangeStateMachine: Sendable {
    /// What the request carries, as far as sending it twice is concerned.
    package enum RequestBody: Hashable, Sendable {
        /// No content at all.
        case empty
        /// Content that can be produced again from the start: bytes in memory, a file.
        case replayable
        /// Content read once, such as standard input or a pipe: it can never be sent a second time.
        case oneShot
    }

    /// What the driver must do next.
    package enum Action: Hashable, Sendable {
        /// Write the request head.
        case sendHead
        /// Write the next body chunk (or the first one); report `bodyChunkSent` or `bodyFinished`.
        case sendBody
        /// Start the `Expect: 100-continue` timer (about a second); report `continueTimeoutFired` if it fires.
        case scheduleContinueTimeout
        /// Send no more request bytes (the body, or what is left of the head); keep reading the response,
        /// which is reported as usual.
        case stopSendingBody
        /// Nothing new: keep reading, and finish any write in progress.
        case wait
        /// The exchange is over and the connection is clean: release it to the pool as reusable.
        case returnToPool
        /// The exchange is over (the response is complete) but the connection cannot be reused: close it.
        case closeConnection
        /// Close the connection and send the same request again on a new one (a reused connection the server
        /// had closed); nothing of this attempt is reported.
        case resendOnNewConnection
        /// Close the connection and report the error.
        case fail(HTTPWireError)
        /// Close the connection and report Swift's `CancellationError`.
        case failCancelled
    }

    /// Everything that can happen to an exchange, as past-tense facts: one case per event method below,
    /// so an owner can funnel every report through one call (``receive(_:)``) and one log line.
    package enum Event: Hashable, Sendable {
        /// The owner is ready to begin (``start()``).
        case started
        /// The last byte of the head was written (``headSent()``).
        case headSent
        /// A body piece was written (``bodyChunkSent()``).
        case bodyChunkSent
        /// The whole body was written (``bodyFinished()``).
        case bodyFinished
        /// The `Expect: 100-continue` wait ran out (``continueTimeoutFired()``).
        case continueTimeoutFired
        /// A 1xx arrived (``informationalReceived(status:)``).
        case informationalReceived(status: Int)
        /// The final head arrived (``responseHeadReceived(status:isKeepAlive:)``).
        case responseHeadReceived(status: Int, isKeepAlive: Bool)
        /// The response ended (``responseEnded(hasUnconsumedBytes:isKeepAlive:)``).
        case responseEnded(hasUnconsumedBytes: Bool, isKeepAlive: Bool)
        /// The peer closed before any response byte (``peerClosedBeforeResponse()``).
        case peerClosedBeforeResponse
        /// A read, write or decode failed (``connectionFailed(_:beforeAnyResponseByte:)``).
        case connectionFailed(HTTPWireError, beforeAnyResponseByte: Bool)
        /// The caller was cancelled (``cancelled()``).
        case cancelled
    }

    /// Feeds `event` to the method of the same name and returns its action.
    package mutating func receive(_ event: Event) -> Action {
        switch event {
        case .started: return start()
        case .headSent: return headSent()
        case .bodyChunkSent: return bodyChunkSent()
        case .bodyFinished: return bodyFinished()
        case .continueTimeoutFired: return continueTimeoutFired()
        case .informationalReceived(let status): return informationalReceived(status: status)
        case .responseHeadReceived(let status, let isKeepAlive):
            return responseHeadReceived(status: status, isKeepAlive: isKeepAlive)
        case .responseEnded(let hasUnconsumedBytes, let isKeepAlive):
            return responseEnded(hasUnconsumedBytes: hasUnconsumedBytes, isKeepAlive: isKeepAlive)
        case .peerClosedBeforeResponse: return peerClosedBeforeResponse()
        case .connectionFailed(let error, let beforeAnyResponseByte):
            return connectionFailed(error, beforeAnyResponseByte: beforeAnyResponseByte)
        case .cancelled: return cancelled()
        }
    }

    /// How far the request has been sent, once a final response head has arrived.
    private enum RequestProgress: Hashable, Sendable {
        /// Body chunks are still being written (an early 2xx with keep-alive). Next: sent, abandoned.
        case sending
        /// The whole request is written. Terminal for this sub-state.
        case sent
        /// We stopped sending (early final response ≥ 300, `Connection: close`, refused 100-continue, or a
        /// failed write). Terminal for this sub-state; the connection will be closed.
        case abandoned
    }

    private enum State: Hashable, Sendable {
        /// Created, nothing written. Next: sendingHead, finished (cancelled, failed).
        case idle
        /// The head is being written. Next: awaitingContinue, sendingBody, awaitingHead, receivingBody(.abandoned),
        /// finished.
        case sendingHead
        /// Head with `Expect: 100-continue` sent; body held back. Next: sendingBody, receivingBody(.abandoned),
        /// finished.
        case awaitingContinue
        /// Body being written, no response yet. Next: awaitingHead, receivingBody(.sending),
        /// receivingBody(.abandoned), finished.
        case sendingBody
        /// Request fully written, waiting for the final response head. Next: receivingBody(.sent), finished.
        case awaitingHead
        /// Final head received, response body arriving. Next: receivingBody (progress moves on),
        /// sendingBodyAfterResponse, finished.
        case receivingBody(RequestProgress)
        /// The response ended (keep-alive, nothing left over) but an early 2xx left the body still being
        /// written. Next: finished.
        case sendingBodyAfterResponse
        /// The exchange is over; late events are ignored. Terminal.
        case finished
    }

    private var state: State = .idle
    private let method: Method
    private let body: RequestBody
    private let expectsContinue: Bool
    private let isReusedConnection: Bool
    private let isResend: Bool
    /// Set by a 1xx: an interim response is a response byte, so a later failure is no longer retried.
    private var hasReceivedInterimResponse = false

    /// An exchange about to start.
    ///
    /// - Parameters:
    ///   - method: the request method; its idempotency decides retries (RFC 9110 §9.2.2).
    ///   - body: whether there is content and whether it can be sent twice.
    ///   - expectsContinue: the head carries `Expect: 100-continue`. RFC 9110 §10.1.1: a client must not send it
    ///     without content, so `body` must not be `.empty`.
    ///   - isReusedConnection: the connection carried an earlier exchange (`PoolStateMachine.Lease.isReused`).
    ///   - isResend: this exchange already is the one resend; it is never sent a third time.
    package init(
        method: Method, body: RequestBody, expectsContinue: Bool = false, isReusedConnection: Bool,
        isResend: Bool = false
    ) {
        precondition(!(expectsContinue && body == .empty), "Expect: 100-continue without content (RFC 9110 §10.1.1)")
        self.method = method
        self.body = body
        self.expectsContinue = expectsContinue
        self.isReusedConnection = isReusedConnection
        self.isResend = isResend
    }

    /// Whether the exchange is over (a final action has been returned).
    package var isFinished: Bool { state == .finished }

    /// The current state's name, such as `receivingBody(sent)`: what the state diagram in the Architecture
    /// article is drawn from (StateDiagramTests explores the machine event by event).
    package var stateName: String {
        switch state {
        case .receivingBody(let progress): "receivingBody(\(progress))"
        case .idle, .sendingHead, .awaitingContinue, .sendingBody, .awaitingHead, .sendingBodyAfterResponse,
            .finished:
            "\(state)"
        }
    }

    // MARK: Request side (driven by our own writes)

    /// The driver is ready to begin: `.sendHead`.
    package mutating func start() -> Action {
        switch state {
        case .idle:
            state = .sendingHead
            return .sendHead
        case .sendingHead, .awaitingContinue, .sendingBody, .awaitingHead, .receivingBody,
            .sendingBodyAfterResponse, .finished:
            preconditionFailure("exchange started twice, state \(state)")
        }
    }

    /// The last byte of the head was written. Report it before reading again, so a `100` is never seen first.
    package mutating func headSent() -> Action {
        switch state {
        case .sendingHead where body == .empty:
            state = .awaitingHead
            return .wait
        case .sendingHead where expectsContinue:
            state = .awaitingContinue
            return .scheduleContinueTimeout
        case .sendingHead:
            state = .sendingBody
            return .sendBody
        case .receivingBody(.abandoned), .finished:
            return .wait  // the server answered, or the exchange ended, while the head was being written
        case .idle, .awaitingContinue, .sendingBody, .awaitingHead, .receivingBody(.sending),
            .receivingBody(.sent), .sendingBodyAfterResponse:
            preconditionFailure("head sent in state \(state)")
        }
    }

    /// One body chunk was written: `.sendBody` for the next one, or `.wait` once sending was stopped.
    package mutating func bodyChunkSent() -> Action {
        switch state {
        case .sendingBody, .receivingBody(.sending), .sendingBodyAfterResponse:
            return .sendBody
        case .receivingBody(.abandoned), .finished:
            return .wait  // a write that was in flight when sending stopped
        case .idle, .sendingHead, .awaitingContinue, .awaitingHead, .receivingBody(.sent):
            preconditionFailure("body chunk sent in state \(state)")
        }
    }

    /// The last body byte (and, for chunked framing, the last chunk) was written.
    package mutating func bodyFinished() -> Action {
        switch state {
        case .sendingBody:
            state = .awaitingHead
            return .wait
        case .receivingBody(.sending):
            state = .receivingBody(.sent)
            return .wait
        case .sendingBodyAfterResponse:
            state = .finished
            return .returnToPool  // the response ended with keep-alive and nothing left over
        case .receivingBody(.abandoned), .finished:
            return .wait
        case .idle, .sendingHead, .awaitingContinue, .awaitingHead, .receivingBody(.sent):
            preconditionFailure("body finished in state \(state)")
        }
    }

    /// The `Expect: 100-continue` timer fired: stop waiting and send the body (RFC 9110 §10.1.1). Stale
    /// timers (a `100` or a final response came first) are ignored.
    package mutating func continueTimeoutFired() -> Action {
        switch state {
        case .awaitingContinue:
            state = .sendingBody
            return .sendBody
        case .idle, .sendingHead, .sendingBody, .awaitingHead, .receivingBody, .sendingBodyAfterResponse,
            .finished:
            return .wait
        }
    }

    // MARK: Response side (driven by the peer: every event is valid in every state)

    /// An interim 1xx response arrived (100, 102, 103; the decoder rejects 101). Only a `100` awaited after
    /// `Expect: 100-continue` changes anything: it releases the body. Others are informational and skipped.
    package mutating func informationalReceived(status: Int) -> Action {
        hasReceivedInterimResponse = true
        switch state {
        case .awaitingContinue where status == 100:
            state = .sendingBody
            return .sendBody
        case .idle, .sendingHead, .awaitingContinue, .sendingBody, .awaitingHead, .receivingBody,
            .sendingBodyAfterResponse, .finished:
            return .wait
        }
    }

    /// The final response head arrived (status 200–599). `isKeepAlive` is what its fields and version say
    /// (RFC 9112 §9.3); it matters here only while the body is still being sent.
    package mutating func responseHeadReceived(status: Int, isKeepAlive: Bool) -> Action {
        switch state {
        case .awaitingHead:
            state = .receivingBody(.sent)
            return .wait
        case .sendingBody where status < 300 && isKeepAlive:
            state = .receivingBody(.sending)  // an early 2xx: the server is streaming our body; keep sending
            return .wait
        case .sendingHead, .awaitingContinue, .sendingBody:
            state = .receivingBody(.abandoned)  // RFC 9112 §9.5, RFC 9110 §10.1.1: it will not read the rest
            return .stopSendingBody
        case .finished:
            return .wait
        case .idle, .receivingBody, .sendingBodyAfterResponse:
            // The decoder yields one final head per message, only after the exchange started.
            preconditionFailure("second or premature response head in state \(state)")
        }
    }

    /// The decoder reported the end of the response. `hasUnconsumedBytes`: bytes follow the message (a
    /// server sending what nobody asked for); `isKeepAlive`: the decoder's verdict at the end.
    package mutating func responseEnded(hasUnconsumedBytes: Bool, isKeepAlive: Bool) -> Action {
        let isClean = isKeepAlive && !hasUnconsumedBytes
        switch state {
        case .receivingBody(.sent):
            state = .finished
            return isClean ? .returnToPool : .closeConnection
        case .receivingBody(.abandoned):
            state = .finished
            return .closeConnection
        case .receivingBody(.sending) where isClean:
            state = .sendingBodyAfterResponse
            return .wait
        case .receivingBody(.sending):
            state = .finished
            return .closeConnection  // the response is complete; the unsent rest of the body no longer matters
        case .finished:
            return .wait
        case .idle, .sendingHead, .awaitingContinue, .sendingBody, .awaitingHead, .sendingBodyAfterResponse:
            preconditionFailure("response ended without a head in state \(state)")
        }
    }

    /// The read side reached end of stream before any byte of a response: a resend on a reused connection
    /// for a replayable request, otherwise `.fail(.emptyReply)` (curl's exit 52). After some bytes the
    /// decoder, fed the end of stream, reports a truncation through `connectionFailed` instead.
    package mutating func peerClosedBeforeResponse() -> Action {
        connectionFailed(.emptyReply, beforeAnyResponseByte: true)
    }

    /// A read, write or decode failed. `beforeAnyResponseByte`: no byte of a response had been read.
    ///
    /// A failed *write* once sending has stopped or the response is already flowing is expected — a server
    /// that answered early may close its read side — so it only abandons the body and reading goes on.
    package mutating func connectionFailed(_ error: HTTPWireError, beforeAnyResponseByte: Bool) -> Action {
        let isSendFailure: Bool
        if case .sendFailed = error { isSendFailure = true } else { isSendFailure = false }
        switch state {
        case .receivingBody(.abandoned) where isSendFailure, .receivingBody(.sending) where isSendFailure:
            state = .receivingBody(.abandoned)
            return .wait
        case .sendingBodyAfterResponse:
            state = .finished  // the response was complete: only the unwanted rest of the body is lost
            return .closeConnection
        case .finished:
            return .wait
        case .idle, .sendingHead, .awaitingContinue, .sendingBody, .awaitingHead:
            state = .finished
            return beforeAnyResponseByte && mayResend && Self.isConnectionLoss(error)
                ? .resendOnNewConnection : .fail(error)
        case .receivingBody(.sending), .receivingBody(.sent), .receivingBody(.abandoned):
            state = .finished
            return .fail(error)
        }
    }

    /// The caller's task was cancelled: whatever is on the wire, the connection cannot be reused.
    package mutating func cancelled() -> Action {
        switch state {
        case .finished:
            return .wait
        case .idle, .sendingHead, .awaitingContinue, .sendingBody, .awaitingHead, .receivingBody,
            .sendingBodyAfterResponse:
            state = .finished
            return .failCancelled
        }
    }

    /// Failures that mean the server closed or dropped the connection (what a stale kept-alive connection
    /// looks like): an end of stream, a reset, a refused write. A timeout or a malformed byte says the
    /// server is slow or broken, and sending the request again would only repeat that.
    private static func isConnectionLoss(_ error: HTTPWireError) -> Bool {
        switch error {
        case .emptyReply, .sendFailed, .receiveFailed:
            return true
        case .invalidURL, .invalidRequest, .couldNotResolveHost, .couldNotConnect, .malformedResponse, .bodyTruncated,
            .bodyTooLarge, .httpStatus, .localWriteFailed, .localReadFailed, .localFileChanged, .timedOut,
            .tlsHandshakeFailed, .localCertificateFailed, .tooManyRedirects, .requestBodyNotReplayable,
            .peerCertificateRejected,
            .checksumMismatch, .unacceptableResponse, .pinnedPublicKeyMismatch, .couldNotResolveProxy,
            .proxyAuthenticationRequired,
            .proxyTunnelFailed, .socksProxyFailed, .badContentEncoding:
            return false
        }
    }

    /// Go's `checkTransportResend` rule, minus its "nothing written" exception: a reused connection, no
    /// interim response seen, an idempotent method, a body that can be produced again, and not already a resend.
    private var mayResend: Bool {
        isReusedConnection && !hasReceivedInterimResponse && !isResend && method.isIdempotent && body != .oneShot
    }
}
