// Timeouts per phase (exit 28) and early answers: connect against a listener whose accept queue is full (a
// black hole on loopback: the kernel drops the SYN), head and body idle timeouts against /delay and /drip,
// the total deadline, and a server that answers before it has read the request body (RFC 9112 §9.5).

import FixtureServer
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite struct ClientTimeoutTests {
    @Test(
        "a connect that never completes is timedOut(.connect); a total deadline caps it", .timeLimit(.scaledMinutes(1)))
    func connect() async throws {
        let hole = try await BlackHole.open()
        var configuration = ClientConfiguration()
        configuration.timeouts.connect = .milliseconds(300)
        let client = HTTPClient(configuration: configuration)
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: HTTPWireError.timedOut(.connect)) {
            _ = try await client.get("http://127.0.0.1:\(hole.port)/")
        }
        #expect(clock.now - start >= .milliseconds(280))
        await client.shutdown()

        configuration.timeouts.connect = .seconds(30).scaled
        configuration.timeouts.total = .milliseconds(300)
        let capped = HTTPClient(configuration: configuration)
        await #expect(throws: HTTPWireError.timedOut(.total)) {
            _ = try await capped.get("http://127.0.0.1:\(hole.port)/")
        }
        #expect(HTTPWireError.timedOut(.connect).exitCode == 28)
        // The pool's own attempt (30 s connect timeout) is still waiting: shutdown cancels it.
        let shutdownStart = clock.now
        await capped.shutdown()
        #expect(clock.now - shutdownStart < .seconds(20).scaled)
        await hole.close()
    }

    // The idle timeouts below leave a wide margin to the waits that must succeed, so a loaded machine (or a
    // ThreadSanitizer build) cannot turn a short wait into a timeout.

    @Test("no response head within the idle timeout is timedOut(.head)", .timeLimit(.scaledMinutes(1)))
    func head() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server) { $0.timeouts.idle = .seconds(3).scaled }
            await #expect(throws: HTTPWireError.timedOut(.head)) { _ = try await client.get("delay?ms=30000") }
            // Waits shorter than the idle timeout are fine.
            let quick = try await client.get("delay?ms=50")
            #expect(quick.status == .ok)
            await client.shutdown()
        }
    }

    @Test(
        "a body that stalls for the idle timeout is timedOut(.body), streamed or collected",
        .timeLimit(.scaledMinutes(1)))
    func body() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server) { $0.timeouts.idle = .seconds(3).scaled }
            await #expect(throws: HTTPWireError.timedOut(.body)) {
                _ = try await client.get("drip?bytes=5&interval_ms=30000")
            }
            let response = try await client.stream(HTTPRequest(url: "drip?bytes=5&interval_ms=30000"))
            #expect(response.status == .ok)
            await #expect(throws: HTTPWireError.timedOut(.body)) {
                for try await _ in response.body {}
            }
            // A slow but steady body is not idle.
            let steady = try await client.get("drip?bytes=5&interval_ms=50")
            #expect(steady.text == "*****")
            await client.shutdown()
        }
    }

    @Test("the total deadline covers the whole request, body included", .timeLimit(.scaledMinutes(1)))
    func total() async throws {
        try await withFixtureServer { server in
            // 2 s (scaled): short enough to keep the test quick, long enough that the plain GET after it fits
            // easily even when every other suite is running on the same two cores. The drip lasts a minute,
            // so only the deadline can end it, whatever the scale.
            let total = Duration.seconds(2).scaled
            let client = ClientFixture.client(for: server) { $0.timeouts.total = total }
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: HTTPWireError.timedOut(.total)) {
                _ = try await client.get("drip?bytes=600&interval_ms=100")
            }
            #expect(clock.now - start >= total - .milliseconds(20))
            // Each request gets its own total deadline.
            let next = try await client.get("json")
            #expect(next.status == .ok)
            await client.shutdown()
        }
    }

    /// Request bodies that are still being sent when the server answers.
    enum LargeBody: String, CaseIterable, Sendable {
        case bytes, file, stream
    }

    @Test(
        "an answer that comes while the body is still being sent is reported (RFC 9112 §9.5)",
        .timeLimit(.scaledMinutes(1)), arguments: LargeBody.allCases)
    func earlyResponse(kind: LargeBody) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("early-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let body: RequestBody
        switch kind {
        case .bytes:
            body = .bytes([UInt8](repeating: 0x61, count: 16 * 1024 * 1024))
        case .file:
            try await TestFiles.write([UInt8](repeating: 0, count: 64 * 1024 * 1024), to: path)
            body = .file(path: path)
        case .stream:
            // Endless: only the server's answer can stop it.
            body = .stream(
                AsyncThrowingStream<[UInt8], any Error>(unfolding: { [UInt8](repeating: 0x62, count: 64 * 1024) }))
        }
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let response = try await client.send(
                HTTPRequest(method: .post, url: "early-response?status=413", body: body))
            #expect(response.status.rawValue == 413)
            #expect(response.text == "answered before the body\n")
            // The connection is not reused (the server's idea of where the request ends is unknowable).
            #expect(try await client.get("json").status == .ok)
            #expect(client.connectionsOpened == 2)
            await client.shutdown()
        }
    }

    @Test("Expect: 100-continue refused with a final status: the body is not sent", .timeLimit(.scaledMinutes(1)))
    func expectRefused() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            var request = HTTPRequest(
                method: .put, url: "expect?reject=413", body: .bytes([UInt8](repeating: 1, count: 1_000_000)))
            request.expectContinue = true
            let response = try await client.send(request)
            // 413 is final: the body is never sent. (A 417 would be repeated without the expectation, as
            // RFC 9110 §10.1.1 asks; the upload tests check that.)
            #expect(response.status.rawValue == 413)
            #expect(server.requestLog.last?.fields["Expect"] == "100-continue")
            var accepted = HTTPRequest(method: .put, url: "expect", body: .bytes(Array("small".utf8)))
            accepted.expectContinue = true
            #expect(try await client.send(accepted).status == .ok)
            await client.shutdown()
        }
    }
}

