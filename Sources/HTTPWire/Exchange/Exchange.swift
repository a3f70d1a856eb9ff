// Exchange: one request and its response on one leased connection (exchange layer).
//
// This is the one type that drives `ExchangeStateMachine`: every fact — the head written, a body piece
// written, a 100 Continue, the final head, the end of the body, a failure, a timer, a cancellation — is
// reported through `report(_:)`, and every action the machine returns is carried out in one exhaustive
// switch, `perform(_:)`. Nothing else in HTTPWire feeds the machine or decides a connection's fate.
//
// One exchange can have two tasks on its connection: the caller's, which writes the head and then reads the
// response, and a writer task that sends a body too large to go with the head, because a server may answer
// before it has read the whole request (RFC 9112 §9.5). Two timers may run beside them on the reactor's
// clock: the wait for `100 Continue` (RFC 9110 §10.1.1) and, once a large body has been sent, the wait for the
// head. The shared state (the machine, the body's go-ahead, a failure the writer or a timer noticed) is
// under one lock; the decoder and the body counters belong to the reading task alone.
//
// The request head and the response bytes are the codec's business (`RequestEncoder`, `ResponseDecoder`);
// the bytes move through the transport's `ByteStream`. The reading half is in `Exchange+Response.swift`,
// the writer in `Exchange+Body.swift`. This type does not follow redirects or retry: the client does.

import HTTPWireCodec
import HTTPWireTransport

/// Thrown by an exchange whose reused connection turned out to be closed by the server, for a request that
/// may be sent again on a new connection (``ExchangeStateMachine/Action/resendOnNewConnection``).
struct ResendOnNewConnection: Error {
    /// What happened to the stale connection, reported if the resend is not possible after all.
    let cause: HTTPWireError
}

/// One request/response exchange on one connection.
///
/// ```swift
/// let exchange = Exchange(request: request, body: body, lease: lease, pool: pool, deadlines: deadlines,
///                         continueTimeout: .seconds(1), logger: nil)
/// let (head, interim) = try await exchange.run()      // the head is written, the response head read
/// while let piece = try await exchange.nextBodyPiece() { consume(piece) }   // the connection goes back
/// ```
final class Exchange: @unchecked Sendable {
    // @unchecked: the fields in `shared` are guarded by its lock; `decoder`, `receivedBytes`, `trailers`,
    // `isResponseFinished` and `expectedBodyBytes` are owned by the reading task (the caller of `run` and of
    // the body methods), which uses the exchange from one task at a time.

    /// The go-ahead the writer waits for before it sends the body.
    enum Gate {
        /// Not decided; the writer may be waiting.
        case closed(CheckedContinuation<Bool, Never>?)
        /// Decided: true sends the body, false abandons it.
        case decided(Bool)
    }

    /// What the tasks and timers of the exchange share, under `shared`'s lock.
    struct Shared {
        var machine: ExchangeStateMachine
        /// The connection has been handed back to the pool (reusable or to be closed); exactly once.
        var isReleased = false
        var gate = Gate.closed(nil)
        /// A failure the writer or a timer met, kept until the reader decides what the exchange reports.
        var recordedFailure: (any Error)?
        /// The final response head has arrived: from then on the machine hears of writer failures directly.
        var isHeadReceived = false
        /// The writer task, when the body did not go with the head.
        var writer: Task<Void, Never>?
        /// The `100 Continue` wait and the wait for the head after the body; cancelled when the exchange ends
        /// (and kept, at most two, so a test can see that the reactor let go of them).
        var timers: [ReactorTimer] = []
        /// When the writer task sent the last body byte (CLOCK_MONOTONIC ns; 0 until then), for the metrics.
        var bodySentNanoseconds: UInt64 = 0
    }

    let shared: LockedState<Shared>
    /// The connection the exchange runs on.
    let lease: ConnectionPool.Lease
    private let pool: ConnectionPool
    /// The request, resolved against the client's configuration.
    let request: ResolvedRequest
    /// Its body, framed.
    let body: PreparedBody
    let deadlines: RequestDeadlines
    let continueTimeout: Duration
    let logger: (@Sendable (HTTPLogEvent) -> Void)?

    /// Decodes the response. Reader only.
    var decoder = ResponseDecoder()
    /// Response body bytes handed out so far. Reader only.
    var receivedBytes: Int64 = 0
    /// The trailer fields, once the body has ended. Reader only.
    var trailers = HTTPFields()
    /// The body was read to its end, or reading it failed: nothing more comes. Reader only.
    var isResponseFinished = false
    /// The announced length of the body once the head is in: its Content-Length, 0 when the response has
    /// no body (HEAD, 204, 304), nil when it is chunked or delimited by the close. Reader only.
    var expectedBodyBytes: Int64?
    /// CLOCK_MONOTONIC readings for the request's metrics, in nanoseconds, 0 until the event: the head (and
    /// an inline body) written, the first response byte, the end of the body. Reader only.
    var headSentNanoseconds: UInt64 = 0
    var firstByteNanoseconds: UInt64 = 0
    var endNanoseconds: UInt64 = 0
    /// Whether a writer task sends the body (then the request is sent when it finishes). Reader only.
    var hasWriter = false

