// WireCookieTests: wire's `-b` and `-c` run as a user runs them, against a fixture server in this process —
// a session carried from one run to the next through `-c FILE` and `-b FILE`, cookies given as text, a
// cookie file written after a failed transfer with the failure's exit code, curl's parsing rule, and a
// session with httpbin.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

@testable import wire

@Suite struct WireCookieTests {
    /// A fresh temporary directory for one test's files.
    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wire-cookies-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `value` percent-encoded for a query parameter.
    private func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    }

    /// The `Cookie` value the fixture's `/cookies/...` echo reports in `output`, or nil.
    private func echoedCookie(_ output: String) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return object?["cookie"] as? String
    }

    @Test("-b with '=' is cookies to send, anything else a file; -c names the jar's file")
    func parsing() throws {
        guard case .run(let parsed) = try Arguments.parse(["get", "u", "-b", "a=1; b=2", "-b", "jar.txt", "-c", "out"])
        else {
            Issue.record("did not parse")
            return
        }
        #expect(CookieOptions.cookieText(for: parsed) == "a=1; b=2")
        #expect(CookieOptions.files(for: parsed) == ["jar.txt"])
        #expect(parsed.cookieJarPath == "out")
        #expect(Help.text(for: .get).contains("--cookie-jar FILE"))
    }

    @Test(
        "-c FILE keeps the cookies a run received and -b FILE sends them in the next run", .timeLimit(.scaledMinutes(1))
    )
    func session() async throws {
        try await withFixtureServer { server in
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let file = directory + "/cookies.txt"
            let set =
                server.baseURL + "cookies/set?a=\(encoded("session=abc; Path=/"))&b=\(encoded("x=1; Path=/; HttpOnly"))"
            let first = try await WireProcess.run(["get", set, "-c", file])
            #expect(first.status == 0, "\(first.standardError)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
            #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc\n"))
            #expect(text.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tx\t1\n"))
            let second = try await WireProcess.run(["get", server.baseURL + "cookies/echo", "-b", file])
            #expect(second.status == 0, "\(second.standardError)")
            #expect(try echoedCookie(second.standardOutput) == "session=abc; x=1")
        }
    }

    @Test(
        "-b 'name=value' sends the cookies as typed; a missing -b FILE is an empty jar", .timeLimit(.scaledMinutes(1)))
    func textAndMissingFile() async throws {
        try await withFixtureServer { server in
            let text = try await WireProcess.run(["get", server.baseURL + "cookies/echo", "-b", "a=1; b=2"])
            #expect(text.status == 0)
            #expect(try echoedCookie(text.standardOutput) == "a=1; b=2")
            let missing = try await WireProcess.run([
                "get", server.baseURL + "cookies/echo", "-b", "/nonexistent-\(UUID())",
            ])
            #expect(missing.status == 0, "\(missing.standardError)")
            #expect(try echoedCookie(missing.standardOutput) == nil)
        }
    }

    @Test(
        "-c FILE is written after a failed transfer, and the exit code is the failure's", .timeLimit(.scaledMinutes(1)))
    func writtenAfterFailure() async throws {
        try await withFixtureServer { server in
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let file = directory + "/cookies.txt"
            // A redirect that sets a cookie, to a 404: --fail makes it exit 22.
            let url =
                server.baseURL + "cookies/set?a=\(encoded("kept=1; Path=/"))&location=\(encoded("/status/404"))"
            let result = try await WireProcess.run(["get", "--fail", url, "-c", file])
            #expect(result.status == 22)
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\tkept\t1\n"))
            // A -c FILE that cannot be written after a success is exit 23, curl's write error.
            let unwritable = try await WireProcess.run([
                "get", server.baseURL + "cookies/echo", "-c", directory + "/missing/dir/cookies.txt",
            ])
            #expect(unwritable.status == 23)
            #expect(unwritable.standardError.hasPrefix("wire: error: "))
        }
    }

    @Test(
        "against httpbin: -c keeps what /cookies/set set on its redirect, -b sends it back",
        .timeLimit(.scaledMinutes(1)))
    func httpbin() async throws {
        try await withHttpbin { base in
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let file = directory + "/cookies.txt"
            // /cookies/set answers 302 to /cookies; wire follows it, sending the cookie on the second hop.
            let set = try await WireProcess.run(["get", base + "/cookies/set?flavour=oat", "-c", file])
            #expect(set.status == 0, "\(set.standardError)")
            #expect(set.standardOutput.contains("\"flavour\": \"oat\""))
            let again = try await WireProcess.run(["get", base + "/cookies", "-b", file])
            #expect(again.standardOutput.contains("\"flavour\": \"oat\""))
        }
    }
}
