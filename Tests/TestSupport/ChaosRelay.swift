// ChaosRelay: a TCP relay between a client and a server that breaks the connection the way networks do —
// bytes cut into pieces of 1 byte to 64 KiB, pauses, a truncated stream, a reset, a half-close, a stall, a
// flipped byte — following a `ChaosPlan` (test support, used by the chaos suites of HTTPWireTests).
//
// The relay listens on 127.0.0.1 and connects each accepted connection to the server's port; it never looks
// at the bytes (TLS passes through opaquely, so the client's handshake is with the real server). It runs on
// threads of its own — one accepting, one per connection — with non-blocking sockets and poll(2), so it
// neither needs nor blocks Swift's cooperative pool, where the client and the fixture server run. Plain
// Glibc calls, not the library's transport: this is the test's fixture, not code under test.
//
// The relay is also the leak check of the client's sockets: it records, per connection, whether it saw the
// client close its end (EOF or a reset on the client's socket). After the client shuts down, every connection
// the relay did not reset itself must have been closed by the client; a descriptor the client forgot keeps
// its socket open and the relay sees no close.

import Foundation  // Thread: the relay's threads are its own, not the cooperative pool's
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the relay saw of one relayed connection.
public struct ChaosConnectionReport: Sendable, CustomStringConvertible {
    /// 0 for the exchange's first connection.
    public var index: Int
    /// Whether the plan's fault happened (a fault past the end of a message never does).
    public var isFaultTriggered = false
    /// Whether the client closed its end (EOF or reset seen on the client's socket).
    public var isClosedByClient = false
    /// Whether the relay reset the client's socket itself (the client's close cannot be seen then).
    public var isResetByRelay = false
    /// Whether one of the relay's sockets was closed by someone else (EBADF): a double close in the process.
    public var isDescriptorLost = false
    /// Whether the connection's thread has finished and closed both sockets.
    public var isFinished = false
    /// Bytes forwarded to the server and to the client.
    public var bytesToServer = 0
    public var bytesToClient = 0

    /// True once the connection is over and the client's socket is known to be closed.
    public var isClientSocketClosed: Bool { isFinished && (isClosedByClient || isResetByRelay) }

    public var description: String {
        "connection \(index): fault \(isFaultTriggered ? "triggered" : "not reached"), "
            + "\(bytesToServer) B up, \(bytesToClient) B down, "
            + (isDescriptorLost
                ? "a relay socket was closed by someone else (EBADF)"
                : isResetByRelay ? "reset by relay" : isClosedByClient ? "closed by client" : "client socket open")
            + (isFinished ? "" : ", running")
    }
}

/// A relay on 127.0.0.1 to `upstreamPort`, breaking connections as `plan` says.
///
/// ```swift
/// let relay = try ChaosRelay(upstreamPort: server.port, plan: ChaosPlan(seed: 7, allowsCorruption: false,
///                                                                        requestBytes: 100, responseBytes: 5000))
/// let response = try? await client.get("http://127.0.0.1:\(relay.port)/bytes/5000")
/// await client.shutdown()
/// #expect(await eventually { relay.connections.allSatisfy(\.isClientSocketClosed) })
/// await relay.stop()
/// ```
public final class ChaosRelay: Sendable {
    /// The port clients connect to.
    public let port: Int
    /// What the relay does.
    public let plan: ChaosPlan
    let upstreamPort: Int
    private struct State {
        var connections: [ChaosConnectionReport] = []
        var isStopping = false
        var liveThreads = 0
    }
    private let state = Mutex(State())

    /// Binds a listening socket on 127.0.0.1 (a port the kernel picks) and starts accepting.
    /// - Throws: ``ClosedPort/Failure`` naming the system call that failed.
    public init(upstreamPort: Int, plan: ChaosPlan) throws(ClosedPort.Failure) {
        self.upstreamPort = upstreamPort
        self.plan = plan
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw ClosedPort.Failure(call: "socket", errno: errno) }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && listen(listener, 64) == 0
                    ? getsockname(listener, generic, &length) : -1
            }
        }
        guard bound == 0 else {
            let failure = ClosedPort.Failure(call: "bind/listen", errno: errno)
            close(listener)
            throw failure
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        state.withLock { $0.liveThreads = 1 }
        Thread.detachNewThread { [self] in acceptLoop(listener) }
    }

    /// What the relay saw so far, one entry per accepted connection.
    public var connections: [ChaosConnectionReport] { state.withLock { $0.connections } }

    /// Whether the relay is stopping (the threads poll it).
    var isStopping: Bool { state.withLock { $0.isStopping } }

    /// Stops accepting, closes every connection and waits (off the pool's threads: the wait polls) until
    /// every thread of the relay has ended.
    public func stop() async {
        state.withLock { $0.isStopping = true }
        _ = await eventually(within: .seconds(10)) { self.state.withLock { $0.liveThreads == 0 } }
    }

    /// Updates connection `index`'s report.
    func update(_ index: Int, _ change: (inout ChaosConnectionReport) -> Void) {
        state.withLock { change(&$0.connections[index]) }
    }

    private func acceptLoop(_ listener: Int32) {
        defer {
            close(listener)
            state.withLock { $0.liveThreads -= 1 }
        }
        while !isStopping {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else { continue }
            let client = accept(listener, nil, nil)  // accept4 needs _GNU_SOURCE, which Glibc does not set
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let index = state.withLock { state in
                state.liveThreads += 1
                state.connections.append(ChaosConnectionReport(index: state.connections.count))
                return state.connections.count - 1
            }
            Thread.detachNewThread { [self] in
                var connection = ChaosRelayedConnection(
                    relay: self, index: index, client: client, plan: plan.connection(index))
                connection.run()
                update(index) { $0.isFinished = true }
                state.withLock { $0.liveThreads -= 1 }
            }
        }
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// Runs `body` with a relay to `upstreamPort` following `plan`, and stops the relay afterwards.
public func withChaosRelay<Result>(
    upstreamPort: Int, plan: ChaosPlan, isolation: isolated (any Actor)? = #isolation,
    _ body: (ChaosRelay) async throws -> Result
) async throws -> Result {
    let relay = try ChaosRelay(upstreamPort: upstreamPort, plan: plan)
    do {
        let result = try await body(relay)
        await relay.stop()
        return result
    } catch {
        await relay.stop()
        throw error
    }
}
