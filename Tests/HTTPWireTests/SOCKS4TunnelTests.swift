// SOCKS4Tunnel's two messages without sockets: the exact request bytes for SOCKS4 (an IPv4 address) and
// SOCKS4a (a name after the user ID), what SOCKS4 cannot say, and every kind of reply a proxy may send.

import Testing

@testable import HTTPWireTransport

@Suite struct SOCKS4TunnelTests {
    @Test("SOCKS4: VN 4, CD 1, port and address in network order, the user ID and a NUL")
    func socks4Request() throws {
        let bytes = try SOCKS4Tunnel.request(destination: .ipv4([192, 0, 2, 7]), port: 8080, userID: "ada")
        #expect(bytes == [4, 1, 0x1F, 0x90, 192, 0, 2, 7, 0x61, 0x64, 0x61, 0])
        #expect(
            try SOCKS4Tunnel.request(destination: .ipv4([127, 0, 0, 1]), port: 1, userID: "") == [
                4, 1, 0, 1, 127, 0, 0, 1, 0,
            ])
    }

    @Test("SOCKS4a: the address 0.0.0.1, the user ID and its NUL, then the name and a NUL")
    func socks4aRequest() throws {
        let bytes = try SOCKS4Tunnel.request(destination: .name("a.test"), port: 443, userID: "")
        #expect(bytes == [4, 1, 0x01, 0xBB, 0, 0, 0, 1, 0] + Array("a.test".utf8) + [0])
    }

    @Test("what SOCKS4 cannot say is refused before anything is sent")
    func unsayable() {
        #expect(throws: TransportError.self) {
            try SOCKS4Tunnel.request(destination: .ipv4([1, 2, 3]), port: 80, userID: "")
        }
        #expect(throws: TransportError.self) {
            try SOCKS4Tunnel.request(destination: .ipv4([1, 2, 3, 4]), port: 0, userID: "")
        }
        #expect(throws: TransportError.self) {
            try SOCKS4Tunnel.request(destination: .ipv4([1, 2, 3, 4]), port: 65_536, userID: "")
        }
        #expect(throws: TransportError.self) {
            try SOCKS4Tunnel.request(destination: .name("a\u{0}b"), port: 80, userID: "")
        }
        #expect(throws: TransportError.self) { try SOCKS4Tunnel.request(destination: .name(""), port: 80, userID: "") }
        #expect(throws: TransportError.self) {
            try SOCKS4Tunnel.request(destination: .name("a"), port: 80, userID: "x\u{0}")
        }
    }

    @Test("replies: 90 grants (VN 0, or 4 as some proxies echo); 91–93 and others refuse; short or foreign fail")
    func replies() throws {
        try SOCKS4Tunnel.checkReply([0, 90, 0, 0, 0, 0, 0, 0][...])
        try SOCKS4Tunnel.checkReply([4, 90, 1, 2, 3, 4, 5, 6][...])
        #expect(throws: TransportError.socks4Failed("refused the connection: request rejected or failed (reply 91)")) {
            try SOCKS4Tunnel.checkReply([0, 91, 0, 0, 0, 0, 0, 0][...])
        }
        #expect(throws: TransportError.socks4Failed("refused the connection: unknown reply code (reply 0)")) {
            try SOCKS4Tunnel.checkReply([0, 0, 0, 0, 0, 0, 0, 0][...])
        }
        #expect(throws: TransportError.socks4Failed("reply version 5, expected 0")) {
            try SOCKS4Tunnel.checkReply([5, 0, 0, 0, 0, 0, 0, 0][...])
        }
        #expect(throws: TransportError.socks4Failed("the proxy closed the connection after 3 of 8 reply bytes")) {
            try SOCKS4Tunnel.checkReply([0, 90, 0][...])
        }
        #expect(SOCKS4Tunnel.describeReply(92).contains("identd"))
    }
}
