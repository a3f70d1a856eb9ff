// OutputFormattingTests: the pieces of wire that shape what a user sees, tested in this process — the
// printed head, the -v log lines, the buffered body output and its write errors, and the restart reasons.

import Foundation
import HTTPWire
import HTTPWireCodec
import Testing

@testable import wire

@Suite struct OutputFormattingTests {
    @Test("a head prints as the status line and one Name: value line per field, in order")
    func headText() {
        let fields: HTTPFields = ["Content-Type": "text/plain", "Set-Cookie": "a=1"]
        var withSecond = fields
        withSecond.append(name: "Set-Cookie", value: "b=2")
        let text = HeadText.lines(version: .http1_1, status: 404, reason: "Not Found", fields: withSecond)
        #expect(text == "HTTP/1.1 404 Not Found\nContent-Type: text/plain\nSet-Cookie: a=1\nSet-Cookie: b=2\n")
        #expect(HeadText.lines(version: .http1_0, status: 200, reason: "", fields: [:]) == "HTTP/1.0 200 \n")
    }

    @Test("-v prefixes request lines with '> ', response lines with '< ', and leaves notes as they are")
    func verboseText() {
        let request = HTTPLogEvent(kind: .requestHead, text: "GET / HTTP/1.1\nHost: h")
        #expect(ClientSettings.verboseText(request) == "> GET / HTTP/1.1\n> Host: h\n")
        let response = HTTPLogEvent(kind: .responseHead, text: "HTTP/1.1 200 OK\nContent-Length: 0")
        #expect(ClientSettings.verboseText(response) == "< HTTP/1.1 200 OK\n< Content-Length: 0\n")
        let note = HTTPLogEvent(kind: .reused, text: "* reusing connection to http://h:80")
        #expect(ClientSettings.verboseText(note) == "* reusing connection to http://h:80\n")
    }

    @Test("options become the client configuration: --cacert replaces the system roots, timeouts, redirects")
    func configuration() throws {
        var command = ParsedCommand(command: .get)
        command.caFile = "/tmp/ca.pem"
        command.timeoutSeconds = 2.5
        command.connectTimeoutSeconds = 1
        command.maxRedirects = 3
        command.parallel = 20
        let configuration = ClientSettings.configuration(for: command)
        #expect(!configuration.tls.trustsSystemRoots)
        #expect(configuration.tls.additionalTrustRoots == [.file(path: "/tmp/ca.pem")])
        #expect(configuration.timeouts.total == .milliseconds(2500))
        #expect(configuration.timeouts.connect == .seconds(1))
        #expect(configuration.redirects.maxRedirects == 3)
        #expect(configuration.pool.maxConnectionsPerOrigin == 20)
        #expect(configuration.logger == nil)
        #expect(ClientSettings.configuration(for: ParsedCommand(command: .get)).tls.trustsSystemRoots)
    }

    @Test("BodyOutput writes many small pieces and large ones whole and in order")
    func bufferedOutput() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wire-output-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = BodyOutput(path: path)
        var expected: [UInt8] = []
        for index in 0..<5000 {
            let piece = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: index % 37)
            try output.write(piece)
            expected += piece
        }
        let large = [UInt8]((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try output.write(large)
        expected += large
        try output.write(text: "end\n")
        expected += Array("end\n".utf8)
        try output.close()
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }

    @Test("a failed write is localWriteFailed naming the file (exit 23)")
    func writeFailure() throws {
        let output = BodyOutput(path: "/dev/full")
        try output.write([UInt8](repeating: 1, count: 10))
        #expect(throws: HTTPWireError.localWriteFailed(path: "/dev/full", errno: ENOSPC)) { try output.close() }
        #expect(HTTPWireError.localWriteFailed(path: "/dev/full", errno: ENOSPC).exitCode == 23)
    }

    @Test("restart causes read as sentences")
    func restartExplanations() {
        #expect(DownloadCommand.explanation(of: .requested) == "--restart was given")
        #expect(
            DownloadCommand.explanation(of: .serverAnswer(.lengthChanged(expected: 10, received: 20)))
                == "the file's length changed from 10 to 20 bytes")
        #expect(DownloadCommand.explanation(of: .notResumable(.differentURL)).contains("another URL"))
    }
}
