// Transport tests of the zero-copy paths of plain TCP: sendfile(2) from a file to a socket and splice(2)
// from a socket into a file, each checked byte for byte, with their offsets and limits.

import Foundation
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct ZeroCopy {
        /// A temporary file path, removed by the caller.
        private func temporaryPath(_ name: String) -> String {
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "httpwire-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            ).path
        }

        /// A connected pair: (client side, server side).
        private func connectedPair() async throws -> (TCPSocket, TCPSocket, Listener) {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let client = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            return (client, try await accepted, listener)
        }

        @Test("sendFile moves the requested range of a file to the socket", .timeLimit(.scaledMinutes(1)))
        func sendFile() async throws {
            let content = patternBytes(3 << 20)
            let path = temporaryPath("sendfile")
            defer { unlink(path) }
            try Data(content).write(to: URL(fileURLWithPath: path))
            let file = try DiskFile.open(path, for: .reading)
            defer { file.close() }

            let (client, server, listener) = try await connectedPair()
            let offset = 12_345
            let count = 2 << 20
            async let received = server.read(exactly: count + 1)  // one more: must end at the right place
            let sent = try await client.sendFile(file, offset: Int64(offset), count: Int64(count), deadline: .never)
            await client.close()
            #expect(sent == Int64(count))
            #expect(try await received == Array(content[offset..<(offset + count)]))

            // Asking for more than the file holds sends what there is.
            let (second, secondServer, secondListener) = try await connectedPair()
            let tail = try await second.sendFile(
                file, offset: Int64(content.count - 100), count: 1_000, deadline: .never)
            #expect(tail == 100)
            await second.close()
            #expect(try await secondServer.read(exactly: 1_000) == Array(content.suffix(100)))
            for socket in [server, secondServer] { await socket.close() }
            for listener in [listener, secondListener] { await listener.close() }
        }

        @Test("spliceToFile moves received bytes into the file, within its limit", .timeLimit(.scaledMinutes(1)))
        func spliceToFile() async throws {
            let content = patternBytes(3 << 20 + 17)
            let path = temporaryPath("splice")
            defer { unlink(path) }
            let file = try DiskFile.open(path, for: .writing(creating: true))
            defer { file.close() }

            let (client, server, listener) = try await connectedPair()
            let writer = Task {
                try await server.write(content, deadline: .after(.seconds(20).scaled))
                await server.close()
            }
            // The first call is limited to 1,000 bytes, written at offset 0; the rest follows in 1 MiB steps.
            let first = try await client.spliceToFile(file, offset: 0, maxBytes: 1_000, deadline: .never)
            #expect(first > 0 && first <= 1_000)
            var total = first
            while true {
                let moved = try await client.spliceToFile(
                    file, offset: total, maxBytes: 1 << 20, deadline: .after(.seconds(20).scaled))
                #expect(moved <= 1 << 20)
                if moved == 0 { break }
                total += moved
            }
            try await writer.value
            #expect(total == Int64(content.count))
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written.count == content.count)
            #expect(Array(written) == content)
            await client.close()
            await listener.close()
        }
    }
}
