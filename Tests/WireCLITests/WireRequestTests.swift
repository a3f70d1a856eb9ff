// WireRequestTests: wire's request commands run as a user runs them, against a fixture server in this
// process — bodies byte for byte, connection reuse, --parallel ordering, -i and head output, -v logging,
// request bodies, options in any order, and a reader closing the pipe early.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

@Suite(.serialized) struct WireRequestTests {
    /// The bytes of `url` as the library fetches them, to compare wire's output with.
    private func reference(_ url: String) async throws -> [UInt8] {
        let client = HTTPClient()
        let response = try await client.get(url)
        await client.shutdown()
        return response.body
    }

    @Test(
        "get writes the body to stdout byte for byte", .timeLimit(.scaledMinutes(1)),
        arguments: [0, 1, 65_535, 1_000_003])
    func bodyBytes(count: Int) async throws {
        try await withFixtureServer { server in
            let url = server.baseURL + "bytes/\(count)"
            let result = try await WireProcess.run(["get", url])
            #expect(result.status == 0)
            #expect(result.standardError.isEmpty)
            #expect(result.outputBytes.count == count)
            #expect(result.outputBytes == (try await reference(url)))
        }
    }

    @Test("several URLs are fetched in order over one kept-alive connection", .timeLimit(.scaledMinutes(1)))
    func reuse() async throws {
        try await withFixtureServer { server in
            let urls = ["bytes/100", "json", "bytes/7?seed=3", "chunked?chunks=3&size=5"].map { server.baseURL + $0 }
            let result = try await WireProcess.run(["get"] + urls)
            #expect(result.status == 0)
            var expected: [UInt8] = []
            for url in urls { expected += try await reference(url) }
            #expect(result.outputBytes == expected)
            // The references above opened their own connections: one per client.
            #expect(server.acceptedConnections == 1 + urls.count)
        }
    }

    @Test("wire get alone opens one connection for many URLs", .timeLimit(.scaledMinutes(1)))
    func oneConnection() async throws {
        try await withFixtureServer { server in
            let urls = (0..<20).map { server.baseURL + "bytes/\($0 * 10)" }
            let result = try await WireProcess.run(["get"] + urls)
            #expect(result.status == 0)
            #expect(result.outputBytes.count == (0..<20).reduce(0) { $0 + $1 * 10 })
            #expect(server.acceptedConnections == 1)
            #expect(server.requestsServed == 20)
        }
    }

    @Test(
        "--parallel runs transfers at once and still writes the bodies in the order given",
        .timeLimit(.scaledMinutes(1)))
    func parallel() async throws {
        try await withFixtureServer { server in
            // The first URL answers last; its body must still come first.
            let urls = [
                "delay?ms=600", "bytes/50", "json", "bytes/3000?seed=9", "delay?ms=200", "bytes/1",
            ].map { server.baseURL + $0 }
            let result = try await WireProcess.run(["get", "--parallel", "3"] + urls)
            #expect(result.status == 0, "\(result.standardError)")
            var expected: [UInt8] = []
            for url in urls { expected += try await reference(url) }
            #expect(result.outputBytes == expected)
            #expect(server.acceptedConnections - urls.count >= 2, "transfers overlapped on several connections")
        }
    }

    @Test(
        "--parallel --fail-early: a failure while another worker waits for the window ends the run with its code",
        .timeLimit(.scaledMinutes(1)))
    func parallelFailureReleasesTheWindow() async throws {
        try await withFixtureServer { server in
            // Two workers, a window of 8: while the first URL drips (and runs into -m 1, exit 28), the other
            // worker fetches the next seven and then waits for the first body to be written. The failure
            // must release it; a worker left waiting would keep wire running until the time limit.
            let urls =
                [server.baseURL + "drip?bytes=100&interval_ms=100"]
                + (1...12).map { server.baseURL + "bytes/10?i=\($0)" }
            let result = try await WireProcess.run(["get", "--parallel", "2", "--fail-early", "-m", "1"] + urls)
            #expect(result.status == 28, "\(result.standardError)")
            #expect(result.outputBytes.isEmpty, "nothing after the first URL is written before it")
            #expect(server.requestsServed <= 8, "the window let \(server.requestsServed) requests start")
        }
    }

