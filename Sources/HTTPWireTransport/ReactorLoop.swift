// ReactorLoop: the reactor thread's tables — operations parked per descriptor, the epoll registrations
// and the deadline heap (transport layer).
//
// Split from Reactor.swift along the seam between the two sides of the loop: `Reactor` is what other
// threads and tasks call (the inbox, submitting, the TaskExecutor), this is what only the reactor thread
// touches, between two `epoll_wait`s, so it needs no lock. A parked operation is attempted again when its
// descriptor's edge arrives or a deadline passes. This file must not know about TLS, HTTP or addresses.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The reactor thread's own state: who waits on which descriptor, and the deadlines.
final class ReactorLoop {
    let epollDescriptor: Int32
    let wakeDescriptor: Int32
    /// What the loop knows of one descriptor number.
    private struct Slot {
        /// The descriptor in the epoll set under this number: an edge reported while nothing waits is
        /// noted on it (`hasUnclaimedReadiness`).
        var registered: FileDescriptor?
        /// Operations parked until the descriptor is ready. Emptied in place, so its storage is reused by
        /// the next wait on this number instead of allocated per wait.
        var waiting: [AnyReactorOperation] = []
        /// Edges reported readable in a row with no read waiting for them (reset when a read parks).
        var unclaimedEdges = 0
    }

    /// Unclaimed readable edges in a row after which the loop stops asking epoll for them (see
    /// `quietUnreadSocket`). One or two happen when an answer lands before its read parks; a run of them
    /// means a reader that keeps up with nothing, such as a download waiting for its disk writer.
    static let edgesBeforeQuieting = 4

    /// The registration's events: readable (and the peer's half-close) unless `readable` is false, always
    /// writable, edge-triggered. Errors and hang-ups are reported whatever the mask.
    private static func interest(readable: Bool) -> UInt32 {
        let write = EPOLLOUT.rawValue | EPOLLET.rawValue
        return readable ? write | EPOLLIN.rawValue | EPOLLRDHUP.rawValue : write
    }

    /// Indexed by descriptor number, the way epoll reports readiness. The kernel hands out the lowest free
    /// number, so the table is as long as the most descriptors open at once: an index, not a hash lookup,
    /// per event and per wait (at 10,000 connections, 160 KB).
    private var slots: [Slot] = []
    /// Storage lent to `descriptorBecameReady` while it runs a descriptor's operations, kept for the next.
    private var spareOperations: [AnyReactorOperation] = []
    private var deadlines = DeadlineHeap()

    init(epollDescriptor: Int32, wakeDescriptor: Int32) {
        self.epollDescriptor = epollDescriptor
        self.wakeDescriptor = wakeDescriptor
    }

    func submit(_ operation: AnyReactorOperation) {
        guard admit(operation) else { return }
        if operation.startsAwaitingReadable, let descriptor = operation.descriptor,
            !descriptor.isRegisteredWithReactor || !descriptor.hasUnclaimedReadiness
        {
            // See `Reactor.performAwaitingReadable`: no edge has been taken and left unused, so the next
            // one (or the registration's report of the present state) says when there is something to read.
            park(operation, until: .readable)
            return
        }
        guard let interest = operation.attempt() else {
            if operation.emptiedSocket, let descriptor = operation.descriptor, descriptor.isRegisteredWithReactor,
                case let number = descriptor.rawValue, number >= 0
            {
                // A read that got less than it asked for left the socket's queue empty: what arrives from
                // now on raises a new edge, so the edges taken before it were all claimed — by this read,
                // which came after them (an answer that landed before its read was parked).
                descriptor.hasUnclaimedReadiness = false
                slots[slotIndex(number)].unclaimedEdges = 0
            }
            return
        }
        park(operation, until: interest)
    }

    /// Parks an operation whose first attempt the caller made on this thread and which would block.
    func park(attempted operation: AnyReactorOperation, until interest: Interest) {
        guard admit(operation) else { return }
        park(operation, until: interest)
    }

