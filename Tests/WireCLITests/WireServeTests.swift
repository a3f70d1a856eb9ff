// WireServeTests: `wire serve` run as a user runs it — it prints its base URL, serves a directory and the
// fixture routes, logs each request with its Range and If-Range fields, serves HTTPS with throwaway
// certificates that `--cacert` then trusts, and stops on Ctrl-C with exit 0. With `--unix-socket` it listens
// on a socket file that `wire get --unix-socket` reaches, and removes the file when it stops.

import Foundation
import TestSupport
import Testing

@Suite struct WireServeTests {
    /// Waits (up to 40 s, scaled) until the server has printed its base URL, and returns it
    /// (`http://127.0.0.1:PORT/`).
    private func baseURL(of server: RunningWire) async throws -> String {
        var url: String?
        _ = await eventually(within: .seconds(40)) {
            url = Self.baseURL(in: await server.outputSoFar())
            return url != nil
        }
        let printed = await server.outputSoFar()
        return try #require(url, "serve printed no base URL: \(printed)")
    }

    /// The base URL in what `serve` printed, once the whole line is there.
    private static func baseURL(in text: String) -> String? {
        guard let range = text.range(of: "the test routes at ") else { return nil }
        let rest = text[range.upperBound...]
        return rest.firstIndex(of: "\n").map { String(rest[..<$0]) }
    }

    @Test(
        "serve prints its URL, serves DIR with ranges, logs Range and If-Range, and stops on Ctrl-C",
        .timeLimit(.scaledMinutes(1)))
    func serve() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-serve-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("0123456789abcdef".utf8).write(to: URL(fileURLWithPath: directory + "/digits.txt"))

        let server = try await WireProcess.start(["serve", directory, "--log"])
        defer { server.send(SIGKILL) }  // only if the test stopped before Ctrl-C ended it
        let base = try await baseURL(of: server)
        #expect(base.hasPrefix("http://127.0.0.1:"))
        let whole = try await WireProcess.run(["get", base + "files/digits.txt"])
        #expect(whole.standardOutput == "0123456789abcdef")
        let part = try await WireProcess.run([
            "get", base + "files/digits.txt", "-H", "Range: bytes=10-", "-H", "If-Range: \"nope\"", "-i",
        ])
        // An If-Range that does not match makes the server ignore Range: the whole file, 200.
        #expect(part.standardOutput.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(part.standardOutput.hasSuffix("\n\n0123456789abcdef"))
        let ranged = try await WireProcess.run(["get", base + "files/digits.txt", "-H", "Range: bytes=10-"])
        #expect(ranged.standardOutput == "abcdef")

        server.send(SIGINT)
        let result = try await server.finish()
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("routes:"))
        let log = result.standardError.split(separator: "\n").map(String.init)
        #expect(log.contains { $0.hasSuffix("GET /files/digits.txt -> 200") })
        #expect(log.contains { $0.hasSuffix("-> 200  [Range: bytes=10-]  [If-Range: \"nope\"]") })
        #expect(log.contains { $0.hasSuffix("-> 206  [Range: bytes=10-]") })
        #expect(log.last == "wire: server stopped")
    }

    @Test("serve --tls makes a throwaway CA that --cacert trusts", .timeLimit(.scaledMinutes(1)))
    func tls() async throws {
        let server = try await WireProcess.start(["serve", "--tls"])
        defer { server.send(SIGKILL) }  // only if the test stopped before Ctrl-C ended it
        let base = try await baseURL(of: server)
        #expect(base.hasPrefix("https://127.0.0.1:"))
        let text = await server.outputSoFar()
        let caLine = try #require(text.split(separator: "\n").first { $0.contains("--cacert ") })
        let caFile = try #require(caLine.split(separator: " ").drop { $0 != "--cacert" }.dropFirst().first)

        let trusted = try await WireProcess.run(["get", base + "json", "--cacert", String(caFile)])
        #expect(trusted.status == 0, "\(trusted.standardError)")
        #expect(trusted.standardOutput.contains("hello from the HTTPWire fixture server"))
        let untrusted = try await WireProcess.run(["get", base + "json"])
        #expect(untrusted.status == 60)

        server.send(SIGINT)
        #expect(try await server.finish().status == 0)
        try? FileManager.default.removeItem(
            atPath: URL(fileURLWithPath: String(caFile)).deletingLastPathComponent().path)
    }

    @Test(
        "serve --unix-socket: get --unix-socket reaches it (Host from the URL), a missing socket is exit 7, Ctrl-C removes the file",
        .timeLimit(.scaledMinutes(1)))
    func unixSocket() async throws {
        let path = "/tmp/wire-\(UUID().uuidString.prefix(8)).sock"
        let server = try await WireProcess.start(["serve", "--unix-socket", path, "--log"])
        defer { server.send(SIGKILL) }  // only if the test stopped before Ctrl-C ended it
        let base = try await baseURL(of: server)
        #expect(base == "http://localhost/")
        #expect(await server.outputSoFar().contains("wire get --unix-socket \(path) http://localhost/json"))

        let fetched = try await WireProcess.run([
            "get", "--unix-socket", path, "http://app.example.test/json", "-w", "|%{http_code}",
        ])
        #expect(fetched.status == 0, "\(fetched.standardError)")
        #expect(fetched.standardOutput.contains("hello from the HTTPWire fixture server"))
        #expect(fetched.standardOutput.hasSuffix("|200"))
        let verbose = try await WireProcess.run(["head", "-v", "--unix-socket", path, "http://app.example.test/json"])
        #expect(verbose.standardError.contains("* connected to http://app.example.test:80 via \(path)"))
        #expect(verbose.standardError.contains("> Host: app.example.test"))

        let missing = try await WireProcess.run(["get", "--unix-socket", path + ".gone", "http://localhost/json"])
        #expect(missing.status == 7)
        #expect(missing.standardError.hasPrefix("wire: error: could not connect to \(path).gone: "))

        server.send(SIGINT)
        let result = try await server.finish()
        #expect(result.status == 0)
        #expect(result.standardError.contains("unnamed unix socket: GET /json -> 200"))
        #expect(!FileManager.default.fileExists(atPath: path), "the socket file is removed on Ctrl-C")
    }
}
