// SOCKS5Tunnel: runs a SOCKS5 handshake on a socket connected to the proxy (transport layer).
//
// `SOCKS5Handshake` decides what to send and checks what comes back; this file performs its actions on a
// `TCPSocket`: it writes each message and reads exactly the bytes the machine asks for, so nothing of the
// destination's stream is read by the handshake. When it returns, the same socket is a tunnel to the
// destination, and the layer above speaks HTTP (or TLS, then HTTP) on it as if it had connected directly.
// It does not connect to the proxy or resolve names itself: the caller does both, so it can tell "cannot
// reach the proxy" from "cannot resolve the destination". It knows no HTTP.

/// Asks a SOCKS5 proxy, over an open connection to it, to connect to a destination.
///
/// ```swift
/// let socket = try await TCPSocket.connect(host: "127.0.0.1", port: 1080, deadline: deadline)
/// try await SOCKS5Tunnel.establish(
///     over: socket, destination: .name("example.test"), port: 443, credentials: nil, deadline: deadline)
/// // socket now carries the bytes of example.test:443
/// ```
package enum SOCKS5Tunnel {
    /// Runs the handshake; on any failure the socket is closed. Throws `TransportError.socksHandshakeFailed`,
    /// `socksAuthenticationFailed`, `socksConnectFailed`, the socket's `sendFailed`/`receiveFailed`,
    /// `timedOut` and `CancellationError`.
    package static func establish(
        over socket: TCPSocket, destination: SOCKS5Handshake.Destination, port: Int,
        credentials: (user: String, password: String)?, deadline: Deadline
    ) async throws {
        do {
            var handshake = try SOCKS5Handshake(destination: destination, port: port, credentials: credentials)
            var action = handshake.start()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(512)
            while true {
                let wanted: Int
                switch action {
                case .send(let bytes, let count):
                    try await socket.write(bytes, deadline: deadline)
                    wanted = count
                case .receive(let count):
                    wanted = count
                case .established:
                    return
                }
                buffer.removeAll(keepingCapacity: true)
                let count = try await socket.read(into: &buffer, maxBytes: wanted, deadline: deadline)
                action = try handshake.bytesReceived(buffer[..<count])
            }
        } catch {
            await socket.close()
            throw error
        }
    }

    /// The destination for a CONNECT: with `resolvesAtProxy` (`socks5h://`) the host name itself, for the
    /// proxy to resolve; otherwise (`socks5://`) an address resolved here. A literal address is sent as an
    /// address either way. Throws the resolver's `couldNotResolve`, `timedOut`, `CancellationError`.
    package static func destination(
        host: String, port: Int, resolvesAtProxy: Bool, deadline: Deadline
    ) async throws -> SOCKS5Handshake.Destination {
        if let literal = Resolver.literalAddress(host: host, port: port) { return literal.socksDestination }
        if resolvesAtProxy { return .name(host) }
        // curl's socks5:// takes the first address the resolver gives; so does this.
        let addresses = try await Resolver.resolve(host: host, port: port, deadline: deadline)
        return addresses[0].socksDestination
    }
}

extension SocketAddress {
    /// The address as a SOCKS5 CONNECT carries it (`ATYP` 1 or 4).
    fileprivate var socksDestination: SOCKS5Handshake.Destination {
        isIPv6 ? .ipv6(addressBytes) : .ipv4(addressBytes)
    }
}
