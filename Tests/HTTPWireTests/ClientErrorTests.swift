// Every failure class of HTTPWireError produced end to end by a fixture route, checked for its case, its
// curl exit code and its one-line message: malformed (8), truncated (18), empty reply (52), reset (56),
// could not connect (7), could not resolve (6), TLS rejection (60) and handshake failure (35).

import FixtureServer
import HTTPWireCodec
import TestSupport
import Testing

@testable import HTTPWire
@testable import HTTPWireTransport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ClientErrorTests {
    /// Runs `GET path` on a fresh client and returns the HTTPWireError it throws.
    static func failure(_ path: String, on server: FixtureServer) async throws -> HTTPWireError {
        let client = ClientFixture.client(for: server)
        defer { Task { await client.shutdown() } }
        do {
            let response = try await client.get(path)
            Issue.record("GET \(path) succeeded with \(response.status)")
            throw HTTPWireError.emptyReply
        } catch let error as HTTPWireError {
            #expect(!error.description.contains("\n"), "a message is one line: \(error.description)")
            return error
        }
    }

    @Test(
        "every malformed response is exit 8", .timeLimit(.scaledMinutes(1)),
        arguments: MalformedResponse.allCases)
    func malformed(kind: MalformedResponse) async throws {
        try await withFixtureServer { server in
            let error = try await Self.failure("malformed/\(kind.rawValue)", on: server)
            guard case .malformedResponse = error else {
                Issue.record("\(kind.rawValue): \(error)")
                return
            }
            #expect(error.exitCode == 8)
            #expect(error.description.hasPrefix("malformed response: "))
        }
    }

    @Test("a body cut short is exit 18 with both numbers", .timeLimit(.scaledMinutes(1)))
    func truncated() async throws {
        try await withFixtureServer { server in
            let cut = try await Self.failure("truncate?announce=100&send=40", on: server)
            #expect(cut == .bodyTruncated(expected: 100, received: 40))
            #expect(cut.exitCode == 18)
            #expect(cut.description == "body ended after 40 of 100 bytes")
            let afterHead = try await Self.failure("close-after-head", on: server)
            #expect(afterHead == .bodyTruncated(expected: 100, received: 0))
            let chunked = try await Self.failure("truncate?announce=100&send=30&chunked=1", on: server)
            guard case .bodyTruncated(_, let received) = chunked else {
                Issue.record("chunked truncation: \(chunked)")
                return
            }
            #expect(received == 30)
        }
    }

    @Test("a close before any response byte is an empty reply, exit 52", .timeLimit(.scaledMinutes(1)))
    func emptyReply() async throws {
        try await withFixtureServer { server in
            let error = try await Self.failure("close-immediately", on: server)
            #expect(error == .emptyReply)
            #expect(error.exitCode == 52)
        }
    }

    @Test("a reset is a receive failure with ECONNRESET, exit 56", .timeLimit(.scaledMinutes(1)))
    func reset() async throws {
        try await withFixtureServer { server in
            let error = try await Self.failure("reset", on: server)
            #expect(error == .receiveFailed(errno: ECONNRESET))
            #expect(error.exitCode == 56)
            #expect(error.description.contains("(errno \(ECONNRESET))"))
        }
    }

    @Test("a closed port is couldNotConnect with ECONNREFUSED, exit 7", .timeLimit(.scaledMinutes(1)))
    func couldNotConnect() async throws {
        // Held by a bound socket that never listens: no other test's server can be given this port meanwhile.
        try await withClosedPort { port in
            let client = HTTPClient()
            await #expect(throws: HTTPWireError.couldNotConnect(host: "127.0.0.1", port: port, errno: ECONNREFUSED)) {
                _ = try await client.get("http://127.0.0.1:\(port)/json")
            }
            await client.shutdown()
        }
        #expect(HTTPWireError.couldNotConnect(host: "h", port: 1, errno: ECONNREFUSED).exitCode == 7)
    }

    @Test("a name under .invalid cannot be resolved, exit 6", .timeLimit(.scaledMinutes(1)))
    func couldNotResolve() async throws {
        let client = HTTPClient()
        await #expect(throws: HTTPWireError.couldNotResolveHost("no-such-host.invalid")) {
            _ = try await client.get("http://no-such-host.invalid/json")
        }
        #expect(HTTPWireError.couldNotResolveHost("x").exitCode == 6)
        await client.shutdown()
    }

    @Test(
        "TLS: trusted test CA works; an untrusted or wrong-host certificate is exit 60", .timeLimit(.scaledMinutes(1)))
    func certificateRejected() async throws {
        let caPath = try await TestCertificates.path("ca.pem")
        for (leaf, reason) in [
            ("leaf", "unable to get local issuer certificate"), ("wrong-host", "ip address mismatch"),
        ] {
            let tls = TLSServerConfiguration(
                certificateChain: .file(path: try await TestCertificates.path(leaf + ".pem")),
                privateKey: .file(path: try await TestCertificates.path(leaf + ".key")))
            try await withFixtureServer(tls: tls) { server in
                if leaf == "leaf" {
                    let trusting = ClientFixture.client(for: server) {
                        $0.tls = TLSConfiguration(
                            trustsSystemRoots: false, additionalTrustRoots: [.file(path: caPath)])
                    }
                    #expect(try await trusting.get("json").status == .ok)
                    #expect(try await trusting.get("bytes/100000").body.count == 100_000)
                    #expect(trusting.connectionsOpened == 1)
                    await trusting.shutdown()
                }
                // Only the system store: the throwaway CA is unknown. With the CA, wrong-host fails the name.
                let client = ClientFixture.client(for: server) {
                    if leaf == "wrong-host" {
                        $0.tls.additionalTrustRoots = [.file(path: caPath)]
                    }
                }
                let error = try await #require(throws: HTTPWireError.self) { _ = try await client.get("json") }
                #expect(error == .peerCertificateRejected(reason), "\(leaf): \(error)")
                #expect(error.exitCode == 60)
                await client.shutdown()
            }
        }
    }

    @Test("TLS to a server that answers in plain HTTP is a handshake failure, exit 35", .timeLimit(.scaledMinutes(1)))
    func handshakeFailed() async throws {
        // A plain-HTTP server that answers whatever arrives with a 400, as one does to a TLS ClientHello.
        let listener = try Listener.bind()
        let server = Task(executorPreference: ServerExecutor.shared) {
            while let socket = try? await listener.accept() {
                var buffer: [UInt8] = []
                _ = try? await socket.read(
                    into: &buffer, maxBytes: 65536, deadline: .after(.seconds(5).scaled))
                let answer = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                try? await socket.write(Array(answer.utf8), deadline: .after(.seconds(5).scaled))
                await socket.close()
            }
        }
        let client = HTTPClient()
        let error = try await #require(throws: HTTPWireError.self) {
            _ = try await client.get("https://127.0.0.1:\(listener.port)/json")
        }
        if case .tlsHandshakeFailed = error {
            #expect(error.exitCode == 35)
        } else {
            Issue.record("expected tlsHandshakeFailed, got \(error)")
        }
        await client.shutdown()
        await listener.close()
        await server.value
    }

    @Test("a request that cannot be sent honestly is refused before connecting", .timeLimit(.scaledMinutes(1)))
    func invalidRequest() async throws {
        let client = HTTPClient()
        let injected = try await #require(throws: HTTPWireError.self) {
            _ = try await client.get("http://127.0.0.1:9/", fields: ["X-Evil": "a\r\nHost: other"])
        }
        #expect(injected.exitCode == 2)
        let url = try await #require(throws: HTTPWireError.self) { _ = try await client.get("ftp://example.test/") }
        #expect(url.exitCode == 2)
        #expect(client.connectionsOpened == 0)
        await client.shutdown()
    }
}