    @Test("head and -i print the status line, then one Name: value line per field", .timeLimit(.scaledMinutes(1)))
    func heads() async throws {
        try await withFixtureServer { server in
            let url = server.baseURL + "headers?X-One=1&X-Two=two%20words"
            let head = try await WireProcess.run(["head", url])
            #expect(head.status == 0)
            let lines = head.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first == "HTTP/1.1 200 OK")
            #expect(lines.contains("X-One: 1"))
            #expect(lines.contains("X-Two: two words"))
            #expect(lines.dropFirst().allSatisfy { $0.contains(": ") })

            let included = try await WireProcess.run(["get", "-i", url])
            #expect(included.status == 0)
            // -i: the same head, a blank line, then the body (empty for /headers).
            let parts = included.standardOutput.components(separatedBy: "\n\n")
            #expect(parts.count == 2)
            #expect(parts[0].hasPrefix("HTTP/1.1 200 OK\n"))
            #expect(parts[0].contains("\nX-Two: two words"))
            let body = try await WireProcess.run(["get", url])
            #expect(parts[1] == body.standardOutput)
        }
    }

    @Test("post and put send --json, --data and --data @FILE; delete sends DELETE", .timeLimit(.scaledMinutes(1)))
    func bodies() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wire-body-\(UUID())").path
        try Data("from a file".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withFixtureServer { server in
            let json = try await WireProcess.run(["post", server.baseURL + "json", "--json", #"{"a":[1,2]}"#])
            #expect(json.status == 0)
            #expect(json.standardOutput == #"{"a":[1,2]}"#)

            let echoed = try await WireProcess.run(["put", "--data", "x=1&y=2", server.baseURL + "echo"])
            #expect(echoed.status == 0)
            #expect(echoed.standardOutput.contains(#""method":"PUT""#))
            #expect(echoed.standardOutput.contains("x=1&y=2"))
            #expect(echoed.standardOutput.contains("x-www-form-urlencoded"))

            let file = try await WireProcess.run(["post", server.baseURL + "echo", "--data", "@" + path])
            #expect(file.standardOutput.contains("from a file"))

            let deleted = try await WireProcess.run(["delete", server.baseURL + "echo", "-H", "X-Why: tidy"])
            #expect(deleted.status == 0)
            #expect(deleted.standardOutput.contains(#""method":"DELETE""#))
            #expect(deleted.standardOutput.contains("tidy"))
            let methods = server.requestLog.map(\.method.rawValue)
            #expect(methods == ["POST", "PUT", "POST", "DELETE"])
        }
    }

    @Test("-v shows request and response heads on stderr with credentials redacted", .timeLimit(.scaledMinutes(1)))
    func verbose() async throws {
        try await withFixtureServer { server in
            let result = try await WireProcess.run([
                "get", "-v", server.baseURL + "json", "-H", "Authorization: Bearer secret-token",
            ])
            #expect(result.status == 0)
            #expect(result.standardOutput.contains("hello from the HTTPWire fixture server"))
            let lines = result.standardError.split(separator: "\n").map(String.init)
            #expect(lines.contains("> GET /json HTTP/1.1"))
            #expect(lines.contains("> Authorization: [redacted]"))
            #expect(lines.contains("< HTTP/1.1 200 OK"))
            #expect(!result.standardError.contains("secret-token"))
            // The server did receive the real value.
            #expect(server.requestLog.first?.fields["Authorization"] == "Bearer secret-token")
        }
    }

    @Test("a non-ASCII URL is sent percent-encoded", .timeLimit(.scaledMinutes(1)))
    func nonASCII() async throws {
        try await withFixtureServer { server in
            let result = try await WireProcess.run(["get", server.baseURL + "echo?q=café crème"])
            #expect(result.status == 0)
            #expect(server.requestLog.first?.target == "/echo?q=caf%C3%A9%20cr%C3%A8me")
        }
    }

    @Test("-o writes the body to a file, and --fail leaves none behind", .timeLimit(.scaledMinutes(1)))
    func outputFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-o-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let good = try await WireProcess.run(["get", server.baseURL + "bytes/4096", "-o", directory + "/a"])
            #expect(good.status == 0)
            #expect(good.standardOutput.isEmpty)
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/a")))
            #expect(written == (try await reference(server.baseURL + "bytes/4096")))

            let failed = try await WireProcess.run([
                "get", "--fail", server.baseURL + "status/500", "-o", directory + "/b",
            ])
            #expect(failed.status == 22)
            #expect(!FileManager.default.fileExists(atPath: directory + "/b"))
        }
    }

    @Test(
        "a URL that fails does not stop the others; the last URL's outcome is the exit code (curl's rule)",
        .timeLimit(.scaledMinutes(1)))
    func goesOnAfterFailure() async throws {
        try await withFixtureServer { server in
            let base = server.baseURL
            let refused = "http://127.0.0.1:1/"
            for parallel in [[], ["--parallel", "3"]] {
                let run = try await WireProcess.run(
                    [
                        "get", "-f", base + "status/500", refused, base + "headers?X-A=1", "-w",
                        "[%{http_code} %{exitcode}]\n",
                    ]
                        + parallel)
                #expect(run.status == 0, "\(parallel)")
                #expect(run.standardOutput.hasPrefix("[500 22]\n[000 7]\n"), "\(parallel)")
                #expect(run.standardOutput.hasSuffix("[200 0]\n"), "\(parallel)")
                let errors = run.standardError.split(separator: "\n")
                #expect(errors.count == 2 && errors.allSatisfy { $0.hasPrefix("wire: error: ") }, "\(parallel)")
                // The last URL failing decides the exit code; -s keeps the earlier errors quiet too.
                let lastFails = try await WireProcess.run(
                    ["get", "-s", "-f", base + "bytes/3", base + "status/404"] + parallel)
                #expect(lastFails.status == 22 && lastFails.standardError.isEmpty, "\(parallel)")
                #expect(lastFails.outputBytes.count == 3, "\(parallel)")
            }
            // --fail-early stops at the first failure: the second URL is never asked for.
            let served = server.requestsServed
            let early = try await WireProcess.run(["get", "--fail-early", "-f", base + "status/500", base + "bytes/3"])
            #expect(early.status == 22 && early.standardOutput.isEmpty)
            #expect(server.requestsServed == served + 1)
        }
    }

    @Test("a reader closing the pipe early ends wire with exit 23, not SIGPIPE", .timeLimit(.scaledMinutes(1)))
    func closedPipe() async throws {
        try await withFixtureServer { server in
            // bash's PIPESTATUS holds wire's own status (a SIGPIPE death would be 141).
            let bash = try await WireProcess.shell(
                "exec bash -c '\"$WIRE\" get \(server.baseURL)bytes/20000000 | head -c 10 > /dev/null; echo ${PIPESTATUS[0]}'"
            )
            #expect(bash.standardOutput == "23\n")
            #expect(bash.standardError.hasPrefix("wire: error: cannot write standard output: broken pipe"))
        }
    }

    @Test("options work before and after the URLs", .timeLimit(.scaledMinutes(1)))
    func optionOrder() async throws {
        try await withFixtureServer { server in
            let url = server.baseURL + "headers?X-Answer=42"
            let before = try await WireProcess.run(["get", "-i", "-H", "X-A: b", "--fail", url])
            let after = try await WireProcess.run(["get", url, "-i", "-H", "X-A: b", "--fail"])
            #expect(before.status == 0)
            #expect(before.standardOutput.contains("X-Answer: 42\n"))
            #expect(before.standardOutput.hasPrefix("HTTP/1.1 200 OK\n"))
            #expect(before.standardOutput.count == after.standardOutput.count)
        }
    }
}
