// DownloadRequestTests: downloads of any request (issue #13, item 7) and what a result tells about the
// response. A POST with a body is downloaded like a GET but never resumed: partial data on disk is discarded
// and the request goes out again without Range (RFC 9110 §14.2 defines Range for GET only). A result carries
// the final response's status and head: 200 for a whole body, 206 for a resumed one.

import Foundation
import HTTPWireCodec
import TestSupport
import Testing

@testable import FixtureServer
@testable import HTTPWire

@Suite struct DownloadRequestTests {
    /// The parts of `/echo`'s answer the tests read.
    struct Echo: Decodable {
        var method: String
        var headers: [[String]]
        var body: String
    }

    @Test(
        "a POST download sends its method, fields and body, and the result has the response head",
        .timeLimit(.scaledMinutes(1)))
    func postDownload() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let client = HTTPClient()
            var request = HTTPRequest(method: .post, url: server.baseURL + "echo")
            request.fields["Content-Type"] = "application/json"
            request.body = .bytes(Array(#"{"format":"csv"}"#.utf8))
            let destination = scratch.file("export.json")
            let result = try await client.download(request, to: destination).result()
            #expect(result.status == 200)
            #expect(result.head.status == 200)
            #expect(result.head.fields["Content-Type"]?.hasPrefix("application/json") == true)
            let echo = try JSONDecoder().decode(
                Echo.self, from: try #require(FileManager.default.contents(atPath: destination)))
            #expect(echo.method == "POST")
            #expect(echo.body == #"{"format":"csv"}"#)
            #expect(echo.headers.contains(["Content-Type", "application/json"]))
            #expect(result.bytes == Int64(try #require(FileManager.default.contents(atPath: destination)).count))
            await client.shutdown()
        }
    }

    @Test(
        "a POST download restarts instead of resuming: the partial data goes, no Range is sent",
        .timeLimit(.scaledMinutes(1))
    )
    func postRestarts() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        try await withFixtureServer { server in
            let url = server.baseURL + "echo"
            let destination = scratch.file("echo.json")
            // What an interrupted run of the same URL leaves: for a GET this would be resumed.
            try await DownloadResumeTests.stagePartial(
                destination, prefix: Array("{\"method\":\"PO".utf8), url: url, entityTag: "\"e1\"",
                expectedLength: 5000)
            let client = HTTPClient()
            var request = HTTPRequest(method: .post, url: url)
            request.body = .bytes(Array("payload".utf8))
            let (events, result) = try await DownloadResumeTests.run(client.download(request, to: destination))
            #expect(events.first == .restarted(.notResumable(.methodNotResumable)))
            #expect(result.resumedFromBytes == 0)
            let logged = try #require(server.requestLog.last)
            #expect(logged.method == .post)
            #expect(logged.fields["Range"] == nil)
            #expect(logged.fields["If-Range"] == nil)
            let echo = try JSONDecoder().decode(
                Echo.self, from: try #require(FileManager.default.contents(atPath: destination)))
            #expect(echo.body == "payload")
            await client.shutdown()
        }
    }

    @Test(
        "a resumed download's result says 206 and carries the Content-Range it finished with",
        .timeLimit(.scaledMinutes(1)))
    func resumedResultHead() async throws {
        let scratch = try DownloadScratch()
        defer { scratch.remove() }
        let content = DownloadScratch.pattern(500_000)
        try await withFixtureServer { server in
            server.setFile("h.bin", contents: content, etag: "\"h1\"")
            let url = server.baseURL + "files/h.bin"
            let destination = scratch.file("h.bin")
            let client = HTTPClient()
            let fresh = try await client.download(from: url, to: destination).result()
            #expect(fresh.status == 200)
            #expect(fresh.head.fields["ETag"] == "\"h1\"")
            try FileManager.default.removeItem(atPath: destination)
            try await DownloadResumeTests.stagePartial(
                destination, prefix: Array(content[..<200_000]), url: url, entityTag: "\"h1\"",
                expectedLength: 500_000)
            let resumed = try await client.download(from: url, to: destination).result()
            #expect(resumed.status == 206)
            #expect(resumed.head.fields["Content-Range"] == "bytes 200000-499999/500000")
            #expect(await DownloadScratch.contents(destination) == content)
            await client.shutdown()
        }
    }
}
