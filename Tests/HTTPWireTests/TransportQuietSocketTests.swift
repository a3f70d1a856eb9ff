// Transport tests for a socket nobody reads for a while: after `ReactorLoop.edgesBeforeQuieting` readable
// edges in a row with no read waiting, the reactor stops asking epoll for them (a download whose reader waits
// for its disk writer no longer wakes the loop for each arrival). Nothing may be lost by it: the bytes that
// came meanwhile are read without an edge, and a read that finds the socket empty parks, asks again, and is
// woken by the next bytes — also when an operation woken writable goes on to wait for input (a TLS write
// that must read). A missed wake-up would hang a read to its deadline.

import Glibc
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

        @Test(
            "an operation woken writable that then waits for input asks for edges again",
            .timeLimit(.scaledMinutes(1)))
        func writableThenReadableOnQuietedSocket() async throws {
            // The shape of a TLS write during a renegotiation or key update: SSL_write wants the socket
            // writable, and once it is, wants to read. The reactor must ask for readable edges again at that
            // point (`isReadAwaited` in `descriptorBecameReady`), or the operation sleeps to its deadline.
            let (listener, socket, server) = try await Self.connectedPair()
            let sent = try await Self.sendUntilQuiet(from: server, to: socket)
            #expect(try await Self.read(socket, count: sent.count) == sent)  // tries first: stays quiet
            try #require(socket.descriptor.isReadInterestDropped)
            let progress = LockedState(WritableThenReadable())
            let number = socket.descriptor.rawValue
            async let answer: [UInt8] = Reactor.shared.perform(
                on: socket.descriptor, deadline: .after(.seconds(20).scaled)
            ) {
                try progress.withLock { state throws -> ReactorStep<[UInt8]> in try state.step(on: number) }
            }
            // The operation has filled the send buffer and waits for room; take everything it sent.
            try #require(await eventually { progress.withLock { $0.phase == .awaitingRoom } })
            let filled = progress.withLock { $0.sentBytes }
            var drained: [UInt8] = []
            var total = 0
            while total < filled {
                let got = try await server.read(
                    into: &drained, maxBytes: min(1 << 20, filled - total), deadline: .after(.seconds(10).scaled))
                try #require(got > 0)
                total += got
                drained.removeAll(keepingCapacity: true)
            }
            // Woken writable, it now waits for input: the registration must ask for readable edges again.
            try #require(await eventually { progress.withLock { $0.phase == .awaitingInput } })
            try #require(
                await eventually { !socket.descriptor.isReadInterestDropped },
                "the reactor did not ask for readable edges for an operation that went from writable to readable")
            try await server.write(Array("pong".utf8)[...], deadline: .never)
            #expect(try await answer == Array("pong".utf8))
            await server.close()
            await socket.close()
            await listener.close()
        }

        /// The attempts of `writableThenReadableOnQuietedSocket`'s operation: send until the buffer is full
        /// and wait writable; once woken, wait readable; once woken, read.
        struct WritableThenReadable {
            enum Phase { case filling, awaitingRoom, awaitingInput }
            var phase = Phase.filling
            var sentBytes = 0

            mutating func step(on number: Int32) throws -> ReactorStep<[UInt8]> {
                switch phase {
                case .filling:
                    let chunk = [UInt8](repeating: 0x2A, count: 65_536)
                    while true {
                        let count = chunk.withUnsafeBytes {
                            send(number, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                        }
                        guard count > 0 else { break }
                        sentBytes += count
                    }
                    phase = .awaitingRoom
                    return .wait(.writable)
                case .awaitingRoom:
                    phase = .awaitingInput
                    return .wait(.readable)
                case .awaitingInput:
                    var buffer = [UInt8](repeating: 0, count: 16)
                    let count = buffer.withUnsafeMutableBytes {
                        recv(number, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                    }
                    guard count > 0 else { return .wait(.readable) }
                    return .finished(Array(buffer.prefix(count)))
                }
            }
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
