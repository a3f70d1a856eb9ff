// Transport tests for a socket nobody reads for a while: after `ReactorLoop.edgesBeforeQuieting` readable
// edges in a row with no read waiting, the reactor stops asking epoll for them (a download whose reader waits
// for its disk writer no longer wakes the loop for each arrival). Nothing may be lost by it: the bytes that
// came meanwhile are read without an edge, and a read that finds the socket empty parks, asks again, and is
// woken by the next bytes. A missed wake-up would hang a read to its deadline.

import TestSupport
import Testing

@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct QuietSocket {
        @Test("a socket nobody reads stops waking the reactor, and loses nothing", .timeLimit(.scaledMinutes(1)))
        func quietsAndWakesAgain() async throws {
            let (listener, socket, server) = try await Self.connectedPair()
            var sent = try await Self.sendUntilQuiet(from: server, to: socket)
            // More arrives while the reactor is not asking: no edge announces it, the read finds it anyway.
            try await server.write(Array("late".utf8)[...], deadline: .never)
            sent += Array("late".utf8)
            #expect(try await Self.read(socket, count: sent.count) == sent)
            // The socket is empty now: the next read parks, which asks for edges again, and is woken.
            async let after = Self.read(socket, count: 5)
            try #require(await eventually { !socket.descriptor.isReadInterestDropped })
            try await server.write(Array("after".utf8)[...], deadline: .never)
            #expect(try await after == Array("after".utf8))
            // And the end of the stream still reaches a parked read.
            async let end = Self.read(socket, count: 1)
            try #require(await eventually { AnyReactorOperation.parkedCount > 0 })
            await server.close()
            #expect(try await end == [])
            await socket.close()
            await listener.close()
        }

        @Test("a read that asks first on a quieted socket takes what is waiting", .timeLimit(.scaledMinutes(1)))
        func readAfterSendingOnQuietedSocket() async throws {
            let (listener, socket, server) = try await Self.connectedPair()
            let sent = try await Self.sendUntilQuiet(from: server, to: socket)
            // The read after a request parks without a first recv only when no edge went unclaimed; here
            // they did, so it tries first and gets the bytes at once instead of waiting for an edge.
            var buffer: [UInt8] = []
            var received = 0
            while received < sent.count {
                received += try await socket.readAfterSending(
                    into: &buffer, maxBytes: sent.count - received, deadline: .after(.seconds(10).scaled))
            }
            #expect(Array(buffer.prefix(received)) == sent)
            await server.close()
            await socket.close()
            await listener.close()
        }

        /// A client socket and the server's end of it, after one read on the client had to wait: the socket
        /// is in the reactor's epoll set, asking for readable edges.
        static func connectedPair() async throws -> (Listener, TCPSocket, TCPSocket) {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let server = try await accepted
            async let first = read(socket, count: 3)
            try #require(await eventually { socket.descriptor.isRegisteredWithReactor })
            try await server.write(Array("one".utf8)[...], deadline: .never)
            #expect(try await first == Array("one".utf8))
            #expect(!socket.descriptor.isReadInterestDropped)
            return (listener, socket, server)
        }

        /// Sends one byte at a time, spaced so the reactor sees each arrival apart, with nobody reading,
        /// until the reactor stops asking for edges; returns the bytes sent.
        static func sendUntilQuiet(from server: TCPSocket, to socket: TCPSocket) async throws -> [UInt8] {
            var sent: [UInt8] = []
            for index in 0..<2_000 where !socket.descriptor.isReadInterestDropped {
                let byte = UInt8(truncatingIfNeeded: index)
                try await server.write([byte][...], deadline: .never)
                sent.append(byte)
                try await Task.sleep(for: .milliseconds(2))
            }
            try #require(socket.descriptor.isReadInterestDropped, "the reactor kept asking for edges nobody took")
            return sent
        }

        /// Reads until `count` bytes came or the stream ended, bounded so that a missed wake-up fails the test.
        static func read(_ socket: TCPSocket, count: Int) async throws -> [UInt8] {
            var buffer: [UInt8] = []
            var received = 0
            while received < count {
                let got = try await socket.read(
                    into: &buffer, maxBytes: count - received, deadline: .after(.seconds(10).scaled))
                if got == 0 { break }
                received += got
            }
            return Array(buffer.prefix(received))
        }
    }
}
