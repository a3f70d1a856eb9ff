// WireExitCodeTests: every curl exit code wire promises, produced by the built binary against a fixture
// server started in this process: the exit status and the one `wire: error: ...` line on stderr.

import FixtureServer
import Foundation
import HTTPWire
import HTTPWireTransport
import TestSupport
import Testing

/// One failure to provoke: the arguments (with `{base}` for the server's base URL), the exit status, and
/// the exact stderr line (or its beginning, when it carries an OS message).
struct FailureCase: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var status: Int32
    var line: String
    var isPrefix = false
    /// Whether bytes may reach stdout first (a truncated body is written as far as it came, as curl does).
    var writesPartialBody = false
    var testDescription: String { "exit \(status): \(arguments.joined(separator: " "))" }
}

// Serialized: each case starts a wire process, and dozens at once on two shared cores turn timeouts into
// flakes; the suites still run beside each other.
@Suite(.serialized) struct WireExitCodeTests {
    static let cases: [FailureCase] = [
        FailureCase(
            arguments: ["get", "ftp://example.test/"], status: 2, line: "wire: error: invalid URL", isPrefix: true),
        FailureCase(arguments: ["get", "http://"], status: 2, line: "wire: error: invalid URL", isPrefix: true),
        FailureCase(
            arguments: ["get", "http://no-such-host.invalid/"], status: 6,
            line: "wire: error: could not resolve host no-such-host.invalid"),
        FailureCase(
            arguments: ["get", "{base}malformed/bad-status-line"], status: 8, line: "wire: error: malformed response: ",
            isPrefix: true),
        FailureCase(
            arguments: ["get", "{base}truncate?announce=100&send=40"], status: 18,
            line: "wire: error: body ended after 40 of 100 bytes", writesPartialBody: true),
        FailureCase(
            arguments: ["get", "--fail", "{base}status/404"], status: 22,
            line: "wire: error: server answered with status 404"),
        FailureCase(
            arguments: ["get", "{base}json", "-o", "/nonexistent-wire-dir/out"], status: 23,
            line: "wire: error: cannot write /nonexistent-wire-dir/out: no such file or directory (errno 2)"),
        FailureCase(
            arguments: ["get", "{base}json", "-o", "/proc/version"], status: 23,
            line: "wire: error: cannot write /proc/version: ", isPrefix: true),
        FailureCase(
            arguments: ["post", "{base}upload", "--data", "@/nonexistent-wire-file"], status: 26,
            line: "wire: error: cannot read /nonexistent-wire-file: no such file or directory (errno 2)"),
        FailureCase(
            arguments: ["upload", "{base}upload", "-F", "a=1", "-F", "f=@/nonexistent-wire-file"], status: 26,
            line: "wire: error: cannot read /nonexistent-wire-file: no such file or directory (errno 2)"),
        FailureCase(
            arguments: ["get", "--timeout", "0.3", "{base}delay?ms=5000"], status: 28,
            line: "wire: error: timed out (total)"),
        FailureCase(
            arguments: ["get", "--max-redirects", "3", "{base}redirect/20"], status: 47,
            line: "wire: error: more than 3 redirects"),
        FailureCase(
            arguments: ["get", "{base}close-immediately"], status: 52,
            line: "wire: error: server closed the connection without sending a response"),
        FailureCase(
            arguments: ["get", "{base}reset"], status: 56,
            line: "wire: error: receive failed: connection reset by peer (errno 104)"),
    ]

    @Test(
        "each failure exits with curl's code and prints one error line", .timeLimit(.scaledMinutes(1)), arguments: cases
    )
    func failure(_ failure: FailureCase) async throws {
        try await withFixtureServer { server in
            let arguments = failure.arguments.map { $0.replacingOccurrences(of: "{base}", with: server.baseURL) }
            let result = try await WireProcess.run(arguments)
            #expect(result.status == failure.status)
            #expect(failure.writesPartialBody ? result.outputBytes.count == 40 : result.standardOutput.isEmpty)
            let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(result.standardError)")
            if failure.isPrefix {
                #expect(result.standardError.hasPrefix(failure.line), "\(result.standardError)")
            } else {
                #expect(result.standardError == failure.line + "\n")
            }
        }
    }

    @Test("a closed port exits 7", .timeLimit(.scaledMinutes(1)))
    func closedPort() async throws {
        // A port held by a bound socket that never listens, for as long as wire runs.
        try await withClosedPort { port in
            let result = try await WireProcess.run(["get", "http://127.0.0.1:\(port)/"])
            #expect(result.status == 7)
            #expect(
                result.standardError
                    == "wire: error: could not connect to 127.0.0.1 port \(port): connection refused (errno 111)\n")
        }
    }

    @Test("a reset while the request body is being sent exits 55 or 56", .timeLimit(.scaledMinutes(1)))
    func resetDuringUpload() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wire-reset-\(UUID())").path
        try Data(count: 8 << 20).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withFixtureServer { server in
            let result = try await WireProcess.run(["post", server.baseURL + "reset", "--data", "@" + path])
            #expect(result.status == 55 || result.status == 56, "\(result.standardError)")
            #expect(
                result.standardError.hasPrefix("wire: error: send failed: ")
                    || result.standardError.hasPrefix("wire: error: receive failed: "))
        }
    }

    @Test("a server that does not speak TLS exits 35", .timeLimit(.scaledMinutes(1)))
    func tlsHandshakeFailure() async throws {
        // A plain listener that answers the ClientHello with an HTTP error, as a plain server would.
        let listener = try Listener.bind()
        let serving = Task(executorPreference: ServerExecutor.shared) {
            while let socket = try? await listener.accept() {
                var buffer: [UInt8] = []
                _ = try? await socket.read(
                    into: &buffer, maxBytes: 4096, deadline: .after(.seconds(5).scaled))
                try? await socket.write(
                    Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)[...],
                    deadline: .after(.seconds(5).scaled))
                await socket.close()
            }
        }
        defer { serving.cancel() }
        let result = try await WireProcess.run([
            "get", "--connect-timeout", "\(Int(30 * TestTime.scale))", "https://127.0.0.1:\(listener.port)/",
        ])
        await listener.close()
        #expect(result.status == 35)
        #expect(result.standardError.hasPrefix("wire: error: tls handshake failed: "), "\(result.standardError)")
    }

    @Test(
        "an untrusted or misnamed certificate exits 60; the right CA passes", .timeLimit(.scaledMinutes(1)),
        arguments: [("leaf", false, 60), ("wrong-host", true, 60), ("leaf", true, 0)])
    func certificate(leaf: String, trustsCA: Bool, status: Int32) async throws {
        let directory = try #require(await TestCertificates.directory, "make-certs.sh failed")
        let tls = TLSServerConfiguration(
            certificateChain: .file(path: "\(directory)/\(leaf).pem"),
            privateKey: .file(path: "\(directory)/\(leaf).key"))
        try await withFixtureServer(tls: tls) { server in
            let caOption = trustsCA ? ["--cacert", "\(directory)/ca.pem"] : []
            let result = try await WireProcess.run(["get", server.baseURL + "json"] + caOption)
            #expect(result.status == status, "\(result.standardError)")
            if status == 60 {
                #expect(result.standardError.hasPrefix("wire: error: peer certificate rejected: "))
            } else {
                #expect(result.standardOutput.contains("hello from the HTTPWire fixture server"))
            }
        }
    }
}
