// Deadline: a point on the monotonic clock by which a wait must end (transport layer).
//
// Timeouts are turned into deadlines once, when a request starts; every wait below (connect, handshake,
// read, write, a timer) then carries the deadline, and the reactor fails the wait with
// `TransportError.timedOut` when the clock passes it. The clock is CLOCK_MONOTONIC: it never jumps when the
// wall clock is set, so a timeout can neither fire early nor never. A deadline does not say what it is for:
// the caller that chose it knows whether it was waiting for a connection, a response head or a body, and
// names that phase when it reports the expiry. This file reads the clock and nothing else.

#if canImport(Glibc)
    import Glibc
#endif

/// When a wait must end, on the monotonic clock.
///
/// ```swift
/// let deadline = Deadline.after(.seconds(10))
/// let socket = try await TCPSocket.connect(host: "example.test", port: 80, deadline: deadline)
/// ```
package struct Deadline: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary start on CLOCK_MONOTONIC; `UInt64.max` means never.
    package var uptimeNanoseconds: UInt64

    /// A deadline at an absolute monotonic time.
    package init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// A deadline that never passes.
    package static let never = Deadline(uptimeNanoseconds: .max)

    /// `duration` from now (negative durations give a deadline that has already passed).
    package static func after(_ duration: Duration) -> Deadline {
        let (seconds, attoseconds) = duration.components
        // Beyond ~285 years is as good as never, and keeps the arithmetic below from overflowing.
        guard seconds < 9_000_000_000 else { return .never }
        guard seconds > -9_000_000_000 else { return Deadline(uptimeNanoseconds: 0) }
        let now = Int64(Self.nowNanoseconds())
        let target = now + seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return Deadline(uptimeNanoseconds: UInt64(max(0, target)))
    }

    /// Whether this deadline never passes.
    package var isNever: Bool { uptimeNanoseconds == .max }

    /// Whether the monotonic clock has reached the deadline.
    package var hasPassed: Bool { !isNever && Self.nowNanoseconds() >= uptimeNanoseconds }

    /// Milliseconds left, rounded up, as `epoll_wait` wants them: -1 for never, 0 when passed.
    package func millisecondsRemaining(now: UInt64 = Deadline.nowNanoseconds()) -> Int32 {
        if isNever { return -1 }
        if now >= uptimeNanoseconds { return 0 }
        let milliseconds = (uptimeNanoseconds - now + 999_999) / 1_000_000
        return Int32(clamping: milliseconds)
    }

    /// CLOCK_MONOTONIC now, in nanoseconds.
    package static func nowNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Nanoseconds until the deadline (0 once it has passed).
    package func nanosecondsRemaining(now: UInt64 = Deadline.nowNanoseconds()) -> UInt64 {
        uptimeNanoseconds > now ? uptimeNanoseconds - now : 0
    }

    /// Earlier deadlines order first.
    package static func < (lhs: Deadline, rhs: Deadline) -> Bool {
        lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
    }

    /// `"deadline in 1500 ms"`.
    package var description: String {
        if isNever { return "no deadline" }
        return "deadline in \(millisecondsRemaining()) ms"
    }
}
