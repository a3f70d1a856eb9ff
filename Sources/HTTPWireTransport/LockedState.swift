// LockedState: a value guarded by a pthread mutex — HTTPWire's one lock type (transport layer).
//
// Every piece of state that several threads share (the reactor's submission queue, the blocking worker's
// jobs, the pool, an exchange, a download) lives in one of these. A plain pthread mutex rather than
// `Synchronization.Mutex`, for one reason: ThreadSanitizer intercepts
// pthread_mutex_lock/unlock and so sees the ordering they create, whereas `Mutex` locks with futex calls
// inside the precompiled Synchronization module, invisible to it, and every handoff through the queue
// would be reported as a race. `swift test --sanitize=thread` is part of the transport's checks. The
// critical sections are a few instructions long, where the two locks cost the same.

#if canImport(Glibc)
    import Glibc
#endif

/// A value that several threads share, readable and writable only while holding its lock.
///
/// ```swift
/// let queue = LockedState<[Int]>([])
/// queue.withLock { $0.append(1) }
/// ```
package final class LockedState<State: ~Copyable>: @unchecked Sendable {
    // @unchecked: `state` is only touched inside withLock, between lock and unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Not checked for exclusive access at run time: the mutex already makes every access exclusive, and a
    /// nested `withLock` on the same state blocks in `pthread_mutex_lock` before a check could report it.
    /// The check cost ~85 instructions per `withLock` (18 per GET: 2% of a request, by callgrind).
    @exclusivity(unchecked) private var state: State

    /// Guards `initialState`.
    package init(_ initialState: consuming State) {
        state = initialState
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
