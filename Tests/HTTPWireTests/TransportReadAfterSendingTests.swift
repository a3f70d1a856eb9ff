// Transport tests for the first read after a request: `TCPSocket.readAfterSending` parks without a first
// `recv`, so it must still see bytes that arrived before it parked — on a socket the reactor has never
// watched (its registration reports the present state) and on one whose edge the reactor collected while no
// read waited (`FileDescriptor.hasUnclaimedReadiness`). A read that missed them would hang to its deadline.

import TestSupport
import Testing

@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct ReadAfterSending {
        @Test("an answer already waiting on a socket the reactor never watched is read", .timeLimit(.scaledMinutes(1)))
        func unregisteredSocket() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let server = try await accepted
            // An accepted socket has never waited for anything, so the reactor has never watched it.
            try await socket.write(Array("early".utf8), deadline: .never)
            // The bytes have crossed loopback (the peek sees them) before the read is made.
            try #require(await eventually { !server.hasNothingToReadNow() })
            #expect(!server.descriptor.isRegisteredWithReactor)
            #expect(try await Self.readOnce(server) == Array("early".utf8))
            await server.close()
            await socket.close()
            await listener.close()
        }

        @Test(
            "an answer whose edge the reactor took while nobody read is read, not waited for",
            .timeLimit(.scaledMinutes(1)))
        func unclaimedEdge() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let server = try await accepted
            // A first exchange whose read has to wait: the socket joins the epoll set, and its edge is claimed.
            async let first = Self.readOnce(socket)
            try #require(await eventually { socket.descriptor.isRegisteredWithReactor })
            try await server.write(Array("one".utf8), deadline: .never)
            #expect(try await first == Array("one".utf8))
            // Now bytes arrive while no read waits: the reactor collects the edge and notes it.
            try await server.write(Array("two".utf8), deadline: .never)
            try #require(await eventually { socket.descriptor.hasUnclaimedReadiness })
            #expect(try await Self.readOnce(socket) == Array("two".utf8))
            // And the next answer, after the reactor's note was used up, still wakes a parked read.
            async let third = Self.readOnce(socket)
            try #require(await eventually { AnyReactorOperation.parkedCount > 0 })
            try await server.write(Array("three".utf8), deadline: .never)
            #expect(try await third == Array("three".utf8))
            await server.close()
            await socket.close()
            await listener.close()
        }

        /// One `readAfterSending`, bounded so that a missed edge fails the test instead of hanging it.
        static func readOnce(_ socket: TCPSocket) async throws -> [UInt8] {
            var buffer: [UInt8] = []
            let count = try await socket.readAfterSending(
                into: &buffer, maxBytes: 100, deadline: .after(.seconds(10).scaled))
            return Array(buffer.prefix(count))
        }
    }
}