    /// Whether a newly submitted operation may run; false after failing it when cancellation overtook it
    /// (its descriptor closes, as for any cancel) or its descriptor is already closed.
    private func admit(_ operation: AnyReactorOperation) -> Bool {
        if operation.isCancelRequested {
            fail(operation, with: CancellationError())
            return false
        }
        if let descriptor = operation.descriptor, !descriptor.isOpen {
            operation.fail(CancellationError())
            return false
        }
        return true
    }

    func cancel(_ operation: AnyReactorOperation) {
        switch operation.state {
        case .created: operation.isCancelRequested = true
        case .waiting: fail(operation, with: CancellationError())
        case .finished: break
        }
    }

    /// Ends a waiting operation: closes its descriptor (failing every operation on it) and resumes it.
    private func fail(_ operation: AnyReactorOperation, with error: any Error) {
        if let descriptor = operation.descriptor { close(descriptor, failing: error) }
        operation.fail(error)
    }

    private func park(_ operation: AnyReactorOperation, until interest: Interest) {
        operation.state = .waiting(interest)
        // Parked for input after an attempt met EAGAIN (or, awaiting readable, with no edge left unused):
        // whatever arrives from now on raises a new edge.
        if interest == .readable { operation.descriptor?.hasUnclaimedReadiness = false }
        if operation.deadline.hasPassed {
            expire(operation)
            return
        }
        if let descriptor = operation.descriptor {
            let index = slotIndex(descriptor.rawValue)
            do {
                if interest != .deadlineOnly && !descriptor.isRegisteredWithReactor {
                    try register(descriptor, operation: EPOLL_CTL_ADD, readable: true)
                    descriptor.isRegisteredWithReactor = true
                    slots[index].registered = descriptor
                    slots[index].unclaimedEdges = 0
                } else if interest == .readable {
                    try askForReadable(descriptor, at: index)
                }
            } catch {
                operation.fail(error)
                return
            }
            slots[index].waiting.append(operation)
        }
        if !operation.deadline.isNever { deadlines.push(operation) }
    }

    /// Adds `descriptor` to the epoll set, or changes what it is registered for.
    private func register(_ descriptor: FileDescriptor, operation: Int32, readable: Bool) throws {
        var event = epoll_event()
        event.events = Self.interest(readable: readable)
        event.data.fd = descriptor.rawValue
        _ = try Syscall.runOnce("epoll_ctl") { epoll_ctl(epollDescriptor, operation, descriptor.rawValue, &event) }
    }

    /// A read waits on `descriptor` (at `index`): the registration must ask for readable edges. Asking
    /// again after `quietUnreadSocket` stopped reports input already there at once (the kernel checks the
    /// socket's state on `EPOLL_CTL_MOD`), so nothing that arrived while unasked is missed.
    private func askForReadable(_ descriptor: FileDescriptor, at index: Int) throws {
        slots[index].unclaimedEdges = 0
        guard descriptor.isReadInterestDropped else { return }
        try register(descriptor, operation: EPOLL_CTL_MOD, readable: true)
        descriptor.isReadInterestDropped = false
    }

    /// A readable edge came and nobody reads `index`'s descriptor. Noted on it (`hasUnclaimedReadiness`:
    /// the next read tries before it parks); after `edgesBeforeQuieting` in a row the registration stops
    /// asking for readability until a read parks again. Edge-triggered epoll reports every arrival of data,
    /// not only the first: a download whose reader waits for the disk writer while the server keeps sending
    /// woke this thread about four times per megabyte for nothing. Its reads find the data without an
    /// edge (each tries first), so nothing is lost by not asking; a read that finds the socket empty parks,
    /// and parking asks again.
    private func quietUnreadSocket(at index: Int) {
        guard let descriptor = slots[index].registered else { return }
        descriptor.hasUnclaimedReadiness = true
        slots[index].unclaimedEdges += 1
        guard slots[index].unclaimedEdges >= Self.edgesBeforeQuieting, !descriptor.isReadInterestDropped
        else { return }
        // A failure leaves the registration as it was: the loop keeps waking, as it did before.
        guard (try? register(descriptor, operation: EPOLL_CTL_MOD, readable: false)) != nil else { return }
        descriptor.isReadInterestDropped = true
    }

