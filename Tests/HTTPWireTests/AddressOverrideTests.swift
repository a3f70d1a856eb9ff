// AddressOverrideTests: `ClientConfiguration.addressOverrides` (curl's --resolve) — a host:port dialled at
// the given literals while Host, SNI and the certificate check keep the URL's name; only the named port
// is affected; a value that is no IP literal fails as an unresolvable name. And `hostOverrides` (curl's
// --connect-to): another host and port for the connection alone, with curl's empty parts, composed with
// addressOverrides.

import FixtureServer
import HTTPWire
import TestSupport
import Testing

@Suite struct AddressOverrideTests {
    @Test("a name that DNS does not know reaches the override's address; Host keeps the URL's name")
    func plainHTTP() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server) {
                $0.baseURL = nil
                $0.addressOverrides["API.example.test:\(server.port)"] = ["[::1]", "127.0.0.1"]
            }
            let response = try await client.get("http://api.EXAMPLE.test:\(server.port)/json")
            #expect(response.status == .ok)
            // ::1 was tried first and refused (the server listens on 127.0.0.1): the metrics name the winner.
            #expect(response.metrics.remoteAddress == "127.0.0.1" && response.metrics.remotePort == server.port)
            let head = try #require(server.requestLog.last)
            #expect(head.fields["Host"] == "api.example.test:\(server.port)")
            await client.shutdown()
        }
    }

    @Test("only the named port is overridden; a value that is not an IP literal is exit 6")
    func portAndLiterals() async throws {
        try await withFixtureServer { server in
            // An override for another port of localhost: this port still goes through the name lookup.
            let other = ClientFixture.client(for: server) {
                $0.baseURL = nil
                $0.addressOverrides["localhost:\(server.port == 1 ? 2 : 1)"] = ["192.0.2.1"]
            }
            #expect(try await other.get("http://localhost:\(server.port)/json").status == .ok)
            await other.shutdown()

            let named = ClientFixture.client(for: server) {
                $0.baseURL = nil
                $0.addressOverrides["api.example.test:\(server.port)"] = ["localhost"]
            }
            let error = try await #require(throws: HTTPWireError.self) {
                _ = try await named.get("http://api.example.test:\(server.port)/json")
            }
            #expect(error == .couldNotResolveHost("api.example.test"))
            await named.shutdown()
        }
    }

    @Test(
        "https: the certificate is checked against the URL's name, not the address dialled",
        .timeLimit(.scaledMinutes(1)))
    func certificateName() async throws {
        let caPath = try await TestCertificates.path("ca.pem")
        // A certificate for wrong.example only, served on 127.0.0.1.
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("wrong-host.pem")),
            privateKey: .file(path: try await TestCertificates.path("wrong-host.key")))
        try await withFixtureServer(tls: tls) { server in
            let client = ClientFixture.client(for: server) {
                $0.baseURL = nil
                $0.tls = TLSConfiguration(trustsSystemRoots: false, additionalTrustRoots: [.file(path: caPath)])
                $0.addressOverrides["wrong.example:\(server.port)"] = ["127.0.0.1"]
                $0.addressOverrides["localhost:\(server.port)"] = ["127.0.0.1"]
            }
            #expect(try await client.get("https://wrong.example:\(server.port)/json").status == .ok)
            // The same address under another name: that name is not in the certificate.
            let error = try await #require(throws: HTTPWireError.self) {
                _ = try await client.get("https://localhost:\(server.port)/json")
            }
            #expect(error.exitCode == 60, "\(error)")
            await client.shutdown()
        }
    }

    @Test(
        "hostOverrides: the connection goes to another host:port, Host keeps the URL's; empty parts; bad value is exit 6"
    )
    func hostOverrides() async throws {
        try await withFixtureServer { server in
            let client = ClientFixture.client(for: server) {
                $0.baseURL = nil
                $0.hostOverrides["API.example.test:80"] = "127.0.0.1:\(server.port)"
            }
            let response = try await client.get("http://api.example.test/json")
            #expect(response.status == .ok && response.metrics.remotePort == server.port)
            #expect(server.requestLog.last?.fields["Host"] == "api.example.test")
            await client.shutdown()

            // ":80" is any host on port 80; ":PORT" keeps the host, which addressOverrides then resolves.
            let composed = ClientFixture.client(for: server) {
                $0.baseURL = nil
                $0.hostOverrides[":80"] = ":\(server.port)"
                $0.addressOverrides["other.example.test:\(server.port)"] = ["127.0.0.1"]
            }
            #expect(try await composed.get("http://other.example.test/json").status == .ok)
            #expect(server.requestLog.last?.fields["Host"] == "other.example.test")
            await composed.shutdown()

            let bad = ClientFixture.client(for: server) {
                $0.baseURL = nil
                $0.hostOverrides["api.example.test:80"] = "no port here"
            }
            let error = try await #require(throws: HTTPWireError.self) {
                _ = try await bad.get("http://api.example.test/")
            }
            #expect(error.exitCode == 6, "\(error)")
            await bad.shutdown()
        }
    }

    @Test("hostOverrides with https: the certificate is checked against the URL's name", .timeLimit(.scaledMinutes(1)))
    func hostOverridesTLS() async throws {
        let caPath = try await TestCertificates.path("ca.pem")
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("leaf.pem")),
            privateKey: .file(path: try await TestCertificates.path("leaf.key")))
        try await withFixtureServer(tls: tls) { server in
            let client = ClientFixture.client(for: server) {
                $0.baseURL = nil
                $0.tls = TLSConfiguration(trustsSystemRoots: false, additionalTrustRoots: [.file(path: caPath)])
                $0.hostOverrides["localhost:443"] = "127.0.0.1:\(server.port)"
                $0.hostOverrides["wrong.example:443"] = "127.0.0.1:\(server.port)"
            }
            #expect(try await client.get("https://localhost/json").status == .ok)
            let error = try await #require(throws: HTTPWireError.self) {
                _ = try await client.get("https://wrong.example/json")
            }
            #expect(error.exitCode == 60, "the certificate does not name wrong.example: \(error)")
            await client.shutdown()
        }
    }
}
