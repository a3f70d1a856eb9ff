// ExchangeControl: what the task reading a response and the task writing its body share (client layer).
//
// One exchange can have two tasks on one connection: the caller's, reading the response, and a writer
// sending a large body, because a server may answer before it has read the whole request (RFC 9112 §9.5).
// Both report to one ExchangeStateMachine under a lock; whichever event ends the exchange releases the
// connection to the pool exactly once. The 100-continue gate also lives here. No bytes pass through it.

import HTTPWireCodec

/// Shared state of one request/response exchange.
final class ExchangeControl: Sendable {
    /// The decision the writer waits for before sending a body after `Expect: 100-continue`.
    private enum Gate {
        /// Not decided; maybe a writer is waiting.
        case closed(CheckedContinuation<Bool, Never>?)
        /// Decided: true sends the body, false abandons it.
        case decided(Bool)
    }

    private struct State {
        var machine: ExchangeStateMachine
        var isReleased = false
        var gate = Gate.closed(nil)
        /// The writer's failure, kept until the reader decides what the exchange reports.
        var writerError: (any Error)?
        /// The final response head has arrived: from then on the machine hears of writer failures directly.
        var isHeadReceived = false
        /// When the writer sent the last body byte (monotonic nanoseconds), for the head's idle timeout.
        var bodyFinishedAt: UInt64?
    }

    /// A pthread lock rather than `Mutex`, so ThreadSanitizer sees the ordering it creates (see LockedState).
    private let state: LockedState<State>
    /// The connection the exchange runs on.
    let lease: ConnectionPool.Lease
    private let pool: ConnectionPool

    init(machine: ExchangeStateMachine, lease: ConnectionPool.Lease, pool: ConnectionPool) {
        self.state = LockedState(State(machine: machine))
        self.lease = lease
        self.pool = pool
    }

    /// Feeds one event to the machine and performs the connection's fate if the action decides it:
    /// `.returnToPool` releases it as reusable; `.closeConnection`, `.retry`, `.fail` and `.failCancelled`
    /// release it to be closed. Returns the action for the caller's own part (sending, reporting).
    @discardableResult
    func handle(_ event: (inout ExchangeStateMachine) -> ExchangeStateMachine.Action) -> ExchangeStateMachine.Action {
        let (action, release) = state.withLock { state -> (ExchangeStateMachine.Action, Bool?) in
            let action = event(&state.machine)
            let reusable: Bool?
            switch action {
            case .returnToPool: reusable = true
            case .closeConnection, .retry, .fail, .failCancelled: reusable = false
            case .sendHead, .sendBody, .scheduleContinueTimeout, .stopSendingBody, .wait: reusable = nil
            }
            guard let reusable, !state.isReleased else { return (action, nil) }
            state.isReleased = true
            return (action, reusable)
        }
        if let release {
            if !release { lease.connection.stream.closeSoon() }
            pool.release(lease, isReusable: release)
            // The exchange is over: a writer still waiting for 100-continue must not wait forever.
            openGate(sendingBody: false)
        } else if case .stopSendingBody = action {
            openGate(sendingBody: false)
        }
        return action
    }

    /// Releases the connection for closing if nothing else has (an abandoned response body).
    func abandon() {
        handle { $0.cancelled() }
        openGate(sendingBody: false)
    }

    // MARK: Writer failures

    /// Records a failed body write. A send failure may just mean the server answered early and closed its
    /// side, so the reader decides; any other failure (a local file that changed, a timeout) breaks the
    /// request, so the connection is closed at once and the reader reports this error.
    func writerFailed(_ error: any Error) {
        let reportNow = state.withLock { state in
            state.writerError = error
            return state.isHeadReceived
        }
        if case HTTPWireError.sendFailed = error {
        } else {
            lease.connection.stream.closeSoon()
        }
        if reportNow { reportWriterFailure(error) }
    }

    /// Marks the final head as received; a writer failure that came before it is reported now.
    func headReceived() {
        let pending = state.withLock { state in
            state.isHeadReceived = true
            return state.writerError
        }
        if let pending { reportWriterFailure(pending) }
    }

    /// While the response flows, a failed write only abandons the body (the machine says `.wait`); any
    /// other writer failure ends the exchange.
    private func reportWriterFailure(_ error: any Error) {
        let wire = error as? HTTPWireError ?? .sendFailed(errno: 0)
        handle { $0.connectionFailed(wire, beforeAnyResponseByte: false) }
    }

    /// The writer's failure, if any.
    var writerError: (any Error)? { state.withLock { $0.writerError } }

    // MARK: Waiting for the head after a large body

    /// What the head watchdog should do now.
    enum HeadWait {
        /// The head arrived or the exchange ended: nothing to watch.
        case over
        /// The body is still being sent; its writes have deadlines of their own.
        case sending
        /// The body was sent this many nanoseconds ago and no head has come.
        case waitingSince(elapsedNanoseconds: UInt64)
    }

    /// Records that the writer sent the whole body.
    func bodySent() {
        let now = Deadline.nowNanoseconds()
        state.withLock { $0.bodyFinishedAt = now }
    }

    /// The head did not come within the idle timeout after the body: unless it arrived meanwhile, the
    /// connection is closed and the reader reports `timedOut(.head)` (recorded like a writer failure).
    func headTimedOut() {
        let isLate = state.withLock { state -> Bool in
            guard !state.isHeadReceived, !state.isReleased else { return false }
            state.writerError = HTTPWireError.timedOut(.head)
            return true
        }
        if isLate { lease.connection.stream.closeSoon() }
    }

    /// Where the wait for the head stands.
    var headWait: HeadWait {
        state.withLock { state in
            if state.isHeadReceived || state.isReleased { return .over }
            guard let finished = state.bodyFinishedAt else { return .sending }
            let now = Deadline.nowNanoseconds()
            return .waitingSince(elapsedNanoseconds: now > finished ? now - finished : 0)
        }
    }

    // MARK: 100-continue

    /// Waits until the body may be sent (true) or must not be (false).
    func waitForGate() async -> Bool {
        await withCheckedContinuation { continuation in
            let decided = state.withLock { state -> Bool? in
                switch state.gate {
                case .decided(let value): return value
                case .closed:
                    state.gate = .closed(continuation)
                    return nil
                }
            }
            if let decided { continuation.resume(returning: decided) }
        }
    }

    /// Decides the gate; later decisions are ignored.
    func openGate(sendingBody: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard case .closed(let waiter) = state.gate else { return nil }
            state.gate = .decided(sendingBody)
            return waiter
        }
        waiter?.resume(returning: sendingBody)
    }
}

extension Connection {
    /// Closes the connection without waiting (pending operations fail at once).
    func closeSoon() {
        Task { await self.close() }
    }
}
