// ChaosRelayedConnection: one connection through the chaos relay — its two sockets, the bytes waiting in
// each direction, and the one fault of its plan (test support).
//
// One thread runs `run()` from the accept to the end; nothing else touches the value, so it needs no lock.
// Both sockets are non-blocking and one poll(2) waits for whatever can move next, so neither direction can
// hold the other up (a client uploading while the server already answers). Each direction reads at most
// 64 KiB from its source once everything before has gone out, and writes it in the plan's pieces with
// TCP_NODELAY, so a piece leaves as its own segment. The connection ends when the client's close is seen,
// when the relay resets the client, or when the relay stops.

#if canImport(Glibc)
    import Glibc
#endif

/// One relayed connection, owned by its thread.
struct ChaosRelayedConnection {
    /// POLLRDHUP (Linux 2.6.17): the peer closed its writing side. Glibc declares it only under _GNU_SOURCE.
    private static let readHangUp: Int16 = 0x2000

    /// One direction's bytes in flight.
    private struct Flow {
        let direction: ChaosDirection
        var pending: [UInt8] = []
        var sent = 0
        /// Bytes forwarded so far (the offsets of the plan's fault count these).
        var forwarded = 0
        /// The source closed or failed: nothing more will come.
        var isSourceEnded = false
        /// The receiver got its FIN already.
        var isFinished = false
        /// Bytes read from here on are dropped (after a half-close or truncation).
        var isDiscarding = false
        /// The plan stalled this direction: nothing is read or written any more.
        var isStalled = false
        /// When the stall began.
        var stalledAt = ContinuousClock.now
        /// No write before this instant (a pause between pieces).
        var resumeAt = ContinuousClock.now
        var pauses = 0

        var hasPending: Bool { sent < pending.count }
    }

    private let relay: ChaosRelay
    private let index: Int
    private var client: Int32
    private var server: Int32 = -1
    private var plan: ChaosConnectionPlan
    /// The two directions, indexed by ``up`` and ``down``.
    private var flows = [Flow(direction: .toServer), Flow(direction: .toClient)]
    private let up = 0
    private let down = 1
    private var isFaultTriggered = false
    private var isOver = false

    init(relay: ChaosRelay, index: Int, client: Int32, plan: ChaosConnectionPlan) {
        self.relay = relay
        self.index = index
        self.client = client
        self.plan = plan
    }

    /// Connects to the server and relays until the connection is over; closes both sockets.
    mutating func run() {
        defer {
            if client >= 0 { close(client) }
            if server >= 0 { close(server) }
            let (upBytes, downBytes, triggered) = (flows[up].forwarded, flows[down].forwarded, isFaultTriggered)
            relay.update(index) {
                $0.bytesToServer = upBytes
                $0.bytesToClient = downBytes
                $0.isFaultTriggered = triggered
            }
        }
        server = connectToServer(port: relay.upstreamPort)
        guard server >= 0 else { return }
        for descriptor in [client, server] {
            var one: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        while !isOver && !relay.isStopping {
            waitForEvents()
            for flow in [up, down] where !isOver { moveBytes(flow) }
        }
    }

    // MARK: Waiting

    /// Polls both sockets for what each direction can do next, at most 20 ms (the relay's stop flag and
    /// the pauses are checked between polls).
    private mutating func waitForEvents() {
        // A stall towards the server fills the client's window, and a client that gives up and closes then
        // cannot even send its FIN: the relay would never see the close. So 3 s into the stall (the stalled
        // client runs with a 1 s idle timeout) the relay starts reading the client again, dropping the bytes.
        if flows[up].isStalled && ContinuousClock.now - flows[up].stalledAt >= .seconds(3) {
            flows[up].isStalled = false
            discard(up)
        }
        var descriptors: [pollfd] = []
        // The client is always watched for its close, even when nothing is read from it (a stall).
        var clientEvents = Self.readHangUp
        if wantsRead(up) { clientEvents |= Int16(POLLIN) }
        if wantsWrite(down) { clientEvents |= Int16(POLLOUT) }
        descriptors.append(pollfd(fd: client, events: clientEvents, revents: 0))
        if server >= 0 {
            var serverEvents: Int16 = 0
            if wantsRead(down) { serverEvents |= Int16(POLLIN) }
            if wantsWrite(up) { serverEvents |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: server, events: serverEvents, revents: 0))
        }
        _ = poll(&descriptors, nfds_t(descriptors.count), 20)
        let hungUp = Self.readHangUp | Int16(POLLHUP) | Int16(POLLERR)
        // A client that closed while nothing is read from it is over: its bytes would go nowhere. (When it
        // is read, the read sees the EOF or the reset itself.)
        if descriptors[0].revents & hungUp != 0 && !wantsRead(up) {
            relay.update(index) { $0.isClosedByClient = true }
            isOver = true
        }
    }

    private func wantsRead(_ flow: Int) -> Bool {
        let state = flows[flow]
        return !state.isStalled && !state.isSourceEnded && !state.hasPending && (flow == up || server >= 0)
    }

    private func wantsWrite(_ flow: Int) -> Bool {
        let state = flows[flow]
        return !state.isStalled && state.hasPending && ContinuousClock.now >= state.resumeAt
            && (flow == down || server >= 0)
    }

    // MARK: Moving bytes

