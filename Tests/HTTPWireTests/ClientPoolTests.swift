// The client's connection pool end to end: the per-origin limit under 200 concurrent requests, reuse only
// of clean connections (unsolicited bytes and stale connections are never reused), the one retry for
// idempotent requests, idle timeouts, cancellation and dropped responses releasing their connection, and
// shutdown.

import FixtureServer
import Glibc
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

@Suite struct ClientPoolTests {
    @Test("200 concurrent requests share at most 8 connections and all succeed", .timeLimit(.scaledMinutes(1)))
    func perOriginLimit() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let response = try await client.get("delay?ms=\(index % 3 == 0 ? 20 : 5)")
                        return response.status.rawValue
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 })
            #expect(server.acceptedConnections <= 8)
            #expect(client.connectionsOpened == server.acceptedConnections)
            #expect(server.requestsServed == 200)
            await client.shutdown()
        }
    }

    @Test("requests waiting for a connection are served first in, first out", .timeLimit(.scaledMinutes(1)))
    func fifo() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server) { $0.pool.maxConnectionsPerOrigin = 1 }
            let origin = OriginKey(scheme: .http, host: "127.0.0.1", port: server.port)
            // The one connection stays leased while this response's body is unread.
            let busy = try await client.stream(HTTPRequest(url: "bytes/1000"))
            var waiting: [Task<HTTPResponse, any Error>] = []
            for index in 1...5 {
                waiting.append(Task { try await client.get("echo?order=\(index)") })
                // The next one queues only once this one is waiting, so the queue order is known.
                try #require(await eventually { client.pool.snapshot(of: origin).waiting == index })
            }
            #expect(try await busy.collect(upTo: 1000).count == 1000)
            for task in waiting { _ = try await task.value }
            let order = server.requestLog.map(\.target).filter { $0.hasPrefix("/echo") }
            #expect(order == (1...5).map { "/echo?order=\($0)" })
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test("bytes after a response make the connection unusable, never the next response", .timeLimit(.scaledMinutes(1)))
    func extraBytes() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            #expect(try await client.get("extra-bytes").text == "ok")
            let next = try await client.get("json")
            #expect(next.status == .ok)
            #expect(client.connectionsOpened == 2)
            await client.shutdown()
        }
    }

    @Test(
        "bytes that arrive on an idle connection make it unusable (response splitting)", .timeLimit(.scaledMinutes(1)))
    func bytesWhileIdle() async throws {
        // A server that answers the first request, then, once the test says the connection is idle, sends a
        // second complete response nobody asked for; a later connection answers "fresh".
        let listener = try Listener.bind()
        let (idleNow, idleSignal) = AsyncStream<Void>.makeStream()
        let (sent, sentSignal) = AsyncStream<Void>.makeStream()
        let server = Task(executorPreference: ServerExecutor.shared) {
            guard let first = try? await listener.accept() else { return }
            var buffer: [UInt8] = []
            _ = try? await first.read(
                into: &buffer, maxBytes: 65536, deadline: .after(.seconds(10).scaled))
            try? await first.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst".utf8), deadline: .never)
            for await _ in idleNow { break }
            try? await first.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged".utf8), deadline: .never)
            sentSignal.yield()
            while let next = try? await listener.accept() {
                buffer.removeAll()
                _ = try? await next.read(
                    into: &buffer, maxBytes: 65536, deadline: .after(.seconds(10).scaled))
                try? await next.write(
                    Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfresh".utf8),
                    deadline: .never)
                await next.close()
            }
            await first.close()
        }
        let client = HTTPClient()
        let url = "http://127.0.0.1:\(listener.port)/"
        #expect(try await client.get(url).text == "first")
        // The response was read to its end: the connection is back in the pool, idle.
        let idle = try #require(client.pool.establishedConnections.first)
        idleSignal.yield()
        for await _ in sent { break }
        // The forged bytes are on the wire; wait until they crossed loopback into the client's socket.
        try #require(await eventually { !idle.socket.hasNothingToReadNow() })
        #expect(try await client.get(url).text == "fresh")
        #expect(client.connectionsOpened == 2)
        await client.shutdown()
        await listener.close()
        await server.value
    }

    @Test(
        "a kept-alive connection the server closed is not reused, for GET and POST alike",
        .timeLimit(.scaledMinutes(1)), arguments: [Method.get, .post])
    func staleAfterRestart(method: Method) async throws {
        // The server closes the idle connection as a restarting server does, but keeps its port: a port
        // given up and bound again could meanwhile go to another test's server.
        try await withFixtureServer { server in
            let log = LogCollector()
            let client = ClientFixture.client(for: server) { $0.logger = log.logger }
            let request = HTTPRequest(method: method, url: "json", body: .bytes(Array("{}".utf8)))
            #expect(try await client.send(request).status == .ok)
            await server.closeConnections()
            let response = try await client.send(request)
            #expect(response.status == .ok)
            #expect(client.connectionsOpened == 2)
            #expect(server.acceptedConnections == 2)
            #expect(log.events(.reused).isEmpty && log.events(.retry).isEmpty)
            await client.shutdown()
        }
    }

    /// One answer for a request method on a connection the server drops after reading the request.
    struct RetryCase: Sendable, CustomStringConvertible {
        var method: Method
        var body: RequestBody
        var isRetried: Bool
        var description: String { "\(method) \(body.isReplayable ? "replayable" : "stream") body" }
    }

    @Test(
        "a reused connection dropped before any response byte is retried once, only when safe",
        .timeLimit(.scaledMinutes(1)),
        arguments: [
            RetryCase(method: .get, body: .empty, isRetried: true),
            RetryCase(method: .put, body: .bytes(Array("data".utf8)), isRetried: true),
            RetryCase(method: .delete, body: .empty, isRetried: true),
            RetryCase(method: .post, body: .bytes(Array("data".utf8)), isRetried: false),
            RetryCase(
                method: .put,
                body: .stream(
                    AsyncThrowingStream {
                        $0.yield(Array("data".utf8)); $0.finish()
                    }),
                isRetried: false),
        ])
    func retryOnlyWhenSafe(_ retryCase: RetryCase) async throws {
        let server = try DroppingServer.start()
        let log = LogCollector()
        var configuration = ClientConfiguration()
        configuration.logger = log.logger
        let client = HTTPClient(configuration: configuration)
        let url = "http://127.0.0.1:\(server.port)/"
        #expect(try await client.get(url).text == "first")
        let request = HTTPRequest(method: retryCase.method, url: url, body: retryCase.body)
        if retryCase.isRetried {
            let response = try await client.send(request)
            #expect(response.text == "retried")
            #expect(log.events(.retry).count == 1)
            #expect(client.connectionsOpened == 2)
        } else {
            await #expect(throws: HTTPWireError.emptyReply) { _ = try await client.send(request) }
            #expect(log.events(.retry).isEmpty)
            #expect(client.connectionsOpened == 1)
        }
        await client.shutdown()
        await server.stop()
    }

    @Test(
        "cancelling a task mid-body closes its connection and the pool stays usable",
        .timeLimit(.scaledMinutes(1)), arguments: [false, true])
    func cancellationReleases(onReactor: Bool) async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let origin = OriginKey(scheme: .http, host: "127.0.0.1", port: server.port)
            let started = AsyncStream<Void>.makeStream()
            // On the cooperative pool, or on the reactor thread (HTTPClient.reactorExecutor).
            let reader = Task(executorPreference: onReactor ? HTTPClient.reactorExecutor : nil) {
                let response = try await client.stream(HTTPRequest(url: "drip?bytes=1000&interval_ms=20"))
                var count = 0
                for try await piece in response.body {
                    count += piece.count
                    if count == 1 { started.continuation.yield() }
                }
                return count
            }
            for await _ in started.stream { break }
            let connections = client.pool.establishedConnections
            #expect(connections.count == 1)
            let connection = try #require(connections.first)
            #expect(client.pool.snapshot(of: origin).leased == 1)
            reader.cancel()
            await #expect(throws: CancellationError.self) { _ = try await reader.value }
            try #require(await eventually { !connection.socket.descriptor.isOpen })
            try #require(await eventually { client.pool.snapshot(of: origin).open == 0 })
            #expect(try await client.get("json").status == .ok)
            #expect(client.connectionsOpened == 2)
            await client.shutdown()
            #expect(client.pool.establishedConnections.isEmpty)
        }
    }

    @Test(
        "a streamed body read to its end returns the connection; one dropped early closes it",
        .timeLimit(.scaledMinutes(1)))
    func droppedResponse() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let origin = OriginKey(scheme: .http, host: "127.0.0.1", port: server.port)
            do {
                let response = try await client.stream(HTTPRequest(url: "bytes/2000000"))
                var iterator = response.body.makeAsyncIterator()
                _ = try await iterator.next()
            }
            try #require(await eventually { client.pool.snapshot(of: origin).open == 0 })
            let complete = try await client.stream(HTTPRequest(url: "bytes/2000000"))
            var total = 0
            for try await piece in complete.body { total += piece.count }
            #expect(total == 2_000_000)
            #expect(client.pool.snapshot(of: origin).idle == 1)
            _ = try await client.get("json")
            #expect(client.connectionsOpened == 2)
            await client.shutdown()
        }
    }

    @Test("a streamed response without a body returns its connection unread", .timeLimit(.scaledMinutes(1)))
    func bodylessStream() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let origin = OriginKey(scheme: .http, host: "127.0.0.1", port: server.port)
            for request in [HTTPRequest(method: .head, url: "bytes/1000"), HTTPRequest(url: "status/204")] {
                let response = try await client.stream(request)
                #expect(response.expectedContentLength == 0)
                #expect(client.pool.snapshot(of: origin).idle == 1)
            }
            _ = try await client.get("json")
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test("an idle connection is closed after the idle timeout", .timeLimit(.scaledMinutes(1)))
    func idleTimeout() async throws {
        try await withFixtureServer { server in
            // 1 s (scaled): what the test does between two requests, or between a request and a look at the
            // pool, takes far less even on a loaded machine, so only the waits below outlast it.
            let client = ClientFixture.client(for: server) { $0.pool.idleTimeout = .seconds(1).scaled }
            let origin = OriginKey(scheme: .http, host: "127.0.0.1", port: server.port)
            _ = try await client.get("json")
            let connection = try #require(client.pool.establishedConnections.first)
            #expect(client.pool.snapshot(of: origin).idle == 1)
            try #require(await eventually { client.pool.snapshot(of: origin).open == 0 })
            try #require(await eventually { !connection.socket.descriptor.isOpen })
            // Reuse within the timeout keeps the connection: the timer of the earlier idle period is stale.
            _ = try await client.get("json")
            _ = try await client.get("json")
            #expect(client.connectionsOpened == 2)
            await client.shutdown()
        }
    }

    @Test("shutdown waits for a request in flight; concurrent calls all return", .timeLimit(.scaledMinutes(1)))
    func shutdown() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            // Answered after a second (scaled): far longer than the look at the server's count below takes.
            let delay = Int((1000 * TestTime.scale).rounded())
            let inFlight = Task { try await client.get("delay?ms=\(delay)") }
            // The request must be in flight (received, not yet answered) when shutdown starts.
            try #require(await eventually { server.requestsServed == 1 })
            async let first: Void = client.shutdown()
            async let second: Void = client.shutdown()
            _ = await (first, second)
            let finished = try await inFlight.value
            #expect(finished.status == .ok)
            await client.shutdown()
            await #expect(throws: CancellationError.self) { _ = try await client.get("json") }
        }
    }

    @Test(
        "shutdown returns after its idle connections are closed, not while their close is still to come",
        .timeLimit(.scaledMinutes(1)))
    func shutdownClosesFirst() async throws {
        let listener = try Listener.bind()
        let client = HTTPClient()
        async let accepted = listener.accept(deadline: .after(.seconds(10).scaled))
        async let response = client.get("http://127.0.0.1:\(listener.port)/")
        let server = try await accepted
        var request: [UInt8] = []
        while !request.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            let count = try await server.read(into: &request, maxBytes: 4096, deadline: .after(.seconds(10).scaled))
            try #require(count > 0)
        }
        try await server.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), deadline: .never)
        #expect(try await response.text == "ok")
        await client.shutdown()
        // On loopback a close(2) puts the FIN in the peer's queue before it returns, so the end of stream is
        // there to read at once — with no wait — exactly when the client closed before shutdown returned.
        var byte: UInt8 = 0
        let received = recv(server.descriptor.rawValue, &byte, 1, Int32(MSG_DONTWAIT))
        #expect(received == 0, "recv gave \(received), errno \(errno): the connection was still open")
        await server.close()
        await listener.close()
    }
}
