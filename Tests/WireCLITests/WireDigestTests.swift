// WireDigestTests: `wire --digest -u USER:PASSWORD`, curl's option for HTTP Digest authentication (RFC 7616),
// as a user runs it against httpbin: the challenge answered and the page fetched, wrong credentials failing
// with -f as curl does, and the option's parsing (`--basic` turns it back off; `--digest` needs -u).

import TestSupport
import Testing

@testable import wire

@Suite struct WireDigestTests {
    @Test("--digest needs -u; --basic after it restores Basic; the client gets the middleware, not Basic")
    func parsing() throws {
        #expect(usageMessage(["get", "--digest", "u"]) == "--digest needs -u USER:PASSWORD")
        let digest = try parsedCommand(["get", "--digest", "-u", "ada:pw", "u"])
        #expect(digest.digest)
        let configuration = ClientSettings.configuration(for: digest)
        #expect(configuration.authorization == nil)
        #expect(configuration.middleware.count == 1)
        #expect(try parsedCommand(["get", "--digest", "--basic", "-u", "ada:pw", "u"]).digest == false)
    }

    @Test(
        "wire get --digest -u answers httpbin's challenge (MD5 and SHA-256); a wrong password is exit 22 with -f",
        .timeLimit(.scaledMinutes(2)))
    func httpbin() async throws {
        try await withHttpbin { base in
            for algorithm in ["MD5", "SHA-256"] {
                let result = try await WireProcess.run([
                    "get", "-f", "--digest", "-u", "user:passwd", base + "/digest-auth/auth/user/passwd/\(algorithm)",
                    "-w", "|%{http_code} %{num_retries}",
                ])
                #expect(result.status == 0, "\(algorithm): \(result.standardError)")
                #expect(result.standardOutput.contains("\"authenticated\": true"))
                #expect(result.standardOutput.hasSuffix("|200 1"))
            }
            let wrong = try await WireProcess.run([
                "get", "-f", "--digest", "-u", "user:nope", base + "/digest-auth/auth/user/passwd/MD5",
            ])
            #expect(wrong.status == 22)
            // Without --digest the same credentials go as Basic, which this endpoint does not take.
            let basic = try await WireProcess.run([
                "get", "-f", "-u", "user:passwd", base + "/digest-auth/auth/user/passwd/MD5",
            ])
            #expect(basic.status == 22)
        }
    }
}
