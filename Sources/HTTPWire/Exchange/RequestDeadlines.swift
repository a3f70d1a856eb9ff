// RequestDeadlines: the two clocks one request runs against — the idle timeout, renewed before every wait,
// and the total deadline, fixed when the request started (exchange layer).
//
// The transport's deadlines are bare instants: when one passes it throws `TransportError.timedOut` and knows
// no more. This type chose them, so it also says which phase a timeout belongs to — the wait's own phase
// (`.head`, `.body`, `.send`) or `.total` when it was the whole request's deadline that ran out. No clock is
// read here except to compute the next deadline; nothing here waits.

import HTTPWireTransport

/// Deadlines for one request: each wait gets "now + idle timeout", never past the total deadline.
///
/// ```swift
/// let deadlines = RequestDeadlines(idle: .seconds(30), total: .after(.seconds(120)))
/// let count = try await stream.read(into: &buffer, maxBytes: 65536, deadline: deadlines.nextWait())
/// // on TransportError.timedOut: HTTPWireError.timedOut(deadlines.phaseOfExpiry(.head))
/// ```
struct RequestDeadlines: Sendable {
    /// The longest wait for progress once connected.
    let idle: Duration
    /// The whole request's deadline (redirects and body included); `.never` without a total timeout.
    let total: Deadline

    /// The deadline for the next wait (a read or a write): the idle timeout from now, or the total
    /// deadline if that comes sooner.
    func nextWait() -> Deadline {
        Swift.min(Deadline.after(idle), total)
    }

    /// The phase to report when a wait in `phase` timed out: `.total` once the total deadline has passed
    /// (it was the one that ran out), else `phase` itself.
    func phaseOfExpiry(_ phase: HTTPWireError.Phase) -> HTTPWireError.Phase {
        total.hasPassed ? .total : phase
    }
}