    /// An exchange about to start on `lease`'s connection.
    init(
        request: ResolvedRequest, body: PreparedBody, lease: ConnectionPool.Lease, pool: ConnectionPool,
        deadlines: RequestDeadlines, continueTimeout: Duration, isResend: Bool,
        logger: (@Sendable (HTTPLogEvent) -> Void)?
    ) {
        let machine = ExchangeStateMachine(
            method: request.method, body: body.replayability, expectsContinue: request.expectContinue,
            isReusedConnection: lease.isReused, isResend: isResend)
        self.shared = LockedState(Shared(machine: machine))
        self.request = request
        self.body = body
        self.lease = lease
        self.pool = pool
        self.deadlines = deadlines
        self.continueTimeout = continueTimeout
        self.logger = logger
    }

    /// The connection's stream and buffers.
    var connection: PooledConnection { lease.connection }

    // MARK: The one place events go in and actions come out

    /// Reports `event` to the machine and performs the action it returns; returns the action too, for the
    /// reporter's own part (the writer continues on `.sendBody`, the reader throws on `.fail`).
    @discardableResult
    func report(_ event: ExchangeStateMachine.Event) -> ExchangeStateMachine.Action {
        let (action, isFirstRelease) = shared.withLock { shared -> (ExchangeStateMachine.Action, Bool) in
            let action = shared.machine.receive(event)
            guard Self.endsExchange(action), !shared.isReleased else { return (action, false) }
            shared.isReleased = true
            return (action, true)
        }
        perform(action, isFirstRelease: isFirstRelease)
        return action
    }

    /// Carries out one action of the machine. The actions that end the exchange release the connection
    /// exactly once (`isFirstRelease`); the caller's own consequence (throwing, resending) is the reporter's.
    private func perform(_ action: ExchangeStateMachine.Action, isFirstRelease: Bool) {
        switch action {
        case .sendHead, .wait:
            break
        case .sendBody:
            openGate(sendingBody: true)
        case .scheduleContinueTimeout:
            schedule(after: continueTimeout) { exchange in
                exchange.report(.continueTimeoutFired)
            }
        case .stopSendingBody:
            openGate(sendingBody: false)
        case .returnToPool:
            if isFirstRelease { release(isReusable: true) }
        case .closeConnection, .resendOnNewConnection, .fail, .failCancelled:
            if isFirstRelease { release(isReusable: false) }
        }
    }

    /// Whether `action` is one of those after which the connection is no longer the exchange's.
    private static func endsExchange(_ action: ExchangeStateMachine.Action) -> Bool {
        switch action {
        case .returnToPool, .closeConnection, .resendOnNewConnection, .fail, .failCancelled: return true
        case .sendHead, .sendBody, .scheduleContinueTimeout, .stopSendingBody, .wait: return false
        }
    }

    /// Hands the connection back, cancels the timers, and tells a writer still waiting for the go-ahead
    /// that it will not come.
    private func release(isReusable: Bool) {
        for timer in shared.withLock({ $0.timers }) where timer.isScheduled { timer.cancel() }
        if !isReusable { closeConnectionSoon() }
        pool.release(lease, isReusable: isReusable)
        openGate(sendingBody: false)
    }

    /// Closes the connection without waiting: a read or write pending on it fails at once.
    func closeConnectionSoon() {
        let stream = connection.stream
        Task { await stream.close() }
    }

    /// Runs `action` on the reactor's clock after `delay`, unless the exchange ends first.
    func schedule(after delay: Duration, _ action: @escaping @Sendable (Exchange) -> Void) {
        let timer = Reactor.shared.schedule(at: .after(delay)) { [weak self] in
            if let self { action(self) }
        }
        // Kept even when the exchange is already over (the writer's head timer can come after the reader
        // released the connection): a test then sees that this very timer was let go.
        let isOver = shared.withLock { shared -> Bool in
            shared.timers.append(timer)
            return shared.isReleased
        }
        if isOver { timer.cancel() }
    }

    // MARK: The body's go-ahead

    /// Waits until the body may be sent (true) or must not be (false).
    func waitForGate() async -> Bool {
        await withCheckedContinuation { continuation in
            let decided = shared.withLock { shared -> Bool? in
                switch shared.gate {
                case .decided(let value): return value
                case .closed:
                    shared.gate = .closed(continuation)
                    return nil
                }
            }
            if let decided { continuation.resume(returning: decided) }
        }
    }

    /// Decides the gate; later decisions are ignored.
    private func openGate(sendingBody: Bool) {
        let waiter = shared.withLock { shared -> CheckedContinuation<Bool, Never>? in
            guard case .closed(let waiter) = shared.gate else { return nil }
            shared.gate = .decided(sendingBody)
            return waiter
        }
        waiter?.resume(returning: sendingBody)
    }

    // MARK: Ending early

    /// The response's consumer went away before its end: the exchange ends, its connection is closed (the
    /// rest of the body would otherwise be read as the next response) and a writer still sending stops.
    func abandon() {
        let writer = shared.withLock { $0.writer }
        writer?.cancel()
        report(.cancelled)
    }

    /// Waits for a writer still sending after an early 2xx; the connection is released when both sides
    /// are done.
    func waitForWriter() async {
        let writer = shared.withLock { $0.writer }
        await writer?.value
    }
}
