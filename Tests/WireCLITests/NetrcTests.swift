// NetrcTests: wire's `-n`/`--netrc-file` — the .netrc format as ftp and curl read it (machines, default,
// quoted tokens, macros skipped), and credentials sent per hop: the file fills in only what the request
// lacks, and a redirect to another host gets that host's entry or none.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

@testable import wire

@Suite struct NetrcTests {
    @Test("machines, default, quoted tokens with escapes, macros skipped, hosts compared without case")
    func parsing() throws {
        let netrc = Netrc(
            parsing: """
                # a comment-like word is just skipped
                machine API.example.test login ada password "s3cret \\"pass\\"\\tx"
                machine other.test
                    login bob
                macdef init
                machine inside.macro login evil password evil

                machine files.test account acct login carol password c
                default login anon password guest
                machine after.default login dave password d
                """)
        #expect(netrc.credentials(forHost: "api.example.test")! == ("ada", "s3cret \"pass\"\tx"))
        #expect(netrc.credentials(forHost: "other.test")! == ("bob", ""))
        #expect(netrc.credentials(forHost: "files.test")! == ("carol", "c"))
        #expect(netrc.credentials(forHost: "inside.macro")! == ("anon", "guest"), "the macro's body is not entries")
        #expect(netrc.credentials(forHost: "unknown.test")! == ("anon", "guest"))
        #expect(netrc.credentials(forHost: "after.default")! == ("dave", "d"))
        #expect(Netrc(parsing: "machine a.test login x").credentials(forHost: "b.test") == nil)
        #expect(Netrc(parsing: "machine").entries.isEmpty)
        #expect(try parsedCommand(["get", "-n", "u"]).netrc == .home)
        #expect(try parsedCommand(["get", "--netrc-file", "f", "u"]).netrc == .file("f"))
    }

    @Test(
        "--netrc-file sends the host's login; -u wins; a redirect to another host does not carry it",
        .timeLimit(.scaledMinutes(1)))
    func perHop() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wire-netrc-\(UUID())").path
        try Data("machine 127.0.0.1 login ada password \"pa ss\"\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withFixtureServer { server in
            func authorizations(_ arguments: [String]) async throws -> [String?] {
                let before = server.requestLog.count
                let result = try await WireProcess.run(arguments)
                #expect(result.status == 0, "\(arguments): \(result.standardError)")
                return server.requestLog.dropFirst(before).map { $0.fields["Authorization"] }
            }
            let basic = "Basic " + Data("ada:pa ss".utf8).base64EncodedString()
            #expect(try await authorizations(["get", "--netrc-file", path, server.baseURL + "json"]) == [basic])
            let user = "Basic " + Data("bob:pw".utf8).base64EncodedString()
            #expect(
                try await authorizations(["get", "--netrc-file", path, "-u", "bob:pw", server.baseURL + "json"]) == [
                    user
                ])
            // 127.0.0.1 redirects to localhost, which the file does not name.
            let elsewhere = "http://localhost:\(server.port)/json"
            #expect(
                try await authorizations([
                    "get", "--netrc-file", path, server.baseURL + "redirect-to?url=" + elsewhere,
                ]) == [basic, nil])
            let missing = try await WireProcess.run(["get", "--netrc-file", path + ".missing", server.baseURL + "json"])
            #expect(missing.status == 26)
        }
    }
}
