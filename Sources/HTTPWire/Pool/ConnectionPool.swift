// ConnectionPool: the keep-alive pool, performing what PoolStateMachine decides (pool layer).
//
// The state machine says *what* happens (lease this idle connection, open a new one, queue the request,
// close that one); this file does it: opens connections, resumes waiting tasks, runs idle timers. Every
// decision goes through the machine under one lock; every effect (connecting, closing, resuming) happens
// after the lock is released. It knows origins and connections, never HTTP messages.

import HTTPWireCodec
import Synchronization

/// Connections keyed by origin, with a per-origin limit, a FIFO wait queue and idle timeouts.
///
/// ```swift
/// let lease = try await pool.lease(for: origin, deadline: connectDeadline)
/// // ... one exchange on lease.connection ...
/// pool.release(lease, isReusable: decoder.isKeepAlive)
/// ```
package final class ConnectionPool: Sendable {
    /// A connection handed to one request, and whether an earlier exchange used it.
    package struct Lease: Sendable {
        /// The connection; the lease holder owns its buffer and decoder until `release`.
        package let connection: PooledConnection
        /// True when an earlier exchange used this connection (a failure may mean the server closed it).
        package let isReused: Bool
    }

    /// Everything the pool mutates, under one lock.
    private struct State: ~Copyable {
        var machine: PoolStateMachine
        var nextRequestNumber = 0
        /// Tasks waiting for a lease, by request.
        var waiters: [PoolStateMachine.RequestID: CheckedContinuation<PoolStateMachine.Lease, any Error>] = [:]
        /// Why a waiter is failed when the machine says `.cancelled` (a deadline rather than cancellation).
        var failureOverrides: [PoolStateMachine.RequestID: any Error] = [:]
        /// Established connections, by id.
        var connections: [PoolStateMachine.ConnectionID: PooledConnection] = [:]
        /// Running idle timers.
        var idleTimers: [PoolStateMachine.IdleTimer: Task<Void, Never>] = [:]
        /// Task waiting for shutdown to complete.
        var shutdownWaiter: CheckedContinuation<Void, Never>?
        /// Connections opened since the pool started (for tests and logs).
        var connectionsOpened = 0
    }

    private let state: Mutex<State>
    private let tlsConfiguration: TLSConfiguration
    /// The OpenSSL context, built on the first https connection (building it reads CA files, which can fail:
    /// that failure belongs to the request that needed TLS, not to creating a client).
    private let tlsContext = Mutex<TLSContext?>(nil)
    private let connectTimeout: Duration
    private let idleTimeout: Duration
    private let onConnect: (@Sendable (PooledConnection) -> Void)?

    /// A pool with the client's limits and TLS settings.
    package init(
        limits: ClientConfiguration.PoolLimits, connectTimeout: Duration, tls: TLSConfiguration,
        onConnect: (@Sendable (PooledConnection) -> Void)? = nil
    ) {
        let configuration = PoolStateMachine.Configuration(
            maxConnectionsPerOrigin: limits.maxConnectionsPerOrigin,
            maxIdleConnectionsPerOrigin: limits.maxIdleConnectionsPerOrigin)
        self.state = Mutex(State(machine: PoolStateMachine(configuration: configuration)))
        self.tlsConfiguration = tls
        self.connectTimeout = connectTimeout
        self.idleTimeout = limits.idleTimeout
        self.onConnect = onConnect
    }

    /// How many connections this pool has opened so far.
    package var connectionsOpened: Int { state.withLock { $0.connectionsOpened } }

    /// A connection to `origin`: an idle one checked for liveness, a new one, or the next one released
    /// (FIFO). `deadline` bounds the wait in the queue and the connect; cancellation removes the request
    /// from the queue. Throws connect errors (exit 6, 7, 35, 60), `timedOut`, `CancellationError`.
    package func lease(for origin: OriginKey, deadline: Deadline) async throws -> Lease {
        while true {
            let lease = try await waitForLease(origin: origin, deadline: deadline)
            guard let connection = state.withLock({ $0.connections[lease.connection] }) else {
                preconditionFailure("lease of an unknown connection \(lease.connection)")
            }
            if !lease.isReused { return Lease(connection: connection, isReused: false) }
            // RFC 9112 §9.3: a server may close an idle connection at any time; check before reuse.
            if await connection.isIdleAndOpen() { return Lease(connection: connection, isReused: true) }
            release(Lease(connection: connection, isReused: true), isReusable: false)
        }
    }

    /// Gives a leased connection back: parked for reuse when `isReusable`, closed otherwise.
    package func release(_ lease: Lease, isReusable: Bool) {
        let actions = state.withLock { state in
            state.machine.connectionReleased(
                lease.connection.id, isReusable: isReusable && lease.connection.stream.isOpen)
        }
        perform(actions, connectError: nil)
    }

    /// Closes every idle connection, fails every waiter, and returns when the busy ones have been released.
    package func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let actions = state.withLock { state in
                state.shutdownWaiter = continuation
                return state.machine.shutdownRequested()
            }
            if actions.isEmpty {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.shutdownWaiter = nil }
                    return state.machine.isShutDown ? state.shutdownWaiter : nil
                }
                waiter?.resume()
            }
            perform(actions, connectError: nil)
        }
    }

    // MARK: Waiting

    private func waitForLease(origin: OriginKey, deadline: Deadline) async throws -> PoolStateMachine.Lease {
        let request = state.withLock { state -> PoolStateMachine.RequestID in
            state.nextRequestNumber += 1
            return PoolStateMachine.RequestID(state.nextRequestNumber)
        }
        let timer: Task<Void, Never>? =
            deadline.isNever
            ? nil
            : Task { [weak self] in
                try? await Task.sleep(for: .nanoseconds(Int64(clamping: deadline.nanosecondsRemaining())))
                guard !Task.isCancelled else { return }
                self?.giveUp(request, error: HTTPWireError.timedOut(deadline.phase))
            }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let actions = state.withLock { state in
                    state.waiters[request] = continuation
                    return state.machine.leaseRequested(request: request, origin: origin)
                }
                perform(actions, connectError: nil)
            }
        } onCancel: {
            giveUp(request, error: CancellationError())
        }
    }

    /// Removes a waiting request from the queue, failing it with `error`.
    private func giveUp(_ request: PoolStateMachine.RequestID, error: any Error) {
        let actions = state.withLock { state -> [PoolStateMachine.Action] in
            guard state.waiters[request] != nil else { return [] }
            state.failureOverrides[request] = error
            return state.machine.leaseCancelled(request)
        }
        perform(actions, connectError: nil)
    }

    // MARK: Performing actions

    /// Does what the machine asked, in order, outside the lock.
    private func perform(_ actions: [PoolStateMachine.Action], connectError: (any Error)?) {
        for action in actions {
            switch action {
            case .enqueue:
                break
            case .lease(let lease):
                let waiter = state.withLock { $0.waiters.removeValue(forKey: lease.request) }
                waiter?.resume(returning: lease)
            case .createConnection(let id, let origin):
                Task { await self.open(id, origin: origin) }
            case .scheduleIdleTimeout(let timer):
                let task = Task { [weak self, idleTimeout] in
                    try? await Task.sleep(for: idleTimeout)
                    guard !Task.isCancelled, let self else { return }
                    let actions = self.state.withLock { state in
                        state.idleTimers[timer] = nil
                        return state.machine.idleTimeoutFired(timer)
                    }
                    self.perform(actions, connectError: nil)
                }
                state.withLock { $0.idleTimers[timer] = task }
            case .cancelIdleTimeout(let timer):
                state.withLock { $0.idleTimers.removeValue(forKey: timer) }?.cancel()
            case .closeConnection(let id):
                if let connection = state.withLock({ $0.connections.removeValue(forKey: id) }) {
                    Task { await connection.close() }
                }
            case .failLease(let request, let reason):
                let (waiter, override) = state.withLock { state in
                    (state.waiters.removeValue(forKey: request), state.failureOverrides.removeValue(forKey: request))
                }
                let error: any Error
                switch reason {
                case .connectFailed: error = connectError ?? HTTPWireError.emptyReply
                case .poolShutDown: error = CancellationError()
                case .cancelled: error = override ?? CancellationError()
                }
                waiter?.resume(throwing: error)
            case .shutdownComplete:
                state.withLock { state in
                    defer { state.shutdownWaiter = nil }
                    return state.shutdownWaiter
                }?.resume()
            }
        }
    }

    /// Opens connection `id` and reports the outcome to the machine.
    private func open(_ id: PoolStateMachine.ConnectionID, origin: OriginKey) async {
        do {
            let tls = origin.scheme == .https ? try makeTLSContext() : nil
            let connection = try await PooledConnection.open(
                id: id, origin: origin, tls: tls, deadline: .after(connectTimeout, phase: .connect))
            onConnect?(connection)
            let actions = state.withLock { state in
                state.connections[id] = connection
                state.connectionsOpened += 1
                return state.machine.connectionEstablished(id)
            }
            perform(actions, connectError: nil)
        } catch {
            let actions = state.withLock { $0.machine.connectionFailed(id) }
            perform(actions, connectError: error)
        }
    }
}

extension ConnectionPool {
    /// The shared client TLS context, built once.
    private func makeTLSContext() throws(HTTPWireError) -> TLSContext {
        try tlsContext.withLock { (cached: inout TLSContext?) throws(HTTPWireError) -> TLSContext in
            if let cached { return cached }
            let context = try TLSContext(client: tlsConfiguration)
            cached = context
            return context
        }
    }
}

extension Deadline {
    /// Nanoseconds until the deadline (0 when passed).
    func nanosecondsRemaining() -> UInt64 {
        let now = Deadline.nowNanoseconds()
        return uptimeNanoseconds > now ? uptimeNanoseconds - now : 0
    }
}
