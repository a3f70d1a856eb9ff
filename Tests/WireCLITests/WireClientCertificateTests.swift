// WireClientCertificateTests: `wire -E/--cert FILE [--key FILE]`, curl's options for mutual TLS, against a
// fixture server that requires a client certificate issued by the test CA: the certificate and key in two
// files or in one, no certificate (refused by the server), and a key that does not match (exit 58, curl's
// CURLE_SSL_CERTPROBLEM, before anything is sent).

import FixtureServer
import Foundation
import TestSupport
import Testing

@testable import wire

@Suite struct WireClientCertificateTests {
    @Test("--key needs --cert; --cert alone reads the key from its own file")
    func parsing() throws {
        #expect(usageMessage(["get", "--key", "k.pem", "u"]) == "--key needs --cert")
        let both = ClientSettings.configuration(for: try parsedCommand(["get", "-E", "both.pem", "u"]))
        #expect(both.tls.clientCertificateChain == .file(path: "both.pem"))
        #expect(both.tls.clientPrivateKey == .file(path: "both.pem"))
        let apart = ClientSettings.configuration(
            for: try parsedCommand(["get", "--cert", "c.pem", "--key", "k.pem", "u"]))
        #expect(apart.tls.clientPrivateKey == .file(path: "k.pem"))
    }

    @Test(
        "mutual TLS: --cert and --key, or one file, are accepted; none is refused; a mismatched key is exit 58",
        .timeLimit(.scaledMinutes(2)))
    func mutualTLS() async throws {
        let ca = try await TestCertificates.path("ca.pem")
        let client = try await TestCertificates.path("client.pem")
        let clientKey = try await TestCertificates.path("client.key")
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: try await TestCertificates.path("leaf.pem")),
            privateKey: .file(path: try await TestCertificates.path("leaf.key")),
            clientCertificateTrustRoots: [.file(path: ca)])
        let combined = FileManager.default.temporaryDirectory.appendingPathComponent("wire-identity-\(UUID()).pem").path
        defer { try? FileManager.default.removeItem(atPath: combined) }
        let identity =
            try String(contentsOfFile: client, encoding: .utf8) + String(contentsOfFile: clientKey, encoding: .utf8)
        try identity.write(toFile: combined, atomically: true, encoding: .utf8)

        try await withFixtureServer(tls: tls) { server in
            let url = "https://localhost:\(server.port)/json"
            let apart = try await WireProcess.run(["get", "--cacert", ca, "--cert", client, "--key", clientKey, url])
            #expect(apart.status == 0, "\(apart.standardError)")
            #expect(apart.standardOutput.contains("hello from the HTTPWire fixture server"))
            let together = try await WireProcess.run(["get", "--cacert", ca, "-E", combined, url])
            #expect(together.status == 0, "\(together.standardError)")

            let none = try await WireProcess.run(["get", "--cacert", ca, url])
            // Under TLS 1.3 the refusal is an alert after the handshake, read as the response (56, as curl's);
            // a send that meets the closed connection first would be 55, TLS 1.2 a failed handshake (35). Never 58.
            #expect([35, 55, 56].contains(none.status), "the server refuses: \(none.status) \(none.standardError)")

            let mismatched = try await WireProcess.run([
                "get", "--cacert", ca, "--cert", client, "--key", try await TestCertificates.path("leaf.key"), url,
            ])
            #expect(mismatched.status == 58)
            #expect(
                mismatched.standardError.hasPrefix("wire: error: local certificate: "), "\(mismatched.standardError)")
        }
    }
}
