// PoolStateMachine: which connection serves which request, when to open one, when to close one.
// Pool layer, sans-IO: it owns no socket, reads no clock and starts no timer. Its owner (ConnectionPool)
// feeds it facts — a lease was asked for, a connection came up, a timer fired — and performs the actions it
// returns, in order. It must not know about HTTP parsing, TLS or errno. The values it speaks in (IDs, limits,
// grants, actions) are in PoolStateMachine+Vocabulary.swift; this file holds the rules and the transitions.
//
// The rules, per origin (RFC 9110 §4.3.1: scheme, host, port):
// - At most `maxConnectionsPerOrigin` connections exist at once (connecting + idle + leased). Requests beyond
//   that wait in a first-in, first-out queue; the connection that frees up next serves the oldest waiter.
// - An idle connection is reused before a new one is opened, the most recently used first: it is the one
//   least likely to have been closed by the server's own idle timeout (Go's net/http does the same).
// - At most `maxIdleConnectionsPerOrigin` connections stay idle; past that the least recently used one is
//   closed. (Go's `tryPutIdleConn` closes the returning one instead; we keep it, as it is the fresher.)
// - Each idle period gets its own timer token, so a timer that fires after the connection was leased and
//   parked again is recognised as stale and ignored.

/// The connection pool's decisions, as a pure state machine: events in, actions out.
///
/// ```swift
/// var machine = PoolStateMachine()
/// let origin = OriginKey(scheme: .https, host: "example.test")
/// machine.leaseRequested(request: .init(1), origin: origin)
/// // [.enqueue(request 1, origin), .createConnection(connection 1, origin)]
/// machine.connectionEstablished(.init(1))
/// // [.lease(Grant(request: 1, connection: 1, leaseNumber: 1))]
/// machine.connectionReleased(.init(1), isReusable: true)
/// // [.scheduleIdleTimeout(IdleTimer(connection: 1, idlePeriod: 1))]
/// ```
///
/// Connection IDs are assigned by the machine (1, 2, 3, …, never reused), so it can ask for a connection
/// without a round trip; request IDs are assigned by the owner, which keys its waiting continuations by them.
package struct PoolStateMachine: Sendable {
    /// The pool's life cycle.
    private enum State: Hashable, Sendable {
        /// Serving leases. Next: shuttingDown (which completes at once when nothing is open).
        case running
        /// No new leases; busy and connecting connections are closed as they report in. Next: shutDown.
        case shuttingDown
        /// Nothing left; every lease request fails. Terminal.
        case shutDown
    }

    /// One connection's state.
    private enum ConnectionState: Hashable, Sendable {
        /// Being opened (TCP, TLS). Next: leased, idle (established), forgotten (failed, or shutting down).
        case connecting
        /// Parked for reuse. Next: leased, forgotten (timeout, peer closed, evicted, shutdown).
        case idle(IdleTimer)
        /// Carrying one exchange. Next: leased (straight to a waiter), idle, forgotten (not reusable).
        case leased(RequestID)
    }

    private struct ConnectionRecord: Sendable {
        let origin: OriginKey
        var state: ConnectionState
        var leaseCount = 0
    }

    /// The per-origin bookkeeping. Invariant: `waiters` and `idle` are never both non-empty.
    private struct OriginQueue: Sendable {
        /// Oldest first. `removeFirst` is O(n), fine for queues of hundreds.
        var waiters: [RequestID] = []
        /// Least recently used first: leases take the last, the idle cap evicts the first.
        var idle: [ConnectionID] = []
        var connecting = 0
        var leased = 0
        var open: Int { connecting + idle.count + leased }
    }

    private var state: State = .running
    private let configuration: Configuration
    private var connections: [ConnectionID: ConnectionRecord] = [:]
    private var origins: [OriginKey: OriginQueue] = [:]
    private var waitingOrigin: [RequestID: OriginKey] = [:]
    private var lastConnectionNumber = 0

    /// A running pool with the given limits.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: Events

    /// A request wants a connection to `origin`.
    ///
    /// Returns `.cancelIdleTimeout` + `.lease` when an idle connection exists (the most recently used),
    /// otherwise `.enqueue`, followed by `.createConnection` when the origin is under its limit and has fewer
    /// connections on the way than waiters. After shutdown: `.failLease(request, .poolShutDown)`.
    package mutating func leaseRequested(request: RequestID, origin: OriginKey) -> [Action] {
        switch state {
        case .shuttingDown, .shutDown:
            return [.failLease(request, .poolShutDown)]
        case .running:
            break
        }
        precondition(waitingOrigin[request] == nil, "\(request) is already waiting, state \(state)")
        if let queue = origins.index(forKey: origin), let id = origins.values[queue].idle.popLast() {
            guard case .idle(let timer) = connections[id]?.state else {
                preconditionFailure("\(id) is listed idle but is \(String(describing: connections[id]?.state))")
            }
            return [.cancelIdleTimeout(timer), lease(id, to: request)]
        }
        updateQueue(of: origin) { $0.waiters.append(request) }
        waitingOrigin[request] = origin
        var actions: [Action] = [.enqueue(request, origin)]
        createConnectionsIfNeeded(for: origin, into: &actions)
        return actions
    }

    /// A connection asked for with `.createConnection` is ready: the oldest waiter gets it, or it is parked.
    package mutating func connectionEstablished(_ id: ConnectionID) -> [Action] {
        let origin = expectConnection(id, in: .connecting)
        updateQueue(of: origin) { $0.connecting -= 1 }
        switch state {
        case .running:
            return serveOrPark(id, origin: origin)
        case .shuttingDown:
            forget(id)
            return [.closeConnection(id)] + completeShutdownIfDone()
        case .shutDown:
            preconditionFailure("\(id) established after shutdown completed")
        }
    }

    /// A connection attempt failed.
    ///
    /// The oldest waiter of the origin gets `.failLease(_, .connectFailed)`; the others keep waiting, and a
    /// new attempt starts for them if the origin is now short of connections. Each failed attempt fails one
    /// waiter, so a dead host fails every waiter after one attempt each, instead of failing all of them on one
    /// perhaps transient error, or retrying forever.
    package mutating func connectionFailed(_ id: ConnectionID) -> [Action] {
        let origin = expectConnection(id, in: .connecting)
        updateQueue(of: origin) { $0.connecting -= 1 }
        forget(id)
        switch state {
        case .running:
            guard let request = takeOldestWaiter(of: origin) else {
                dropOriginIfUnused(origin)
                return []
            }
            var actions: [Action] = [.failLease(request, .connectFailed)]
            createConnectionsIfNeeded(for: origin, into: &actions)
            dropOriginIfUnused(origin)
            return actions
        case .shuttingDown:
            return completeShutdownIfDone()
        case .shutDown:
            preconditionFailure("\(id) failed after shutdown completed")
        }
    }

    /// The exchange on a leased connection is over. `isReusable` is the exchange machine's verdict.
    ///
    /// Reusable: the oldest waiter gets it, or it is parked with `.scheduleIdleTimeout`. Not reusable:
    /// `.closeConnection`, then `.createConnection` if waiters remain and the origin is now under its limit.
    package mutating func connectionReleased(_ id: ConnectionID, isReusable: Bool) -> [Action] {
        let origin = expectConnection(id, in: .leased)
        updateQueue(of: origin) { $0.leased -= 1 }
        switch state {
        case .running where isReusable:
            return serveOrPark(id, origin: origin)
        case .running:
            forget(id)
            var actions: [Action] = [.closeConnection(id)]
            createConnectionsIfNeeded(for: origin, into: &actions)
            dropOriginIfUnused(origin)
            return actions
        case .shuttingDown:
            forget(id)
            return [.closeConnection(id)] + completeShutdownIfDone()
        case .shutDown:
            preconditionFailure("\(id) released after shutdown completed")
        }
    }

    /// The owner saw an idle connection close (end of stream, or unexpected bytes: RFC 9112 §9.8 lets a
    /// server close an idle connection at any time, and a response nobody asked for means it is unusable).
    ///
    /// Only idle connections are watched by the pool; for a connecting or leased one this is ignored (its
    /// own driver reports the failure through `connectionFailed` or `connectionReleased`), as is an unknown
    /// one (already closed). For an idle one: `.cancelIdleTimeout`, `.closeConnection` (release our end).
    package mutating func connectionClosed(_ id: ConnectionID) -> [Action] {
        guard let connection = connections[id], case .idle(let timer) = connection.state else { return [] }
        // No waiter can exist while a connection of the origin is idle, so there is nobody to open one for.
        removeIdle(id, origin: connection.origin)
        forget(id)
        dropOriginIfUnused(connection.origin)
        return [.cancelIdleTimeout(timer), .closeConnection(id)]
    }

    /// An idle timer fired. Closes the connection if it is still in the idle period the timer was set for;
    /// a timer for an earlier idle period, or for a connection already gone, is stale and ignored.
    package mutating func idleTimeoutFired(_ timer: IdleTimer) -> [Action] {
        guard let connection = connections[timer.connection], connection.state == .idle(timer) else { return [] }
        removeIdle(timer.connection, origin: connection.origin)
        forget(timer.connection)
        dropOriginIfUnused(connection.origin)
        return [.closeConnection(timer.connection)]
    }

    /// The request no longer wants a connection (its task was cancelled, or it timed out while queued).
    ///
    /// A queued request is removed and gets `.failLease(_, .cancelled)`. A request already served, or unknown,
    /// gets nothing: the owner already resumed it with its lease and must release that connection normally.
    package mutating func leaseCancelled(_ request: RequestID) -> [Action] {
        guard let origin = waitingOrigin.removeValue(forKey: request) else { return [] }
        updateQueue(of: origin) { $0.waiters.removeAll { $0 == request } }
        dropOriginIfUnused(origin)
        return [.failLease(request, .cancelled)]
    }

    /// Closes the pool: every waiter fails, every idle connection closes now, busy ones as they are released
    /// and connecting ones as they report in; `.shutdownComplete` comes when nothing is left. Idempotent.
    package mutating func shutdownRequested() -> [Action] {
        switch state {
        case .shuttingDown, .shutDown:
            return []
        case .running:
            state = .shuttingDown
        }
        var actions: [Action] = []
        // Every waiter fails and every idle connection closes, so each origin's lists empty at once (removing
        // idle connections one by one was O(idle²): 1% of the 10,000-connection benchmark).
        for origin in origins.keys.sorted(by: { $0.description < $1.description }) {
            guard let index = origins.index(forKey: origin) else { continue }
            for request in origins.values[index].waiters { actions.append(.failLease(request, .poolShutDown)) }
            origins.values[index].waiters = []
            origins.values[index].idle = []
        }
        waitingOrigin = [:]
        for id in connections.keys.sorted() {
            guard let connection = connections[id], case .idle(let timer) = connection.state else { continue }
            forget(id)
            actions += [.cancelIdleTimeout(timer), .closeConnection(id)]
        }
        actions += completeShutdownIfDone()
        return actions
    }

    // MARK: Queries

    /// The counts for one origin (all zero for an origin the pool does not know).
    package func snapshot(of origin: OriginKey) -> OriginSnapshot {
        guard let queue = origins[origin] else { return OriginSnapshot() }
        return OriginSnapshot(
            connecting: queue.connecting, idle: queue.idle.count, leased: queue.leased, waiting: queue.waiters.count)
    }

    /// Whether shutdown has completed.
    package var isShutDown: Bool { state == .shutDown }

    /// The pool's life cycle (`running`, `shuttingDown`, `shutDown`) and each connection's state (`connecting`,
    /// `idle`, `leased`; a closed one is absent): what the state diagram in the Architecture article is drawn
    /// from (StateDiagramTests explores the machine event by event).
    package var stateNames: (pool: String, connections: [ConnectionID: String]) {
        let names = connections.mapValues { record in
            switch record.state {
            case .connecting: "connecting"
            case .idle: "idle"
            case .leased: "leased"
            }
        }
        return ("\(state)", names)
    }

    // MARK: Transitions

    /// Hands `id` (just established or released reusable) to the oldest waiter, or parks it.
    private mutating func serveOrPark(_ id: ConnectionID, origin: OriginKey) -> [Action] {
        if let request = takeOldestWaiter(of: origin) {
            return [lease(id, to: request)]
        }
        guard configuration.maxIdleConnectionsPerOrigin > 0 else {
            forget(id)
            dropOriginIfUnused(origin)
            return [.closeConnection(id)]
        }
        var actions: [Action] = []
        if let index = origins.index(forKey: origin),
            origins.values[index].idle.count >= configuration.maxIdleConnectionsPerOrigin,
            let oldest = origins.values[index].idle.first, case .idle(let oldTimer) = connections[oldest]?.state
        {
            removeIdle(oldest, origin: origin)
            forget(oldest)
            actions += [.cancelIdleTimeout(oldTimer), .closeConnection(oldest)]
        }
        let timer = updateRecord(of: id) { record in
            let timer = IdleTimer(connection: id, idlePeriod: record.leaseCount)
            record.state = .idle(timer)
            return timer
        }
        guard let timer else { preconditionFailure("parking unknown \(id)") }
        updateQueue(of: origin) { $0.idle.append(id) }
        actions.append(.scheduleIdleTimeout(timer))
        return actions
    }

    /// Marks `id` leased to `request` and counts the lease.
    private mutating func lease(_ id: ConnectionID, to request: RequestID) -> Action {
        let leased = updateRecord(of: id) { record in
            record.leaseCount += 1
            record.state = .leased(request)
            return (record.origin, record.leaseCount)
        }
        guard let (origin, leaseNumber) = leased else { preconditionFailure("leasing unknown \(id)") }
        updateQueue(of: origin) { $0.leased += 1 }
        return .lease(Grant(request: request, connection: id, origin: origin, leaseNumber: leaseNumber))
    }

    /// Opens connections while the origin has more waiters than connections on the way and room under its limit.
    private mutating func createConnectionsIfNeeded(for origin: OriginKey, into actions: inout [Action]) {
        guard state == .running, let index = origins.index(forKey: origin) else { return }
        while origins.values[index].connecting < origins.values[index].waiters.count
            && origins.values[index].open < configuration.maxConnectionsPerOrigin
        {
            lastConnectionNumber += 1
            let id = ConnectionID(lastConnectionNumber)
            connections[id] = ConnectionRecord(origin: origin, state: .connecting)
            origins.values[index].connecting += 1
            actions.append(.createConnection(id, origin))
        }
    }

    // In-place access. `table[key]?.field = value` goes through Dictionary's `_modify` coroutine, which for
    // values this large allocates its frame on the heap: a malloc per call, seven per request on the
    // lease and release path (docs/benchmarks.md, "Allocations per request"). Finding the slot with
    // `index(forKey:)` and mutating `values[index]` touches the same storage and allocates nothing.

    /// Runs `body` on the record of `id` in place; nil when the machine does not know `id`.
    @inline(__always)
    private mutating func updateRecord<Result>(of id: ConnectionID, _ body: (inout ConnectionRecord) -> Result)
        -> Result?
    {
        guard let index = connections.index(forKey: id) else { return nil }
        return body(&connections.values[index])
    }

    /// Runs `body` on the queue of `origin` in place, adding an empty queue first when the origin has none.
    @inline(__always)
    private mutating func updateQueue<Result>(of origin: OriginKey, _ body: (inout OriginQueue) -> Result) -> Result {
        if let index = origins.index(forKey: origin) { return body(&origins.values[index]) }
        var queue = OriginQueue()
        let result = body(&queue)
        origins[origin] = queue
        return result
    }

    /// Removes and returns the oldest request waiting for `origin`, nil when none waits.
    private mutating func takeOldestWaiter(of origin: OriginKey) -> RequestID? {
        guard let index = origins.index(forKey: origin), !origins.values[index].waiters.isEmpty else { return nil }
        let request = origins.values[index].waiters.removeFirst()
        waitingOrigin[request] = nil
        return request
    }

    /// Returns the origin of `id`, which the owner says is in `expected`; anything else is the owner's bug.
    private func expectConnection(_ id: ConnectionID, in expected: ExpectedState) -> OriginKey {
        guard let connection = connections[id] else {
            preconditionFailure("\(id) is unknown (expected \(expected)), pool \(state)")
        }
        switch (expected, connection.state) {
        case (.connecting, .connecting), (.leased, .leased): return connection.origin
        case (.connecting, .idle), (.connecting, .leased), (.leased, .connecting), (.leased, .idle):
            preconditionFailure("\(id) is \(connection.state), expected \(expected), pool \(state)")
        }
    }

    private enum ExpectedState { case connecting, leased }

    private mutating func removeIdle(_ id: ConnectionID, origin: OriginKey) {
        guard let index = origins.index(forKey: origin) else { return }
        origins.values[index].idle.removeAll { $0 == id }
    }

    /// Drops `id` from the table; its origin's counters must already exclude it.
    private mutating func forget(_ id: ConnectionID) {
        connections[id] = nil
    }

    /// Frees the bookkeeping of an origin with nothing open and nobody waiting, so many one-off origins do not
    /// accumulate.
    private mutating func dropOriginIfUnused(_ origin: OriginKey) {
        if let queue = origins[origin], queue.open == 0, queue.waiters.isEmpty { origins[origin] = nil }
    }

    private mutating func completeShutdownIfDone() -> [Action] {
        guard state == .shuttingDown, connections.isEmpty else { return [] }
        state = .shutDown
        origins = [:]
        return [.shutdownComplete]
    }
}
