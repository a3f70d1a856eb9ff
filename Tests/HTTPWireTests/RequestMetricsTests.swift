// RequestMetricsTests: every response carries its timings — DNS, connect, TLS, request sent, first byte,
// complete — in order, with whether the connection was reused and how many were opened, and the peer's
// address and port.

import FixtureServer
import HTTPWire
import HTTPWireCodec
import TestSupport
import Testing

@Suite struct RequestMetricsTests {
    @Test(
        "a new connection: lookup ≤ connect ≤ sent ≤ first byte ≤ complete; then a reused one",
        .timeLimit(.scaledMinutes(1)))
    func newThenReused() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server)
            let first = try await client.get("bytes/10000").metrics
            let lookup = try #require(first.nameLookup)
            let connect = try #require(first.connect)
            let sent = try #require(first.requestSent)
            let firstByte = try #require(first.firstByte)
            let complete = try #require(first.complete)
            #expect(lookup <= connect && connect <= sent && sent <= firstByte && firstByte <= complete)
            #expect(first.tlsHandshake == nil)
            #expect(!first.isReusedConnection)
            #expect(first.connectionsOpened == 1)
            #expect(first.receivedBodyBytes == 10000)
            #expect((first.bytesPerSecond ?? 0) > 0)

            #expect(first.remoteAddress == "127.0.0.1" && first.remotePort == server.port)
            // This end: loopback, on an ephemeral port the kernel chose (never the server's).
            let localPort = try #require(first.localPort)
            #expect(first.localAddress == "127.0.0.1" && localPort > 0 && localPort != server.port)

            let second = try await client.get("json").metrics
            #expect(second.remoteAddress == "127.0.0.1" && second.remotePort == server.port, "reused: the same peer")
            #expect(second.isReusedConnection)
            #expect(second.localPort == localPort, "reused: the same connection, so the same local port")
            #expect(second.connectionsOpened == 0)
            #expect(second.nameLookup == nil && second.connect == nil)
            #expect(second.firstByte != nil && second.complete != nil)
            await client.shutdown()
        }
    }

    @Test("redirects are counted, and the times run from the start of the call", .timeLimit(.scaledMinutes(1)))
    func redirects() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server)
            let metrics = try await client.get("redirect/3").metrics
            #expect(metrics.redirects == 3)
            #expect(metrics.isReusedConnection)  // the hops after the first reuse the connection
            #expect(metrics.connectionsOpened == 1)
            await client.shutdown()
        }
    }

    @Test(
        "a streamed response is complete only once its body is read; a large body's sent time",
        .timeLimit(.scaledMinutes(1)))
    func streamed() async throws {
        try await withFixtureServer { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server)
            let response = try await client.stream(HTTPRequest(url: "drip?bytes=3&interval_ms=20"))
            #expect(response.metrics.firstByte != nil)
            #expect(response.metrics.complete == nil)
            for try await _ in response.body {}
            #expect(response.metrics.complete != nil)
            #expect(response.metrics.receivedBodyBytes == 3)
            // A body sent by the writer task: "sent" is when its last byte went out.
            let upload = try await client.post("upload", body: .bytes(Array(repeating: 1, count: 300_000))).metrics
            #expect(try #require(upload.requestSent) <= (upload.complete ?? .zero))
            await client.shutdown()
        }
    }

    @Test("https: the TLS handshake time comes after connect", .timeLimit(.scaledMinutes(1)))
    func tls() async throws {
        let caPath = try await TestCertificates.path("ca.pem")
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("leaf.pem")),
            privateKey: .file(path: try await TestCertificates.path("leaf.key")))
        try await withFixtureServer(tls: tls) { (server: FixtureServer) async throws in
            let client = ClientFixture.client(for: server) {
                $0.tls = TLSConfiguration(
                    trustsSystemRoots: false, additionalTrustRoots: [.file(path: caPath)])
            }
            let metrics = try await client.get("json").metrics
            let handshake = try #require(metrics.tlsHandshake)
            #expect(try #require(metrics.connect) <= handshake)
            #expect(handshake <= (metrics.firstByte ?? .zero))
            await client.shutdown()
        }
    }
}