    /// The index of `number`'s slot, growing the table to reach it.
    private func slotIndex(_ number: Int32) -> Int {
        let index = Int(number)
        if index >= slots.count {
            slots.append(contentsOf: repeatElement(Slot(), count: index + 1 - slots.count))
        }
        return index
    }

    func descriptorBecameReady(_ number: Int32, events: UInt32) {
        let failed = events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        let readable = failed || events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0
        let writable = failed || events & EPOLLOUT.rawValue != 0
        let index = Int(number)
        guard index < slots.count else { return }
        guard !slots[index].waiting.isEmpty else {
            // Nobody reads now: the edge is spent, so remember that input (or the end) may be waiting.
            if readable { quietUnreadSocket(at: index) }
            return
        }
        // Take the list out while attempts run (an attempt's resume could park a new operation here).
        var operations: [AnyReactorOperation] = []
        swap(&operations, &spareOperations)  // moved, not copied: each storage keeps one owner
        swap(&operations, &slots[index].waiting)
        var isReadingClaimed = false
        var isReadAwaited = false  // an attempt that ran here now waits for input (a TLS write that must read)
        operations.removeAll { operation in
            guard case .waiting(let interest) = operation.state else { return true }
            let isReady: Bool
            switch interest {
            case .readable:
                isReady = readable
                isReadingClaimed = isReadingClaimed || readable
            case .writable: isReady = writable
            case .deadlineOnly: isReady = false
            }
            guard isReady else { return false }
            guard let next = operation.attempt() else { return true }
            operation.state = .waiting(next)
            if next == .readable {
                operation.descriptor?.hasUnclaimedReadiness = false
                isReadAwaited = true
            }
            return false
        }
        // Still waiting first, then any that arrived meanwhile; the emptied list is kept for next time.
        operations.append(contentsOf: slots[index].waiting)
        slots[index].waiting.removeAll(keepingCapacity: true)
        swap(&operations, &slots[index].waiting)
        spareOperations = operations
        if isReadAwaited, let descriptor = slots[index].registered {
            // As before: an edge no read took is remembered, so the next read tries before it parks.
            if readable && !isReadingClaimed { descriptor.hasUnclaimedReadiness = true }
            do {
                try askForReadable(descriptor, at: index)
            } catch {
                close(descriptor, failing: error)  // fails what is parked on it, rather than leave it asleep
            }
        } else if isReadingClaimed {
            slots[index].unclaimedEdges = 0
        } else if readable {
            quietUnreadSocket(at: index)
        }
    }

    /// Fails what waits on `descriptor` with `error`, removes it from epoll and closes it.
    func close(_ descriptor: FileDescriptor, failing error: any Error) {
        let number = descriptor.rawValue
        guard number >= 0 else { return }
        let index = Int(number)
        var operations: [AnyReactorOperation] = []
        if index < slots.count { swap(&operations, &slots[index].waiting) }
        if descriptor.isRegisteredWithReactor {
            _ = epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, number, nil)
            descriptor.isRegisteredWithReactor = false
            if index < slots.count, slots[index].registered === descriptor {
                slots[index].registered = nil
                slots[index].unclaimedEdges = 0
            }
        }
        descriptor.close()
        for operation in operations { operation.fail(error) }
    }

    /// The earliest deadline of a pending wait or timer, nil when there is none.
    func earliestDeadline() -> Deadline? {
        deadlines.earliest()
    }

    func expireDeadlines() {
        let now = Deadline.nowNanoseconds()
        while let operation = deadlines.popExpired(now: now) {
            expire(operation)
        }
    }

    /// The operation's deadline passed: a wait on a descriptor fails with `TransportError.timedOut` (the
    /// descriptor is closed, failing its other operations too); a timer or sleep gets its deadline event.
    private func expire(_ operation: AnyReactorOperation) {
        if let descriptor = operation.descriptor { close(descriptor, failing: TransportError.timedOut) }
        operation.deadlinePassed()
    }
}
