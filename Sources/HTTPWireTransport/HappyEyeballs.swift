// HappyEyeballs: connecting to the first of several addresses that answers (transport layer).
//
// A host often has IPv6 and IPv4 addresses, and one of the two paths may be broken in a way that makes a
// connection attempt hang rather than fail. Trying the addresses strictly one after another would then
// cost a full connect timeout before the working family gets its turn. RFC 8305 §5 ("Happy Eyeballs v2")
// instead starts the next attempt when the previous one has neither succeeded nor failed after a short
// "Connection Attempt Delay" (250 ms recommended), keeps the earlier attempts running, and takes whichever
// connects first; a failed attempt starts the next one at once. The resolver already interleaved the
// families (RFC 8305 §4). This file only schedules attempts; `TCPSocket.connect(to:deadline:)` makes them.

#if canImport(Glibc)
    import Glibc
#endif

/// Races connection attempts to a host's addresses as RFC 8305 §5 describes.
package enum HappyEyeballs {
    /// RFC 8305 §5: "a simple implementation can have a fixed delay ... the recommended value is 250 ms".
    package static let connectionAttemptDelay: Duration = .milliseconds(250)

    /// What one child of the race reports.
    private enum Outcome: Sendable {
        case connected(TCPSocket)
        case failed(errno: Int32)
        /// The delay after attempt number `attempt` (counting from 1) passed.
        case delayElapsed(attempt: Int)
    }

    /// Connects to the first of `addresses` that accepts. Throws `couldNotConnect(host:port:errno:)` with
    /// the last failure when none does, `TransportError.timedOut`, `CancellationError`.
    package static func connect(
        to addresses: [SocketAddress], host: String, port: Int, deadline: Deadline,
        attemptDelay: Duration = connectionAttemptDelay
    ) async throws -> TCPSocket {
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            var started = 0
            var running = 0
            var lastErrno = ECONNREFUSED
            func startNextAttempt(_ group: inout ThrowingTaskGroup<Outcome, any Error>) {
                let address = addresses[started]
                started += 1
                running += 1
                group.addTask {
                    do {
                        return .connected(try await TCPSocket.connect(to: address, deadline: deadline))
                    } catch let error as SystemCallError {
                        return .failed(errno: error.errno)
                    }
                }
                guard started < addresses.count else { return }
                let attempt = started
                group.addTask {
                    try await Reactor.shared.sleep(until: .after(attemptDelay))
                    return .delayElapsed(attempt: attempt)
                }
            }

            startNextAttempt(&group)
            while let outcome = try await group.next() {
                switch outcome {
                case .connected(let socket):
                    group.cancelAll()
                    // Another attempt may have connected at the same moment: close the spare sockets.
                    while let other = try? await group.next() {
                        if case .connected(let spare) = other { await spare.close() }
                    }
                    return socket
                case .failed(let code):
                    lastErrno = code
                    running -= 1
                    if started < addresses.count {
                        startNextAttempt(&group)
                    } else if running == 0 {
                        group.cancelAll()
                        throw TransportError.couldNotConnect(host: host, port: port, errno: lastErrno)
                    }
                case .delayElapsed(let attempt):
                    // Only the newest attempt's timer counts; a failure may already have started the next one.
                    if attempt == started && started < addresses.count { startNextAttempt(&group) }
                }
            }
            throw TransportError.couldNotConnect(host: host, port: port, errno: lastErrno)
        }
    }
}
