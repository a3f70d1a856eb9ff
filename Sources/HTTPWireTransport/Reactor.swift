// Reactor: the one thread that owns every descriptor HTTPWire waits on (transport layer).
//
// Async code never makes a system call on a socket itself. It packages the non-blocking call as a
// `ReactorOperation` and submits it; the reactor thread attempts it *at once* (most reads of a response
// that has arrived, and most writes, finish on that first attempt, with no `epoll_wait` and no
// `epoll_ctl`), and only when the call reports `EAGAIN` parks the operation until `epoll_wait` says the
// descriptor is ready. Because one thread makes every call, an `SSL*` is never touched by two threads,
// and a descriptor is never closed while another thread is inside `recv` on it.
//
// Edge-triggered epoll: a descriptor is added once, for input and output, the first time an operation on it
// has to wait, and never modified afterwards (no `epoll_ctl` per operation). Edge triggering is safe here
// because an operation always attempts its call before it waits, so it only ever waits after an `EAGAIN`,
// and an edge follows every `EAGAIN`. An eventfd (level-triggered) wakes the loop when work arrives while it
// sleeps; submitters write it only when the loop said it was going to sleep.
//
// Cancellation and deadlines end a wait from this thread too: the descriptor is closed (its other pending
// operations fail with the same error) and the awaiting task resumes with `CancellationError` or
// `TransportError.timedOut`. The same deadline heap is the library's one clock: a `ReactorTimer` is an
// operation on no descriptor whose deadline runs a callback, and `sleep(until:)` is one that resumes its
// task — so every timeout, timer, backoff and wait in HTTPWire is served by this loop's `epoll_wait`
// timeout, with no sleeping task anywhere. This file must not know about TLS, HTTP or addresses.
// The loop's tables, which only the reactor thread touches, are `ReactorLoop` (ReactorLoop.swift).
//
// Thread hops: a submitted operation costs one enqueue (a mutex and, only if the loop sleeps, an eventfd
// write), a wake-up of the loop, and one continuation resume (a wake-up of a cooperative-pool thread); there
// is no epoll_ctl on the fast path. The read that waits for a response is queued without the eventfd write
// when the response's own edge will wake the loop in time (`enqueue(awaitingEdge:)`): one wake-up of the
// loop per request instead of two. On loopback that hop costs more than the call itself (measured: a small
// GET made three hops — liveness peek, send, receive — and spent most of its ~60 µs of CPU in futex and
// epoll_wait). So plain-TCP socket operations use `performAttemptingHere`: the calling task makes the first
// non-blocking attempt itself, under `FileDescriptor.withNumberHeldOpen` so a concurrent close cannot
// redirect it, and only an operation that would block travels to the reactor, which attempts it again
// before parking it (keeping the edge-triggered rule above). TLS operations always run on the reactor
// thread: an `SSL*` is not safe to touch from two threads, and a body writer and a reader share one.
//
// The reactor is also a `TaskExecutor` (public as `HTTPClient.reactorExecutor`): tasks that prefer it run
// here, as `.job` commands between rounds of epoll_wait. A readiness event then resumes its task on this
// same thread (the job goes into the inbox, which the loop drains before it sleeps again): one wake-up per
// response instead of two. Such a task submits operations straight to the loop, without the queue, and
// parks an operation whose first attempt it made here without attempting it again (`performHere`).

import CSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The event loop: one thread, one epoll set, every socket of the process.
///
/// ```swift
/// let count = try await Reactor.shared.perform(on: socket, deadline: deadline) {
///     switch try Syscall.run("recv", { recv(socket.rawValue, pointer, capacity, 0) }) {
///     case .done(let count): return .finished(count)
///     case .wouldBlock: return .wait(.readable)
///     }
/// }
/// ```
package final class Reactor: Sendable {
    /// Work handed to the reactor thread.
    private enum Command {
        case submit(AnyReactorOperation)
        case cancel(AnyReactorOperation)
        case close(FileDescriptor, cleanup: (@Sendable () -> Void)?, done: CheckedContinuation<Void, Never>?)
        case job(UnownedJob)
    }

    /// The submission queue shared between submitters and the loop.
    private struct Inbox {
        var commands: [Command] = []
        /// True while the loop is (about to be) inside `epoll_wait` with an empty queue.
        var isSleeping = false
        /// While `isSleeping`: when that `epoll_wait` returns at the latest (`.never` for no timeout).
        var sleepsUntil = Deadline.never
    }

    /// The longest the loop sleeps while it has any deadline at all (a parked wait, a timer such as the
    /// pool's idle reaper). Bounding it lets a read that waits for an answer be queued without waking the
    /// loop whenever its own deadline is further away than this (`enqueue(awaitingEdge:)`): the idle and
    /// head timeouts are 30 s by default, so the loop is certain to look at the queue before they are due.
    /// With no deadline at all the loop sleeps until something happens, as before.
    package static let longestTimedSleep: Duration = .seconds(5)
    private static let longestTimedSleepNanoseconds = UInt64(longestTimedSleep.components.seconds) * 1_000_000_000

    /// The reactor every HTTPWire connection uses; its thread starts on first use.
    package static let shared = Reactor()

    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let inbox = LockedState(Inbox())
    /// The loop's tables. Touched only on the reactor thread (by `run`, and by tasks running there).
    nonisolated(unsafe) private let loop: ReactorLoop
    /// The reactor thread's pthread_t, once it has started (0 before).
    private let threadIdentifier = Atomic<UInt>(0)

    /// Reads that `enqueue(awaitingEdge:)` queued without waking the sleeping loop, process-wide (tests).
    package var readsQueuedWithoutWake: Int { queuedWithoutWake.load(ordering: .relaxed) }
    private let queuedWithoutWake = Atomic<Int>(0)

    /// While the loop sleeps in `epoll_wait` with an empty queue, when that call returns at the latest;
    /// nil while it is awake (tests).
    package var sleepsUntil: Deadline? { inbox.withLock { $0.isSleeping ? $0.sleepsUntil : nil } }

    /// Whether the caller runs on the reactor thread: a task that prefers ``Reactor`` as its executor.
    package var isCurrentThread: Bool { UInt(pthread_self()) == threadIdentifier.load(ordering: .acquiring) }

    private init() {
        // Without epoll or eventfd no socket can be served at all; this only fails when the process is out
        // of descriptors at start-up, which no caller could recover from.
        let epoll: Int32
        let wake: Int32
        do {
            epoll = try Syscall.runOnce("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
            wake = try Syscall.runOnce("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            preconditionFailure("reactor start-up failed: \(error)")
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wake
        precondition(epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) == 0, "reactor eventfd registration failed")
        epollDescriptor = epoll
        wakeDescriptor = wake
        loop = ReactorLoop(epollDescriptor: epoll, wakeDescriptor: wake)
        SystemThread.start(name: "httpwire-reactor") { [self] in
            threadIdentifier.store(UInt(pthread_self()), ordering: .releasing)
            // OpenSSL writes to sockets with plain write(2), which raises SIGPIPE when the peer has gone;
            // SIGPIPE from a write goes to the writing thread, and blocked there it stays pending forever
            // and harmless, while the write reports EPIPE. Only this thread writes, so no process-wide
            // signal setting is needed.
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            run()
        }
    }

    /// Runs `body` on the reactor thread, at once and again whenever the descriptor shows the readiness the
    /// body asked for, until it finishes. Cancellation of the calling task, or `deadline` passing, closes
    /// `descriptor` and throws `CancellationError` or `TransportError.timedOut`.
    /// `body` may only make non-blocking calls; it runs on the reactor thread.
    package func perform<Value: Sendable>(
        on descriptor: FileDescriptor?, deadline: Deadline, _ body: @escaping () throws -> ReactorStep<Value>
    ) async throws -> Value {
        try await submit(ReactorOperation(descriptor: descriptor, deadline: deadline, body: body))
    }

    /// Hands `operation` to the loop (straight to it from a task on the reactor thread, else through the
    /// inbox) and suspends until it finishes.
    private func submit<Value: Sendable>(_ operation: AwaitedReactorOperation<Value>) async throws -> Value {
        try await awaitCompletion(of: operation) {
            if isCurrentThread {
                loop.submit(operation)  // a task on the reactor thread: no queue, no extra turn of the loop
            } else if operation.startsAwaitingReadable {
                enqueue(awaitingEdge: operation)
            } else {
                enqueue(.submit(operation))
            }
        }
    }

    /// Suspends until `operation` finishes. `start` hands it to the loop once its continuation is in place;
    /// cancelling the calling task sends the loop a `.cancel` command — both travel through the same queue
    /// (or run on the loop's own thread), and the loop copes with either order.
    private func awaitCompletion<Value: Sendable>(
        of operation: AwaitedReactorOperation<Value>, start: () -> Void
    ) async throws -> Value {
        defer { operation.synchronizeWithFinish() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                operation.continuation = continuation
                start()
            }
        } onCancel: {
            enqueue(.cancel(operation))
        }
    }

    /// Like ``perform(on:deadline:_:)``, but makes the first attempt on the calling thread: a call that
    /// completes at once (a send with room in the socket buffer, a receive with data already there, a
    /// liveness peek) costs no hop to the reactor thread and back. An attempt that would block goes to the
    /// reactor, which tries it once more before it waits. A cancelled task, a passed deadline or a closed
    /// descriptor take the ordinary path, which reports them exactly as before. Only for bodies that make
    /// non-blocking calls on a descriptor no other thread uses in the same way: never for TLS.
    package func performAttemptingHere<Value: Sendable>(
        on descriptor: FileDescriptor, deadline: Deadline, _ body: @escaping () throws -> ReactorStep<Value>
    ) async throws -> Value {
        try await attemptingHere(descriptor: descriptor, deadline: deadline, attempt: body) {
            ReactorOperation(descriptor: descriptor, deadline: deadline, body: body)
        }
    }

    /// ``performAttemptingHere(on:deadline:_:)`` for an operation the caller built itself — a socket read
    /// that holds its buffer, its attempt and its continuation in one object (`SocketRead`), where the
    /// closure form needs three.
    package func performAttemptingHere<Value: Sendable>(_ operation: AwaitedReactorOperation<Value>)
        async throws -> Value
    {
        guard let descriptor = operation.descriptor else { return try await submit(operation) }
        return try await attemptingHere(descriptor: descriptor, deadline: operation.deadline, attempt: operation.step) {
            operation
        }
    }

    /// Both forms of `performAttemptingHere`: the first attempt on the calling thread; the operation object
    /// is made (`makeOperation`) only when the call has to go to the reactor.
    private func attemptingHere<Value: Sendable>(
        descriptor: FileDescriptor, deadline: Deadline, attempt: () throws -> ReactorStep<Value>,
        makeOperation: () -> AwaitedReactorOperation<Value>
    ) async throws -> Value {
        if isCurrentThread {
            return try await performHere(
                descriptor: descriptor, deadline: deadline, attempt: attempt, makeOperation: makeOperation)
        }
        if !Task.isCancelled, !deadline.hasPassed,
            case .finished(let value)? = try descriptor.withNumberHeldOpen({ _ in try attempt() })
        {
            return value
        }
        return try await submit(makeOperation())
    }

    /// `performAttemptingHere` for a task already on the reactor thread: the attempt runs at once and, when
    /// it would block, the operation is parked straight away. No `epoll_wait` can run between the `EAGAIN`
    /// and the parking (this thread is the one that would run it), so the edge that follows the `EAGAIN` is
    /// still ahead and the attempt need not be repeated — one system call fewer per wait than the queue.
    /// The operation object is made only when the attempt would block (`makeOperation`).
    private func performHere<Value: Sendable>(
        descriptor: FileDescriptor, deadline: Deadline, attempt: () throws -> ReactorStep<Value>,
        makeOperation: () -> AwaitedReactorOperation<Value>
    ) async throws -> Value {
        guard !Task.isCancelled, !deadline.hasPassed, descriptor.isOpen else {
            return try await submit(makeOperation())
        }
        let interest: Interest
        switch try attempt() {
        case .finished(let value): return value
        case .wait(let wanted): interest = wanted
        }
        let operation = makeOperation()
        return try await awaitCompletion(of: operation) { loop.park(attempted: operation, until: interest) }
    }

    /// Like ``performAttemptingHere(on:deadline:_:)`` for a read that is known to find nothing yet — the
    /// answer to a request this caller has just written: the operation is parked until `epoll_wait` reports
    /// the descriptor readable, without the first attempt that would only meet `EAGAIN` (one `recv` per
    /// request saved, two on the cooperative pool, which would attempt it here and again on the reactor).
    ///
    /// Why that is safe with edge-triggered epoll, which only reports a change: a byte that arrives after
    /// the park raises an edge, and so does one that arrived before it unless a reported edge was already
    /// consumed. The reactor is the only thread that takes edges from epoll, and an edge it takes while no
    /// read waits is remembered on the descriptor (``FileDescriptor/hasUnclaimedReadiness``); then, and for
    /// a descriptor not yet in the epoll set (whose registration reports the present state), the reactor
    /// attempts the read first as usual. Only for plain sockets: OpenSSL may hold decrypted bytes that no
    /// edge announces, so a TLS read always attempts.
    package func performAwaitingReadable<Value: Sendable>(_ operation: AwaitedReactorOperation<Value>)
        async throws -> Value
    {
        operation.startsAwaitingReadable = true
        return try await submit(operation)
    }

    /// Suspends the calling task until `deadline` passes (a backoff, a short gathering pause, the bound on
    /// a DNS lookup); throws `CancellationError` when the task is cancelled first. No thread sleeps: the
    /// wait is an entry in the reactor's deadline heap.
    package func sleep(until deadline: Deadline) async throws {
        do {
            let _: Int = try await perform(on: nil, deadline: deadline) { .wait(.deadlineOnly) }
        } catch TransportError.timedOut {
            return
        }
    }

    /// Runs `action` on the reactor thread once `deadline` passes, unless the returned timer is cancelled
    /// first. The action must not block (it runs between rounds of `epoll_wait`); it typically takes a
    /// lock, decides, and hands any real work to a task.
    ///
    /// ```swift
    /// let timer = Reactor.shared.schedule(at: .after(.seconds(1))) { exchange.continueTimeoutFired() }
    /// // ... the 100 Continue arrived first:
    /// timer.cancel()
    /// ```
    package func schedule(at deadline: Deadline, _ action: @escaping @Sendable () -> Void) -> ReactorTimer {
        let timer = ReactorTimer(deadline: deadline, action: action)
        timer.reactor = self
        if isCurrentThread {
            loop.submit(timer)
        } else {
            enqueue(.submit(timer))
        }
        return timer
    }

    /// Cancels `timer` (reactor thread or any other); see ``ReactorTimer/cancel()``.
    func cancel(_ timer: ReactorTimer) {
        if isCurrentThread {
            loop.cancel(timer)
        } else {
            enqueue(.cancel(timer))
        }
    }

    /// Closes `descriptor` on the reactor thread after running `cleanup` there (a TLS close_notify, say);
    /// operations still waiting on it fail with `CancellationError`. Returns once the descriptor is closed.
    package func close(_ descriptor: FileDescriptor, cleanup: (@Sendable () -> Void)? = nil) async {
        await withCheckedContinuation { continuation in
            enqueue(.close(descriptor, cleanup: cleanup, done: continuation))
        }
    }

    /// `close(_:cleanup:)` without waiting for it, for `deinit`.
    package func closeEventually(_ descriptor: FileDescriptor, cleanup: (@Sendable () -> Void)? = nil) {
        enqueue(.close(descriptor, cleanup: cleanup, done: nil))
    }

    private func enqueue(_ command: Command) {
        let mustWake = inbox.withLock { inbox in
            inbox.commands.append(command)
            guard inbox.isSleeping else { return false }
            inbox.isSleeping = false
            return true
        }
        if mustWake {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
        }
    }

    /// Queues a read that waits for the answer to a request just sent (`performAwaitingReadable`) and wakes
    /// a sleeping loop only when the loop must act before that answer's edge: the edge itself wakes it,
    /// and the loop looks at its queue after every wake-up. On the cooperative pool this saves, per
    /// request, the eventfd write, the loop's extra wake-up with its `epoll_wait` and eventfd read — the
    /// loop wakes once, for the answer, instead of twice.
    ///
    /// The wake is skipped only when all of these hold, each read under the inbox lock, which the loop takes
    /// after it handled its last events and before it sleeps (so what the loop wrote then is seen here):
    /// - the descriptor is in the epoll set and still asks for readable edges — otherwise the loop has to
    ///   register it or ask again, and no edge comes until it does;
    /// - no edge was taken and left unused (`hasUnclaimedReadiness`): an answer already announced raises no
    ///   second edge;
    /// - the read's deadline is no earlier than the loop's own wake-up (`sleepsUntil`, at most
    ///   ``longestTimedSleep`` away while any deadline exists), so its timeout is armed in time.
    /// When the loop then wakes for the edge it first handles the event, finds no read parked and notes
    /// the readiness, then takes this read from the queue, which attempts at once and finds the answer.
    private func enqueue(awaitingEdge operation: AnyReactorOperation) {
        let mustWake = inbox.withLock { inbox in
            inbox.commands.append(.submit(operation))
            guard inbox.isSleeping else { return false }
            if let descriptor = operation.descriptor, descriptor.isRegisteredWithReactor,
                !descriptor.isReadInterestDropped, !descriptor.hasUnclaimedReadiness,
                operation.deadline >= inbox.sleepsUntil
            {
                queuedWithoutWake.add(1, ordering: .relaxed)
                return false
            }
            inbox.isSleeping = false
            return true
        }
        if mustWake {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
        }
    }

    /// The loop itself: runs forever on the reactor thread.
    private func run() {
        let capacity: Int32 = 512
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        var batch: [Command] = []
        batch.reserveCapacity(64)
        // Batches handled since the last look at epoll: bounded, so a steady stream of commands cannot
        // starve descriptors that became ready.
        var batchesSincePoll = 0
        while true {
            // With the queue empty the loop sleeps, until `wakeBy` at the latest: the earliest deadline, but no
            // further than `longestTimedSleep` while there is one (see `enqueue(awaitingEdge:)`). Published
            // with `isSleeping`, under the lock submitters take.
            var now: UInt64 = 0
            var wakeBy = Deadline.never
            inbox.withLock { inbox in
                swap(&batch, &inbox.commands)
                if batch.isEmpty {
                    if let earliest = loop.earliestDeadline() {
                        now = Deadline.nowNanoseconds()
                        wakeBy = min(earliest, Deadline(uptimeNanoseconds: now + Self.longestTimedSleepNanoseconds))
                    }
                    inbox.isSleeping = true
                    inbox.sleepsUntil = wakeBy
                }
            }
            let hadCommands = !batch.isEmpty
            for command in batch {
                switch command {
                case .submit(let operation): loop.submit(operation)
                case .cancel(let operation): loop.cancel(operation)
                case .close(let descriptor, let cleanup, let done):
                    cleanup?()
                    loop.close(descriptor, failing: CancellationError())
                    done?.resume()
                case .job(let job):
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
            batch.removeAll(keepingCapacity: true)
            // After a batch, look at the queue again before epoll: when it is empty the next pass sleeps in
            // epoll_wait, which also reports what became ready meanwhile — one epoll_wait per wake-up instead
            // of a zero-timeout poll followed by the sleeping one.
            if hadCommands && batchesSincePoll < 16 {
                batchesSincePoll += 1
                continue
            }
            batchesSincePoll = 0
            let timeout = hadCommands ? 0 : wakeBy.millisecondsRemaining(now: now)  // -1 (no timeout) for never
            let count = epoll_wait(epollDescriptor, events, capacity, timeout)
            if !hadCommands { inbox.withLock { $0.isSleeping = false } }
            for index in 0..<Int(max(count, 0)) {
                let event = events[index]
                if event.data.fd == wakeDescriptor {
                    var value: UInt64 = 0
                    _ = read(wakeDescriptor, &value, MemoryLayout<UInt64>.size)
                } else {
                    loop.descriptorBecameReady(event.data.fd, events: event.events)
                }
            }
            loop.expireDeadlines()
        }
    }
}

/// The reactor thread as a task executor: a task that prefers it (`withTaskExecutorPreference`) runs its
/// non-isolated code on this thread, between rounds of `epoll_wait`, so a socket that becomes ready resumes
/// the task on the very thread that saw it — no wake-up of a cooperative-pool thread — and the task's own
/// socket calls are made here, parked without a second attempt (`performHere`). Jobs go through the same
/// queue as operations; the eventfd is written only when the loop sleeps.
extension Reactor: TaskExecutor {
    package func enqueue(_ job: consuming ExecutorJob) {
        enqueue(.job(UnownedJob(job)))
    }

    /// The reactor, when the current task prefers it; nil otherwise. For the unstructured task a feature
    /// starts on its caller's behalf (a download's run loop): `Task { }` does not inherit a preference, so
    /// `Task(executorPreference: Reactor.currentTaskPreference) { }` keeps a caller that runs on the
    /// reactor there — reader, writer and bookkeeping on one thread, only disk calls leaving it — and leaves
    /// every other caller's tasks on the cooperative pool.
    package static var currentTaskPreference: (any TaskExecutor)? {
        let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
        return preferred == shared.asUnownedTaskExecutor() ? shared : nil
    }
}
