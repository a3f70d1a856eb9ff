// ReactorOperation: one pending I/O operation and the continuation that awaits it (transport layer).
//
// An operation is a closure that makes one or more non-blocking system calls (`recv`, `SSL_read_ex`,
// `connect`...) and reports either a result or the readiness it needs before it can make progress. The
// reactor runs the closure on its own thread as soon as it receives the operation, and again each time the
// descriptor becomes ready, until it finishes. The continuation of the awaiting task lives inside the
// operation's state and is taken out exactly once, by `finish`, so it can be neither leaked nor resumed
// twice, whichever of completion, failure, cancellation or deadline comes first. Everything here is owned
// by the reactor thread once the operation is submitted; this file makes no system calls itself.

import Synchronization

/// The readiness an operation waits for before its next attempt.
package enum Interest: Sendable, Hashable {
    /// Data (or end of stream, or an incoming connection) can be read.
    case readable
    /// The send buffer has room (or a non-blocking connect finished).
    case writable
    /// Nothing on a descriptor: only the deadline (or cancellation) ends the wait.
    case deadlineOnly
}

/// What one attempt of an operation achieved.
package enum ReactorStep<Value: Sendable> {
    /// The operation is complete with this value.
    case finished(Value)
    /// No (further) progress is possible until the descriptor shows this readiness.
    case wait(Interest)
}

