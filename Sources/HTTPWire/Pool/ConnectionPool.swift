// ConnectionPool: the keep-alive pool, performing what PoolStateMachine decides (pool layer).
//
// The state machine says *what* happens (lease this idle connection, open a new one, queue the request,
// close that one); this file does it: opens connections, resumes waiting tasks, runs idle timers. Every
// decision goes through the machine under one lock; every effect (connecting, closing, resuming) happens
// after the lock is released. It knows origins and connections, never HTTP messages.
//
// The common case is cheap on purpose: a request that finds an idle connection takes it in one lock round
// trip, with no continuation, no timer and no hop to another thread; a connection parked idle costs a
// dictionary entry, not a timer. Timers run on the reactor's clock: one reaper timer per pool fires at the
// earliest idle deadline (all idle periods have the same length, so a new one never comes due before those
// already waiting), and a request that has to wait for a connection gets a timer for its deadline.

import HTTPWireTransport

/// Connections keyed by origin, with a per-origin limit, a FIFO wait queue and idle timeouts.
///
/// ```swift
/// let lease = try await pool.lease(for: origin, deadline: connectDeadline)
/// // ... one exchange on lease.connection ...
/// pool.release(lease, isReusable: true)   // the exchange's machine said `.returnToPool`
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
    private struct State {
        var machine: PoolStateMachine
        var nextRequestNumber = 0
        /// Tasks waiting for a lease, by request.
        var waiters: [PoolStateMachine.RequestID: CheckedContinuation<PoolStateMachine.Grant, any Error>] = [:]
        /// Why a waiter is failed when the machine says `.cancelled` (a deadline rather than cancellation).
        var failureOverrides: [PoolStateMachine.RequestID: any Error] = [:]
        /// Established connections, by id.
        var connections: [PoolStateMachine.ConnectionID: PooledConnection] = [:]
        /// The tasks opening connections, by id, so that shutdown can cancel them.
        var connectTasks: [PoolStateMachine.ConnectionID: Task<Void, Never>] = [:]
        /// When each running idle timer comes due, in monotonic nanoseconds.
        var idleDeadlines: [PoolStateMachine.IdleTimer: UInt64] = [:]
        /// The reactor timer that fires idle timers; nil while none is due.
        var reaper: ReactorTimer?
        /// Whether the reaper found no idle timer at its last firing (it stops after two such in a row).
        var reaperFoundNoTimer = false
        /// Tasks waiting for shutdown to complete.
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        /// The tasks closing connections (a TLS close_notify, then close(2)), by id, until each is done:
        /// `shutdown()` returns only after them, so a process that exits right after it does not cut one
        /// short.
        var closeTasks: [PoolStateMachine.ConnectionID: Task<Void, Never>] = [:]
        /// Connections opened since the pool started (for tests and logs).
        var connectionsOpened = 0
    }

    /// A pthread lock rather than `Mutex`: the lease hands a connection's buffer and decoder from one task to
    /// another, and ThreadSanitizer sees that ordering only through locks it intercepts (see LockedState).
    private let state: LockedState<State>
    private let tlsSettings: TLSClientSettings
    /// The OpenSSL context, built on the first https connection (building it reads CA files, which can fail:
    /// that failure belongs to the request that needed TLS, not to creating a client).
    private let tlsContext = LockedState<TLSContext?>(nil)
    private let connectTimeout: Duration
    /// `ClientConfiguration.addressOverrides`, keys lowercased: the literals a direct connection to
    /// `host:port` dials instead of DNS's answer.
    private let addressOverrides: [String: [String]]
    /// `ClientConfiguration.hostOverrides`, parsed: for a `host:port` key (either part may be empty: any),
    /// the host and port to connect to instead (nil: keep the origin's).
    private let hostOverrides: [String: (host: String?, port: Int?)]
    /// `ClientConfiguration.unixSocketPath`: the socket file every direct connection goes through, if any.
    private let unixSocketPath: String?
    /// `ClientConfiguration.addressFamily`: the IP version every connection keeps to.
    private let addressFamily: ClientConfiguration.AddressFamily
    private let idleTimeout: Duration
    private let onConnect: (@Sendable (PooledConnection) -> Void)?

    /// A pool with the client's limits and TLS settings.
    package init(
        limits: ClientConfiguration.PoolLimits, connectTimeout: Duration, tls: TLSClientSettings,
        addressOverrides: [String: [String]] = [:], hostOverrides: [String: String] = [:],
        unixSocketPath: String? = nil,
        addressFamily: ClientConfiguration.AddressFamily = .any,
        onConnect: (@Sendable (PooledConnection) -> Void)? = nil
    ) {
        let configuration = PoolStateMachine.Configuration(
            maxConnectionsPerOrigin: limits.maxConnectionsPerOrigin,
            maxIdleConnectionsPerOrigin: limits.maxIdleConnectionsPerOrigin)
        self.state = LockedState(State(machine: PoolStateMachine(configuration: configuration)))
        self.tlsSettings = tls
        self.connectTimeout = connectTimeout
        self.addressOverrides = Dictionary(
            addressOverrides.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.hostOverrides = Self.parsedHostOverrides(hostOverrides)
        self.unixSocketPath = unixSocketPath
        self.addressFamily = addressFamily
        self.idleTimeout = limits.idleTimeout
        self.onConnect = onConnect
    }

    /// How many connections this pool has opened so far.
    package var connectionsOpened: Int { state.withLock { $0.connectionsOpened } }

    /// The counts of one origin: connecting, idle, leased, waiting (for tests and metrics).
    package func snapshot(of origin: OriginKey) -> PoolStateMachine.OriginSnapshot {
        state.withLock { $0.machine.snapshot(of: origin) }
    }

    /// The established connections, idle or leased (for tests that check a connection's descriptor).
    package var establishedConnections: [PooledConnection] {
        state.withLock { Array($0.connections.values) }
    }

    /// A connection to `origin`: an idle one checked for liveness, a new one, or the next one released
    /// (FIFO). `deadline` bounds the whole wait (the request's total deadline); each connection attempt is
    /// bounded by the pool's connect timeout as well, and a failed attempt fails the oldest waiter with its
    /// error. Cancellation removes the request from the queue. With `requiringNewConnection` (the one retry after a reused connection failed), idle
    /// connections of the origin are closed rather than used: they are as old as the one that failed.
    /// `connectTimeout` bounds a connection this request makes the pool open (a request's own connect
    /// timeout); nil is the pool's. Throws connect errors (exit 6, 7, 35, 60), `timedOut`, `CancellationError`.
    package func lease(
        for origin: OriginKey, deadline: Deadline, connectTimeout: Duration? = nil, requiringNewConnection: Bool = false
    ) async throws -> Lease {
        try Task.checkCancellation()
        while true {
            let lease: PoolStateMachine.Grant
            if let idle = try leaseIdleConnection(origin: origin) {
                lease = idle
            } else {
                lease = try await waitForLease(origin: origin, deadline: deadline, connectTimeout: connectTimeout)
            }
            guard let connection = state.withLock({ $0.connections[lease.connection] }) else {
                preconditionFailure("lease of an unknown connection \(lease.connection)")
            }
            if !lease.isReused { return Lease(connection: connection, isReused: false) }
            // RFC 9112 §9.3: a server may close an idle connection at any time; check before reuse.
            if !requiringNewConnection && connection.isIdleAndOpen() {
                return Lease(connection: connection, isReused: true)
            }
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

    /// Closes every idle connection, cancels connection attempts, fails every waiter, and returns when the
    /// busy ones have been released and every connection closed on the way is closed (its descriptor too).
    /// Several callers may wait; each returns once shutdown is complete.
    package func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (actions, connecting, isDone) = state.withLock { state in
                let actions = state.machine.shutdownRequested()
                let connecting = Array(state.connectTasks.values)
                if state.machine.isShutDown && !actions.contains(.shutdownComplete) {
                    return (actions, connecting, true)  // an earlier call already finished it
                }
                state.shutdownWaiters.append(continuation)
                return (actions, connecting, false)
            }
            perform(actions, connectError: nil)
            // A connect that nobody waits for any more (say, to a black-holed address, up to the connect
            // timeout) must not hold up the shutdown: it ends with CancellationError and reports in.
            for task in connecting { task.cancel() }
            if isDone { continuation.resume() }
        }
        // The connections the shutdown closed are closed by now, not just about to be.
        for task in state.withLock({ Array($0.closeTasks.values) }) { await task.value }
    }

    // MARK: Waiting

    /// The fast path: when the origin has an idle connection, take it at once, in one lock round trip and
    /// without suspending. Nil when a request would have to wait (or a connection be opened).
    private func leaseIdleConnection(origin: OriginKey) throws -> PoolStateMachine.Grant? {
        let (lease, actions) = state.withLock { state -> (PoolStateMachine.Grant?, [PoolStateMachine.Action]) in
            guard state.machine.snapshot(of: origin).idle > 0 else { return (nil, []) }
            state.nextRequestNumber += 1
            let request = PoolStateMachine.RequestID(state.nextRequestNumber)
            var actions = state.machine.leaseRequested(request: request, origin: origin)
            var lease: PoolStateMachine.Grant?
            actions.removeAll { action in
                guard case .lease(let granted) = action, granted.request == request else { return false }
                lease = granted
                return true
            }
            // The machine leases an idle connection whenever one exists; the request has no continuation, so
            // it must not have been queued.
            precondition(lease != nil, "idle connection of \(origin) not leased: \(actions)")
            return (lease, actions)
        }
        perform(actions, connectError: nil)
        return lease
    }

    /// The slow path: queue for a connection (opening one if the origin is under its limit) and wait.
    private func waitForLease(
        origin: OriginKey, deadline: Deadline, connectTimeout: Duration?
    ) async throws -> PoolStateMachine.Grant {
        let request = state.withLock { state -> PoolStateMachine.RequestID in
            state.nextRequestNumber += 1
            return PoolStateMachine.RequestID(state.nextRequestNumber)
        }
        // The deadline is the request's total one: a request queued behind busy connections is not connecting.
        let timer: ReactorTimer? =
            deadline.isNever
            ? nil
            : Reactor.shared.schedule(at: deadline) { [weak self] in
                self?.giveUp(request, error: HTTPWireError.timedOut(.total))
            }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let actions = state.withLock { state in
                    state.waiters[request] = continuation
                    return state.machine.leaseRequested(request: request, origin: origin)
                }
                perform(actions, connectError: nil, connectTimeout: connectTimeout)
            }
        } onCancel: {
            giveUp(request, error: CancellationError())
        }
    }

    /// Removes a waiting request from the queue, failing it with `error`.
    private func giveUp(_ request: PoolStateMachine.RequestID, error: any Error) {
        let actions = state.withLock { state -> [PoolStateMachine.Action] in
            guard state.waiters[request] != nil else { return [] }
            // Empty when the request was served meanwhile (its lease is on the way): nothing to fail, and no
            // override to keep.
            let actions = state.machine.leaseCancelled(request)
            if !actions.isEmpty { state.failureOverrides[request] = error }
            return actions
        }
        perform(actions, connectError: nil)
    }

    // MARK: Performing actions

    /// Does what the machine asked, in order, outside the lock. A connection opened here gets
    /// `connectTimeout` (the requesting request's own), or the pool's when nil.
    private func perform(
        _ actions: [PoolStateMachine.Action], connectError: (any Error)?, connectTimeout: Duration? = nil
    ) {
        for action in actions {
            switch action {
            case .enqueue:
                break
            case .lease(let lease):
                let waiter = state.withLock { $0.waiters.removeValue(forKey: lease.request) }
                guard let waiter else {
                    preconditionFailure("\(lease.connection) leased to \(lease.request), which is not waiting")
                }
                waiter.resume(returning: lease)
            case .createConnection(let id, let origin):
                // Registered under the lock before it can finish, so `open` always finds its own entry to remove.
                state.withLock { state in
                    let timeout = connectTimeout ?? self.connectTimeout
                    state.connectTasks[id] = Task { await self.open(id, origin: origin, timeout: timeout) }
                }
            case .scheduleIdleTimeout(let timer):
                let due = Deadline.after(idleTimeout).uptimeNanoseconds
                state.withLock { state in
                    state.idleDeadlines[timer] = due
                    state.reaperFoundNoTimer = false
                    // Scheduled under the lock (the reaper clears `reaper` itself, under the lock, only when
                    // it finds no timer twice in a row), so two releases never start two reapers.
                    guard state.reaper == nil else { return }
                    state.reaper = Reactor.shared.schedule(at: .after(idleTimeout)) { [weak self] in
                        self?.reap()
                    }
                }
            case .cancelIdleTimeout(let timer):
                state.withLock { _ = $0.idleDeadlines.removeValue(forKey: timer) }
            case .closeConnection(let id):
                state.withLock { state in
                    guard let connection = state.connections.removeValue(forKey: id) else { return }
                    // Started under the lock, so the entry exists before the task can remove it.
                    state.closeTasks[id] = Task { [state = self.state] in
                        await connection.close()
                        state.withLock { _ = $0.closeTasks.removeValue(forKey: id) }
                    }
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
                let (waiters, reaper) = state.withLock { state in
                    defer {
                        state.shutdownWaiters = []
                        state.reaper = nil
                    }
                    return (state.shutdownWaiters, state.reaper)
                }
                reaper?.cancel()
                for waiter in waiters { waiter.resume() }
            }
        }
    }

    // MARK: Idle timers

    /// The reaper: fires every idle timer that has come due, then schedules itself for the earliest one
    /// left or, with none, one idle timeout later (a timer scheduled meanwhile is due no earlier than that).
    /// It runs on the reactor thread and stops — forgetting `reaper` — when it finds no timer twice in a row.
    ///
    /// It does not stop the moment it finds no timer: on a busy connection every response schedules an idle
    /// timer and the next request cancels it, so a reaper that ended whenever it looked between the two would
    /// be scheduled again for nearly every request.
    private func reap() {
        let actions = state.withLock { state -> [PoolStateMachine.Action] in
            let now = Deadline.nowNanoseconds()
            var actions: [PoolStateMachine.Action] = []
            for (timer, due) in state.idleDeadlines where due <= now {
                state.idleDeadlines[timer] = nil
                actions += state.machine.idleTimeoutFired(timer)
            }
            let next: Deadline
            if let earliest = state.idleDeadlines.values.min() {
                state.reaperFoundNoTimer = false
                next = Deadline(uptimeNanoseconds: earliest)
            } else if state.reaperFoundNoTimer || state.machine.isShutDown {
                state.reaper = nil
                return actions
            } else {
                state.reaperFoundNoTimer = true
                next = .after(idleTimeout)
            }
            state.reaper = Reactor.shared.schedule(at: next) { [weak self] in self?.reap() }
            return actions
        }
        perform(actions, connectError: nil)
    }

    // MARK: Opening

    /// How a direct connection to `origin` reaches it: through the configured Unix-domain socket, or over
    /// TCP to the host and port `hostOverrides` names instead of the origin's, at the literals
    /// `addressOverrides` gives for that `host:port`. Nil for the plain case — the origin's own host and
    /// port, by DNS — and for a proxied origin, which dials the proxy.
    private func dialing(for origin: OriginKey) -> PooledConnection.Dialing? {
        guard origin.proxy == nil else { return nil }
        if let unixSocketPath { return .unixSocket(path: unixSocketPath) }
        var host = origin.host
        var port = origin.port
        if !hostOverrides.isEmpty {
            // The most specific key first, as curl reads --connect-to: host and port, host, port, neither.
            let keys = ["\(host):\(port)", "\(host):", ":\(port)", ":"]
            if let target = keys.lazy.compactMap({ self.hostOverrides[$0] }).first {
                host = target.host ?? host
                port = target.port ?? port
            }
        }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let literals = addressOverrides.isEmpty ? nil : addressOverrides["\(bracketed.lowercased()):\(port)"]
        guard host != origin.host || port != origin.port || literals != nil else { return nil }
        return .network(host: host, port: port, literals: literals)
    }

    /// `ClientConfiguration.hostOverrides` with keys in the form `dialing(for:)` looks up (`host:port`, bare
    /// IPv6, lowercase, either part empty) and values parsed. A value that is no `host:port` is kept as a
    /// host name, so connecting fails as for a name DNS does not know (exit 6) rather than being ignored.
    private static func parsedHostOverrides(_ given: [String: String]) -> [String: (host: String?, port: Int?)] {
        var parsed: [String: (host: String?, port: Int?)] = [:]
        for (key, value) in given {
            guard let from = hostPort(key) else { continue }  // no colon: no URL's host:port can match it
            let normalized = "\(from.host ?? ""):\(from.port.map(String.init) ?? "")"
            if parsed[normalized] == nil { parsed[normalized] = hostPort(value) ?? (host: value, port: nil) }
        }
        return parsed
    }

    /// `"host:port"` read as curl writes its --connect-to halves: either part may be empty, an IPv6 host is
    /// in brackets, the host is lowercased. Nil when the port is neither empty nor 1...65535.
    private static func hostPort(_ text: String) -> (host: String?, port: Int?)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon]).lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let portText = text[text.index(after: colon)...]
        if portText.isEmpty { return (host.isEmpty ? nil : host, nil) }
        guard let port = Int(portText), (1...65535).contains(port) else { return nil }
        return (host.isEmpty ? nil : host, port)
    }

    /// Opens connection `id` and reports the outcome to the machine.
    private func open(_ id: PoolStateMachine.ConnectionID, origin: OriginKey, timeout: Duration) async {
        do {
            let tls = origin.scheme == .https ? try makeTLSContext() : nil
            let connection: PooledConnection
            do {
                connection = try await PooledConnection.open(
                    id: id, origin: origin, tls: tls, dialing: dialing(for: origin), family: addressFamily,
                    deadline: .after(timeout))
            } catch let error as TransportError {
                throw HTTPWireError(error, phase: .connect)
            }
            onConnect?(connection)
            let actions = state.withLock { state in
                state.connectTasks[id] = nil
                state.connections[id] = connection
                state.connectionsOpened += 1
                return state.machine.connectionEstablished(id)
            }
            perform(actions, connectError: nil)
        } catch {
            let actions = state.withLock { state in
                state.connectTasks[id] = nil
                return state.machine.connectionFailed(id)
            }
            perform(actions, connectError: error)
        }
    }
}

extension ConnectionPool {
    /// The shared client TLS context, built once.
    private func makeTLSContext() throws(HTTPWireError) -> TLSContext {
        let made = tlsContext.withLock { (cached: inout TLSContext?) -> Result<TLSContext, HTTPWireError> in
            if let cached { return .success(cached) }
            do throws(TransportError) {
                let context = try TLSContext(client: tlsSettings)
                cached = context
                return .success(context)
            } catch {
                return .failure(HTTPWireError(error, phase: .connect))
            }
        }
        return try made.get()
    }
}
