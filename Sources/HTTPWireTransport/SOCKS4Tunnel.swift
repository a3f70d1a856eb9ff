// SOCKS4Tunnel: asks a SOCKS4 or SOCKS4a proxy, over an open connection to it, to connect to a destination
// (transport layer).
//
// SOCKS4 predates RFC 1928 and has no RFC of its own; its protocol is the NEC document "SOCKS: A protocol for
// TCP proxy across firewalls" (Ying-Da Lee), and SOCKS4a is its extension "SOCKS 4A: A Simple Extension to
// SOCKS 4 Protocol". The exchange is one message each way:
//   request  VN=4, CD=1 (CONNECT), DSTPORT (2 bytes), DSTIP (4 bytes), USERID, NUL
//            — SOCKS4a: DSTIP 0.0.0.x with x ≠ 0, then after USERID's NUL the host name and a NUL,
//              for the proxy to resolve
//   reply    VN=0, CD (90 granted; 91 rejected or failed; 92 and 93 identd failures), DSTPORT, DSTIP
// Only IPv4 destinations exist in SOCKS4 (no IPv6, no authentication but a user ID: curl sends the proxy
// user name there, and so does this). The reply is exactly 8 bytes, read exactly, so nothing of the
// destination's stream is taken by the handshake. A proxy is untrusted input: every byte of the reply is
// checked. It knows no HTTP, and does not resolve names or connect to the proxy itself.

/// The SOCKS4 and SOCKS4a client handshake.
///
/// ```swift
/// let socket = try await TCPSocket.connect(host: "127.0.0.1", port: 1080, deadline: deadline)
/// try await SOCKS4Tunnel.establish(
///     over: socket, destination: .name("example.test"), port: 443, userID: "", deadline: deadline)
/// // socket now carries the bytes of example.test:443
/// ```
package enum SOCKS4Tunnel {
    /// Where the proxy should connect.
    package enum Destination: Sendable, Hashable {
        /// An IPv4 address, 4 bytes in network order (SOCKS4).
        case ipv4([UInt8])
        /// A host name the proxy resolves (SOCKS4a).
        case name(String)
    }

    /// The reply's length: VN, CD, DSTPORT and DSTIP.
    package static let replyLength = 8

    /// The CONNECT request for `destination` and `port`, with `userID` (no NUL inside). Throws
    /// `socks4Failed` for what SOCKS4 cannot say: a NUL in the user ID or the name, an empty name,
    /// an address that is not 4 bytes, a port outside 1–65535.
    package static func request(destination: Destination, port: Int, userID: String) throws(TransportError) -> [UInt8] {
        guard (1...65_535).contains(port) else { throw .socks4Failed("port \(port) out of range") }
        guard !userID.utf8.contains(0) else { throw .socks4Failed("the user ID holds a NUL byte") }
        var bytes: [UInt8] = [4, 1, UInt8(port >> 8), UInt8(port & 0xFF)]
        switch destination {
        case .ipv4(let address):
            guard address.count == 4 else { throw .socks4Failed("an address must be IPv4") }
            bytes += address
            bytes += userID.utf8
            bytes.append(0)
        case .name(let host):
            guard !host.isEmpty, !host.utf8.contains(0) else {
                throw .socks4Failed("the host name is empty or holds a NUL byte")
            }
            // 0.0.0.1: "an invalid IP address", which tells a SOCKS4a proxy a name follows the user ID.
            bytes += [0, 0, 0, 1]
            bytes += userID.utf8
            bytes.append(0)
            bytes += host.utf8
            bytes.append(0)
        }
        return bytes
    }

    /// Checks the proxy's 8-byte reply (fewer: the proxy closed early). Returns when the proxy granted the
    /// connection (CD 90); throws `socks4Failed` for a reply that is not SOCKS4, or a refusal (with the CD
    /// value's meaning).
    package static func checkReply(_ reply: ArraySlice<UInt8>) throws(TransportError) {
        guard reply.count == replyLength else {
            throw .socks4Failed("the proxy closed the connection after \(reply.count) of 8 reply bytes")
        }
        let version = reply[reply.startIndex]
        let code = reply[reply.startIndex + 1]
        // VN is 0 in the protocol; some proxies echo 4, which clients accept.
        guard version == 0 || version == 4 else {
            throw .socks4Failed("reply version \(version), expected 0")
        }
        guard code == 90 else { throw .socks4Failed("refused the connection: \(describeReply(code))") }
    }

    /// The meaning of a SOCKS4 reply code (CD), with the code: `"request rejected or failed (reply 91)"`.
    package static func describeReply(_ code: UInt8) -> String {
        let meaning: String
        switch code {
        case 91: meaning = "request rejected or failed"
        case 92: meaning = "rejected: the proxy cannot reach the client's identd"
        case 93: meaning = "rejected: identd reports another user ID"
        default: meaning = "unknown reply code"
        }
        return "\(meaning) (reply \(code))"
    }

    /// Sends the request and reads exactly the reply; on any failure the socket is closed. Throws
    /// `TransportError.socks4Failed`, the socket's `sendFailed` and
    /// `receiveFailed`, `timedOut` and `CancellationError`.
    package static func establish(
        over socket: TCPSocket, destination: Destination, port: Int, userID: String, deadline: Deadline
    ) async throws {
        do {
            try await socket.write(
                try request(destination: destination, port: port, userID: userID), deadline: deadline)
            var reply: [UInt8] = []
            reply.reserveCapacity(replyLength)
            while reply.count < replyLength {
                var piece: [UInt8] = []
                let count = try await socket.read(into: &piece, maxBytes: replyLength - reply.count, deadline: deadline)
                if count == 0 { break }
                reply += piece[..<count]
            }
            try checkReply(reply[...])
        } catch {
            await socket.close()
            throw error
        }
    }

    /// The destination for a CONNECT: with `resolvesAtProxy` (`socks4a://`) the host name itself; otherwise
    /// (`socks4://`) an IPv4 address resolved here — the first one, as curl takes. A literal IPv4 address is
    /// sent as itself either way; an IPv6 one cannot be said in SOCKS4. Throws the resolver's
    /// `couldNotResolve` (also for a name with no IPv4 address), `timedOut`, `CancellationError`.
    package static func destination(
        host: String, port: Int, resolvesAtProxy: Bool, deadline: Deadline
    ) async throws -> Destination {
        if let literal = Resolver.literalAddress(host: host, port: port) {
            guard literal.isIPv4 else {
                throw TransportError.socks4Failed("\(host) is an IPv6 address, which SOCKS4 cannot name")
            }
            return .ipv4(literal.addressBytes)
        }
        if resolvesAtProxy { return .name(host) }
        let addresses = try await Resolver.resolve(host: host, port: port, deadline: deadline)
        guard let address = addresses.first(where: \.isIPv4) else { throw TransportError.couldNotResolve(host: host) }
        return .ipv4(address.addressBytes)
    }
}
