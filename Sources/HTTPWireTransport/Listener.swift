// Listener: a listening TCP socket and its accept loop on the reactor (transport layer, server side).
//
// The fixture server of the tests and `wire serve` accept connections with the same reactor and the same
// `TCPSocket` type the client uses, so both sides of a loopback test exercise one transport. Binding to
// port 0 lets the kernel choose a free port, which `port` then reports; tests never guess port numbers.
// A Unix-domain listener (`bind(unixSocketPath:)`) serves the tests of `ClientConfiguration.unixSocketPath`;
// it removes its socket file when closed, as the kernel does not. Errors here are `SystemCallError`s: a
// server that cannot bind is a test or operator problem, not one of the client failures `TransportError`
// describes for a connection. This file knows no HTTP.

import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A socket listening for TCP connections.
///
/// ```swift
/// let listener = try Listener.bind(host: "127.0.0.1", port: 0)
/// let client = try await listener.accept(deadline: .never)   // a TCPSocket
/// print(listener.port)
/// ```
package final class Listener: Sendable, CustomStringConvertible {
    /// The listening descriptor.
    package let descriptor: FileDescriptor
    /// The bound address, with the port the kernel chose for port 0.
    package let localAddress: SocketAddress

    private init(descriptor: FileDescriptor, localAddress: SocketAddress) {
        self.descriptor = descriptor
        self.localAddress = localAddress
    }

    /// Listens on a new Unix-domain socket file at `path` (unix(7)); `close()` removes the file. Fails with
    /// EADDRINUSE when a file is already there (a stale socket is not removed for the caller: it might be
    /// another server's), and with `TransportError.couldNotResolve` for a path `sun_path` cannot hold.
    package static func bind(unixSocketPath path: String, backlog: Int32 = 1024) throws -> Listener {
        guard let address = SocketAddress(unixSocketPath: path) else {
            throw TransportError.couldNotResolve(host: path)
        }
        return try bind(address, backlog: backlog)
    }

    deinit {
        if descriptor.isOpen { Reactor.shared.closeEventually(descriptor) }
    }

    /// Listens on `host` (an IPv4 or IPv6 literal: "127.0.0.1", "::1") at `port` (0: any free port).
    /// `backlog` bounds connections the kernel completes before they are accepted.
    package static func bind(host: String = "127.0.0.1", port: Int = 0, backlog: Int32 = 1024) throws -> Listener {
        guard let address = Resolver.literalAddress(host: host, port: port) else {
            throw TransportError.couldNotResolve(host: host)
        }
        return try bind(address, backlog: backlog)
    }

    /// Binds a new socket of `address`'s family to it and listens.
    private static func bind(_ address: SocketAddress, backlog: Int32) throws -> Listener {
        let descriptor = try TCPSocket.openSocket(family: address.family)
        do {
            var on: Int32 = 1
            // A restarted server may bind at once although connections of its predecessor linger in TIME_WAIT.
            if !address.isUnixDomain {
                _ = setsockopt(
                    descriptor.rawValue, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            _ = try Syscall.runOnce("bind") { address.withSocketAddress { Glibc.bind(descriptor.rawValue, $0, $1) } }
            _ = try Syscall.runOnce("listen") { listen(descriptor.rawValue, backlog) }
            let bound = SocketAddress.filled { getsockname(descriptor.rawValue, $0, $1) }.address
            return Listener(descriptor: descriptor, localAddress: bound)
        } catch {
            descriptor.close()  // never registered with the reactor yet
            throw error
        }
    }

    /// The port the listener is bound to.
    package var port: Int { localAddress.port }

    /// Waits for the next connection and returns it as a non-blocking socket with TCP_NODELAY.
    /// Throws `SystemCallError`, `TransportError.timedOut` and `CancellationError` (which closes the
    /// listener, like any cancelled wait).
    package func accept(deadline: Deadline = .never) async throws -> TCPSocket {
        let descriptor = self.descriptor
        return try await Reactor.shared.perform(on: descriptor, deadline: deadline) {
            let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let (peer, result) = try SocketAddress.filled { address, length in
                try Syscall.run("accept4") { accept4(descriptor.rawValue, address, length, flags) }
            }
            switch result {
            case .wouldBlock:
                return .wait(.readable)
            case .done(let number):
                if !peer.isUnixDomain { TCPSocket.setNoDelay(number) }
                return .finished(TCPSocket(adopting: FileDescriptor(adopting: number), remoteAddress: peer))
            }
        }
    }

    /// Stops listening; a pending `accept` fails with `CancellationError`. A Unix-domain listener's socket
    /// file is removed.
    package func close() async {
        await Reactor.shared.close(descriptor)
        if localAddress.isUnixDomain { try? FileSystem.remove(localAddress.host) }
    }

    /// `"listener 127.0.0.1:41234 (fd 5)"`.
    package var description: String { "listener \(localAddress) (\(descriptor))" }
}
