// The reactor as a task executor (`HTTPClient.reactorExecutor`): code under that preference really runs on
// the reactor thread, and everything the client does still works there — pooled reuse, 200 requests in
// flight, TLS, file uploads (whose disk reads go to the blocking worker), streamed bodies and each timeout
// phase, and downloads started there (which stay there). Cancellation there is a case of
// ClientPoolTests.cancellationReleases. A task on the reactor makes
// its socket calls on the thread that also runs epoll_wait, and parks an operation without the queue, so
// these are the paths that could hang or lose an edge if that was wrong.

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

@Suite struct ReactorExecutorTests {
    @Test("code under the preference runs on the reactor thread; code outside does not", .timeLimit(.scaledMinutes(1)))
    func runsOnReactor() async throws {
        #expect(!Reactor.shared.isCurrentThread)
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let threads = try await withTaskExecutorPreference(HTTPClient.reactorExecutor) { () async throws in
                var onReactor: [Bool] = [Reactor.shared.isCurrentThread]
                for index in 0..<50 {
                    let echo = try ClientFixture.decode(
                        ClientFixture.Echo.self, try await client.get("echo?n=\(index)"))
                    #expect(echo.target == "/echo?n=\(index)")
                    onReactor.append(Reactor.shared.isCurrentThread)
                }
                return onReactor
            }
            #expect(threads.count == 51 && threads.allSatisfy { $0 })
            #expect(client.connectionsOpened == 1)
            #expect(server.acceptedConnections == 1)
            await client.shutdown()
        }
    }

    @Test("200 concurrent requests on the reactor share at most 8 connections", .timeLimit(.scaledMinutes(1)))
    func concurrent() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let results = try await withTaskExecutorPreference(HTTPClient.reactorExecutor) { () async throws in
                try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            let response = try await client.get("delay?ms=\(index % 3 == 0 ? 20 : 2)")
                            return (response.status.rawValue, Reactor.shared.isCurrentThread)
                        }
                    }
                    var results: [(Int, Bool)] = []
                    for try await result in group { results.append(result) }
                    return results
                }
            }
            #expect(results.count == 200)
            #expect(results.allSatisfy { $0.0 == 200 && $0.1 })
            #expect(server.acceptedConnections <= 8)
            #expect(server.requestsServed == 200)
            await client.shutdown()
        }
    }

    @Test("TLS requests and a large body on the reactor", .timeLimit(.scaledMinutes(1)))
    func tls() async throws {
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("leaf.pem")),
            privateKey: .file(path: try await TestCertificates.path("leaf.key")))
        let caPath = try await TestCertificates.path("ca.pem")
        try await withFixtureServer(tls: tls) { server in
            let client = ClientFixture.client(for: server) {
                $0.tls = TLSConfiguration(trustsSystemRoots: false, additionalTrustRoots: [.file(path: caPath)])
            }
            try await withTaskExecutorPreference(HTTPClient.reactorExecutor) { () async throws in
                #expect(try await client.get("json").status == .ok)
                let body = try await client.get("bytes/3000000").body
                #expect(body.count == 3_000_000)
                #expect(Reactor.shared.isCurrentThread)
            }
            #expect(client.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test("a file upload and a streamed download on the reactor", .timeLimit(.scaledMinutes(1)))
    func uploadAndStream() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "httpwire-reactor-upload-\(UInt32.random(in: 0...UInt32.max)).bin"
        ).path
        let bytes = (0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await TestFiles.write(bytes, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let digest = try #require(SHA256Digest.of(bytes)).hexString
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            try await withTaskExecutorPreference(HTTPClient.reactorExecutor) { () async throws in
                // /upload hashes what arrives; /echo would JSON-encode 1.5 MB of binary as text, which takes the
                // server seconds of computing (more than the idle timeout on a loaded machine).
                let summary = try ClientFixture.decode(
                    UploadHarness.Summary.self, try await client.post("upload", body: .file(path: path)))
                #expect(summary.size == Int64(bytes.count) && summary.sha256 == digest)
                let response = try await client.stream(HTTPRequest(url: "bytes/2000000"))
                var total = 0
                for try await piece in response.body { total += piece.count }
                #expect(total == 2_000_000)
            }
            await client.shutdown()
        }
    }

    @Test("head and body timeouts on the reactor are reported with their phase", .timeLimit(.scaledMinutes(1)))
    func timeouts() async throws {
        try await withFixtureServer { server in
            // 3 s, as in ClientTimeoutTests: long enough that a request on a machine busy with the parallel
            // test run does not time out where it should not (400 ms once did, in CI).
            let client = ClientFixture.client(for: server) { $0.timeouts.idle = .seconds(3).scaled }
            try await withTaskExecutorPreference(HTTPClient.reactorExecutor) { () async throws in
                await #expect(throws: HTTPWireError.timedOut(.head)) { _ = try await client.get("delay?ms=30000") }
                await #expect(throws: HTTPWireError.timedOut(.body)) {
                    _ = try await client.get("drip?bytes=5&interval_ms=30000")
                }
                #expect(try await client.get("json").status == .ok)
            }
            await client.shutdown()
        }
    }

    @Test("a task started with the current preference keeps the reactor's, and only the reactor's")
    func currentTaskPreference() async throws {
        #expect(Reactor.currentTaskPreference == nil)
        let outside = await Task(executorPreference: Reactor.currentTaskPreference) {
            Reactor.shared.isCurrentThread
        }.value
        #expect(!outside)
        let inside = await withTaskExecutorPreference(HTTPClient.reactorExecutor) {
            await Task(executorPreference: Reactor.currentTaskPreference) {
                Reactor.currentTaskPreference != nil && Reactor.shared.isCurrentThread
            }.value
        }
        #expect(inside)
    }

    @Test(
        "downloads started on the reactor (where they now stay) land whole: one stream, chunked, segments",
        .timeLimit(.scaledMinutes(1)))
    func downloads() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server)
            let count = 3 << 20
            let digest = SHA256Digest.of(GeneratedBytes.bytes(0..<Int64(count)))
            let paths = [
                ("plain", "bytes/\(count)", 1), ("chunked", "chunked?chunks=192&size=16384", 1),
                ("segments", "bytes/\(count)", 3),
            ]
            for (name, path, segments) in paths {
                var options = DownloadOptions()
                options.segments = segments
                options.segmentProbe = .zero
                options.expectedSHA256 = digest
                let result = try await withTaskExecutorPreference(HTTPClient.reactorExecutor) { () async throws in
                    try await client.download(
                        from: path, to: scratch.file("\(name).bin"), options: options
                    ).result()
                }
                #expect(result.sha256 == digest, "\(name)")
                #expect(result.bytes == Int64(count), "\(name)")
            }
            await client.shutdown()
        }
    }
}