extension ClientTimeoutTests {
    @Test(
        "an upload slower than the idle timeout is not a timeout while bytes keep flowing",
        .timeLimit(.scaledMinutes(1)))
    func slowUpload() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server) { $0.timeouts.idle = .seconds(1).scaled }
            // Twenty pieces 100 ms apart: two seconds of sending, answered only at the end; each gap stays well
            // inside the idle timeout even on a loaded machine.
            let pieces = AsyncThrowingStream<[UInt8], any Error> { continuation in
                Task {
                    for _ in 0..<20 {
                        try? await Task.sleep(for: .milliseconds(100))
                        continuation.yield([UInt8](repeating: 0x63, count: 1000))
                    }
                    continuation.finish()
                }
            }
            let response = try await client.send(HTTPRequest(method: .post, url: "sink", body: .stream(pieces)))
            #expect(response.status == .noContent)
            #expect(response.fields["X-Received-Bytes"] == "20000")
            await client.shutdown()
        }
    }

    @Test(
        "no head within the idle timeout after a large body was sent is timedOut(.head)", .timeLimit(.scaledMinutes(1)))
    func headAfterLargeBody() async throws {
        try await withFixtureServer { server in
            // The idle timeout must not fire while the body goes out, and must before the delayed head: 300 ms
            // (scaled) against a head that comes after a minute.
            let idle = Duration.milliseconds(300).scaled
            let client = ClientFixture.client(for: server) { $0.timeouts.idle = idle }
            let clock = ContinuousClock()
            let start = clock.now
            let request = HTTPRequest(
                method: .post, url: "delay?ms=60000", body: .bytes([UInt8](repeating: 1, count: 200_000)))
            await #expect(throws: HTTPWireError.timedOut(.head)) { _ = try await client.send(request) }
            #expect(clock.now - start >= idle - .milliseconds(20))
            await client.shutdown()
        }
    }
}
