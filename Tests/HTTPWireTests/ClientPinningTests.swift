// Public-key pinning through the client against an in-process TLS FixtureServer: the right pin connects, a
// wrong one is pinnedPublicKeyMismatch (exit 90) naming the server's own pin, per-host pins replace the
// client-wide list, pins come after the certificate check (or replace it for a self-signed server when
// verification is off), and through a CONNECT tunnel the pin is the origin's. The expected pins are computed
// by the openssl tool from the certificate files, independently of the code under test.

import FixtureServer
import Foundation
import TestSupport
import Testing

@testable import HTTPWire

@Suite struct ClientPinningTests {
    /// A client trusting the test CA (unless `verifies` is false), with `pins` for every host and `byHost`.
    private func client(
        pins: [String] = [], byHost: [String: [String]] = [:], verifies: Bool = true, proxy: String? = nil
    ) async throws -> HTTPClient {
        var configuration = ClientConfiguration()
        configuration.proxy = ProxyConfiguration(allProxy: proxy)
        configuration.tls.trustsSystemRoots = false
        configuration.tls.additionalTrustRoots = [.file(path: try await TestCertificates.path("ca.pem"))]
        configuration.tls.verifiesPeer = verifies
        configuration.tls.pinnedPublicKeys = try pins.map { try #require(PublicKeyPin($0)) }
        configuration.tls.pinnedPublicKeysByHost = try byHost.mapValues { list in
            try list.map { try #require(PublicKeyPin($0)) }
        }
        return HTTPClient(configuration: configuration)
    }

    private func tlsServer(_ name: String) async throws -> TLSServerConfiguration {
        TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path(name + ".pem")),
            privateKey: .file(path: try await TestCertificates.path(name + ".key")))
    }

    private func pin(of name: String) async throws -> String {
        try await ProxyHarness.pin(ofCertificate: try await TestCertificates.path(name + ".pem"))
    }

    @Test(
        "the server's own pin connects; another key's pin is pinnedPublicKeyMismatch (exit 90)",
        .timeLimit(.scaledMinutes(3))
    )
    func matchAndMismatch() async throws {
        let leafPin = try await pin(of: "leaf")
        let otherPin = try await pin(of: "self-signed")
        try #require(leafPin != otherPin)
        try await withFixtureServer(tls: try await tlsServer("leaf")) { server in
            let url = "https://localhost:\(server.port)/bytes/10"
            let pinned = try await client(pins: [otherPin, leafPin])
            #expect(try await pinned.get(url).body.count == 10)
            await pinned.shutdown()

            let wrong = try await client(pins: [otherPin])
            let error = await #expect(throws: HTTPWireError.pinnedPublicKeyMismatch(actual: leafPin)) {
                _ = try await wrong.get(url)
            }
            #expect(error?.exitCode == 90)
            #expect(error?.description == "the server's public key \(leafPin) matches no pinned key")
            // Refused before the request: the server answered nothing.
            #expect(server.requestsServed == 1)
            await wrong.shutdown()
        }
    }

    @Test("per-host pins replace the client-wide list for that host only", .timeLimit(.scaledMinutes(3)))
    func perHost() async throws {
        let leafPin = try await pin(of: "leaf")
        let otherPin = try await pin(of: "self-signed")
        try await withFixtureServer(tls: try await tlsServer("leaf")) { server in
            let client = try await client(pins: [otherPin], byHost: ["LOCALHOST": [leafPin]])
            #expect(try await client.get("https://localhost:\(server.port)/bytes/1").status == .ok)
            await #expect(throws: HTTPWireError.pinnedPublicKeyMismatch(actual: leafPin)) {
                _ = try await client.get("https://127.0.0.1:\(server.port)/bytes/1")
            }
            await client.shutdown()
        }
    }

    @Test(
        "a pin does not replace the certificate check, unless verification is off (a self-signed server)",
        .timeLimit(.scaledMinutes(3)))
    func selfSigned() async throws {
        let selfSignedPin = try await pin(of: "self-signed")
        let leafPin = try await pin(of: "leaf")
        try await withFixtureServer(tls: try await tlsServer("self-signed")) { server in
            let url = "https://localhost:\(server.port)/bytes/5"
            let verifying = try await client(pins: [selfSignedPin])
            await #expect {
                _ = try await verifying.get(url)
            } throws: { error in
                guard case .peerCertificateRejected = error as? HTTPWireError else { return false }
                return true
            }
            await verifying.shutdown()

            let pinnedOnly = try await client(pins: [selfSignedPin], verifies: false)
            #expect(try await pinnedOnly.get(url).body.count == 5)
            await pinnedOnly.shutdown()

            let wrongPin = try await client(pins: [leafPin], verifies: false)
            await #expect(throws: HTTPWireError.pinnedPublicKeyMismatch(actual: selfSignedPin)) {
                _ = try await wrongPin.get(url)
            }
            await wrongPin.shutdown()
        }
    }

    @Test("through a CONNECT tunnel the pin checked is the origin's key", .timeLimit(.scaledMinutes(3)))
    func throughTunnel() async throws {
        let leafPin = try await pin(of: "leaf")
        let otherPin = try await pin(of: "self-signed")
        try await withProxy(.tinyproxy) { proxy in
            try await withFixtureServer(tls: try await tlsServer("leaf")) { origin in
                let url = "https://localhost:\(origin.port)/bytes/3"
                let good = try await client(pins: [leafPin], proxy: proxy.url())
                #expect(try await good.get(url).body.count == 3)
                await good.shutdown()
                let bad = try await client(pins: [otherPin], proxy: proxy.url())
                await #expect(throws: HTTPWireError.pinnedPublicKeyMismatch(actual: leafPin)) {
                    _ = try await bad.get(url)
                }
                await bad.shutdown()
            }
            #expect(proxy.log.contains("CONNECT localhost:"), "\(proxy.log)")
        }
    }
}
