// PooledConnection: one open connection as the pool hands it out, with its receive buffer (pool layer).
// It pairs a transport stream with the buffer its reads fill, which is kept from exchange to exchange so a
// kept-alive connection does not allocate per response. Opening one follows the key's route: straight to
// the origin (by DNS, by addresses the configuration gives for the host, or through a Unix-domain socket
// file: `Dialing`), to an HTTP proxy (through a CONNECT tunnel for https, `ProxyTunnel`), or through SOCKS5
// (`SOCKS5Tunnel`). It does not parse responses, decide reuse or follow redirects — the exchange decodes
// (with a decoder of its own) and the pool's state machine decides.

import HTTPWireTransport

/// A connection to one origin, leased to one request at a time.
///
/// Ownership: the pool creates it; from a lease until the matching release, only the task holding the lease
/// touches `receiveBuffer` (hence `@unchecked Sendable`: the pool's lease discipline, not a lock, keeps that
/// field single-owner). The stream itself is thread-safe.
package final class PooledConnection: @unchecked Sendable, CustomStringConvertible {
    /// The pool's name for this connection.
    package let id: PoolStateMachine.ConnectionID
    /// Where it is connected.
    package let origin: OriginKey
    /// The byte stream: a `TCPSocket` for http, a `TLSStream` for https.
    package let stream: any ByteStream
    /// The TCP socket underneath (the stream itself for http), for liveness checks and, on plain HTTP,
    /// sendfile(2) and splice(2).
    package let socket: TCPSocket
    /// Bytes read from the stream; the exchange's decoder holds slices of it. Owned by the lease holder.
    package var receiveBuffer: [UInt8] = []
    /// When opening it reached DNS, TCP and TLS (the request metrics of the first request on it).
    package let timings: ConnectionTimings
    /// The peer's address as `RequestMetrics.remoteAddress` reports it — an IP address (the proxy's, through
    /// one) or a Unix-domain socket's path — formatted once per connection, not per request.
    package let remoteAddress: String
    /// The peer's port (`RequestMetrics.remotePort`); nil through a Unix-domain socket.
    package let remotePort: Int?
    /// This end's IP address and port (`RequestMetrics.localAddress`, `localPort`), read once per
    /// connection; nil through a Unix-domain socket, whose client end has no name.
    package let localAddress: String?
    package let localPort: Int?

    /// Wraps an established stream.
    package init(
        id: PoolStateMachine.ConnectionID, origin: OriginKey, stream: any ByteStream, socket: TCPSocket,
        timings: ConnectionTimings = ConnectionTimings()
    ) {
        self.id = id
        self.origin = origin
        self.stream = stream
        self.socket = socket
        self.timings = timings
        self.remoteAddress = socket.remoteAddress.host
        self.remotePort = socket.remoteAddress.isUnixDomain ? nil : socket.remoteAddress.port
        let local = socket.remoteAddress.isUnixDomain ? nil : socket.localAddress()
        self.localAddress = local?.host
        self.localPort = local?.port
    }

    /// True for a plain-HTTP connection, where file bodies can move with sendfile(2) and splice(2) (a SOCKS5
    /// tunnel or an HTTP proxy is plain TCP too).
    package var isPlainTCP: Bool { origin.scheme == .http }

    /// True when requests on this connection go to an HTTP proxy that forwards them: the request target is
    /// then the absolute URL (RFC 9112 §3.2.2), and `proxyAuthorization` goes with every request.
    package var sendsAbsoluteForm: Bool { origin.scheme == .http && origin.proxy?.kind == .http }

    /// The `Proxy-Authorization` value for requests an HTTP proxy forwards (nil for every other route: a
    /// tunnel's credentials went in its CONNECT, and the origin must never see them).
    package var proxyAuthorization: String? { sendsAbsoluteForm ? origin.proxy?.basicAuthorization : nil }

    /// How a direct connection reaches its origin when the configuration says otherwise than "the URL's
    /// host and port, by DNS". A proxied one always dials the proxy by its name: the overrides are for
    /// origins.
    package enum Dialing: Sendable, Equatable {
        /// TCP to `host:port` — the origin's own, or another (`ClientConfiguration.hostOverrides`) — at
        /// `literals` instead of DNS's answer when given (`ClientConfiguration.addressOverrides`).
        case network(host: String, port: Int, literals: [String]?)
        /// Through the Unix-domain socket file at `path` instead of the network
        /// (`ClientConfiguration.unixSocketPath`).
        case unixSocket(path: String)
    }

    /// Opens a connection to `origin`: resolve, connect (to the proxy, and through it, when the key names
    /// one) and, for https, the TLS handshake with the origin's name checked. Throws the transport's errors
    /// (`TransportError`; the pool translates them) and, for a proxy, `HTTPWireError`s already translated:
    /// `couldNotResolveProxy` (exit 5), `proxyAuthenticationRequired`, `proxyTunnelFailed`.
    package static func open(
        id: PoolStateMachine.ConnectionID, origin: OriginKey, tls: TLSContext?, dialing: Dialing? = nil,
        family: ClientConfiguration.AddressFamily = .any, deadline: Deadline
    ) async throws -> PooledConnection {
        var timings = ConnectionTimings(startNanoseconds: Deadline.nowNanoseconds())
        let socket = try await connectedSocket(
            to: origin, dialing: dialing, family: family, deadline: deadline, timings: &timings)
        switch origin.scheme {
        case .http:
            return PooledConnection(id: id, origin: origin, stream: socket, socket: socket, timings: timings)
        case .https:
            guard let tls else { preconditionFailure("an https origin without a TLS context (\(origin))") }
            // Through a tunnel too, TLS runs to the origin: its name for SNI and the certificate check.
            let stream = try await TLSStream.connect(
                over: socket, serverName: origin.host, context: tls, deadline: deadline)
            timings.tlsNanoseconds = Deadline.nowNanoseconds()
            return PooledConnection(id: id, origin: origin, stream: stream, socket: socket, timings: timings)
        }
    }

    /// A TCP socket that reaches `origin`: connected to it, or to the proxy (and through it, for a CONNECT
    /// tunnel or SOCKS5). Failing to reach the proxy itself is reported as such (curl's 5 and 7 name the
    /// proxy), failing to resolve the origin locally (`socks5://`) as the origin's.
    /// `timings` gets the instants the name was resolved and the socket connected (through a proxy: the
    /// proxy's name and the end of the tunnel's set-up).
    private static func connectedSocket(
        to origin: OriginKey, dialing: Dialing?, family: ClientConfiguration.AddressFamily, deadline: Deadline,
        timings: inout ConnectionTimings
    ) async throws -> TCPSocket {
        guard let proxy = origin.proxy else {
            let host: String
            let port: Int
            let literals: [String]?
            switch dialing ?? .network(host: origin.host, port: origin.port, literals: nil) {
            case .network(let targetHost, let targetPort, let given):
                (host, port, literals) = (targetHost, targetPort, given)
            case .unixSocket(let path):
                timings.resolvedNanoseconds = Deadline.nowNanoseconds()  // no name to look up
                let socket = try await TCPSocket.connect(unixSocketPath: path, deadline: deadline)
                timings.connectedNanoseconds = Deadline.nowNanoseconds()
                return socket
            }
            let found =
                if let literals {
                    try overriddenAddresses(literals, host: host, port: port)
                } else {
                    try await Resolver.resolve(host: host, port: port, deadline: deadline)
                }
            let addresses = try keeping(family, of: found, host: host)
            timings.resolvedNanoseconds = Deadline.nowNanoseconds()
            let socket = try await TCPSocket.connect(toAddresses: addresses, host: host, port: port, deadline: deadline)
            timings.connectedNanoseconds = Deadline.nowNanoseconds()
            return socket
        }
        let socket: TCPSocket
        do {
            let addresses = try keeping(
                family, of: await Resolver.resolve(host: proxy.host, port: proxy.port, deadline: deadline),
                host: proxy.host)
            timings.resolvedNanoseconds = Deadline.nowNanoseconds()
            socket = try await TCPSocket.connect(
                toAddresses: addresses, host: proxy.host, port: proxy.port, deadline: deadline)
        } catch let error as TransportError {
            throw HTTPWireError(reachingProxy: error)
        }
        do {
            switch proxy.kind {
            case .http:
                // http:// URLs are forwarded by the proxy itself, one absolute-form request at a time.
                if origin.scheme == .https {
                    try await ProxyTunnel.open(over: socket, to: origin, through: proxy, deadline: deadline)
                }
            case .socks5, .socks5h:
                let destination = try await SOCKS5Tunnel.destination(
                    host: origin.host, port: origin.port, resolvesAtProxy: proxy.kind == .socks5h, deadline: deadline)
                try await SOCKS5Tunnel.establish(
                    over: socket, destination: destination, port: origin.port,
                    credentials: proxy.credentials.map { ($0.user, $0.password) }, deadline: deadline)
            case .socks4, .socks4a:
                let destination = try await SOCKS4Tunnel.destination(
                    host: origin.host, port: origin.port, resolvesAtProxy: proxy.kind == .socks4a, deadline: deadline)
                // SOCKS4 has a user ID and no password: curl sends the proxy user name there, and so does this.
                try await SOCKS4Tunnel.establish(
                    over: socket, destination: destination, port: origin.port,
                    userID: proxy.credentials?.user ?? "", deadline: deadline)
            }
        } catch {
            // A tunnel that failed half-way is no connection to anyone (closing twice is harmless).
            await socket.close()
            throw error
        }
        timings.connectedNanoseconds = Deadline.nowNanoseconds()
        return socket
    }

    /// The addresses of `family` among `addresses` (all of them for `.any`); none is as if `host` had no
    /// address at all (curl's `-4` and `-6` fail the same way: exit 6).
    private static func keeping(
        _ family: ClientConfiguration.AddressFamily, of addresses: [SocketAddress], host: String
    ) throws(TransportError) -> [SocketAddress] {
        let kept: [SocketAddress]
        switch family {
        case .any: return addresses
        case .ipv4: kept = addresses.filter(\.isIPv4)
        case .ipv6: kept = addresses.filter(\.isIPv6)
        }
        guard !kept.isEmpty else { throw .couldNotResolve(host: host) }
        return kept
    }

    /// `ClientConfiguration.addressOverrides`' literals for `host:port` (brackets around IPv6 allowed, as in
    /// a URL), in the order given; a value that is not a literal fails as an unresolvable name would (curl's
    /// exit 6).
    private static func overriddenAddresses(_ literals: [String], host: String, port: Int) throws -> [SocketAddress] {
        var addresses: [SocketAddress] = []
        for literal in literals {
            let bare =
                literal.hasPrefix("[") && literal.hasSuffix("]") ? String(literal.dropFirst().dropLast()) : literal
            guard let address = Resolver.literalAddress(host: bare, port: port) else {
                throw TransportError.couldNotResolve(host: host)
            }
            addresses.append(address)
        }
        guard !addresses.isEmpty else { throw TransportError.couldNotResolve(host: host) }
        return addresses
    }

    /// Checks an idle connection before reuse: it must be open, with nothing received since the last
    /// response. A byte or an end of stream on an idle connection means the server closed it (or sent
    /// something that must never be read as the answer to the next request: response splitting), so it is
    /// not reused. (Bytes already read past the end of a response never reach the pool: the exchange that
    /// saw them released the connection to be closed.) The check is a non-blocking `recv(MSG_PEEK)` made by
    /// the caller, which holds the lease and so owns the socket exclusively (see
    /// `TCPSocket.hasNothingToReadNow`).
    ///
    /// The peek stays even when the reactor has seen nothing on the socket since the last response
    /// (`FileDescriptor.hasUnclaimedReadiness` false): a FIN that has reached the socket but not yet been
    /// collected by the reactor's `epoll_wait` is visible to the peek only, and a POST sent on that connection
    /// would fail instead of going to a new one (`ClientPoolTests`, "a kept-alive connection the server
    /// closed is not reused"). One `recv` per reused request buys that.
    package func isIdleAndOpen() -> Bool {
        stream.isOpen && socket.hasNothingToReadNow()
    }

    /// Closes the stream (TLS close_notify first); pending operations fail.
    package func close() async {
        await stream.close()
    }

    package var description: String { "\(id) to \(origin)" }
}
