// UploadExpectContinueTests: `Expect: 100-continue` (RFC 9110 §10.1.1) against the fixture's /expect route —
// a server that says 100 and reads the body, one that refuses before the body (the body is not sent and
// the connection is not reused), and one that ignores the expectation (the client's timer sends the body).

import FixtureServer
import Foundation
import HTTPWireCodec
import Synchronization
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct UploadExpectContinueTests {
    /// A file of `size` bytes in a fresh directory, with its digest.
    static func makeFile(size: Int64) async throws -> (TemporaryDirectory, String, String) {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("upload.bin").path
        let digest = try await UploadHarness.writeLargeFile(at: path, size: size)
        return (directory, path, digest)
    }

    @Test(
        "a server that answers 100 Continue gets the body", .timeLimit(.scaledMinutes(1)),
        arguments: UploadHarness.Transport.allCases)
    func accepted(transport: UploadHarness.Transport) async throws {
        let (directory, path, digest) = try await Self.makeFile(size: 3 << 20)
        try await withFixtureServer(tls: try await UploadHarness.serverTLS(transport)) { server in
            // A long timer: only the server's 100 can release the body within the test's time.
            let client = try await UploadHarness.client(for: server) {
                $0.timeouts.expectContinue = .seconds(30).scaled
            }
            defer { Task { await client.shutdown() } }
            let response = try await client.upload(file: path, to: "expect", method: .put, expectContinue: true)
                .response
            let summary = try response.decode(UploadHarness.Summary.self, using: UploadHarness.decoder)
            #expect(summary.continued)
            #expect(summary.size == 3 << 20 && summary.sha256 == digest)
            #expect(response.interimResponses.map(\.status.rawValue) == [100])
            #expect(server.requestLog.last?.fields["Expect"] == "100-continue")
            // A small in-memory body also waits for the 100 instead of riding along with the head.
            var small = HTTPRequest(method: .post, url: "expect", body: .bytes(Array("tiny".utf8)))
            small.expectContinue = true
            let smallSummary = try await client.send(small).decode(
                UploadHarness.Summary.self, using: UploadHarness.decoder)
            #expect(smallSummary.continued && smallSummary.size == 4)
        }
        _ = directory
    }

    @Test(
        "a final response to the head means the body is not sent and the connection is not reused",
        .timeLimit(.scaledMinutes(1)), arguments: [413, 401])
    func rejected(status: Int) async throws {
        let (directory, path, _) = try await Self.makeFile(size: 8 << 20)
        try await withFixtureServer { server in
            let client = try await UploadHarness.client(for: server) {
                $0.timeouts.expectContinue = .seconds(30).scaled
            }
            defer { Task { await client.shutdown() } }
            let clock = ContinuousClock()
            let start = clock.now
            let upload = client.upload(file: path, to: "expect?reject=\(status)", expectContinue: true)
            var reports: [TransferProgress] = []
            for await progress in upload.progress { reports.append(progress) }
            let response = try await upload.response
            #expect(response.status.rawValue == status)
            #expect(response.text == "rejected before the body\n")
            #expect(reports.isEmpty, "body bytes were sent: \(reports.map(\.receivedBytes))")
            #expect(clock.now - start < .seconds(10).scaled)  // not the 30 s continue timer
            // The server may still expect the announced bytes: the next request needs a new connection.
            let opened = client.connectionsOpened
            let next = try await client.upload(file: path, to: "upload").response
            #expect(try next.decode(UploadHarness.Summary.self, using: UploadHarness.decoder).size == 8 << 20)
            #expect(client.connectionsOpened == opened + 1)
        }
        _ = directory
    }

    @Test("a 417 answer makes the client repeat the request without the expectation", .timeLimit(.scaledMinutes(1)))
    func expectationFailed() async throws {
        let (directory, path, _) = try await Self.makeFile(size: 1 << 20)
        try await withFixtureServer { server in
            let client = try await UploadHarness.client(for: server) {
                $0.timeouts.expectContinue = .seconds(30).scaled
            }
            defer { Task { await client.shutdown() } }
            let response = try await client.upload(file: path, to: "expect?reject=417", expectContinue: true).response
            // This route refuses every request, so the repeat gets a 417 too; what matters is its head.
            #expect(response.status.rawValue == 417)
            let heads = server.requestLog.filter { $0.target == "/expect?reject=417" }
            #expect(heads.count == 2)
            #expect(heads.first?.fields["Expect"] == "100-continue")
            #expect(heads.last?.fields["Expect"] == nil)
            #expect(heads.last?.fields["Content-Length"] == String(1 << 20))
        }
        _ = directory
    }

    @Test("a server that ignores Expect gets the body when the client's wait runs out", .timeLimit(.scaledMinutes(1)))
    func ignored() async throws {
        let (directory, path, digest) = try await Self.makeFile(size: 2 << 20)
        try await withFixtureServer { server in
            let client = try await UploadHarness.client(for: server) { $0.timeouts.expectContinue = .milliseconds(300) }
            defer { Task { await client.shutdown() } }
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await client.upload(file: path, to: "expect?ignore=1", expectContinue: true).response
            let elapsed = clock.now - start
            let summary = try response.decode(UploadHarness.Summary.self, using: UploadHarness.decoder)
            #expect(!summary.continued)
            #expect(summary.size == 2 << 20 && summary.sha256 == digest)
            #expect(response.interimResponses.isEmpty)
            #expect(elapsed >= .milliseconds(300), "the body went before the timer: \(elapsed)")
            // That exchange ended cleanly, so its connection is reused.
            let opened = client.connectionsOpened
            _ = try await client.get("json")
            #expect(client.connectionsOpened == opened)
        }
        _ = directory
    }
}
