// BlockingWorker: a small fixed set of threads for calls that block (transport layer).
//
// `getaddrinfo` can take seconds and reading or writing a file can wait on a disk; neither has a readiness
// event the reactor could wait for. They run here instead, on dedicated threads outside Swift's cooperative
// pool, and their results come back through a continuation. A cancelled or timed-out caller is resumed at
// once; the blocking call still finishes in the background and its result is dropped. This file knows
// nothing about DNS or files: it runs closures.

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking closures on dedicated threads and hands the result back to the awaiting task.
///
/// ```swift
/// let addresses = try await BlockingWorker.shared.run { try lookUp(host) }   // getaddrinfo off the pool
/// ```
package final class BlockingWorker: Sendable {
    /// One queued closure and the continuation waiting for it.
    private final class Job: Sendable {
        /// Where a job is. Next: created → waiting → finished, or created → finished (cancelled first).
        enum State {
            case created
            case waiting(CheckedContinuation<any Sendable, any Error>)
            case finished
        }
        let work: @Sendable () throws -> any Sendable
        let state = LockedState(State.created)

        init(work: @escaping @Sendable () throws -> any Sendable) { self.work = work }

        /// Resumes the waiting task with `result` unless something else already did.
        func finish(_ result: Result<any Sendable, any Error>) {
            let continuation: CheckedContinuation<any Sendable, any Error>? = state.withLock { state in
                switch state {
                case .created:
                    state = .finished
                    return nil
                case .waiting(let continuation):
                    state = .finished
                    return continuation
                case .finished:
                    return nil
                }
            }
            continuation?.resume(with: result)
        }
    }

    /// The worker for disk I/O (upload reads, download writes and fsyncs, file stats): two threads.
    package static let shared = BlockingWorker(threadCount: 2, name: "httpwire-disk")

    /// The worker for downloads' progress marks, apart from the disk's: a mark is one small pwrite that a
    /// kill loses the bytes of while it waits, so it must not queue behind body writes and fdatasyncs (two
    /// slow flushes can hold both disk threads for a fifth of a second on a busy disk). One thread.
    package static let marks = BlockingWorker(threadCount: 1, name: "httpwire-mark")

    /// The worker for getaddrinfo, apart from the disk's: a resolver that does not answer can keep a lookup
    /// blocked for the resolver's whole timeout (5 s per try by default), and that must never stall the file
    /// writes of downloads already running. Two threads.
    package static let resolver = BlockingWorker(threadCount: 2, name: "httpwire-dns")

    private let queue = LockedState<[Job]>([])
    /// Counts queued jobs; threads sleep on it. Allocated once, never freed (the worker lives forever).
    private nonisolated(unsafe) let available: UnsafeMutablePointer<sem_t>

    private init(threadCount: Int, name: String) {
        available = .allocate(capacity: 1)
        sem_init(available, 0, 0)
        for index in 0..<threadCount {
            SystemThread.start(name: "\(name)\(index)") { [self] in serve() }
        }
    }

    /// Runs `work` on a worker thread and returns its result. Throws `CancellationError` as soon as the
    /// calling task is cancelled (the work itself runs to completion and its result is dropped).
    package func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        let job = Job(work: { try work() })
        let result = try await withTaskCancellationHandler {
            try await wait(for: job)
        } onCancel: {
            job.finish(.failure(CancellationError()))
        }
        return Self.value(result, of: job)
    }

    /// Runs `work` on a worker thread and returns its result, waiting for it even when the calling task is
    /// cancelled: for work that must not be abandoned half-way, such as a file write whose byte count the
    /// caller keeps. (Wrapping ``run(_:)`` in an unstructured task does the same at the cost of a task and
    /// two more thread hand-offs per call.)
    package func runToCompletion<Value: Sendable>(
        _ work: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        let job = Job(work: { try work() })
        return Self.value(try await wait(for: job), of: job)
    }

    /// Queues `job` and waits for its result (or for the cancellation that finished it first).
    private func wait(for job: Job) async throws -> any Sendable {
        try await withCheckedThrowingContinuation { continuation in
            let isCancelled = job.state.withLock { state in
                guard case .created = state else { return true }
                state = .waiting(continuation)
                return false
            }
            if isCancelled {
                continuation.resume(throwing: CancellationError())
            } else {
                enqueue(job)
            }
        }
    }

    /// The value `job` returned, as the caller's type.
    private static func value<Value>(_ result: any Sendable, of job: Job) -> Value {
        // Everything `work` wrote on the worker thread (the value it returned, and state such as a part
        // file's written-byte count) is read by the caller from here on. The resume orders it, but a
        // continuation resumed before its task has suspended leaves no mark ThreadSanitizer can see, so it
        // reported those reads as races (docs/reliability.md, "Sanitizers"). Taking the lock that `finish`
        // released on the worker thread makes the order explicit: one uncontended lock per blocking call.
        job.state.withLock { _ in }
        guard let value = result as? Value else {
            preconditionFailure("blocking worker returned \(type(of: result)) instead of \(Value.self)")
        }
        return value
    }

    /// Queues `work` on a worker thread and returns at once: for a caller that is not a task (a reactor
    /// timer's callback) and needs no answer. The work reports its own outcome.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        enqueue(Job(work: { work() }))
    }

    /// Whether jobs are queued that no thread has taken yet: a job that could go on with more work of its
    /// own (a download writing its next block) returns instead, so the others do not wait behind it.
    package var hasWaitingJobs: Bool { queue.withLock { !$0.isEmpty } }

    /// Hands `job` to the next free thread.
    private func enqueue(_ job: Job) {
        queue.withLock { $0.append(job) }
        sem_post(available)
    }

    /// A worker thread's loop.
    private func serve() {
        while true {
            while sem_wait(available) != 0 {}  // EINTR: wait again
            let job = queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let job else { continue }
            if case .finished = job.state.withLock({ $0 }) { continue }  // cancelled while queued
            job.finish(Result { try job.work() })
        }
    }
}
