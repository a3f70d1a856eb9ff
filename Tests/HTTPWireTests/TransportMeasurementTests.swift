// Transport measurements, not correctness tests: run with HTTPWIRE_MEASURE=1 (release build advised):
//   HTTPWIRE_MEASURE=1 swift test -c release --filter TransportTests.Measurements
// They print loopback throughput for several read sizes, splice(2) throughput and the rate of small
// request/response round trips, so that the read size and the reactor's fast path rest on numbers.
// Both ends run on the one reactor, so every figure includes the in-process server's work too.

import FixtureServer
import Foundation
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

extension TransportTests {
    @Suite(.enabled(if: ProcessInfo.processInfo.environment["HTTPWIRE_MEASURE"] == "1"))
    struct Measurements {
        /// A server that sends `total` bytes on its first connection, then closes.
        private func startSender(total: Int, tls: TLSContext? = nil) throws -> (Listener, Task<Void, any Error>) {
            let listener = try Listener.bind()
            let task = Task(executorPreference: ServerExecutor.shared) {
                let socket = try await listener.accept()
                let connection: any ByteStream =
                    if let tls { try await TLSStream.accept(over: socket, context: tls, deadline: .never) } else {
                        socket
                    }
                let chunk = patternBytes(4 << 20)
                var sent = 0
                while sent < total {
                    let count = min(chunk.count, total - sent)
                    try await connection.write(chunk[..<count], deadline: .never)
                    sent += count
                }
                await connection.close()
            }
            return (listener, task)
        }

        private func megabytesPerSecond(_ bytes: Int, _ duration: Duration) -> Int {
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return Int(Double(bytes) / seconds / 1e6)
        }

        @Test(
            "plain download throughput by read size", .timeLimit(.scaledMinutes(5)),
            arguments: [64 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20])
        func plainThroughput(readSize: Int) async throws {
            let total = 1 << 30
            let (listener, sender) = try startSender(total: total)
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(readSize)
            var received = 0
            var reads = 0
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                while true {
                    buffer.removeAll(keepingCapacity: true)
                    let count = try await socket.read(into: &buffer, maxBytes: readSize, deadline: .never)
                    if count == 0 { break }
                    received += count
                    reads += 1
                }
            }
            try await sender.value
            await socket.close()
            await listener.close()
            #expect(received == total)
            print(
                "measure: plain 1 GiB, reads of \(readSize >> 10) KiB: \(megabytesPerSecond(total, elapsed)) MB/s, \(reads) reads"
            )
        }

        @Test("plain download into /dev/null with splice", .timeLimit(.scaledMinutes(5)))
        func spliceThroughput() async throws {
            let total = 1 << 30
            let (listener, sender) = try startSender(total: total)
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let sink = try DiskFile.open("/dev/null", for: .writing(creating: false))
            defer { sink.close() }
            var received: Int64 = 0
            var calls = 0
            let elapsed = try await ContinuousClock().measure {
                while true {
                    let moved = try await socket.spliceToFile(sink, offset: nil, maxBytes: 16 << 20, deadline: .never)
                    if moved == 0 { break }
                    received += moved
                    calls += 1
                }
            }
            try await sender.value
            await socket.close()
            await listener.close()
            #expect(received == Int64(total))
            print("measure: splice 1 GiB to /dev/null: \(megabytesPerSecond(total, elapsed)) MB/s, \(calls) calls")
        }

        @Test("TLS download throughput", .timeLimit(.scaledMinutes(5)))
        func tlsThroughput() async throws {
            let total = 512 << 20
            let (listener, sender) = try startSender(
                total: total, tls: try await TestCertificates.serverContext("leaf"))
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let stream = try await TLSStream.connect(
                over: socket, serverName: "localhost", context: try await TestCertificates.clientContext(),
                deadline: .never)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(256 << 10)
            var received = 0
            let elapsed = try await ContinuousClock().measure {
                while true {
                    buffer.removeAll(keepingCapacity: true)
                    let count = try await stream.read(into: &buffer, maxBytes: 256 << 10, deadline: .never)
                    if count == 0 { break }
                    received += count
                }
            }
            try await sender.value
            await stream.close()
            await listener.close()
            #expect(received == total)
            print("measure: tls 512 MiB (both ends in process): \(megabytesPerSecond(total, elapsed)) MB/s")
        }

        @Test("sequential small round trips", .timeLimit(.scaledMinutes(5)))
        func roundTrips() async throws {
            let server = try EchoServer.start()
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: .never)
            let request = Array(repeating: UInt8(ascii: "x"), count: 200)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(4096)
            let count = 5000
            let elapsed = try await ContinuousClock().measure {
                for _ in 0..<count {
                    try await socket.write(request, deadline: .after(.seconds(5).scaled))
                    buffer.removeAll(keepingCapacity: true)
                    while buffer.count < request.count {
                        _ = try await socket.read(
                            into: &buffer, maxBytes: 4096, deadline: .after(.seconds(5).scaled))
                    }
                }
            }
            await socket.close()
            await server.stop()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("measure: \(count) sequential 200-byte round trips: \(Int(Double(count) / seconds)) per second")
        }

        @Test("1,000 concurrent connections: time and threads", .timeLimit(.scaledMinutes(5)))
        func concurrentConnections() async throws {
            let server = try EchoServer.start()
            let threadsBefore = ProcessProbe.threadCount()
            let clock = ContinuousClock()
            var peak = 0
            let elapsed = try await clock.measure {
                peak = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<1000 {
                        group.addTask {
                            let socket = try await TCPSocket.connect(
                                host: "127.0.0.1", port: server.port, deadline: .never)
                            try await socket.write(Array("ping".utf8), deadline: .never)
                            _ = try await socket.read(exactly: 4)
                            let threads = ProcessProbe.threadCount()
                            await socket.close()
                            return threads
                        }
                    }
                    return try await group.reduce(0) { max($0, $1) }
                }
            }
            await server.stop()
            print(
                "measure: 1000 concurrent echo connections in \(elapsed); threads before \(threadsBefore), peak \(peak)"
            )
        }
    }
}
