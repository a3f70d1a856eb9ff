// RetryTests: the one retry mechanism, end to end — idempotent requests retried on 502/503/504 and
// connection failures with backoff and Retry-After (RFC 9110 §10.2.3, seconds or an HTTP-date), never a
// POST, never past the total timeout; a download retried through the client's policy still resumes.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import HTTPWireTesting
import TestSupport
import Testing

@Suite struct RetryTests {
    /// Fast backoff so a test takes milliseconds.
    static let quick = RetryPolicy(
        maxRetries: 3, initialBackoff: .milliseconds(20), maxBackoff: .milliseconds(50),
        retryableStatuses: [502, 503, 504])

    @Test("503 with Retry-After: 0, then 200: the caller sees the 200", .timeLimit(.scaledMinutes(1)))
    func retriesStatus() async throws {
        try await withTestServer(routes: [
            TestRoute(
                .get, "/busy",
                responses: [
                    TestResponse(status: 503, fields: ["Retry-After": "0"]), TestResponse(status: 502), .text("done"),
                ])
        ]) { (server: TestServer) async throws in
            let log = LogCollector()
            let client = server.client {
                $0.retry = Self.quick
                $0.logger = log.logger
            }
            let response = try await client.get("busy")
            #expect(response.text == "done")
            #expect(response.metrics.retries == 2)
            #expect(server.requests.count == 3)
            #expect(log.events(.retry).count == 2)
            await client.shutdown()
        }
    }

    @Test("Retry-After as an HTTP-date is honoured", .timeLimit(.scaledMinutes(1)))
    func retryAfterDate() async throws {
        // Two whole seconds past the current one. The client rounds the wait up to whole seconds, so it waits
        // a second unless its answer arrives more than a second after this line. (One past was a wait of zero
        // whenever the server's start-up crossed into the next second: a failure now and then.)
        let soon = HTTPDate.imfFixdate(secondsSinceEpoch: Int64(Date().timeIntervalSince1970) + 2)
        try await withTestServer(routes: [
            TestRoute(
                .get, "/later", responses: [TestResponse(status: 503, fields: ["Retry-After": soon]), .text("ok")])
        ]) { (server: TestServer) async throws in
            let client = server.client { $0.retry = Self.quick }
            let started = ContinuousClock.now
            #expect(try await client.get("later").text == "ok")
            #expect(ContinuousClock.now - started >= .milliseconds(900))
            await client.shutdown()
        }
    }

    @Test(
        "retries give up with the last answer after maxRetries; no policy means no retry", .timeLimit(.scaledMinutes(1))
    )
    func givesUp() async throws {
        try await withTestServer(routes: [TestRoute(.get, "/down", TestResponse(status: 503))]) {
            (server: TestServer) async throws in
            let client = server.client { $0.retry = Self.quick }
            #expect(try await client.get("down").status.rawValue == 503)
            #expect(server.requests.count == 4)
            let plain = server.client()
            #expect(try await plain.get("down").status.rawValue == 503)
            #expect(server.requests.count == 5)
            // With validation, the last 503 becomes the error.
            await #expect(throws: HTTPWireError.self) {
                _ = try await plain.get(
                    "down",
                    options: {
                        var o = RequestOptions(validation: .successful); o.retry = Self.quick; return o
                    }())
            }
            #expect(server.requests.count == 9)
            await client.shutdown()
            await plain.shutdown()
        }
    }

    @Test("a POST is never retried; a PUT is (RFC 9110 §9.2.2)", .timeLimit(.scaledMinutes(1)))
    func idempotentOnly() async throws {
        try await withTestServer(routes: [TestRoute(nil, "/down", TestResponse(status: 503))]) {
            (server: TestServer) async throws in
            let client = server.client { $0.retry = Self.quick }
            #expect(try await client.post("down", body: .bytes([1])).status.rawValue == 503)
            #expect(server.requests.count == 1)
            #expect(try await client.put("down", body: .bytes([1])).status.rawValue == 503)
            #expect(server.requests.count == 5)
            await client.shutdown()
        }
    }

    @Test("connection failures are retried: empty reply, reset", .timeLimit(.scaledMinutes(1)))
    func connectionFailures() async throws {
        try await withTestServer(routes: [
            TestRoute(
                .get, "/flaky",
                responses: [
                    TestResponse(failure: .closeWithoutResponse), TestResponse(failure: .reset), .text("ok"),
                ])
        ]) { (server: TestServer) async throws in
            let client = server.client { $0.retry = Self.quick }
            let response = try await client.get("flaky")
            #expect(response.text == "ok")
            #expect(response.metrics.retries == 2)
            await client.shutdown()
        }
    }

    @Test("a wait that would pass the total timeout is not started", .timeLimit(.scaledMinutes(1)))
    func respectsTotalTimeout() async throws {
        // Retry-After stays 1.5 times the total timeout at any time scale: unscaled, "30" fitted inside the
        // 120 s total of a sanitizer run (scale 6), so the client rightly waited and retried.
        let retryAfter = Int((30 * TestTime.scale).rounded(.up))
        try await withTestServer(routes: [
            TestRoute(.get, "/slow-down", TestResponse(status: 503, fields: ["Retry-After": "\(retryAfter)"]))
        ]) { (server: TestServer) async throws in
            let client = server.client {
                $0.retry = .idempotent
                $0.timeouts.total = .seconds(20).scaled
            }
            let started = ContinuousClock.now
            #expect(try await client.get("slow-down").status.rawValue == 503)
            #expect(ContinuousClock.now - started < .seconds(10).scaled)
            #expect(server.requests.count == 1)
            await client.shutdown()
        }
    }

    @Test("cancelling during a backoff ends the request at once", .timeLimit(.scaledMinutes(1)))
    func cancelledBackoff() async throws {
        try await withTestServer(routes: [
            TestRoute(.get, "/wait", TestResponse(status: 503, fields: ["Retry-After": "60"]))
        ]) { (server: TestServer) async throws in
            let client = server.client { $0.retry = .idempotent }
            let task = Task { try await client.get("wait") }
            #expect(await eventually { server.requests.count == 1 })
            task.cancel()
            await #expect(throws: CancellationError.self) { _ = try await task.value }
            await client.shutdown()
        }
    }

    @Test("a download with no retry policy of its own retries with the client's", .timeLimit(.scaledMinutes(1)))
    func downloadUsesClientPolicy() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server) { $0.retry = Self.quick }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retry-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            // /truncate sends 40 of 100 bytes and closes: every attempt fails mid-body, and each retry
            // asks for the rest with Range (the route ignores it, so the download ends in error).
            let download = client.download(
                from: "truncate?announce=100&send=40", to: directory.appendingPathComponent("f").path)
            await #expect(throws: HTTPWireError.self) { _ = try await download.result() }
            #expect(server.requestLog.count == 1 + Self.quick.maxRetries)
            await client.shutdown()
        }
    }
}
