// SOCKS5Handshake stepped event by event: the exact bytes of each message (RFC 1928, RFC 1929), the exact
// number of bytes asked for at each point (never past the handshake), every reply code and every malformed
// answer — without sockets.

import TestSupport
import Testing

@testable import HTTPWireTransport

@Suite(.timeLimit(.scaledMinutes(1))) struct SOCKS5HandshakeTests {
    /// Feeds `answer` in pieces of at most `pieceSize` bytes, never more than the machine asked for.
    private func feed(
        _ answer: [UInt8], to handshake: inout SOCKS5Handshake, asked: Int, pieceSize: Int = .max
    ) throws(TransportError) -> SOCKS5Handshake.Action {
        var wanted = asked
        var rest = answer[...]
        while true {
            let count = min(wanted, pieceSize, rest.count)
            let action = try handshake.bytesReceived(rest.prefix(count))
            rest = rest.dropFirst(count)
            guard case .receive(let more) = action else {
                #expect(rest.isEmpty, "bytes left after the answer was complete")
                return action
            }
            wanted = more
        }
    }

    @Test("without credentials: greeting offers no-auth, then CONNECT with the name (ATYP 3) and port")
    func noAuthenticationName() throws {
        var handshake = try SOCKS5Handshake(destination: .name("example.test"), port: 443, credentials: nil)
        #expect(handshake.start() == .send([5, 1, 0], thenReceive: 2))
        let connect = try handshake.bytesReceived([5, 0])
        #expect(connect == .send([5, 1, 0, 3, 12] + Array("example.test".utf8) + [0x01, 0xBB], thenReceive: 4))
        let reply: [UInt8] = [5, 0, 0, 1, 127, 0, 0, 1, 0x1F, 0x90]
        #expect(try feed(reply, to: &handshake, asked: 4) == .established)
    }

    @Test("IPv4 and IPv6 destinations go as ATYP 1 and 4 with their bytes in network order")
    func addressDestinations() throws {
        var v4 = try SOCKS5Handshake(destination: .ipv4([10, 1, 2, 3]), port: 80, credentials: nil)
        _ = v4.start()
        #expect(try v4.bytesReceived([5, 0]) == .send([5, 1, 0, 1, 10, 1, 2, 3, 0, 80], thenReceive: 4))
        let loopback6: [UInt8] = Array(repeating: 0, count: 15) + [1]
        var v6 = try SOCKS5Handshake(destination: .ipv6(loopback6), port: 8080, credentials: nil)
        _ = v6.start()
        #expect(try v6.bytesReceived([5, 0]) == .send([5, 1, 0, 4] + loopback6 + [0x1F, 0x90], thenReceive: 4))
    }

    @Test("with credentials: both methods offered, RFC 1929 sub-negotiation, then CONNECT")
    func userPassword() throws {
        var handshake = try SOCKS5Handshake(
            destination: .name("a.test"), port: 80, credentials: (user: "alice", password: "s3cret"))
        #expect(handshake.start() == .send([5, 2, 0, 2], thenReceive: 2))
        let authentication = try handshake.bytesReceived([5, 2])
        #expect(authentication == .send([1, 5] + Array("alice".utf8) + [6] + Array("s3cret".utf8), thenReceive: 2))
        guard case .send(let connect, 4) = try handshake.bytesReceived([1, 0]) else {
            Issue.record("no CONNECT after a successful authentication")
            return
        }
        #expect(connect.prefix(4) == [5, 1, 0, 3])
    }

    @Test("a proxy choosing no-auth although credentials were offered goes straight to CONNECT")
    func credentialsNotNeeded() throws {
        var handshake = try SOCKS5Handshake(destination: .name("a.test"), port: 80, credentials: ("u", "p"))
        _ = handshake.start()
        guard case .send(let bytes, 4) = try handshake.bytesReceived([5, 0]) else {
            Issue.record("expected the CONNECT")
            return
        }
        #expect(bytes.prefix(2) == [5, 1])
    }

    @Test(
        "the reply is read to its exact length for each address type, fed whole or byte by byte",
        arguments: [
            [5, 0, 0, 1, 1, 2, 3, 4, 0, 80],
            [5, 0, 0, 4] + Array(repeating: 0, count: 16) + [0, 80],
            [5, 0, 0, 3, 7] + Array("proxy.x".utf8) + [0, 80],
            [5, 0, 0, 3, 0, 0, 80],
        ] as [[UInt8]], [1, Int.max])
    func replyLengths(reply: [UInt8], pieceSize: Int) throws {
        var handshake = try SOCKS5Handshake(destination: .name("a.test"), port: 80, credentials: nil)
        _ = handshake.start()
        _ = try handshake.bytesReceived([5, 0])
        #expect(try feed(reply, to: &handshake, asked: 4, pieceSize: pieceSize) == .established)
    }

    @Test(
        "each failure reply code is socksConnectFailed with RFC 1928's meaning",
        arguments: [
            (1, "general socks server failure (reply 1)"), (2, "connection not allowed by ruleset (reply 2)"),
            (3, "network unreachable (reply 3)"), (4, "host unreachable (reply 4)"),
            (5, "connection refused (reply 5)"), (6, "ttl expired (reply 6)"),
            (7, "command not supported (reply 7)"), (8, "address type not supported (reply 8)"),
            (200, "unassigned reply code (reply 200)"),
        ] as [(UInt8, String)])
    func failureReplies(code: UInt8, text: String) throws {
        var handshake = try SOCKS5Handshake(destination: .name("a.test"), port: 80, credentials: nil)
        _ = handshake.start()
        _ = try handshake.bytesReceived([5, 0])
        #expect(throws: TransportError.socksConnectFailed(reply: code)) {
            _ = try feed([5, code, 0, 1, 0, 0, 0, 0, 0, 0], to: &handshake, asked: 4)
        }
        #expect(TransportError.socksConnectFailed(reply: code).description.hasSuffix(text))
    }

    @Test("no acceptable method (0xFF) and refused credentials are socksAuthenticationFailed")
    func authenticationFailures() throws {
        var anonymous = try SOCKS5Handshake(destination: .name("a.test"), port: 80, credentials: nil)
        _ = anonymous.start()
        #expect(
            throws: TransportError.socksAuthenticationFailed(
                "the proxy accepts none of the offered methods (no authentication)")
        ) { _ = try anonymous.bytesReceived([5, 0xFF]) }

        var needsPassword = try SOCKS5Handshake(destination: .name("a.test"), port: 80, credentials: nil)
        _ = needsPassword.start()
        #expect(
            throws: TransportError.socksAuthenticationFailed("the proxy requires a user name and password (none given)")
        ) { _ = try needsPassword.bytesReceived([5, 2]) }

        var refused = try SOCKS5Handshake(destination: .name("a.test"), port: 80, credentials: ("u", "wrong"))
        _ = refused.start()
        _ = try refused.bytesReceived([5, 2])
        #expect(
            throws: TransportError.socksAuthenticationFailed("the proxy refused the user name and password (status 1)")
        ) { _ = try refused.bytesReceived([1, 1]) }
    }

    @Test(
        "malformed answers are socksHandshakeFailed naming what was wrong",
        arguments: [
            ([4, 0], nil, "version 4, not 5"),
            ([5, 0x80], nil, "method 128, which was not offered"),
            ([5, 0], [4, 0, 0, 1], "version 4, not 5"),
            ([5, 0], [5, 0, 0, 9], "address type 9, not 1, 3 or 4"),
        ] as [([UInt8], [UInt8]?, String)])
    func malformed(methodAnswer: [UInt8], reply: [UInt8]?, text: String) throws {
        var handshake = try SOCKS5Handshake(destination: .name("a.test"), port: 80, credentials: nil)
        _ = handshake.start()
        do {
            _ = try handshake.bytesReceived(methodAnswer[...])
            if let reply { _ = try feed(reply, to: &handshake, asked: 4) }
            Issue.record("no error for \(methodAnswer) \(reply ?? [])")
        } catch {
            guard case .socksHandshakeFailed(let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.hasSuffix(text), "\(reason)")
        }
    }

    @Test("the proxy closing mid-answer fails the handshake")
    func closedEarly() throws {
        var handshake = try SOCKS5Handshake(destination: .name("a.test"), port: 80, credentials: nil)
        _ = handshake.start()
        _ = try handshake.bytesReceived([5, 0])
        #expect(try handshake.bytesReceived([5, 0]) == .receive(2))
        #expect(
            throws: TransportError.socksHandshakeFailed("the proxy closed the connection during the handshake")
        ) { _ = try handshake.bytesReceived([]) }
    }

    @Test("what SOCKS5 cannot carry is refused before a byte is sent")
    func limits() {
        let long = String(repeating: "a", count: 256)
        #expect(throws: TransportError.self) {
            _ = try SOCKS5Handshake(destination: .name(long), port: 80, credentials: nil)
        }
        #expect(throws: TransportError.self) {
            _ = try SOCKS5Handshake(destination: .name(""), port: 80, credentials: nil)
        }
        #expect(throws: TransportError.self) {
            _ = try SOCKS5Handshake(destination: .name("a"), port: 80, credentials: (user: "", password: "p"))
        }
        #expect(throws: TransportError.self) {
            _ = try SOCKS5Handshake(destination: .name("a"), port: 80, credentials: (user: "u", password: long))
        }
        #expect(throws: TransportError.self) {
            _ = try SOCKS5Handshake(destination: .ipv4([1, 2, 3]), port: 80, credentials: nil)
        }
    }
}
