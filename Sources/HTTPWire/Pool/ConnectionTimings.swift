// ConnectionTimings: when opening one connection reached each step — resolved, connected, TLS done — on
// the monotonic clock (pool layer).
//
// `PooledConnection.open` reads the clock once after each step; the client turns the readings into the
// `RequestMetrics` of the request that got the new connection. A reused connection's timings belong to the
// request that opened it, so they are not reported again. Values only: nothing here reads the clock itself.

/// CLOCK_MONOTONIC readings, in nanoseconds, of a connection's opening; 0 for a step that did not happen
/// (no TLS on plain HTTP).
package struct ConnectionTimings: Sendable, Hashable {
    /// Opening started: the name lookup began.
    package var startNanoseconds: UInt64 = 0
    /// The host's addresses were known.
    package var resolvedNanoseconds: UInt64 = 0
    /// TCP connected (the winner of the Happy Eyeballs race, RFC 8305).
    package var connectedNanoseconds: UInt64 = 0
    /// The TLS handshake completed (https only).
    package var tlsNanoseconds: UInt64 = 0

    /// Timings with nothing recorded yet (a connection the pool did not open itself, in tests).
    package init(startNanoseconds: UInt64 = 0) {
        self.startNanoseconds = startNanoseconds
    }
}
