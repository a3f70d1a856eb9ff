// Transport tests of the read straight into caller memory (`ByteStream.read(into: ReadDestination)`), over
// plain TCP and TLS: the bytes arrive in order and a small destination takes several reads, as with the reads
// into a receive buffer (the end of the stream is checked with TCP's, in TransportTCPTests).

import Foundation
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct DirectRead {
        /// Reads `count` bytes through 64 KiB direct reads (fewer at the end of the stream).
        static func readDirectly(_ stream: any ByteStream, count: Int) async throws -> [UInt8] {
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

        /// Sends 300,000 bytes through `stream` to the echo server and expects them back through direct reads.
        private func expectEchoed(through stream: any ByteStream) async throws {
            let message = patternBytes(300_000)  // larger than one socket buffer: partial writes happen
            async let sent: Void = stream.write(message, deadline: .after(.seconds(10).scaled))
            let echoed = try await Self.readDirectly(stream, count: message.count)
            try await sent
            #expect(echoed == message)
            await stream.close()
        }

        @Test("TCP: the echoed bytes arrive whole and in order in the caller's memory", .timeLimit(.scaledMinutes(1)))
        func plain() async throws {
            let server = try EchoServer.start()
            let socket = try await TCPSocket.connect(
                host: "127.0.0.1", port: server.port, deadline: .after(.seconds(5).scaled))
            try await expectEchoed(through: socket)
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
            try await expectEchoed(through: stream)
            await server.stop()
        }
    }
}
