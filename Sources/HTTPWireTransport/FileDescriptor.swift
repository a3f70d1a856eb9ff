// FileDescriptor: ownership of one open descriptor (transport layer).
//
// A descriptor number is a capability that the kernel reuses as soon as it is closed, so closing one twice
// can close somebody else's file. `FileDescriptor` makes "closed exactly once" a property of the type: the
// number lives in an atomic that `close()` swaps to -1, and only the caller that saw the old number closes
// it. A process-wide count of open descriptors lets tests (and debug builds) prove nothing leaked; an
// instance that is deinitialised while still open is closed anyway and counted in `leakedCount`.
// Descriptors that the reactor watches are closed by the reactor (`Reactor.close(_:)`), never directly,
// so that no readiness event can arrive for a number that was reused. A task may make one non-blocking call
// on a socket itself before handing the operation to the reactor (`Reactor.performAttemptingHere`); it does
// so inside `withNumberHeldOpen`, whose lock `close()` also takes, so the number cannot be closed — and
// handed by the kernel to another socket — while that call runs. This file performs no I/O.

import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One open file descriptor (socket, pipe, eventfd, epoll), closed exactly once.
///
/// ```swift
/// let socket = FileDescriptor(adopting: try Syscall.runOnce("socket") { Glibc.socket(...) })
/// defer { socket.close() }   // a second close() does nothing
/// ```
package final class FileDescriptor: Sendable, CustomStringConvertible {
    /// The number, or -1 once closed.
    private let number: Atomic<Int32>
    /// Held by `close()` and around calls made off the reactor thread, so neither overlaps the other. The
    /// guarded value is unused; it is a byte rather than `()` because, in a debug build, the inout access to
    /// a zero-sized field is recorded at the object's first word, which every other thread reads (the type's
    /// metadata, to find the lock) before it locks: ThreadSanitizer reported that as a race
    /// (docs/reliability.md, "Sanitizers", has the ten-line reproducer).
    private let closeGuard = LockedState<UInt8>(0)
    /// Whether the descriptor is in the reactor's epoll set. Written by the reactor thread only.
    private let registeredWithReactor = Atomic<Bool>(false)
    /// Whether the reactor saw the descriptor readable (or hung up) with no read waiting for it, and no read
    /// has met `EAGAIN` since. Written by the reactor thread only.
    private let unclaimedReadiness = Atomic<Bool>(false)
    private let readInterestDropped = Atomic<Bool>(false)

    /// Descriptors created through this type and not yet closed, process-wide.
    private static let liveCount = Atomic<Int>(0)
    /// Descriptors that were still open when their owner forgot them (closed by `deinit`).
    private static let leaks = Atomic<Int>(0)

    /// Takes ownership of `rawValue`, which must be an open descriptor nobody else will close.
    package init(adopting rawValue: Int32) {
        precondition(rawValue >= 0, "FileDescriptor adopting invalid descriptor \(rawValue)")
        number = Atomic(rawValue)
        Self.liveCount.add(1, ordering: .relaxed)
    }

    deinit {
        let rawValue = number.exchange(-1, ordering: .acquiringAndReleasing)
        if rawValue >= 0 {
            // Nobody closed it: a leak in the owner. Release the number and remember that it happened.
            Self.leaks.add(1, ordering: .relaxed)
            Self.liveCount.subtract(1, ordering: .relaxed)
            Syscall.close(rawValue)
        }
    }

    /// The descriptor number, or -1 after `close()`.
    package var rawValue: Int32 { number.load(ordering: .acquiring) }

    /// Whether `close()` has not yet been called.
    package var isOpen: Bool { rawValue >= 0 }

    /// Closes the descriptor; later calls do nothing. Watched descriptors go through `Reactor.close(_:)`.
    package func close() {
        closeGuard.withLock { _ in
            let rawValue = number.exchange(-1, ordering: .acquiringAndReleasing)
            guard rawValue >= 0 else { return }
            Self.liveCount.subtract(1, ordering: .relaxed)
            Syscall.close(rawValue)
        }
    }

    /// Runs `body` with the number while holding off `close()`, for a non-blocking call made on a thread
    /// other than the reactor's; nil when the descriptor is already closed. Without the guard, a close on
    /// the reactor thread between reading the number and the call would let that call reach whatever the
    /// kernel opened next under the same number (another connection).
    package func withNumberHeldOpen<Result>(_ body: (Int32) throws -> Result) rethrows -> Result? {
        try closeGuard.withLock { _ in
            let rawValue = number.load(ordering: .acquiring)
            guard rawValue >= 0 else { return nil }
            return try body(rawValue)
        }
    }

    /// Whether the reactor added this descriptor to its epoll set (reactor thread only).
    package var isRegisteredWithReactor: Bool {
        get { registeredWithReactor.load(ordering: .relaxed) }
        set { registeredWithReactor.store(newValue, ordering: .relaxed) }
    }

    /// Whether the reactor's `epoll_wait` reported this descriptor readable, or hung up, while no read was
    /// waiting for it, and no read has found it empty (`EAGAIN`) since: bytes or an end of stream may be
    /// waiting that no future edge will announce. False means every readiness the reactor saw was taken by
    /// a read, so a read may park without trying first (see `Reactor.performAwaitingReadable`). Written by the reactor thread only; read from any thread.
    package var hasUnclaimedReadiness: Bool {
        get { unclaimedReadiness.load(ordering: .acquiring) }
        set { unclaimedReadiness.store(newValue, ordering: .releasing) }
    }

    /// Whether the reactor stopped asking epoll for this descriptor's readable edges, after a run of them
    /// came with no read waiting (`ReactorLoop.edgesBeforeQuieting`); the next read that parks asks again.
    /// Written by the reactor thread only; read from any thread (tests).
    package var isReadInterestDropped: Bool {
        get { readInterestDropped.load(ordering: .relaxed) }
        set { readInterestDropped.store(newValue, ordering: .relaxed) }
    }

    /// How many descriptors made through `FileDescriptor` are open right now, in the whole process.
    package static var openCount: Int { liveCount.load(ordering: .relaxed) }

    /// How many descriptors were found open in `deinit` (a leak that was repaired); tests expect 0.
    package static var leakedCount: Int { leaks.load(ordering: .relaxed) }

    /// `"fd 7"` or `"fd (closed)"`.
    package var description: String {
        let rawValue = self.rawValue
        return rawValue >= 0 ? "fd \(rawValue)" : "fd (closed)"
    }
}
