// Transport tests of the read straight into caller memory (`ByteStream.read(into: ReadDestination)`), over
// plain TCP and TLS: the bytes arrive in order, a small destination takes several reads, and the end of the
// stream reads as 0 — the same results as the reads into a receive buffer.

import Foundation
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct DirectRead {
        /// Reads `count` bytes through 64 KiB direct reads (fewer at the end of the stream).
        private func readDirectly(_ stream: any ByteStream, count: Int) async throws -> [UInt8] {
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
            defer { scratch.deallocate() }
            var received: [UInt8] = []
            while received.count < count {
                let wanted = min(scratch.count, count - received.count)
                let got = try await stream.read(
                    into: ReadDestination(UnsafeMutableRawBufferPointer(rebasing: scratch[..<wanted])),
                    deadline: .after(.seconds(20).scaled))
                if got == 0 { break }
                received += UnsafeRawBufferPointer(rebasing: scratch[..<got])
            }
            return received
        }

        @Test("TCP: the echoed bytes arrive whole and in order in the caller's memory", .timeLimit(.scaledMinutes(1)))
        func plain() async throws {
            let server = try EchoServer.start()
            let socket = try await TCPSocket.connect(
                host: "127.0.0.1", port: server.port, deadline: .after(.seconds(5).scaled))
            let message = patternBytes(300_000)
            async let sent: Void = socket.write(message, deadline: .after(.seconds(10).scaled))
            let echoed = try await readDirectly(socket, count: message.count)
            try await sent
            #expect(echoed == message)
            await socket.close()
            await server.stop()
        }

        @Test("TLS: records are decrypted into the caller's memory, whole and in order", .timeLimit(.scaledMinutes(1)))
        func encrypted() async throws {
            let server = try EchoServer.start(tls: try await TestCertificates.serverContext("leaf"))
            let deadline = Deadline.after(.seconds(10).scaled)
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: deadline)
            let stream = try await TLSStream.connect(
                over: socket, serverName: "localhost", context: try await TestCertificates.clientContext(),
                deadline: deadline)
            let message = patternBytes(300_000)
            async let sent: Void = stream.write(message, deadline: deadline)
            let echoed = try await readDirectly(stream, count: message.count)
            try await sent
            #expect(echoed == message)
            await stream.close()
            await server.stop()
        }

        @Test("the end of the stream reads as 0", .timeLimit(.scaledMinutes(1)))
        func endOfStream() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let socket = try await TCPSocket.connect(host: "localhost", port: listener.port, deadline: .never)
            let server = try await accepted
            try await server.write(Array("bye".utf8), deadline: .never)
            await server.close()
            #expect(try await readDirectly(socket, count: 10) == Array("bye".utf8))
            #expect(try await readDirectly(socket, count: 10) == [])
            await socket.close()
            await listener.close()
        }
    }
}
