// WireCompressionTests: `wire --compressed` as a user runs it — off by default as in curl (the gzip bytes
// as sent), on: Accept-Encoding offered and the body decoded on stdout and in a download's file, and
// exit 61 with one error line for a truncated, corrupt or bomb body.

import FixtureServer
import Foundation
import HTTPWire
import TestSupport
import Testing

@Suite(.serialized) struct WireCompressionTests {
    @Test("without --compressed the body is the gzip bytes; with it, the text", .timeLimit(.scaledMinutes(1)))
    func decodesWhenAsked() async throws {
        try await withFixtureServer { server in
            let url = server.baseURL + "compressed/20000?coding=gzip"
            let raw = try await WireProcess.run(["get", url])
            #expect(raw.status == 0, "\(raw.standardError)")
            #expect(Array(raw.outputBytes.prefix(2)) == [0x1F, 0x8B])
            let decoded = try await WireProcess.run(["get", "--compressed", "-i", url])
            #expect(decoded.status == 0, "\(decoded.standardError)")
            let text = String(decoding: CompressedRoutes.text(count: 20000), as: UTF8.self)
            #expect(decoded.standardOutput.hasSuffix("\n\n" + text))
            #expect(decoded.standardOutput.contains("X-Accept-Encoding: gzip, deflate\n"))
            #expect(!decoded.standardOutput.contains("Content-Encoding"))
        }
    }

    @Test("a download with --compressed stores a body that arrives encoded decoded", .timeLimit(.scaledMinutes(1)))
    func download() async throws {
        let directory = NSTemporaryDirectory() + "wire-compressed-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withFixtureServer { server in
            let result = try await WireProcess.run([
                "download", "--compressed", server.baseURL + "compressed/50000?coding=deflate-raw", "-o",
                directory + "/text",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(await TestFiles.contents(of: directory + "/text") == CompressedRoutes.text(count: 50000))
            #expect(server.requestLog.allSatisfy { !$0.fields.contains("Accept-Encoding") })
        }
    }

    @Test(
        "truncated, corrupt and bomb bodies exit 61 with one error line",
        .timeLimit(.scaledMinutes(1)),
        arguments: [
            ("compressed/20000?coding=gzip&fault=truncate", "the body ended before the end of the compressed stream"),
            ("compressed/20000?coding=gzip&fault=crc", "corrupt compressed data: incorrect data check"),
            ("bomb?size=1073741824", "decoded body more than 100 times larger than the bytes received"),
        ])
    func badContentEncoding(route: String, reason: String) async throws {
        try await withFixtureServer { server in
            let result = try await WireProcess.run(["get", "--compressed", server.baseURL + route, "-o", "/dev/null"])
            #expect(result.status == 61)
            #expect(result.standardError == "wire: error: bad content encoding (gzip): \(reason)\n")
        }
    }
}
