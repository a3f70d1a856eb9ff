// PoolStateMachine's vocabulary: the identities, limits, decisions and actions it speaks in.
// Pool layer, sans-IO, like the machine itself (PoolStateMachine.swift holds the rules and the transitions);
// these are plain values the owner (ConnectionPool) and the tests build and compare.

extension PoolStateMachine {
    /// A connection's identity, assigned by the machine in `.createConnection`; never reused.
    package struct ConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The sequence number, starting at 1.
        package let rawValue: Int
        /// Wraps a sequence number (tests name the connections they expect).
        package init(_ rawValue: Int) { self.rawValue = rawValue }
        package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
        package var description: String { "connection \(rawValue)" }
    }

    /// A lease request's identity, chosen by the owner; unique among the requests waiting at one time.
    package struct RequestID: Hashable, Sendable, CustomStringConvertible {
        /// The owner's number for the request.
        package let rawValue: Int
        /// Wraps the owner's number.
        package init(_ rawValue: Int) { self.rawValue = rawValue }
        package var description: String { "request \(rawValue)" }
    }

    /// The limits the machine enforces, per origin.
    package struct Configuration: Hashable, Sendable {
        /// Connections open at once to one origin, counting those still connecting. 8 is above the 6 that
        /// browsers use and low enough not to look like an attack to a small server.
        package let maxConnectionsPerOrigin: Int
        /// Idle connections kept per origin; 0 turns reuse off. The default keeps every connection a burst
        /// opened: the idle timeout, not this cap, is what usually reclaims them.
        package let maxIdleConnectionsPerOrigin: Int

        /// The defaults: 8 connections per origin, all of which may stay idle.
        package init() { self.init(maxConnectionsPerOrigin: 8, maxIdleConnectionsPerOrigin: 8) }

        /// Explicit limits. A pool needs at least one connection per origin and cannot keep fewer than zero
        /// idle, so smaller values are raised to 1 and 0 (a configuration typo must not crash a client).
        package init(maxConnectionsPerOrigin: Int, maxIdleConnectionsPerOrigin: Int) {
            self.maxConnectionsPerOrigin = max(1, maxConnectionsPerOrigin)
            self.maxIdleConnectionsPerOrigin = max(0, maxIdleConnectionsPerOrigin)
        }
    }

    /// The machine's decision that a request may use a connection, with the reuse bookkeeping the client needs
    /// (the owner turns it into a `ConnectionPool.Lease` for the request).
    package struct Grant: Hashable, Sendable {
        /// The request being served.
        package let request: RequestID
        /// The connection it may use until it reports `connectionReleased`.
        package let connection: ConnectionID
        /// The connection's origin.
        package let origin: OriginKey
        /// 1 for the first exchange on this connection, 2 for the second, …
        package let leaseNumber: Int

        /// A lease record (the machine makes them; tests build the ones they expect).
        package init(request: RequestID, connection: ConnectionID, origin: OriginKey, leaseNumber: Int) {
            self.request = request
            self.connection = connection
            self.origin = origin
            self.leaseNumber = leaseNumber
        }

        /// Whether an earlier exchange used this connection. A reused connection may have been closed by the
        /// server while idle, so a failure before any response byte is retried for a replayable request.
        package var isReused: Bool { leaseNumber > 1 }
    }

    /// The token for one idle period of one connection; `idleTimeoutFired` with an older token is stale.
    package struct IdleTimer: Hashable, Sendable {
        /// The idle connection.
        package let connection: ConnectionID
        /// How many leases the connection had served when it went idle: different for every idle period.
        package let idlePeriod: Int

        /// A timer token (the machine makes them; tests build the ones they expect).
        package init(connection: ConnectionID, idlePeriod: Int) {
            self.connection = connection
            self.idlePeriod = idlePeriod
        }
    }

    /// Why a waiting request gets no connection.
    package enum LeaseFailure: Hashable, Sendable {
        /// The connection attempt made for the origin failed; the owner reports the error it holds.
        case connectFailed
        /// The pool is shutting down.
        case poolShutDown
        /// The owner asked with `leaseCancelled`; report Swift's `CancellationError`.
        case cancelled
    }

    /// What the owner must do, in the order returned.
    package enum Action: Hashable, Sendable {
        /// Keep the request waiting: it is queued for its origin and will get `.lease` or `.failLease`.
        case enqueue(RequestID, OriginKey)
        /// Hand the connection to the request.
        case lease(Grant)
        /// Open a connection to the origin and report `connectionEstablished` or `connectionFailed`.
        case createConnection(ConnectionID, OriginKey)
        /// Start the idle timer; when it fires, report `idleTimeoutFired` with this token.
        case scheduleIdleTimeout(IdleTimer)
        /// Cancel the idle timer (if it fires anyway, the machine ignores it).
        case cancelIdleTimeout(IdleTimer)
        /// Close the connection; the machine has forgotten it.
        case closeConnection(ConnectionID)
        /// Resume the waiting request with a failure.
        case failLease(RequestID, LeaseFailure)
        /// Shutdown finished: no connection and no waiter is left.
        case shutdownComplete
    }

    /// How many connections and waiters one origin has; for tests, metrics and debugging.
    package struct OriginSnapshot: Hashable, Sendable {
        /// Connections being opened.
        package var connecting = 0
        /// Connections parked, waiting for a lease.
        package var idle = 0
        /// Connections carrying an exchange.
        package var leased = 0
        /// Requests queued for a connection.
        package var waiting = 0
        /// Counts as given; all zero by default.
        package init(connecting: Int = 0, idle: Int = 0, leased: Int = 0, waiting: Int = 0) {
            self.connecting = connecting
            self.idle = idle
            self.leased = leased
            self.waiting = waiting
        }

        /// Connections that count against the per-origin limit.
        package var open: Int { connecting + idle + leased }
    }
}
