// Transport tests over plain TCP: round trips, connect and resolve failures, many concurrent connections
// on the one reactor, and deadlines that report their phase.

import Foundation
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

extension TransportTests {
    @Suite struct TCP {
        @Test("a plain round trip through the in-process echo server", .timeLimit(.scaledMinutes(1)))
        func roundTrip() async throws {
            let server = try EchoServer.start()
            let socket = try await TCPSocket.connect(
                host: "127.0.0.1", port: server.port, deadline: .after(.seconds(5).scaled))
            let message = patternBytes(300_000)  // larger than one socket buffer: partial writes happen
            async let sent: Void = socket.write(message, deadline: .after(.seconds(10).scaled))
            let echoed = try await socket.read(exactly: message.count)
            try await sent
            #expect(echoed == message)
            await socket.close()
            #expect(!socket.isOpen)
            await server.stop()
        }

        @Test(
            "end of stream reads as 0",
            .timeLimit(.scaledMinutes(1)))
        func endOfStream() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let socket = try await TCPSocket.connect(host: "localhost", port: listener.port, deadline: .never)
            let server = try await accepted
            try await server.write(Array("bye".utf8), deadline: .never)
            await server.close()
            let bytes = try await socket.read(exactly: 10)
            #expect(bytes == Array("bye".utf8))
            var buffer: [UInt8] = []
            #expect(try await socket.read(into: &buffer, maxBytes: 100, deadline: .never) == 0)
            await socket.close()
            await listener.close()
        }

