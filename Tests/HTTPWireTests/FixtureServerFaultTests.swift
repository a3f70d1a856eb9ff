// FixtureServerFaultTests: each fault route produces exactly the failure it promises, as the codec and
// the transport see it over a raw socket — truncated bodies, closes and resets, malformed bytes with
// their CodecError, garbage after a response, early answers, slow drips and delays — and TLS once.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireCodec
import HTTPWireTransport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.timeLimit(.scaledMinutes(1)))
struct FixtureServerFaultTests {
    /// The error reading the response to GET `target` throws, or nil if it read fine.
    private func failure(_ server: FixtureServer, _ target: String) async throws -> (any Error)? {
        let client = try await RawHTTPConnection.connect(to: server)
        try await client.send(.get, target)
        var caught: (any Error)?
        do {
            _ = try await client.readResponse()
        } catch {
            caught = error
        }
        await client.close()
        return caught
    }

    @Test("/truncate announces N bytes, sends M and closes: truncatedBody(N, M)")
    func truncate() async throws {
        try await withFixtureServer { server in
            let plain = try await failure(server, "/truncate?announce=1000&send=400")
            #expect(plain as? CodecError == .truncatedBody(expected: 1000, received: 400))
            let chunked = try await failure(server, "/truncate?announce=1000&send=400&chunked=1")
            #expect(chunked as? CodecError == .truncatedBody(expected: nil, received: 400))
            let afterHead = try await failure(server, "/close-after-head")
            #expect(afterHead as? CodecError == .truncatedBody(expected: 100, received: 0))
        }
    }

    @Test("/close-immediately closes without a byte; /reset resets the connection")
    func closes() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/close-immediately")
            #expect(try await client.readUntilClose().isEmpty)
            await client.close()

            let reset = try await RawHTTPConnection.connect(to: server)
            try await reset.send(.get, "/reset")
            await #expect(throws: TransportError.receiveFailed(errno: ECONNRESET)) {
                _ = try await reset.readUntilClose()
            }
            await reset.close()
        }
    }

    /// The error each malformed kind must produce in the response decoder.
    static let malformedCases: [(MalformedResponse, @Sendable (CodecError) -> Bool)] = [
        (.badStatusLine, { if case .invalidStatusLine = $0 { true } else { false } }),
        (.badVersion, { if case .unsupportedVersion = $0 { true } else { false } }),
        (.conflictingContentLength, { $0 == .conflictingContentLength(["5", "6"]) }),
        (.contentLengthWithTransferEncoding, { $0 == .contentLengthWithTransferEncoding }),
        (.invalidContentLength, { $0 == .invalidContentLength("12abc") }),
        (.badChunkSize, { if case .invalidChunkSize = $0 { true } else { false } }),
        (.chunkSizeOverflow, { if case .chunkSizeOverflow = $0 { true } else { false } }),
        (.missingChunkTerminator, { if case .missingChunkTerminator = $0 { true } else { false } }),
        (.headerInjection, { $0 == .bareCarriageReturn }),
        (.fieldWithoutColon, { if case .invalidFieldLine = $0 { true } else { false } }),
        (.spaceBeforeColon, { if case .invalidFieldLine = $0 { true } else { false } }),
        (.http2Preface, { if case .invalidStatusLine = $0 { true } else { false } }),
        (.tlsRecord, { if case .invalidStatusLine = $0 { true } else { false } }),
        (.switchingProtocols, { $0 == .unexpectedUpgrade }),
        (.hugeHead, { if case .headTooLarge(limit: 65536, _) = $0 { true } else { false } }),
        (.tooManyFields, { if case .tooManyFields(limit: 256, _) = $0 { true } else { false } }),
        (.truncatedHead, { if case .truncatedHead = $0 { true } else { false } }),
    ]

    @Test("every /malformed/{kind} makes the response decoder throw its CodecError")
    func malformed() async throws {
        #expect(Set(Self.malformedCases.map(\.0)) == Set(MalformedResponse.allCases))
        try await withFixtureServer { server in
            for (kind, isExpected) in Self.malformedCases {
                let error = try await failure(server, "/malformed/\(kind.rawValue)")
                let codecError = try #require(error as? CodecError, "\(kind): \(String(describing: error))")
                #expect(isExpected(codecError), "\(kind): \(codecError)")
            }
        }
    }

    @Test("/extra-bytes leaves garbage after a complete response")
    func extraBytes() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            try await client.send(.get, "/extra-bytes")
            let response = try await client.readResponse()
            #expect(response.text == "ok")
            try await client.send(.get, "/json")
            // The garbage now stands where the next status line should be.
            await #expect(throws: CodecError.self) { _ = try await client.readResponse() }
            await client.close()
        }
    }

    @Test("/early-response answers 413 before the body is sent and closes")
    func earlyResponse() async throws {
        try await withFixtureServer { server in
            let client = try await RawHTTPConnection.connect(to: server)
            var head: [UInt8] = []
            let request = RequestHead(
                method: .post, target: "/early-response?status=413", fields: ["Host": "127.0.0.1"])
            try RequestEncoder.encodeHead(request, framing: .contentLength(10_000_000), into: &head)
            try await client.write(head)
            let response = try await client.readResponse(to: .post)
            #expect(response.status == 413 && !response.isKeepAlive)
            #expect(response.head.fields["Connection"] == "close")
            await client.close()
        }
    }

    @Test("/drip spreads its body over time; /delay holds the head back")
    func slowRoutes() async throws {
        try await withFixtureServer { server in
            let clock = ContinuousClock()
            let client = try await RawHTTPConnection.connect(to: server)
            let start = clock.now
            try await client.send(.get, "/drip?bytes=5&interval_ms=40")
            let dripped = try await client.readResponse()
            #expect(dripped.text == "*****")
            #expect(clock.now - start >= .milliseconds(160))
            let delayStart = clock.now
            try await client.send(.get, "/delay?ms=150")
            #expect(try await client.readResponse().status == 200)
            #expect(clock.now - delayStart >= .milliseconds(150))
            await client.close()
        }
    }

    @Test("a TLS fixture server answers over TLS with the test CA, files included")
    func tls() async throws {
        let configuration = TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("leaf.pem")),
            privateKey: .file(path: try await TestCertificates.path("leaf.key")))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fixture-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let contents = GeneratedBytes.bytes(0..<600_000, seed: 6)
        try Data(contents).write(to: directory.appendingPathComponent("data.bin"))
        try await withFixtureServer(tls: configuration, directory: directory.path) { server in
            #expect(server.baseURL == "https://127.0.0.1:\(server.port)/")
            let client = try await RawHTTPConnection.connect(
                to: server, trustRoot: .file(path: try await TestCertificates.path("ca.pem")))
            try await client.send(.get, "/bytes/300000?seed=4")
            let response = try await client.readResponse()
            try await client.send(.get, "/chunked?chunks=3&size=10&trailers=1")
            let chunked = try await client.readResponse()
            try await client.send(.get, "/files/data.bin", fields: ["Range": "bytes=100000-"])
            let file = try await client.readResponse()
            await client.close()
            #expect(response.body == GeneratedBytes.bytes(0..<300_000, seed: 4))
            #expect(chunked.trailers["X-Chunks"] == "3")
            #expect(file.status == 206 && file.body == Array(contents[100_000...]))
            #expect(server.acceptedConnections == 1)
        }
    }
}
