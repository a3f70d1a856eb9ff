// Transport tests for the reactor's table of parked operations, which is indexed by descriptor number
// (`ReactorLoop.slots`, grown on demand): a socket numbered far beyond any the reactor has seen grows the
// table, its read parks there and is woken, and the same connection under its low number is served too.

import Glibc
import TestSupport
import Testing

@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct DescriptorTable {
        @Test("a read parked on a descriptor numbered beyond the table's end wakes", .timeLimit(.scaledMinutes(1)))
        func highNumber() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let low = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let server = try await accepted
            // The same connection under a high number: the lowest free one from 900 up (under the usual soft
            // limit of 1,024 descriptors), far past what the other tests hold.
            let high = Glibc.fcntl(low.descriptor.rawValue, F_DUPFD_CLOEXEC, Int32(900))
            try #require(high >= 900)
            let socket = TCPSocket(adopting: FileDescriptor(adopting: high), remoteAddress: low.remoteAddress)
            async let answer = Self.read(socket)
            // Registered once the read has parked (the reactor registers a descriptor when something on it
            // first waits, and only its own thread takes edges, so none can slip in before the parking ends).
            try #require(await eventually { socket.descriptor.isRegisteredWithReactor })
            try await server.write(Array("woken".utf8), deadline: .never)
            #expect(try await answer == Array("woken".utf8))
            // The low number still works beside it (the same connection: the next bytes go to whichever reads).
            try await server.write(Array("again".utf8), deadline: .never)
            #expect(try await Self.read(low) == Array("again".utf8))
            await socket.close()
            await low.close()
            await server.close()
            await listener.close()
        }

        /// One read, bounded so that a lost wake-up fails the test instead of hanging it.
        static func read(_ socket: TCPSocket) async throws -> [UInt8] {
            var buffer: [UInt8] = []
            let count = try await socket.read(into: &buffer, maxBytes: 100, deadline: .after(.seconds(10).scaled))
            return Array(buffer.prefix(count))
        }
    }
}