        @Test(
            "a read after a write met the peer's reset reports the reset, not an end of stream",
            .timeLimit(.scaledMinutes(1)))
        func resetSeenByWriteFirst() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept(deadline: .after(.seconds(5).scaled))
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let server = try await accepted
            // The server closes with SO_LINGER 0: the kernel sends RST instead of FIN.
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(
                server.descriptor.rawValue, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            await server.close()
            try #require(await eventually { TCPSocket.wasReset(socket.descriptor.rawValue) }, "no RST arrived")
            // The write meets the reset first (ECONNRESET, or EPIPE once it was reported)...
            await #expect(throws: TransportError.self) {
                try await socket.write(Array("GET / HTTP/1.1\r\n\r\n".utf8), deadline: .never)
            }
            // ...and the read after it, which the kernel answers with 0, says so too.
            var buffer: [UInt8] = []
            await #expect(throws: TransportError.receiveFailed(errno: ECONNRESET)) {
                _ = try await socket.read(into: &buffer, maxBytes: 100, deadline: .never)
            }
            await socket.close()
            await listener.close()
        }

        @Test("IPv6 loopback: listen on ::1 and connect to the literal", .timeLimit(.scaledMinutes(1)))
        func ipv6Loopback() async throws {
            let server = try EchoServer.start(host: "::1")
            #expect(server.listener.localAddress.isIPv6)
            let socket = try await TCPSocket.connect(host: "::1", port: server.port, deadline: .never)
            #expect(socket.remoteAddress.description == "[::1]:\(server.port)")
            try await socket.write(Array("six".utf8), deadline: .never)
            #expect(try await socket.read(exactly: 3) == Array("six".utf8))
            await socket.close()
            await server.stop()
        }

        @Test("a closed port is couldNotConnect with the host, port and errno (exit 7)", .timeLimit(.scaledMinutes(1)))
        func closedPort() async throws {
            // A port bound by a socket that never listens, for the whole test: nothing can answer there.
            try await withClosedPort { port in
                let error = await #expect(throws: TransportError.self) {
                    _ = try await TCPSocket.connect(
                        host: "127.0.0.1", port: port, deadline: .after(.seconds(5).scaled))
                }
                #expect(error == .couldNotConnect(host: "127.0.0.1", port: port, errno: ECONNREFUSED))
                #expect(error.map { HTTPWireError($0, phase: .connect).exitCode } == 7)
                #expect(error?.description.contains("connection refused") == true)
            }
        }

        @Test("a name under .invalid is couldNotResolveHost (exit 6)", .timeLimit(.scaledMinutes(1)))
        func unresolvableName() async throws {
            let error = await #expect(throws: TransportError.self) {
                _ = try await TCPSocket.connect(
                    host: "no-such-host.invalid", port: 80, deadline: .after(.seconds(20).scaled))
            }
            #expect(error == .couldNotResolve(host: "no-such-host.invalid"))
            #expect(error.map { HTTPWireError($0, phase: .connect).exitCode } == 6)
        }

        @Test("literal addresses resolve without DNS", .timeLimit(.scaledMinutes(1)))
        func literals() async throws {
            let four = try await Resolver.resolve(host: "127.0.0.1", port: 8080, deadline: .never)
            #expect(four.map(\.description) == ["127.0.0.1:8080"])
            let six = try await Resolver.resolve(host: "::1", port: 443, deadline: .never)
            #expect(six.map(\.description) == ["[::1]:443"])
            #expect(Resolver.literalAddress(host: "localhost", port: 1) == nil)
        }

        @Test(
            "a read that outlives its deadline reports the phase and closes the socket", .timeLimit(.scaledMinutes(1)))
        func readDeadline() async throws {
            let listener = try Listener.bind()
            async let accepted = listener.accept()
            let socket = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .never)
            let silent = try await accepted
            let clock = ContinuousClock()
            let start = clock.now
            var buffer: [UInt8] = []
            let error = await #expect(throws: TransportError.self) {
                _ = try await socket.read(
                    into: &buffer, maxBytes: 10, deadline: .after(.milliseconds(200)))
            }
            #expect(error == .timedOut)
            #expect(clock.now - start >= .milliseconds(190))
            #expect(!socket.isOpen)
            await silent.close()
            await listener.close()
        }

        @Test(
            "1,000 concurrent loopback connections on one reactor keep the thread count small",
            .timeLimit(.scaledMinutes(1)))
        func thousandConnections() async throws {
            let server = try EchoServer.start()
            let threadsBefore = ProcessProbe.threadCount()
            let peakThreads = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<1000 {
                    group.addTask {
                        let socket = try await TCPSocket.connect(
                            host: "127.0.0.1", port: server.port, deadline: .after(.seconds(30).scaled)
                        )
                        let message = Array("connection \(index)".utf8)
                        try await socket.write(message, deadline: .after(.seconds(30).scaled))
                        let echoed = try await socket.read(exactly: message.count)
                        let threads = ProcessProbe.threadCount()
                        await socket.close()
                        #expect(echoed == message)
                        return threads
                    }
                }
                return try await group.reduce(0) { max($0, $1) }
            }
            await server.stop()
            // One reactor, two blocking workers and the cooperative pool: no thread per connection.
            #expect(peakThreads <= max(threadsBefore, 1) + 8, "threads before \(threadsBefore), peak \(peakThreads)")
            #expect(peakThreads < 40)
        }

        @Test("Happy Eyeballs: a hanging address does not hold up the next one for long", .timeLimit(.scaledMinutes(1)))
        func happyEyeballs() async throws {
            // A connect to a full listener hangs, like a broken address family: after the attempt delay
            // (250 ms, never less however loaded the machine) the next address gets its turn.
            let hole = try await BlackHole.open()
            let server = try EchoServer.start()
            let working = try #require(Resolver.literalAddress(host: "127.0.0.1", port: server.port))
            let clock = ContinuousClock()
            let start = clock.now
            let socket = try await HappyEyeballs.connect(
                to: [hole.address, working], host: "test", port: server.port,
                deadline: .after(.seconds(10).scaled))
            let elapsed = clock.now - start
            #expect(socket.remoteAddress.port == server.port)
            #expect(elapsed >= .milliseconds(240) && elapsed < .seconds(3).scaled, "took \(elapsed)")

            // A refused first address hands over at once, without the delay. The delay is made a minute long,
            // so "at once" is told from "after the delay" by a margin no load can close.
            try await withClosedPort { refusingPort in
                let refused = try #require(Resolver.literalAddress(host: "127.0.0.1", port: refusingPort))
                let quickStart = clock.now
                let second = try await HappyEyeballs.connect(
                    to: [refused, working], host: "test", port: server.port,
                    deadline: .after(.seconds(30).scaled), attemptDelay: .seconds(60).scaled)
                #expect(clock.now - quickStart < .seconds(10).scaled)
                await second.close()
            }
            await socket.close()
            await hole.close()
            await server.stop()
        }
    }
}