/// The type-erased part of an operation that the reactor's tables hold.
package class AnyReactorOperation: @unchecked Sendable {
    /// Where an operation is in its life. Owned by the reactor thread after submission.
    enum State {
        /// Built, not yet seen by the reactor. Next: waiting, finished (cancelled before submission).
        case created
        /// Attempted, now waiting for readiness. Next: waiting (spurious wake-up), finished.
        case waiting(Interest)
        /// Done; its continuation has been resumed. Final.
        case finished
    }

    /// The descriptor whose readiness the operation needs; nil for a pure timer.
    let descriptor: FileDescriptor?
    /// When the reactor gives up: it closes the descriptor and reports `TransportError.timedOut` (a timer
    /// runs its action instead).
    let deadline: Deadline
    /// Reactor thread only.
    var state: State = .created {
        didSet {
            switch (oldValue, state) {
            case (.waiting, .waiting), (.created, .created), (.finished, _), (.created, .finished): break
            case (.created, .waiting): Self.parked.add(1, ordering: .relaxed)
            case (.waiting, _): Self.parked.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Operations waiting for readiness or a deadline right now, process-wide.
    private static let parked = Atomic<Int>(0)

    /// How many operations are parked in the reactor: lets tests wait until a read or handshake is
    /// really waiting before they cancel it, instead of sleeping and hoping.
    package static var parkedCount: Int { parked.load(ordering: .relaxed) }
    /// Set when cancellation reached the reactor before the operation did. Reactor thread only.
    var isCancelRequested = false
    /// Set by the submitter before the reactor sees the operation: a read that is known to find nothing
    /// yet (the answer to a request just sent), which the reactor may park without a first attempt.
    var startsAwaitingReadable = false
    /// Set by an attempt that read fewer bytes than it asked for (`SocketRead`): the socket's receive queue
    /// was empty when it returned, so anything that arrives later raises a new edge.
    var emptiedSocket = false

    init(descriptor: FileDescriptor?, deadline: Deadline) {
        self.descriptor = descriptor
        self.deadline = deadline
    }

    /// Runs one attempt; returns the interest to wait for, or nil once the operation has finished.
    func attempt() -> Interest? {
        preconditionFailure("AnyReactorOperation.attempt must be overridden")
    }

    /// Finishes with an error (cancellation, deadline, closed connection); does nothing when finished.
    func fail(_ error: any Error) {
        preconditionFailure("AnyReactorOperation.fail must be overridden")
    }

    /// The deadline passed (after the reactor closed the descriptor, if any): a wait fails with
    /// `TransportError.timedOut`; a timer overrides this to run its action.
    func deadlinePassed() {
        fail(TransportError.timedOut)
    }

    /// Whether the operation has not finished yet.
    var isPending: Bool {
        if case .finished = state { return false }
        return true
    }
}

/// An operation producing `Value`, with the continuation of the task that awaits it. Subclasses say what
/// one attempt does (``step()``); this class resumes the task exactly once, whichever way the operation ends.
package class AwaitedReactorOperation<Value: Sendable>: AnyReactorOperation, @unchecked Sendable {
    /// Set by the submitting task before the reactor sees the operation; taken out by `finish`. Checked,
    /// although `finish` alone resumes it: an `UnsafeContinuation` would save one object per wait, but its
    /// resume is inlined into this module, where ThreadSanitizer sees its read of the task's frame and not
    /// the runtime's atomics that order it (`make sanitize` reported two races, tried 6 December).
    var continuation: CheckedContinuation<Value, any Error>?
    /// Stored (releasing) by `finish` on the reactor thread just before the resume, loaded (acquiring) by the
    /// awaiting task just after it: see ``synchronizeWithFinish()``.
    private let finished = Atomic<Bool>(false)

    /// One attempt: non-blocking calls only, on the reactor thread — or on the submitting task's thread
    /// before the operation is submitted (`Reactor.performAttemptingHere`).
    func step() throws -> ReactorStep<Value> {
        preconditionFailure("AwaitedReactorOperation.step must be overridden")
    }

    /// Called once the operation has finished, before the resume: drop what the attempts needed.
    func releaseResources() {}

    override func attempt() -> Interest? { attemptStep() }

    override func fail(_ error: any Error) {
        finish(.failure(error))
    }

    /// The body of ``attempt()``. Generic code asks the runtime for the metadata of `ReactorStep<Value>`,
    /// `Result<Value, any Error>` and the continuation on every call (~330 instructions each, four per
    /// read, by callgrind); a subclass with a concrete `Value` overrides `attempt()` and `fail(_:)` with a
    /// call to this and to ``finish(_:)``, which are inlined there and specialized (``SocketRead``).
    @inline(__always)
    final func attemptStep() -> Interest? {
        guard isPending else { return nil }
        do {
            switch try step() {
            case .finished(let value):
                finish(.success(value))
                return nil
            case .wait(let interest):
                return interest
            }
        } catch {
            finish(.failure(error))
            return nil
        }
    }

    /// Resumes the awaiting task exactly once.
    @inline(__always)
    final func finish(_ result: Result<Value, any Error>) {
        guard isPending else { return }
        state = .finished
        releaseResources()
        guard let continuation else {
            preconditionFailure("reactor operation finished without a continuation")
        }
        self.continuation = nil
        finished.store(true, ordering: .releasing)
        continuation.resume(with: result)
    }

    /// Called by the awaiting task once it has been resumed, before it reads anything the attempt wrote on
    /// the reactor thread (a receive buffer's bytes, a socket's state). The resume already orders those
    /// writes before the task's reads, but a continuation resumed before its task has suspended leaves no
    /// mark ThreadSanitizer can see, so it reported `ReceiveBuffer.takeBytes` as a race
    /// (docs/reliability.md, "Sanitizers"). This release/acquire pair makes the order explicit, at the cost
    /// of one plain store and one plain load on x86-64 and arm64 — unlike the blocking worker's lock, nothing
    /// the hot path of every read and write would notice.
    final func synchronizeWithFinish() {
        _ = finished.load(ordering: .acquiring)
    }
}

/// An operation whose attempt is a closure: the general form (`Reactor.perform(on:deadline:_:)`).
package final class ReactorOperation<Value: Sendable>: AwaitedReactorOperation<Value>, @unchecked Sendable {
    /// One attempt: non-blocking calls only. Runs on the reactor thread. Dropped when the operation finishes:
    /// the deadline heap keeps finished operations until it sweeps them (up to ~1,000 while one long wait,
    /// such as a response head during an upload, sits at its top), and a write's closure holds the bytes
    /// it wrote, so keeping the closure would keep every block of a TLS upload alive.
    private var body: (() throws -> ReactorStep<Value>)?

    init(descriptor: FileDescriptor?, deadline: Deadline, body: @escaping () throws -> ReactorStep<Value>) {
        self.body = body
        super.init(descriptor: descriptor, deadline: deadline)
    }

    override func step() throws -> ReactorStep<Value> {
        guard let body else { preconditionFailure("a finished reactor operation attempted again") }
        return try body()
    }

    override func releaseResources() {
        body = nil
    }
}

/// A callback on the reactor's clock: it runs once, on the reactor thread, when its deadline passes —
/// unless ``cancel()`` came first. Made by ``Reactor/schedule(at:_:)``.
///
/// Every timer of the library is one of these (the pool's idle reaper, the wait for a lease, the
/// `100 Continue` wait, the wait for a response head after an upload, a download's held-back progress
/// at the end of an interval and its check for a stall to report, the same check for an upload's body, a
/// download's commit after a quiet spell), so they all share the reactor's one deadline heap and its one `epoll_wait` timeout, and a test
/// can count what is still scheduled (`AnyReactorOperation.parkedCount`).
package final class ReactorTimer: AnyReactorOperation, @unchecked Sendable {
    /// What to run; dropped once the timer fired or was cancelled. Reactor thread only after submission.
    private var action: (@Sendable () -> Void)?
    /// The reactor the timer was scheduled on (set before submission, then only read).
    var reactor: Reactor?
    /// True from scheduling until the timer fired or the reactor processed its cancellation; readable
    /// from any thread (tests check that nothing is left scheduled).
    private let scheduled = Atomic<Bool>(true)

    /// Whether the reactor still holds this timer: it has neither fired nor been cancelled yet.
    package var isScheduled: Bool { scheduled.load(ordering: .acquiring) }

    init(deadline: Deadline, action: @escaping @Sendable () -> Void) {
        self.action = action
        super.init(descriptor: nil, deadline: deadline)
    }

    /// Makes sure the action does not run (if it has not run yet). Callable from any thread; the reactor
    /// forgets the timer at once, so a cancelled timer holds no memory until its deadline.
    package func cancel() {
        reactor?.cancel(self)
    }

    override func attempt() -> Interest? {
        action == nil ? nil : .deadlineOnly
    }

    override func fail(_ error: any Error) {
        guard isPending else { return }
        state = .finished
        action = nil
        scheduled.store(false, ordering: .releasing)
    }

    override func deadlinePassed() {
        guard isPending, let action else { return }
        state = .finished
        self.action = nil
        scheduled.store(false, ordering: .releasing)
        action()
    }
}
