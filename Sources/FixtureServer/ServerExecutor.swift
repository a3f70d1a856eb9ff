// ServerExecutor: the threads the fixture server's tasks run on, and the clock they pause with (edge layer,
// fixture server).
//
// A test server must answer even while Swift's cooperative pool is busy: the pool has about one thread per
// core, the tests of a parallel run share it, and any of them may be slow to give a thread back. So the
// fixture server's accept loop and connection tasks prefer this `TaskExecutor`: two dedicated threads
// (started with the transport's SystemThread, never joined) taking jobs from one queue. A connection's
// awaits end on the reactor, which resumes the continuation onto the task's preferred executor, so a
// request is read, routed and answered without a cooperative thread; `sleep(for:)` pauses on the reactor's
// deadline heap for the same reason (the pool's timer would need a pool thread to wake the task). The
// small servers of the tests use the same executor. What must not run here is a blocking call: disk I/O
// goes to the BlockingWorker, as everywhere in HTTPWire; generating or hashing bytes is fine (it computes).

import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Dedicated threads for server tasks: `Task(executorPreference: ServerExecutor.shared) { … }`.
///
/// ```swift
/// let task = Task(executorPreference: ServerExecutor.shared) {
///     while let socket = try? await listener.accept() { … }   // runs whether or not the pool is free
/// }
/// ```
public final class ServerExecutor: TaskExecutor, Sendable {
    /// The executor of every fixture server in the process. Two threads: one server's long computation (a
    /// large generated body) does not hold up another's answer.
    public static let shared = ServerExecutor(threadCount: 2, name: "fixture-server")

    /// Jobs waiting for a thread, oldest first.
    private let queue = LockedState<[UnownedJob]>([])
    /// Counts queued jobs; the threads sleep on it. Allocated once, never freed (the executor lives forever).
    private nonisolated(unsafe) let available: UnsafeMutablePointer<sem_t>

    private init(threadCount: Int, name: String) {
        available = .allocate(capacity: 1)
        sem_init(available, 0, 0)
        for index in 0..<threadCount {
            SystemThread.start(name: "\(name)\(index)") { [self] in run() }
        }
    }

    /// Queues `job`; one of the threads runs it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.append(job) }
        sem_post(available)
    }

    /// A thread's loop: runs queued jobs in order, sleeping while there are none.
    private func run() {
        while true {
            while sem_wait(available) != 0 {}  // EINTR: wait again
            guard let job = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Suspends the calling task for `duration` on the reactor's clock, which wakes it without a thread of
    /// the cooperative pool (`Task.sleep` would need one). Throws `CancellationError` when the task is
    /// cancelled, as `Task.sleep` does; a duration that is not positive returns at once.
    public static func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return }
        try await Reactor.shared.sleep(until: .after(duration))
    }
}
