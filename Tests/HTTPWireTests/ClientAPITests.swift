// HTTPClient's public calls end to end against the fixture server: the shortcuts, JSON in and out, query
// items, send, streaming with backpressure, the collect limit, and the logging hook with redaction.

import FixtureServer
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct ClientAPITests {
    struct Greeting: Codable, Equatable {
        var message: String
        var numbers: [Int]
    }

    struct User: Codable, Equatable, Sendable {
        var name: String
        var id: Int
    }

    @Test("get decodes JSON, post(json:) sends it, send takes a full request", .timeLimit(.scaledMinutes(1)))
    func shortcuts() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let greeting = try await client.get("json").decode(Greeting.self)
            #expect(greeting.numbers == [1, 2, 3])

            let ada = User(name: "Ada", id: 42)
            let echoed = try await client.post("json", json: ada)
            #expect(echoed.status == .ok)
            #expect(try echoed.decode(User.self) == ada)

            let put = try await client.put("echo", json: ada)
            let echo = try ClientFixture.decode(ClientFixture.Echo.self, put)
            #expect(echo.method == "PUT")
            #expect(echo.values("Content-Type") == ["application/json"])
            #expect(try JSONDecoder().decode(User.self, from: Data(echo.body.utf8)) == ada)

            var request = HTTPRequest(method: .patch, url: "echo", fields: ["X-Trace": "abc"])
            request.body = .bytes(Array("raw body".utf8))
            let sent = try ClientFixture.decode(ClientFixture.Echo.self, try await client.send(request))
            #expect(sent.method == "PATCH" && sent.body == "raw body")
            #expect(sent.values("X-Trace") == ["abc"])
            #expect(sent.values("Host") == ["127.0.0.1:\(server.port)"])
            #expect(sent.values("User-Agent") == ["HTTPWire/0.1"])

            let deleted = try await client.delete("status/204")
            #expect(deleted.status == .noContent && deleted.body.isEmpty)
            let head = try await client.head("bytes/1000")
            #expect(head.fields["Content-Length"] == "1000" && head.body.isEmpty)
            // Every call above went over one kept-alive connection.
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test("query items reach the server exactly as given", .timeLimit(.scaledMinutes(1)))
    func queryItems() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let response = try await client.get(
                "headers", query: [QueryItem(name: "X-Q", value: "café & crème+1=2%"), "X-Plain=yes"])
            #expect(response.fields["X-Q"] == "café & crème+1=2%")
            #expect(response.fields["X-Plain"] == "yes")
            await client.shutdown()
        }
    }

    @Test("default fields are sent unless the request sets the same name", .timeLimit(.scaledMinutes(1)))
    func defaultFields() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server) {
                $0.defaultFields = ["Accept": "text/plain", "X-Team": "wire"]
            }
            let echo = try ClientFixture.decode(
                ClientFixture.Echo.self, try await client.get("echo", fields: ["Accept": "application/json"]))
            #expect(echo.values("Accept") == ["application/json"])
            #expect(echo.values("X-Team") == ["wire"])
            await client.shutdown()
        }
    }

    @Test("stream returns the head first; the body follows as it is read", .timeLimit(.scaledMinutes(1)))
    func streamHeadFirst() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            // Ten chunks 100 ms apart: the head comes at once, the body takes about a second after it. Only
            // the time after `stream` returned is measured, so a slow machine cannot fail the test.
            let response = try await client.stream(
                HTTPRequest(url: "chunked?chunks=10&size=100&interval_ms=100&trailers=1"))
            let clock = ContinuousClock()
            let afterHead = clock.now
            #expect(response.status == .ok)
            #expect(response.expectedContentLength == nil)
            #expect(response.body.receivedBytes == 0)
            var received: [UInt8] = []
            for try await piece in response.body { received += piece }
            #expect(clock.now - afterHead >= .milliseconds(850))
            #expect(received == GeneratedBytes.bytes(0..<1000, seed: 0))
            #expect(response.trailers["X-Chunks"] == "10")
            #expect(response.body.receivedBytes == 1000)
            await client.shutdown()
        }
    }

    @Test("a slow consumer stops the socket reads: the server blocks in write", .timeLimit(.scaledMinutes(1)))
    func backpressure() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let total = 512 * 1024 * 1024
            let response = try await client.stream(HTTPRequest(url: "bytes/\(total)"))
            #expect(response.expectedContentLength == Int64(total))
            var iterator = response.body.makeAsyncIterator()
            var received = 0
            while received < 1024 * 1024, let piece = try await iterator.next() { received += piece.count }
            // The consumer pauses. Nothing reads the socket now: what the server sends piles up in the kernel's
            // receive buffer (an eager reader would have drained it into memory, and the pile would never
            // grow), until TCP flow control stops the server's writes.
            let socket = try #require(client.pool.establishedConnections.first).socket
            let descriptor = socket.descriptor.rawValue
            #expect(
                await eventually { Self.unreadBytes(descriptor) > 64 * 1024 },
                "only \(Self.unreadBytes(descriptor)) bytes wait in the kernel")
            #expect(response.body.receivedBytes == Int64(received))
            // Reading resumes and gets everything, in order.
            var checked = received
            var matches = true
            while let piece = try await iterator.next() {
                if checked < 4 * 1024 * 1024 {
                    matches =
                        matches
                        && Array(piece) == GeneratedBytes.bytes(Int64(checked)..<Int64(checked + piece.count), seed: 0)
                }
                checked += piece.count
            }
            #expect(matches)
            #expect(checked == total)
            await client.shutdown()
        }
    }

    /// Bytes received by the kernel on `descriptor` that nobody has read yet (FIONREAD).
    static func unreadBytes(_ descriptor: Int32) -> Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? Int(count) : -1
    }

    @Test("send refuses a body larger than maxCollectedBodyBytes, announced or not", .timeLimit(.scaledMinutes(1)))
    func collectLimit() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server) { $0.maxCollectedBodyBytes = 10_000 }
            await #expect(throws: HTTPWireError.bodyTooLarge(limit: 10_000)) {
                _ = try await client.get("bytes/10001")
            }
            await #expect(throws: HTTPWireError.bodyTooLarge(limit: 10_000)) {
                _ = try await client.get("chunked?chunks=11&size=1000")
            }
            let withinLimit = try await client.get("bytes/10000")
            #expect(withinLimit.body.count == 10_000)
            #expect(HTTPWireError.bodyTooLarge(limit: 10_000).exitCode == 63)
            await client.shutdown()
        }
    }

    @Test("the logger sees heads as sent and received, credentials redacted", .timeLimit(.scaledMinutes(1)))
    func logging() async throws {
        try await withFixtureServer { server in
            let log = LogCollector()
            let client = ClientFixture.client(for: server) { $0.logger = log.logger }
            let fields: HTTPFields = [
                "Authorization": "Bearer secret-token", "Cookie": "session=secret-cookie",
                "Proxy-Authorization": "Basic secret-proxy", "X-Visible": "shown",
            ]
            _ = try await client.send(
                HTTPRequest(
                    method: .post, url: "headers?Set-Cookie=secret-set", fields: fields, body: .bytes([1, 2, 3])))
            _ = try await client.get("json")
            let text = log.all.map(\.text).joined(separator: "\n")
            for secret in ["secret-token", "secret-cookie", "secret-proxy"] {
                #expect(!text.contains(secret), "\(secret) leaked into the log")
            }
            let request = try #require(log.events(.requestHead).first)
            #expect(request.text.hasPrefix("POST /headers?Set-Cookie=secret-set HTTP/1.1\n"))
            #expect(request.text.contains("\nAuthorization: [redacted]"))
            #expect(request.text.contains("\nCookie: [redacted]"))
            #expect(request.text.contains("\nX-Visible: shown"))
            #expect(request.text.contains("\nContent-Length: 3"))
            #expect(request.text.contains("\nHost: 127.0.0.1:\(server.port)"))
            let response = try #require(log.events(.responseHead).first)
            #expect(response.text.hasPrefix("HTTP/1.1 200 OK"))
            #expect(response.text.contains("\nSet-Cookie: [redacted]"))
            #expect(!response.text.contains("secret-set"))
            #expect(log.events(.connected).count == 1)
            #expect(log.events(.reused).count == 1)
            #expect(log.events(.requestHead).count == 2 && log.events(.responseHead).count == 2)
            await client.shutdown()
        }
    }
}