    /// Reads into the flow if it has room, then writes its next piece if it may.
    private mutating func moveBytes(_ flow: Int) {
        if wantsRead(flow) { read(flow) }
        if isOver { return }
        if wantsWrite(flow) { write(flow) }
        if isOver { return }
        // The source ended and everything read went out: pass the FIN on once.
        let state = flows[flow]
        if state.isSourceEnded && !state.hasPending && !state.isFinished && !state.isStalled {
            flows[flow].isFinished = true
            if flow == down {
                shutdown(client, Int32(SHUT_WR))
                closeServer()
                // Nothing the client sends can reach the server now. Read it and drop it: bytes left
                // unread fill the relay's receive window, and a client that closes with its own send
                // buffer still full cannot send its FIN through a zero window — the relay would never
                // see the close (seed 3717 of `make chaos`: a TLS upload the server rejected mid-body).
                discard(up)
            } else if server >= 0 {
                shutdown(server, Int32(SHUT_WR))
            }
        }
    }

    private mutating func read(_ flow: Int) {
        let source = flow == up ? client : server
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            if flows[flow].isDiscarding { return }
            flows[flow].pending = Array(buffer[..<count])
            flows[flow].sent = 0
            return
        }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        if count < 0 && errno == EBADF { return descriptorLost() }
        // EOF or a failure (ECONNRESET): the source is done.
        if flow == up {
            relay.update(index) { $0.isClosedByClient = true }
            isOver = true
        } else {
            flows[flow].isSourceEnded = true
        }
    }

    private mutating func write(_ flow: Int) {
        let destination = flow == up ? server : client
        let state = flows[flow]
        var size = min(plan.nextPieceSize(forwarded: state.forwarded), state.pending.count - state.sent)
        var fault: ChaosFault?
        if !isFaultTriggered, let trigger = plan.fault.trigger, trigger.direction == state.direction,
            state.forwarded + size >= trigger.offset
        {
            if case .corrupt = plan.fault {
                if state.forwarded + size > trigger.offset {
                    flows[flow].pending[state.sent + trigger.offset - state.forwarded] ^= 0x5A
                    isFaultTriggered = true
                }
            } else {
                size = trigger.offset - state.forwarded
                fault = plan.fault
            }
        }
        if size > 0 {
            let written = flows[flow].pending.withUnsafeBytes { bytes in
                send(destination, bytes.baseAddress! + state.sent, size, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                if errno == EBADF { return descriptorLost() }
                writeFailed(flow)
                return
            }
            flows[flow].sent += written
            flows[flow].forwarded += written
            if written < size { return }  // the rest goes with the next piece; the fault waits for it
            let pause = plan.nextPause(pausesTaken: state.pauses)
            if pause > 0 {
                flows[flow].pauses += 1
                flows[flow].resumeAt = ContinuousClock.now + .milliseconds(pause)
            }
        }
        if let fault { inject(fault, on: flow) }
    }

    /// EBADF on one of the relay's own sockets: something else in the process closed that number (a
    /// descriptor closed twice). The connection is over, and the report says so rather than blame the client.
    private mutating func descriptorLost() {
        relay.update(index) { $0.isDescriptorLost = true }
        client = -1
        server = -1
        isOver = true
    }

    /// A write failed (EPIPE, ECONNRESET): the receiver is gone.
    private mutating func writeFailed(_ flow: Int) {
        if flow == down {
            relay.update(index) { $0.isClosedByClient = true }
            isOver = true
        } else {
            // The server went away: what the client still sends is dropped, what the server sent is passed on.
            closeServer()
            flows[down].isSourceEnded = true
            discard(up)
        }
    }

    /// Drops what the flow holds and everything it reads from now on.
    private mutating func discard(_ flow: Int) {
        flows[flow].pending = []
        flows[flow].sent = 0
        flows[flow].isDiscarding = true
        flows[flow].isFinished = true
    }

    // MARK: Faults

    private mutating func inject(_ fault: ChaosFault, on flow: Int) {
        isFaultTriggered = true
        switch fault {
        case .none, .corrupt:
            return
        case .truncate:
            // The server is gone; the client gets a clean FIN and is read (and ignored) until it closes.
            closeServer()
            shutdown(client, Int32(SHUT_WR))
            discard(up)
            discard(down)
            flows[down].isSourceEnded = true
        case .reset:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(client)
            client = -1
            relay.update(index) { $0.isResetByRelay = true }
            isOver = true
        case .halfClose:
            shutdown(flow == up ? server : client, Int32(SHUT_WR))
            discard(flow)
        case .stall:
            flows[flow].isStalled = true
            flows[flow].stalledAt = ContinuousClock.now
        }
    }

    private mutating func closeServer() {
        if server >= 0 { close(server) }
        server = -1
    }

    /// Connects to 127.0.0.1:`port` without blocking: a loaded server can leave a SYN unanswered for
    /// seconds, and meanwhile the client may give up and close, which must still be seen (else its socket
    /// would look leaked). -1 when the connect fails, the client closes first or the relay stops.
    private mutating func connectToServer(port: Int) -> Int32 {
        let descriptor = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = ChaosRelay.loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected == 0 { return descriptor }
        guard errno == EINPROGRESS else {
            close(descriptor)
            return -1
        }
        while !relay.isStopping {
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: client, events: Self.readHangUp, revents: 0),
            ]
            _ = poll(&descriptors, 2, 20)
            if descriptors[1].revents & (Self.readHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                relay.update(index) { $0.isClosedByClient = true }
                break
            }
            guard descriptors[0].revents != 0 else { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure == 0 { return descriptor }
            break
        }
        close(descriptor)
        return -1
    }
}
